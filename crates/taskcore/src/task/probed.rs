//! The kernel's side of the return probes: [`Kernel::probed`], which
//! every public operation goes through, and [`OpRet`], what a return
//! handler sees of an operation's result.

use std::sync::Arc;

use crate::errno::Result;
use crate::ix::TaskId;
use crate::probe::hook::{run_armed, KernelProbes};
use crate::probe::instance::RetVal;
use crate::probe::op::Op;
use crate::probe::set::ProbeSet;
use crate::task::kernel::Kernel;
use crate::task::signal::sigmask::SigWait;
use crate::task::state::delivery::SignalAction;
use crate::task::state::sighand::SigAction;
use crate::wait::WaitOutcome;

/// # Probes: kretprobe-style return probes on every operation.
impl Kernel {
    /// Runs `body`, the operation `op` called for `current`, with the
    /// probes of this kernel's set on `op` around it.
    ///
    /// With nothing registered on `op` this costs one relaxed atomic load
    /// and a test (and, right after the set changed, dropping a stale
    /// registry once). Otherwise: fetch the registry (cached per kernel),
    /// enter each probe, run `body`, run the return handlers. `body`'s
    /// result is returned unchanged.
    ///
    /// # Linux
    /// The kretprobe trampoline: `pre_handler_kretprobe()` at entry,
    /// `__kretprobe_trampoline_handler()` at return (kernel/kprobes.c).
    #[inline(always)]
    pub(crate) fn probed<T: OpRet>(
        &mut self,
        op: Op,
        current: TaskId,
        body: impl FnOnce(&mut Kernel) -> Result<T>,
    ) -> Result<T> {
        if !self.probes.armed(op) {
            let r = body(self);
            // The end of the operation: its marked wait edges are synced.
            self.flush_wait_edges();
            return r;
        }
        self.probed_slow(op, current, |k| {
            let r = body(k);
            k.flush_wait_edges();
            r
        })
    }

    /// The armed path of [`probed`](Self::probed).
    #[inline(never)]
    fn probed_slow<T: OpRet>(
        &mut self,
        op: Op,
        current: TaskId,
        body: impl FnOnce(&mut Kernel) -> Result<T>,
    ) -> Result<T> {
        let reg = self.probes.take_registry();
        let r = run_armed(&reg, self, op, current, body, |r, k| {
            retval_of(r, k, current)
        });
        self.probes.put_registry(reg);
        r
    }

    /// The probe set whose probes this kernel's operations fire.
    ///
    /// Each kernel starts with an empty set of its own;
    /// [`snapshot`](Kernel::snapshot)s share their kernel's. Register
    /// probes on it, or give the kernel a shared set with
    /// [`set_probes`](Kernel::set_probes).
    ///
    /// # Linux
    /// The global kprobe table (kernel/kprobes.c); here one per group of
    /// kernels.
    ///
    /// # Examples
    /// ```
    /// use taskcore::probe::{KretprobeBuilder, OpSet};
    /// use taskcore::{Config, Kernel};
    /// let k = Kernel::new(Config::default()).unwrap();
    /// let p = KretprobeBuilder::new(OpSet::ALL, 2).build().unwrap();
    /// k.probes().register(&p).unwrap();
    /// assert_eq!(k.probes().armed(), OpSet::ALL);
    /// ```
    pub fn probes(&self) -> &Arc<ProbeSet> {
        self.probes.set()
    }

    /// Makes this kernel fire the probes of `set` (which other kernels may
    /// share) instead of its current set's, from its next operation on.
    ///
    /// # Linux
    /// No Linux analogue (one kprobe table per machine).
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use taskcore::probe::ProbeSet;
    /// use taskcore::{Config, Kernel};
    /// let set = Arc::new(ProbeSet::new());
    /// let mut a = Kernel::new(Config::default()).unwrap();
    /// let mut b = Kernel::new(Config::default()).unwrap();
    /// a.set_probes(Arc::clone(&set));
    /// b.set_probes(Arc::clone(&set));
    /// assert!(Arc::ptr_eq(a.probes(), b.probes()));
    /// ```
    pub fn set_probes(&mut self, set: Arc<ProbeSet>) {
        self.probes = KernelProbes::new(set);
    }
}

/// The success values of probed operations, summarised as a [`RetVal`].
pub(crate) trait OpRet {
    /// The syscall return value of `self`, an operation's `Ok` value;
    /// `current` was the caller (`k` is the state after the call).
    fn retval(&self, k: &Kernel, current: TaskId) -> RetVal;
}

impl OpRet for () {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        RetVal::Value(0)
    }
}

impl OpRet for bool {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        // Not a system call: whether the thread stopped.
        RetVal::Value(i64::from(*self))
    }
}

impl OpRet for i32 {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        RetVal::Value(i64::from(*self))
    }
}

impl OpRet for u64 {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        // The register's bits, as Linux returns an address.
        RetVal::Value(*self as i64)
    }
}

impl OpRet for SigAction {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        // rt_sigaction returns 0; the old action goes to *oldact.
        RetVal::Value(0)
    }
}

impl OpRet for SignalAction {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        // Not a system call: the signal number taken, or 0.
        match self {
            SignalAction::Handler { sig, .. } => RetVal::Value(i64::from(*sig)),
            _ => RetVal::Value(0),
        }
    }
}

impl OpRet for SigWait {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        match self {
            SigWait::Signal(info) => RetVal::Value(i64::from(info.signo)),
            _ => RetVal::WouldBlock,
        }
    }
}

impl OpRet for TaskId {
    fn retval(&self, k: &Kernel, current: TaskId) -> RetVal {
        // clone returns the child's pid in the caller's namespace. The
        // caller is alive (it just cloned), so this lookup succeeds.
        RetVal::Value(k.pid_vnr(current, *self).map_or(0, i64::from))
    }
}

impl OpRet for WaitOutcome {
    fn retval(&self, _: &Kernel, _: TaskId) -> RetVal {
        match self {
            WaitOutcome::Reported(r) => RetVal::Value(i64::from(r.pid)),
            WaitOutcome::NothingYet => RetVal::Value(0),
            WaitOutcome::WouldBlock => RetVal::WouldBlock,
            // -ERESTARTSYS (512), as the register holds it.
            WaitOutcome::Interrupted => RetVal::Value(-512),
        }
    }
}

/// The [`RetVal`] of an operation's result.
pub(crate) fn retval_of<T: OpRet>(r: &Result<T>, k: &Kernel, current: TaskId) -> RetVal {
    match r {
        Ok(v) => v.retval(k, current),
        Err(e) => RetVal::Err(*e),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    use std::sync::{Barrier, Mutex};

    use super::*;
    use crate::errno::Errno;
    use crate::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ, PROT_WRITE};
    use crate::probe::kretprobe::Kretprobe;
    use crate::probe::kretprobe::KretprobeBuilder;
    use crate::probe::op::OpSet;
    use crate::probe::set::counters;
    use crate::task::kernel::Config;
    use crate::uapi::{SIGTERM, WNOHANG};

    fn kernel() -> (Kernel, TaskId) {
        let k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        (k, init)
    }

    /// What a recording probe saw: `(op, current, retval, call number)`
    /// per return, and the entries.
    #[derive(Default)]
    struct Log {
        entries: AtomicU64,
        returns: Mutex<Vec<(Op, TaskId, RetVal, u64)>>,
    }

    impl Log {
        fn returns(&self) -> Vec<(Op, TaskId, RetVal, u64)> {
            self.returns.lock().unwrap().clone()
        }
    }

    /// A probe on `ops` that numbers calls at entry (in `data[0]`, with the
    /// op in `data[1]`) and logs them at return.
    fn recorder(ops: OpSet, maxactive: usize, log: &Arc<Log>) -> Arc<Kretprobe> {
        let (e, r) = (Arc::clone(log), Arc::clone(log));
        KretprobeBuilder::new(ops, 2)
            .maxactive(maxactive)
            .entry_handler(move |inst| {
                assert_eq!(inst.retval(), None);
                assert_eq!(inst.data, [0; 4], "data is zeroed at entry");
                inst.data[0] = e.entries.fetch_add(1, Relaxed) + 1;
                inst.data[1] = inst.op() as u64;
                true
            })
            .handler(move |inst| {
                assert_eq!(inst.data[1], inst.op() as u64, "data carried");
                let ret = inst.retval().expect("set at return");
                let row = (inst.op(), inst.current(), ret, inst.data[0]);
                r.returns.lock().unwrap().push(row);
            })
            .build()
            .unwrap()
    }

    /// Runs `f` and returns `(state loads, slow paths)` it caused on this
    /// thread.
    fn count(f: impl FnOnce()) -> (u64, u64) {
        let (l0, s0) = counters::read();
        f();
        let (l1, s1) = counters::read();
        (l1 - l0, s1 - s0)
    }

    /// One public call on a kernel, given the latest child and address.
    type Call<'a> = dyn Fn(&mut Kernel, &mut TaskId, &mut u64) + 'a;

    #[test]
    fn an_unarmed_call_costs_one_state_load_and_no_slow_path() {
        let (mut k, init) = kernel();
        let mut c = TaskId { idx: 0, gen: 0 };
        let ign = SigAction::new(crate::task::state::sighand::SigHandler::Ignore, 0);
        let anon = MAP_PRIVATE | MAP_ANONYMOUS;
        let mut addr = 0;
        // Each closure makes exactly one public call.
        let calls: Vec<(Op, Box<Call<'_>>)> = vec![
            (Op::Fork, Box::new(|k, c, _| *c = k.fork(init).unwrap())),
            (
                Op::Setpgid,
                Box::new(|k, c, _| k.setpgid(*c, 0, 0).unwrap()),
            ),
            (
                Op::Setsid,
                Box::new(|k, c, _| assert_eq!(k.setsid(*c), Err(Errno::EPERM))),
            ),
            (
                Op::RtSigaction,
                Box::new(move |k, c, _| assert!(k.rt_sigaction(*c, SIGTERM, Some(ign)).is_ok())),
            ),
            (Op::Kill, Box::new(|k, _, _| k.kill(init, 0, 0).unwrap())),
            (
                Op::Execve,
                Box::new(|k, c, _| k.execve_argv(*c, "/bin/true", &[b"true"]).unwrap()),
            ),
            (
                Op::Mmap,
                Box::new(move |k, c, a| {
                    *a = k.mmap(*c, 0, 8192, PROT_READ, anon, None, 0).unwrap()
                }),
            ),
            (
                Op::Mprotect,
                Box::new(|k, c, a| k.mprotect(*c, *a, 4096, PROT_WRITE).unwrap()),
            ),
            (
                Op::Munmap,
                Box::new(|k, c, a| k.munmap(*c, *a, 8192).unwrap()),
            ),
            (Op::Brk, Box::new(|k, c, _| assert!(k.brk(*c, 0).is_ok()))),
            (Op::Vfork, Box::new(|k, c, _| assert!(k.vfork(*c).is_ok()))),
            (
                Op::ExitGroup,
                Box::new(|k, c, _| k.exit_group(*c, 0).unwrap()),
            ),
            (
                Op::Wait4,
                Box::new(|k, _, _| {
                    assert!(matches!(
                        k.wait4(init, -1, WNOHANG),
                        Ok(WaitOutcome::Reported(_))
                    ))
                }),
            ),
        ];
        for (op, call) in &calls {
            assert_eq!(count(|| call(&mut k, &mut c, &mut addr)), (1, 0), "{op}");
        }
        // Armed on kill only: every other op still takes the fast path.
        let log = Arc::new(Log::default());
        let p = recorder(OpSet::of(Op::Kill), 4, &log);
        k.probes().register(&p).unwrap();
        for (op, call) in &calls {
            let slow = u64::from(*op == Op::Kill);
            assert_eq!(count(|| call(&mut k, &mut c, &mut addr)), (1, slow), "{op}");
        }
        assert_eq!(log.returns().len(), 1);
    }

    #[test]
    fn entry_and_return_pair_and_see_the_call_and_its_result() {
        let (mut k, init) = kernel();
        let log = Arc::new(Log::default());
        let p = recorder(OpSet::ALL, 4, &log);
        k.probes().register(&p).unwrap();
        let a = k.fork(init).unwrap();
        let pa = k.pid_vnr(init, a).unwrap();
        assert_eq!(k.kill(init, pa, 99), Err(Errno::EINVAL));
        assert_eq!(k.wait4(init, -1, 0), Ok(WaitOutcome::WouldBlock));
        k.exit_group(a, 3).unwrap();
        assert!(matches!(k.wait4(init, pa, 0), Ok(WaitOutcome::Reported(_))));
        assert_eq!(k.wait4(init, -1, WNOHANG), Err(Errno::ECHILD));
        let addr = k
            .mmap(
                init,
                0,
                4096,
                PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS,
                None,
                0,
            )
            .unwrap();
        assert_eq!(
            log.returns(),
            [
                (Op::Fork, init, RetVal::Value(i64::from(pa)), 1),
                (Op::Kill, init, RetVal::Err(Errno::EINVAL), 2),
                (Op::Wait4, init, RetVal::WouldBlock, 3),
                (Op::ExitGroup, a, RetVal::Value(0), 4),
                (Op::Wait4, init, RetVal::Value(i64::from(pa)), 5),
                (Op::Wait4, init, RetVal::Err(Errno::ECHILD), 6),
                (Op::Mmap, init, RetVal::Value(addr as i64), 7),
            ]
        );
        assert_eq!(p.nmissed(), 0);
        drop(k);
        let mut p = p;
        assert_eq!(Arc::get_mut(&mut p).unwrap().check_invariants(), 4);
    }

    #[test]
    fn a_nested_call_finds_the_pool_empty_and_is_missed() {
        // The entry handler of a call on kernel A forks on kernel B (same
        // set) while holding the only instance.
        let set = Arc::new(ProbeSet::new());
        let (mut a, a_init) = kernel();
        let (mut b, b_init) = kernel();
        a.set_probes(Arc::clone(&set));
        b.set_probes(Arc::clone(&set));
        let b = Arc::new(Mutex::new(b));
        let inner = Arc::clone(&b);
        let returns = Arc::new(AtomicU64::new(0));
        let r = Arc::clone(&returns);
        let nest = Arc::new(AtomicBool::new(true));
        let n = Arc::clone(&nest);
        let p = KretprobeBuilder::new(OpSet::of(Op::Fork), 2)
            .maxactive(1)
            .entry_handler(move |_| {
                if n.swap(false, Relaxed) {
                    inner.lock().unwrap().fork(b_init).unwrap();
                }
                true
            })
            .handler(move |_| {
                r.fetch_add(1, Relaxed);
            })
            .build()
            .unwrap();
        set.register(&p).unwrap();
        a.fork(a_init).unwrap();
        assert_eq!((p.nmissed(), returns.load(Relaxed)), (1, 1));
        assert_eq!(b.lock().unwrap().nr_processes(), 2, "the missed fork ran");
        // Nothing in flight: the next call is traced again.
        b.lock().unwrap().fork(b_init).unwrap();
        assert_eq!((p.nmissed(), returns.load(Relaxed)), (1, 2));
        set.unregister(&p).unwrap();
    }

    #[test]
    fn a_concurrent_call_on_another_thread_is_missed_with_maxactive_1() {
        let set = Arc::new(ProbeSet::new());
        let gate = Arc::new(Barrier::new(2));
        let first = Arc::new(AtomicBool::new(true));
        let (g, f) = (Arc::clone(&gate), Arc::clone(&first));
        let p = KretprobeBuilder::new(OpSet::of(Op::Fork), 2)
            .maxactive(1)
            .entry_handler(move |_| {
                if f.swap(false, Relaxed) {
                    g.wait(); // 1: the instance is taken
                    g.wait(); // 2: the other thread has forked
                }
                true
            })
            .build()
            .unwrap();
        set.register(&p).unwrap();
        std::thread::scope(|s| {
            for blocker in [true, false] {
                let (set, gate) = (Arc::clone(&set), Arc::clone(&gate));
                s.spawn(move || {
                    let (mut k, init) = kernel();
                    k.set_probes(set);
                    if !blocker {
                        gate.wait();
                    }
                    k.fork(init).unwrap();
                    if !blocker {
                        gate.wait();
                    }
                });
            }
        });
        assert_eq!(p.nmissed(), 1);
    }

    #[test]
    fn an_entry_handler_may_decline_a_call() {
        let (mut k, init) = kernel();
        let returns = Arc::new(AtomicU64::new(0));
        let r = Arc::clone(&returns);
        let p = KretprobeBuilder::new(OpSet::of(Op::Fork).with(Op::Kill), 1)
            .maxactive(1)
            .entry_handler(|inst| inst.op() == Op::Kill)
            .handler(move |_| {
                r.fetch_add(1, Relaxed);
            })
            .build()
            .unwrap();
        k.probes().register(&p).unwrap();
        k.fork(init).unwrap();
        k.fork(init).unwrap();
        k.kill(init, 0, 0).unwrap();
        assert_eq!((returns.load(Relaxed), p.nmissed()), (1, 0));
    }

    #[test]
    fn handlers_may_register_and_unregister_and_in_flight_returns_still_run() {
        let (mut k, init) = kernel();
        let set = Arc::clone(k.probes());
        let log = Arc::new(Log::default());
        let late = recorder(OpSet::of(Op::Fork), 2, &log);
        let (s, l) = (Arc::clone(&set), Arc::clone(&late));
        let returns = Arc::new(AtomicU64::new(0));
        let r = Arc::clone(&returns);
        let me: Arc<Mutex<Option<Arc<Kretprobe>>>> = Arc::default();
        let me2 = Arc::clone(&me);
        let p = KretprobeBuilder::new(OpSet::of(Op::Fork), 1)
            .entry_handler(move |_| {
                // Unregister ourselves and register another probe, mid-call.
                let me = me2.lock().unwrap().take().expect("first call only");
                s.unregister(&me).unwrap();
                s.register(&l).unwrap();
                true
            })
            .handler(move |_| {
                r.fetch_add(1, Relaxed);
            })
            .build()
            .unwrap();
        *me.lock().unwrap() = Some(Arc::clone(&p));
        set.register(&p).unwrap();
        k.fork(init).unwrap();
        // Our return ran although we were unregistered; `late` registered
        // during the call did not see it.
        assert_eq!(returns.load(Relaxed), 1);
        assert!(log.returns().is_empty());
        k.fork(init).unwrap();
        assert_eq!((returns.load(Relaxed), log.returns().len()), (1, 1));
        set.check_invariants();
    }

    #[test]
    fn snapshots_share_the_set_and_set_probes_switches_it() {
        let (mut k, init) = kernel();
        let log = Arc::new(Log::default());
        let p = recorder(OpSet::of(Op::Fork), 2, &log);
        k.probes().register(&p).unwrap();
        let mut snap = k.snapshot();
        snap.fork(init).unwrap();
        assert_eq!(log.returns().len(), 1);
        snap.set_probes(Arc::new(ProbeSet::new()));
        snap.fork(init).unwrap();
        k.fork(init).unwrap();
        assert_eq!(log.returns().len(), 2);
    }

    #[test]
    fn an_unregistered_probe_is_released_by_the_kernels_next_call() {
        let (mut k, init) = kernel();
        let log = Arc::new(Log::default());
        let p = recorder(OpSet::of(Op::Fork), 2, &log);
        k.probes().register(&p).unwrap();
        k.fork(init).unwrap();
        k.probes().unregister(&p).unwrap();
        // Held by the kernel's cached registry until it runs any op.
        assert_eq!(Arc::strong_count(&p), 2);
        k.kill(init, 0, 0).unwrap();
        assert_eq!(Arc::strong_count(&p), 1);
    }

    #[test]
    fn kernels_on_several_threads_survive_registration_churn() {
        // Several kernels sharing one set fork/exit/wait while the main
        // thread registers and unregisters probes with a small maxactive.
        // Every entry is paired with a return, and every instance is back.
        const THREADS: usize = 4;
        let iters = if cfg!(miri) { 20 } else { 1500 };
        let set = Arc::new(ProbeSet::new());
        let done = AtomicU64::new(0);
        let probes: Vec<(Arc<Kretprobe>, Arc<[AtomicU64; 2]>)> = (0..3)
            .map(|i| {
                let n: Arc<[AtomicU64; 2]> = Arc::default();
                let (e, r) = (Arc::clone(&n), Arc::clone(&n));
                let ops = [OpSet::ALL, OpSet::of(Op::Fork), OpSet::of(Op::Wait4)][i];
                let p = KretprobeBuilder::new(ops, 2)
                    .maxactive(2)
                    .entry_handler(move |inst| {
                        inst.data[0] = inst.current().idx.into();
                        e[0].fetch_add(1, Relaxed);
                        true
                    })
                    .handler(move |inst| {
                        assert_eq!(inst.data[0], u64::from(inst.current().idx));
                        r[1].fetch_add(1, Relaxed);
                    })
                    .build()
                    .unwrap();
                (p, n)
            })
            .collect();
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                let (set, done) = (Arc::clone(&set), &done);
                s.spawn(move || {
                    let (mut k, init) = kernel();
                    k.set_probes(set);
                    for _ in 0..iters {
                        let c = k.fork(init).unwrap();
                        let pid = k.pid_vnr(init, c).unwrap();
                        k.exit_group(c, 1).unwrap();
                        match k.wait4(init, pid, 0) {
                            Ok(WaitOutcome::Reported(r)) => assert_eq!(r.pid, pid),
                            other => panic!("{other:?}"),
                        }
                        drop(k.take_notifications());
                    }
                    done.fetch_add(1, Relaxed);
                });
            }
            let mut i = 0;
            while done.load(Relaxed) < THREADS as u64 {
                let (p, _) = &probes[i % probes.len()];
                if set.is_registered(p) {
                    set.unregister(p).unwrap();
                } else {
                    set.register(p).unwrap();
                }
                set.check_invariants();
                i += 1;
                std::thread::yield_now();
            }
        });
        drop(set);
        let entered: u64 = probes.iter().map(|(_, n)| n[0].load(Relaxed)).sum();
        assert!(entered > 0, "some calls were traced");
        for (mut p, n) in probes {
            assert_eq!(n[0].load(Relaxed), n[1].load(Relaxed), "entries == returns");
            let maxactive = p.maxactive();
            let p = Arc::get_mut(&mut p).expect("no kernel or set holds it");
            assert_eq!(p.check_invariants(), maxactive, "every instance is back");
        }
    }
}
