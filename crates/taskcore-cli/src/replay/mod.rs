//! `taskcore replay`: drive the core with the process events of real
//! `strace -f` recordings and check every recorded result.

use std::process::ExitCode;

/// Arguments of `taskcore replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Trace files (`strace -f -ttt` output, plain or .gz). Default: the
    /// bundled traces.
    pub(crate) files: Vec<std::path::PathBuf>,
    /// Print the summary as one JSON object on the last line of stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(_args: Args) -> ExitCode {
    eprintln!("taskcore replay: not yet wired to the parser");
    ExitCode::from(2)
}
