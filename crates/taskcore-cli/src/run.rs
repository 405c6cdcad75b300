//! `taskcore run`: a program in a private pid namespace served by the
//! core, checked live against the kernel (crate `taskcore-run`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use taskcore_run::{run as run_program, Options, RunError};

/// Arguments of `taskcore run`.
#[derive(Debug, Parser)]
pub(crate) struct Args {
    /// `pid_max` of the virtual pid namespace (301..=4194304).
    #[arg(long, default_value_t = 32768)]
    pid_max: u32,
    /// The virtual pid the command gets (init, the supervisor, is 1).
    #[arg(long, default_value_t = 2)]
    first_pid: i32,
    /// Serve the namespace without comparing the core's answers with the
    /// kernel's.
    #[arg(long)]
    no_check: bool,
    /// Write a JSON summary (calls served, checked, divergences, tasks
    /// created) to FILE.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Draw the run's processes over time in FILE: an HTML page, or with
    /// a `.json` name the Chrome trace-event format (as `replay
    /// --timeline`).
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Mount the namespace's emulated /proc over /proc for the command (a
    /// private mount namespace; needs root): `ps` inside lists the virtual
    /// pids.
    #[arg(long)]
    proc: bool,
    /// Print the summary on stderr at the end.
    #[arg(long, short)]
    verbose: bool,
    /// The command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

/// The mounted emulated `/proc` of a run: unmounted, and its directory
/// removed, when dropped.
struct ProcMount {
    session: Option<fuser::BackgroundSession>,
    dir: PathBuf,
}

impl Drop for ProcMount {
    fn drop(&mut self) {
        drop(self.session.take());
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Mounts the live `/proc` for `opts` on a new directory and points
/// `opts` at it.
fn mount_proc(opts: &mut Options) -> Result<ProcMount, String> {
    // SAFETY: geteuid reads this process's credentials.
    if unsafe { libc::geteuid() } != 0 {
        return Err("needs root: the command gets a private mount namespace \
                    (CAP_SYS_ADMIN) with the emulated /proc bound over /proc"
            .into());
    }
    let dir = std::env::temp_dir().join(format!("taskcore-run-proc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let lv = taskcore_run::LiveView::new();
    let session = crate::proc::fuse::mount_live(lv.clone(), &dir)?;
    opts.live_view = Some(lv);
    opts.proc_dir = Some(dir.clone());
    Ok(ProcMount {
        session: Some(session),
        dir,
    })
}

/// Runs the command; exits with its status (128 + signal if killed), or
/// 125 when it could not be run (as `env`, `timeout` and `unshare` do).
pub(crate) fn run(args: Args) -> ExitCode {
    let title = format!("taskcore run -- {}", args.command.join(" "));
    let mut opts = Options::new(args.command);
    opts.timeline = args.timeline.is_some();
    opts.pid_max = args.pid_max;
    opts.first_pid = args.first_pid;
    opts.check = !args.no_check;
    // --proc: the FUSE /proc on a directory of its own, bound over /proc
    // in the command's mount namespace; unmounted when `_mounted` goes.
    let mut _mounted = None;
    if args.proc {
        match mount_proc(&mut opts) {
            Ok(m) => _mounted = Some(m),
            Err(e) => {
                eprintln!("taskcore run: --proc: {e}");
                return ExitCode::from(125);
            }
        }
    }
    let report = match run_program(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("taskcore run: {e}");
            return ExitCode::from(match e {
                RunError::NoCommand | RunError::BadOption(_) => 2,
                _ => 125,
            });
        }
    };
    if args.verbose || !report.divergences.is_empty() {
        eprintln!(
            "taskcore run: {} calls served, {} answers checked, {} divergences, {} tasks, {:.3} s",
            report.calls_served,
            report.checked,
            report.divergences.len(),
            report.tasks_created,
            report.elapsed_s
        );
    }
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&report).expect("a report serializes");
        if let Err(e) = std::fs::write(path, json + "\n") {
            eprintln!("taskcore run: cannot write {}: {e}", path.display());
            return ExitCode::from(125);
        }
    }
    if let (Some(path), Some(t)) = (&args.timeline, &report.timeline) {
        match crate::timeline::write(path, &title, &t.records, &t.marks) {
            Ok(n) if args.verbose => {
                eprintln!(
                    "taskcore run: timeline: {n} processes written to {}",
                    path.display()
                )
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("taskcore run: cannot write {}: {e}", path.display());
                return ExitCode::from(125);
            }
        }
    }
    ExitCode::from(report.exit_status.clamp(0, 255) as u8)
}
