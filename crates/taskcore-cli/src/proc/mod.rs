//! `taskcore proc`: the emulated `/proc`, written out or served live.
//!
//! - `source`: the process table served (generated, or a replayed trace);
//! - `export`: `taskcore proc export DIR`, a snapshot directory tree;
//! - `fuse`: `taskcore proc mount DIR [-- CMD...]`, served through FUSE.
//!
//! Real tools read it inside a private mount namespace, e.g.
//! `unshare -m taskcore proc mount /proc --processes 20 -- ps -ef`.

mod export;
mod fuse;
pub(crate) mod source;

use std::path::PathBuf;
use std::process::ExitCode;

use taskcore::procfs::ProcClock;

/// Arguments of `taskcore proc`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
}

/// `taskcore proc` subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Cmd {
    /// Write the emulated /proc as a directory tree (for `mount --bind DIR
    /// /proc` in a private mount namespace).
    Export {
        /// Directory to write (created if missing).
        dir: PathBuf,
        #[command(flatten)]
        source: source::SourceArgs,
    },
    /// Serve the emulated /proc at DIR through FUSE. With `-- CMD ARGS...`,
    /// run CMD while mounted, then unmount and exit with its status;
    /// otherwise serve until SIGINT/SIGTERM/SIGHUP.
    Mount {
        /// Mount point (e.g. /proc inside `unshare -m`).
        dir: PathBuf,
        #[command(flatten)]
        source: source::SourceArgs,
        /// Command to run while mounted.
        #[arg(last = true)]
        command: Vec<String>,
    },
}

pub(crate) fn run(args: Args) -> ExitCode {
    let r = match args.cmd {
        Cmd::Export { dir, source } => source::load(&source).and_then(|l| {
            let clock = ProcClock::from_kernel(&l.kernel, l.boot_wall_s);
            let w = export::export(&l.kernel, clock, &dir)?;
            eprintln!(
                "taskcore proc: wrote {} ({} dirs, {} files, {} links, {} bytes)",
                dir.display(),
                w.dirs,
                w.files,
                w.links,
                w.bytes
            );
            Ok(ExitCode::SUCCESS)
        }),
        Cmd::Mount {
            dir,
            source,
            command,
        } => source::load(&source).and_then(|l| fuse::mount(l, &dir, &command)),
    };
    r.unwrap_or_else(|msg| {
        eprintln!("taskcore proc: {msg}");
        ExitCode::FAILURE
    })
}
