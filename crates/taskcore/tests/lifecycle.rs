//! Scenario tests of the process core against Linux behaviour
//! (wait(2), clone(2), setpgid(2), setsid(2), kill(2), prctl(2)).

use taskcore::uapi::*;
use taskcore::{
    Clone3Args, CloneArgs, Config, Errno, Kernel, SigAction, SigHandler, TaskId, WaitOutcome,
};

include!("common/lifecycle_scenarios.rs");

#[test]
fn address_spaces_follow_fork_vfork_threads_exec() {
    use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ, PROT_WRITE};
    let (mut k, init) = kernel();
    let p = k.fork(init).unwrap();
    let a = k
        .mmap(
            p,
            0,
            4096,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS,
            None,
            0,
        )
        .unwrap();
    let c = k.fork(p).unwrap();
    assert!(!k.same_mm(p, c).unwrap());
    assert_eq!(k.mm(c).unwrap().unwrap().map_count(), 1);
    // The child's changes do not touch the parent's (copy-on-write).
    k.munmap(c, a, 4096).unwrap();
    assert_eq!(k.mm(c).unwrap().unwrap().map_count(), 0);
    assert_eq!(k.mm(p).unwrap().unwrap().map_count(), 1);
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    let v = k.vfork(p).unwrap();
    assert!(k.same_mm(p, t).unwrap() && k.same_mm(p, v).unwrap());
    k.execve(v, "/bin/true").unwrap();
    assert!(!k.same_mm(p, v).unwrap());
    assert!(k.mm(v).unwrap().is_none());
    k.exit(t, 0).unwrap();
    assert_eq!(k.mm(p).unwrap().unwrap().map_count(), 1);
}
