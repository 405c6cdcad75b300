//! pidfds on a process whose leader exited while another thread runs,
//! against Linux (tests/oracle/pidfd_leader.c, .out; re-record with
//! tests/oracle/record.sh). Poll: neither a `PIDFD_THREAD` pidfd on the
//! leader's pid nor a process pidfd is readable until the whole group has
//! exited; `POLLHUP` joins once reaped (Linux's poll(2) with `events =
//! POLLIN` shows `POLLIN` and `POLLHUP` only). pidfd_send_signal: a
//! group-scope signal reaches the group, one aimed at the zombie leader
//! thread does nothing.

use taskcore::task::pidfd::{PIDFD_SIGNAL_THREAD, PIDFD_THREAD, POLLHUP, POLLIN};
use taskcore::uapi::{SIGCONT, SIGKILL, SIGSTOP, SIGTERM, WCONTINUED, WNOHANG, WUNTRACED};
use taskcore::{CloneArgs, Config, Kernel, PidFd, TaskId, WaitOutcome};

const OUT: &str = include_str!("oracle/pidfd_leader.out");

fn revents(k: &Kernel, fd: PidFd) -> u32 {
    k.pidfd_poll(fd).unwrap() & (POLLIN | POLLHUP)
}

fn line(k: &Kernel, tag: &str, thr: PidFd, proc_: PidFd) -> String {
    format!(
        "{tag} thread_pidfd={} process_pidfd={}\n",
        revents(k, thr),
        revents(k, proc_)
    )
}

/// A child of `parent` whose leader exited, its second thread running:
/// (its pid, the thread).
fn zombie_leader(k: &mut Kernel, parent: TaskId) -> (i32, TaskId) {
    let c = k.fork(parent).unwrap();
    let worker = k.clone(c, &CloneArgs::thread()).unwrap();
    let pid = k.pid_vnr(parent, c).unwrap();
    k.exit(c, 0).unwrap();
    (pid, worker)
}

fn report(k: &mut Kernel, parent: TaskId, tag: &str, open: u32, sig: i32, flags: u32) -> String {
    let (pid, worker) = zombie_leader(k, parent);
    let fd = k.pidfd_open(parent, pid, open).unwrap();
    let (ret, errno) = match k.pidfd_send_signal(parent, fd, sig, None, flags) {
        Ok(()) => (0, 0),
        Err(e) => (-1, e as i32),
    };
    let (reaped, termsig) = match k.wait4(parent, pid, WNOHANG).unwrap() {
        WaitOutcome::Reported(r) => (1, r.status & 0x7f),
        _ => (0, 0),
    };
    if reaped == 0 {
        k.exit_group(worker, 0).unwrap();
        k.wait4(parent, pid, 0).unwrap();
    }
    format!("{tag} ret={ret} errno={errno} reaped={reaped} termsig={termsig}\n")
}

/// The C program's `cont()`: a zombie-leader child stopped by SIGSTOP, then
/// sent SIGCONT with tgkill to the zombie thread, or with kill.
fn cont(k: &mut Kernel, parent: TaskId, tag: &str, by_tgkill: bool) -> String {
    let (pid, worker) = zombie_leader(k, parent);
    k.kill(parent, pid, SIGSTOP).unwrap();
    let stopped = match k.wait4(parent, pid, WUNTRACED).unwrap() {
        WaitOutcome::Reported(r) => i32::from(r.status & 0xff == 0x7f),
        _ => 0,
    };
    let r = if by_tgkill {
        k.tgkill(parent, pid, pid, SIGCONT)
    } else {
        k.kill(parent, pid, SIGCONT)
    };
    let (ret, errno) = match r {
        Ok(()) => (0, 0),
        Err(e) => (-1, e as i32),
    };
    let continued = match k.wait4(parent, pid, WCONTINUED | WNOHANG).unwrap() {
        WaitOutcome::Reported(r) => i32::from(r.status == 0xffff),
        _ => 0,
    };
    k.kill(parent, pid, SIGKILL).unwrap();
    k.wait4(parent, pid, 0).unwrap();
    let _ = worker;
    format!("{tag} stopped={stopped} ret={ret} errno={errno} continued={continued}\n")
}

#[test]
fn pidfds_on_a_leader_that_exited_before_its_threads_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let parent = k.fork(init).unwrap();
    let (pid, worker) = zombie_leader(&mut k, parent);
    let thr = k.pidfd_open(parent, pid, PIDFD_THREAD).unwrap();
    let proc_ = k.pidfd_open(parent, pid, 0).unwrap();
    let mut out = line(&k, "leader_exited", thr, proc_);
    k.exit_group(worker, 0).unwrap();
    out += &line(&k, "group_exited", thr, proc_);
    k.wait4(parent, pid, 0).unwrap();
    out += &line(&k, "reaped", thr, proc_);
    out += &report(&mut k, parent, "signal_group_scope", 0, SIGTERM, 0);
    out += &report(
        &mut k,
        parent,
        "signal_thread_pidfd",
        PIDFD_THREAD,
        SIGTERM,
        0,
    );
    let scope = PIDFD_SIGNAL_THREAD;
    out += &report(&mut k, parent, "signal_thread_scope", 0, SIGTERM, scope);
    out += &report(&mut k, parent, "signal_0", 0, 0, 0);
    out += &cont(&mut k, parent, "tgkill_sigcont_zombie_leader", true);
    out += &cont(&mut k, parent, "kill_sigcont_zombie_leader", false);
    assert_eq!(out, OUT);
}
