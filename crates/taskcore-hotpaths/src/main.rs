//! The hot paths whose instruction counts `scripts/check-instructions.sh`
//! holds against their budgets: `hotpaths OP ITERS` runs OP ITERS times.
//! Under `valgrind --tool=callgrind`, (total at 2N − total at N) / N is the
//! cost of one OP: the setup cancels out.
//!
//! OP (each its own setup, the same at every ITERS):
//! - `fork_exit_wait`: init with one other child; fork + `exit_group` +
//!   `wait4`, alternating `wait4(pid)` and `wait4(-1)` (as `prof_loop 1`).
//! - `clone_thread`: a process with 100 children; `clone(CLONE_THREAD...)`
//!   + `exit` of the thread (autoreaped).
//! - `kill`: `kill(pid, 0)` of one of those children by its parent.
//! - `setpgid`: the parent moves a child between two process groups.
//! - `getppid`: the child asks for its parent's pid.
//! - `wait_nothing`: `wait4(-1, WNOHANG)` by the parent, none of whose 100
//!   children has anything to report.
use taskcore::{CloneArgs, Config, Kernel, WaitOptions};

fn main() {
    let op = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fork_exit_wait".into());
    let iters: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut k = Kernel::new(Config {
        pid_max: 4 << 20,
        ..Config::default()
    })
    .unwrap();
    let init = k.init_task().unwrap();
    if op == "fork_exit_wait" {
        k.fork(init).unwrap();
        k.take_notifications();
        for i in 0..iters {
            let c = k.fork(init).unwrap();
            let pid = k.pid_vnr(init, c).unwrap();
            k.exit_group(c, 0).unwrap();
            k.wait4(init, if i % 2 == 0 { pid } else { -1 }, 0).unwrap();
            if i % 1024 == 0 {
                k.take_notifications();
            }
        }
        return;
    }
    let w = k.fork(init).unwrap();
    let mut child = w;
    for _ in 0..100 {
        child = k.fork(w).unwrap();
    }
    k.take_notifications();
    let pid = k.pid_vnr(w, child).unwrap();
    let wpgid = k.getpgid(w, 0).unwrap();
    let args = CloneArgs::thread();
    // Decoded once: a string match per iteration would be counted as the
    // operation's.
    #[derive(Clone, Copy)]
    enum Op {
        CloneThread,
        Kill,
        Setpgid,
        Getppid,
        WaitNothing,
    }
    let which = match op.as_str() {
        "clone_thread" => Op::CloneThread,
        "kill" => Op::Kill,
        "setpgid" => Op::Setpgid,
        "getppid" => Op::Getppid,
        "wait_nothing" => Op::WaitNothing,
        _ => {
            eprintln!("hotpaths: unknown OP {op}");
            std::process::exit(2);
        }
    };
    for i in 0..iters {
        match which {
            Op::CloneThread => {
                let t = k.clone(w, &args).unwrap();
                k.exit(t, 0).unwrap();
            }
            Op::Kill => k.kill(w, pid, 0).unwrap(),
            Op::Setpgid => k
                .setpgid(w, pid, if i % 2 == 0 { pid } else { wpgid })
                .unwrap(),
            Op::Getppid => {
                std::hint::black_box(k.getppid(std::hint::black_box(child)).unwrap());
            }
            Op::WaitNothing => {
                std::hint::black_box(k.wait4(w, -1, WaitOptions::NOHANG).unwrap());
            }
        }
        if i % 1024 == 0 {
            k.take_notifications();
        }
    }
}
