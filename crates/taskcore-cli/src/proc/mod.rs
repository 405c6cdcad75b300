//! `taskcore proc`: the emulated `/proc`, written out or served live.
//!
//! - `source`: the process table served (generated, or a replayed trace);
//! - `export`: `taskcore proc export DIR`, a snapshot directory tree;
//! - `fuse`: `taskcore proc mount DIR [-- CMD...]`, served through FUSE.
//!
//! Real tools read it inside a private mount namespace, e.g.
//! `unshare -m taskcore proc mount /proc --processes 20 -- ps -ef`.

mod export;
pub(crate) mod fuse;
mod guard;
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
        /// Directory to write (created if missing; must be empty unless
        /// --force).
        dir: PathBuf,
        /// Clear a non-empty DIR first (stale pid directories would
        /// otherwise stay).
        #[arg(long)]
        force: bool,
        /// Also write DIR/PID/stat (a copy of the real one) for the real
        /// process PID that will read the tree: procps (`ps`) fails with
        /// "fatal library error, lookup self" without an entry for its own
        /// pid. E.g. `unshare -m sh -c 'taskcore proc export D --force
        /// --reader-pid $$ && mount --bind D /proc && exec ps -ef'`.
        #[arg(long, value_name = "PID")]
        reader_pid: Option<u32>,
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
        Cmd::Export {
            dir,
            force,
            reader_pid,
            source,
        } => source::load(&source).and_then(|l| {
            let clock = ProcClock::from_kernel(&l.kernel, l.boot_wall_s);
            export::prepare(&dir, force)?;
            let w = export::export(&l.kernel, clock, &dir)?;
            if let Some(pid) = reader_pid {
                export::reader_entry(&dir, pid)?;
            }
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
        } => guard::check_mount_point(&dir)
            .and_then(|()| source::load(&source))
            .and_then(|l| fuse::mount(l, &dir, &command)),
    };
    r.unwrap_or_else(|msg| {
        eprintln!("taskcore proc: {msg}");
        ExitCode::FAILURE
    })
}
