//! loom: every interleaving of a blocking waiter and the thread that makes
//! its child reapable, through [`taskcore::sync::SharedKernel`]: the waiter
//! always returns with the child (no lost wake-up, no deadlock).
//!
//! Run: `RUSTFLAGS="--cfg loom" cargo test -p taskcore --test it --release sync_loom::`
//! (`scripts/miri-loom.sh loom` does).
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use taskcore::sync::{Blocking, SharedKernel};
use taskcore::{Config, Kernel};

#[test]
fn a_blocked_waiter_is_always_woken() {
    loom::model(|| {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let parent = k.fork(init).unwrap();
        let child = k.fork(parent).unwrap();
        let pid = k.pid_vnr(parent, child).unwrap();
        k.take_notifications();
        let k = Arc::new(SharedKernel::new(k));
        let k2 = Arc::clone(&k);
        let exiter = thread::spawn(move || {
            k2.call(|k| k.exit_group(child, 5)).0.unwrap();
        });
        let r = k.wait4(parent, -1, 0, None).unwrap();
        match r {
            Blocking::Reported(rep) => assert_eq!((rep.pid, rep.status), (pid, 5 << 8)),
            other => panic!("{other:?}"),
        }
        exiter.join().unwrap();
    });
}

#[test]
fn an_interrupt_wakes_a_waiter_with_eintr() {
    loom::model(|| {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let parent = k.fork(init).unwrap();
        let _child = k.fork(parent).unwrap();
        let k = Arc::new(SharedKernel::new(k));
        let k2 = Arc::clone(&k);
        let t = thread::spawn(move || k2.interrupt(parent));
        assert_eq!(k.wait4(parent, -1, 0, None), Err(taskcore::Errno::EINTR));
        t.join().unwrap();
    });
}
