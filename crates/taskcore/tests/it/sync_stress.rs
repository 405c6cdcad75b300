//! 8 threads share one kernel through [`taskcore::sync::SharedKernel`] and
//! do fork, exit, exit_group, wait (blocking and WNOHANG), kill, setpgid
//! and procfs reads at random for a bounded time
//! (`TASKCORE_STRESS_SECS`, default 5: CI's share; 60 or more for a
//! real stress run). A ninth thread plays the
//! scheduler: it runs children a blocked waiter is waiting for (exits them
//! on request).
//!
//! Checks: no lost wake-up (every blocking wait returns once a child it can
//! reap exists: a 10 s timeout fails the test); no task lost (everything
//! forked is reaped or still there at the end); no pid reused while a task
//! holding it is unreaped; the invariants hold at the end. Prints the
//! operations per second and the longest wake-up latency (from the exit that
//! made a child reapable to the blocked waiter's return).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::sync::{Blocking, SharedKernel};
use taskcore::uapi::{SIGCONT, WNOHANG};
use taskcore::{Config, Kernel, TaskId};

const WORKERS: usize = 8;

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[derive(Default)]
struct Shared {
    /// Children a blocked waiter wants run to exit: (child, asked at).
    requests: Mutex<VecDeque<TaskId>>,
    /// When a child was made reapable, for latency.
    exited_at: Mutex<HashMap<TaskId, Instant>>,
    /// Emulated pid -> unreaped task holding it.
    holders: Mutex<HashMap<i32, TaskId>>,
    /// The workers are done: the scheduler may stop (it serves blocked
    /// waiters until then, also after `stop`).
    workers_done: AtomicBool,
    forked: AtomicU64,
    reaped: AtomicU64,
    ops: AtomicU64,
    blocking_waits: AtomicU64,
    max_latency_ns: AtomicU64,
    stop: AtomicBool,
}

/// Called under the kernel lock: the new child's pid must not belong to
/// any unreaped task (the previous holder, if any, must be gone).
fn record_fork(sh: &Shared, k: &Kernel, init: TaskId, t: TaskId) {
    let pid = k.pid_vnr(init, t).unwrap();
    if let Some(old) = sh.holders.lock().unwrap().insert(pid, t) {
        assert!(
            k.getpid(old).is_err(),
            "pid {pid} reused while {old:?} is unreaped"
        );
    }
    sh.forked.fetch_add(1, Ordering::Relaxed);
}

/// A wait reported `pid`: its holder is gone (the pid may already have a
/// new holder: a fork can run between the wait and this call).
fn record_reap(sh: &Shared, pid: i32) {
    let known = sh.holders.lock().unwrap().contains_key(&pid);
    assert!(known, "pid {pid} reaped but never forked");
    sh.reaped.fetch_add(1, Ordering::Relaxed);
}

fn worker(k: &SharedKernel, sh: &Shared, init: TaskId, me: TaskId, seed: u64) {
    let mut rng = Rng(seed);
    let mut kids: Vec<TaskId> = Vec::new();
    while !sh.stop.load(Ordering::Relaxed) {
        sh.ops.fetch_add(1, Ordering::Relaxed);
        kids.retain(|&c| k.read(|k| k.getpid(c).is_ok()));
        match rng.below(9) {
            0 | 1 if kids.len() < 16 => {
                let ((), _) = k.call(|k| {
                    if let Ok(c) = k.fork(me) {
                        record_fork(sh, k, init, c);
                        kids.push(c);
                    }
                });
            }
            2 if !kids.is_empty() => {
                let c = kids[rng.below(kids.len() as u64) as usize];
                k.call(|k| {
                    if k.exit_group(c, 7).is_ok() {
                        sh.exited_at.lock().unwrap().insert(c, Instant::now());
                    }
                });
            }
            3 if !kids.is_empty() => {
                let c = kids[rng.below(kids.len() as u64) as usize];
                k.call(|k| {
                    if k.exit(c, 1).is_ok() {
                        sh.exited_at.lock().unwrap().insert(c, Instant::now());
                    }
                });
            }
            4 => {
                if let Ok(Blocking::Reported(r)) = k.wait4(me, -1, WNOHANG, None) {
                    record_reap(sh, r.pid);
                }
            }
            5 if !kids.is_empty() => {
                // Block until a child exits: ask the scheduler to run one.
                let c = kids[rng.below(kids.len() as u64) as usize];
                sh.requests.lock().unwrap().push_back(c);
                sh.blocking_waits.fetch_add(1, Ordering::Relaxed);
                match k.wait4(me, -1, 0, Some(Duration::from_secs(10))) {
                    Ok(Blocking::Reported(r)) => {
                        let child = sh.holders.lock().unwrap().get(&r.pid).copied();
                        if let Some(at) =
                            child.and_then(|c| sh.exited_at.lock().unwrap().remove(&c))
                        {
                            let ns = at.elapsed().as_nanos() as u64;
                            sh.max_latency_ns.fetch_max(ns, Ordering::Relaxed);
                        }
                        record_reap(sh, r.pid);
                    }
                    Ok(Blocking::TimedOut) => panic!("lost wake-up: a blocking wait slept 10 s"),
                    other => panic!("blocking wait with children: {other:?}"),
                }
            }
            6 if !kids.is_empty() => {
                let c = kids[rng.below(kids.len() as u64) as usize];
                let sig = if rng.below(4) == 0 { 9 } else { SIGCONT };
                k.call(|k| {
                    // A reaped child has no pid (never kill 0: the group).
                    let Ok(pid) = k.pid_vnr(me, c) else { return };
                    if k.kill(me, pid, sig).is_ok() && sig == 9 {
                        sh.exited_at.lock().unwrap().insert(c, Instant::now());
                    }
                });
            }
            7 if !kids.is_empty() => {
                let c = kids[rng.below(kids.len() as u64) as usize];
                k.call(|k| {
                    if let Ok(pid) = k.pid_vnr(me, c) {
                        let _ = k.setpgid(me, pid, 0);
                    }
                });
            }
            _ => {
                k.read(|k| {
                    let fs = ProcFs::new(k, k.root_ns(), ProcClock::from_kernel(k, 0)).unwrap();
                    let pid = k.pid_vnr(init, me).unwrap();
                    let node = fs.resolve(format!("{pid}/stat").as_bytes()).unwrap();
                    assert!(!fs.read(node).unwrap().is_empty());
                });
            }
        }
    }
    // Reap everything left.
    for &c in &kids {
        let _ = k.call(|k| k.exit_group(c, 0));
    }
    while let Ok(Blocking::Reported(r)) = k.wait4(me, -1, WNOHANG, None) {
        record_reap(sh, r.pid);
    }
}

fn scheduler(k: &SharedKernel, sh: &Shared) {
    while !sh.workers_done.load(Ordering::Relaxed) {
        let next = sh.requests.lock().unwrap().pop_front();
        let Some(c) = next else {
            std::thread::sleep(Duration::from_micros(50));
            continue;
        };
        k.call(|k| {
            if k.exit_group(c, 3).is_ok() {
                sh.exited_at.lock().unwrap().insert(c, Instant::now());
            }
        });
    }
}

#[test]
fn eight_threads_fork_exit_wait_without_lost_wakeups() {
    let secs: u64 = std::env::var("TASKCORE_STRESS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let mut kernel = Kernel::new(Config {
        pid_max: 4096,
        ..Config::default()
    })
    .unwrap();
    let init = kernel.init_task().unwrap();
    let workers: Vec<TaskId> = (0..WORKERS).map(|_| kernel.fork(init).unwrap()).collect();
    kernel.take_notifications();
    let k = Arc::new(SharedKernel::new(kernel));
    let sh = Arc::new(Shared::default());
    let t0 = Instant::now();
    let mut handles = Vec::new();
    for (i, &me) in workers.iter().enumerate() {
        let (k, sh) = (Arc::clone(&k), Arc::clone(&sh));
        handles.push(std::thread::spawn(move || {
            worker(&k, &sh, init, me, 0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1))
        }));
    }
    let sched = {
        let (k, sh) = (Arc::clone(&k), Arc::clone(&sh));
        std::thread::spawn(move || scheduler(&k, &sh))
    };
    std::thread::sleep(Duration::from_secs(secs));
    sh.stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().expect("a worker failed");
    }
    sh.workers_done.store(true, Ordering::Relaxed);
    sched.join().expect("the scheduler failed");
    let elapsed = t0.elapsed().as_secs_f64();
    let (forked, reaped) = (
        sh.forked.load(Ordering::Relaxed),
        sh.reaped.load(Ordering::Relaxed),
    );
    k.read(|k| {
        k.check_invariants();
        // Only init and the workers are left: nothing lost.
        assert_eq!(
            k.nr_tasks(),
            1 + WORKERS,
            "forked {forked}, reaped {reaped}"
        );
    });
    assert_eq!(forked, reaped);
    // Every pid's last holder was reaped.
    k.read(|k| {
        for (pid, t) in sh.holders.lock().unwrap().iter() {
            assert!(k.getpid(*t).is_err(), "pid {pid} still held by {t:?}");
        }
    });
    let ops = sh.ops.load(Ordering::Relaxed);
    eprintln!(
        "sync stress: {WORKERS} threads, {elapsed:.1} s: {ops} operations ({:.0}/s), {forked} forks, {} blocking waits, longest wake-up {:.1} us",
        ops as f64 / elapsed,
        sh.blocking_waits.load(Ordering::Relaxed),
        sh.max_latency_ns.load(Ordering::Relaxed) as f64 / 1e3
    );
    assert!(sh.blocking_waits.load(Ordering::Relaxed) > 0);
}
