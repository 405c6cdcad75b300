//! `taskcore bench EXPERIMENT`: the seeds' experiments, taskcore beside the
//! old algorithms in the same run.

use std::process::ExitCode;

pub(crate) mod readdir;

/// Arguments of `taskcore bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Experiment name, or `all`.
    pub(crate) experiment: String,
}

pub(crate) fn run(args: Args) -> ExitCode {
    eprintln!("taskcore bench: unknown experiment '{}'", args.experiment);
    ExitCode::from(2)
}
