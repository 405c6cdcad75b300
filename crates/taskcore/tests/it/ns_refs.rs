//! Pid namespaces are reference counted and freed when unused: creating and
//! dropping 100,000 nested namespaces runs in flat memory. References to a
//! `struct pid` outlive its task.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use taskcore::uapi::CLONE_NEWPID;
use taskcore::{CloneArgs, Config, Errno, Kernel, NsKind, WaitOutcome};

/// Bytes currently allocated by the calling thread (allocated minus freed):
/// the other tests of this binary run on other threads at the same time.
struct Counting;
thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

/// Adds `d` to the calling thread's count (not during thread teardown, when
/// the count is gone).
fn count(d: isize) {
    let _ = LIVE.try_with(|c| c.set(c.get() + d));
}

// SAFETY: forwards every call to the system allocator unchanged; only
// counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size() as isize);
        // SAFETY: the caller's layout contract, passed on.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-(l.size() as isize));
        // SAFETY: `p` was allocated by `System` with `l` (every allocation goes there).
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count(n as isize - l.size() as isize);
        // SAFETY: as dealloc: `p` and `l` come from `System`.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One round: a chain of `depth` nested namespaces, each init forking the
/// next with CLONE_NEWPID, then torn down from the bottom and reaped.
fn round(k: &mut Kernel, depth: usize) {
    let init = k.init_task().unwrap();
    let newpid = CloneArgs {
        flags: CLONE_NEWPID,
        ..CloneArgs::fork()
    };
    let mut chain = vec![init];
    for _ in 0..depth {
        let c = k.clone(*chain.last().unwrap(), &newpid).unwrap();
        chain.push(c);
    }
    while chain.len() > 1 {
        let c = chain.pop().unwrap();
        let p = *chain.last().unwrap();
        k.exit_group(c, 0).unwrap();
        match k.wait4(p, -1, 0).unwrap() {
            WaitOutcome::Reported(_) => {}
            o => panic!("{o:?}"),
        }
    }
    k.take_notifications();
}

#[test]
fn hundred_thousand_nested_namespaces_in_flat_memory() {
    let mut k = Kernel::new(Config::default()).unwrap();
    for _ in 0..1_000 {
        round(&mut k, 4);
    }
    k.check_invariants();
    assert_eq!(k.nr_pid_namespaces(), 1);
    let after_4k = LIVE.with(Cell::get);
    for _ in 0..24_000 {
        round(&mut k, 4);
    }
    k.check_invariants();
    assert_eq!(k.nr_pid_namespaces(), 1, "every namespace was freed");
    let after_100k = LIVE.with(Cell::get);
    let growth = after_100k - after_4k;
    eprintln!(
        "live heap after 4,000 namespaces: {after_4k} B; after 100,000: {after_100k} B; growth {growth} B"
    );
    // A leak of even one byte per namespace would be 96,000 B; caches that
    // settle after the first rounds (the IDR's spare nodes, hash tables
    // reaching their size) may add a constant.
    assert!(
        growth < 4096,
        "memory grew by {growth} bytes over 96,000 namespaces"
    );
}

#[test]
fn a_pid_ref_outlives_reaping_and_is_not_the_next_holder() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let c = k.fork(init).unwrap();
    let r = k.get_pid_ref(c).unwrap();
    let root = k.root_ns();
    let nr = k.pid_ref_nr(r, root).unwrap();
    assert_eq!(k.pid_ref_task(r).unwrap(), Some(c));
    k.exit_group(c, 0).unwrap();
    k.wait4(init, -1, 0).unwrap();
    assert_eq!(k.pid_ref_task(r).unwrap(), None, "reaped");
    assert_eq!(k.pid_ref_nr(r, root).unwrap(), nr, "numbers stay readable");
    k.check_invariants();
    k.put_pid_ref(r).unwrap();
    assert_eq!(
        k.put_pid_ref(r),
        Err(Errno::ESRCH),
        "stale after the last put"
    );
    k.check_invariants();
}

#[test]
fn an_open_namespace_file_keeps_its_namespace() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let newpid = CloneArgs {
        flags: CLONE_NEWPID,
        ..CloneArgs::fork()
    };
    let c = k.clone(init, &newpid).unwrap();
    let f = k.ns_open(c, NsKind::Pid).unwrap();
    let ns = k.ns_ref_id(f).unwrap();
    let inum = k.ns_inum(ns).unwrap();
    k.exit_group(c, 0).unwrap();
    k.wait4(init, -1, 0).unwrap();
    assert_eq!(k.nr_pid_namespaces(), 2, "held by the open file");
    assert_eq!(k.ns_inum(ns).unwrap(), inum, "stable inode number");
    k.check_invariants();
    k.ns_close(f).unwrap();
    assert_eq!(k.nr_pid_namespaces(), 1);
    assert_eq!(k.ns_close(f), Err(Errno::EBADF));
    k.check_invariants();
}
