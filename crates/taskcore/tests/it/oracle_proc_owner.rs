//! The owner of `/proc/PID` and its files against Linux
//! (tests/oracle/proc_owner.c, .out; re-record with tests/oracle/record.sh):
//! a 0555 directory shows the task's effective ids; files show root's while
//! the process is not dumpable (it changed its ids) or has no address space
//! (a zombie), until an exec with equal real and effective ids.

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::{Config, Kernel, TaskId};

fn show(k: &Kernel, viewer: TaskId, t: TaskId, tag: &str) -> String {
    let clock = ProcClock {
        now_ns: 0,
        boot_ns: 0,
        boot_wall_s: 0,
    };
    let fs = ProcFs::new(k, k.root_ns(), clock).unwrap();
    let pid = k.pid_vnr(viewer, t).unwrap();
    let dir = fs
        .getattr(fs.resolve(format!("{pid}").as_bytes()).unwrap())
        .unwrap();
    let st = fs
        .getattr(fs.resolve(format!("{pid}/status").as_bytes()).unwrap())
        .unwrap();
    format!(
        "{tag} dir={}:{} status={}:{}\n",
        dir.uid, dir.gid, st.uid, st.gid
    )
}

#[test]
fn proc_owner_follows_dumpability_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let me = k.fork(init).unwrap();
    let mut out = show(&k, init, me, "root_process");
    let c = k.fork(me).unwrap();
    k.setresgid(c, 2000, 2000, 2000).unwrap();
    k.setresuid(c, 1000, 1000, 1000).unwrap();
    out += &show(&k, init, c, "after_setuid");
    k.exit_group(c, 0).unwrap();
    out += &show(&k, init, c, "zombie");
    let cp = k.pid_vnr(me, c).unwrap();
    k.wait4(me, cp, 0).unwrap();
    let c = k.fork(me).unwrap();
    k.setresgid(c, 2000, 2000, 2000).unwrap();
    k.setresuid(c, 1000, 1000, 1000).unwrap();
    k.execve(c, "/bin/sleep").unwrap();
    out += &show(&k, init, c, "after_exec");
    assert_eq!(out, include_str!("oracle/proc_owner.out"));
}
