//! The `taskcore` command: `replay` checks the process core against real
//! `strace -f` recordings; `run` serves a live program's pid namespace;
//! `bench` runs the experiments of the seed patches (crate `taskcore-bench`).
//!
//! All I/O, printing and exit codes live here; the library does none.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod proc;
mod replay;
mod run;
mod timeline;

/// Linux-compatible process-management core: replay, benchmarks, /proc.
#[derive(Debug, Parser)]
#[command(name = "taskcore", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay `strace -f -ttt` recordings (plain or .gz) against the core and
    /// check every recorded result. With no FILE, replays the bundled traces.
    Replay(replay::Args),
    /// Run a benchmark experiment (`all` runs every one). Seeds 000-004 are
    /// the five Linux patch threads the design follows; BENCHMARKS.md has
    /// the tables and what to expect on another machine.
    Bench(taskcore_bench::Args),
    /// The emulated /proc: `export DIR` writes it, `mount DIR` serves it
    /// through FUSE.
    Proc(proc::Args),
    /// Run a program in a private pid namespace served by the core, every
    /// process-management answer checked against the real kernel as it
    /// runs (ptrace + seccomp; see docs/run.md).
    Run(run::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Bench(args) => taskcore_bench::run(args, replay::bundled),
        Command::Proc(args) => proc::run(args),
        Command::Run(args) => run::run(args),
    }
}
