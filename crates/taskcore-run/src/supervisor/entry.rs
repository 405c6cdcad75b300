//! The seccomp stop: a trapped call is about to run. Its pid arguments
//! are renumbered for the real kernel; calls whose effect another task
//! may observe before this one's syscall exit (signals, exit) are applied
//! to the core here; calls the namespace confines are answered here.

use taskcore::sys::{dispatch, SysRet, Syscall};
use taskcore::uapi::{P_PID, P_PIDFD};
use taskcore::{Errno, SetnsFd};

use super::signals::{kill_sig, with_sig};
use super::{InCall, Supervisor};
use crate::calls::{
    self, acts_on_target, reads_only, returns_group, returns_pid, sends_signal, Arg, Translate,
};
use crate::pidmap::NOPID;
use crate::tracee::{has_pid, Memory, Regs, SI_PID_OFFSET};

/// What a pid argument becomes.
enum Target {
    /// This real value.
    Real(u64),
    /// A target the namespace confines (every process, or init): the call
    /// is answered by the supervisor, not run.
    Confine,
}

/// The real pid pidfd `fd` of thread `tid` refers to (its `Pid:` line in
/// `/proc/TID/fdinfo/FD`: -1 once the process is reaped); `None` when
/// `fd` is no pidfd.
fn pidfd_target(tid: i32, fd: u64) -> Option<i32> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/fdinfo/{}", fd as i32)).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Pid:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Which `/proc` a directory is of ([`proc_dir_target`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProcKind {
    /// The real procfs: its numbers are real pids.
    Real,
    /// The emulated `/proc` (the FUSE server `--proc` mounts): its numbers
    /// are virtual pids (root namespace).
    Emulated,
}

/// The process whose `/proc/PID` directory `fd` of thread `tid` is (what
/// `pidfd_send_signal()` also accepts as a pidfd: `tgid_pidfd_to_pid()`),
/// with the kind of `/proc` it is of: the real procfs, or the emulated
/// `/proc` whose mount has device `emulated` (`--proc`, learned once at
/// the start: [`Supervisor::proc_dev`]; a directory of another FUSE
/// mount is no pidfd natively either); `None` for any other file.
fn proc_dir_target(tid: i32, fd: u64, emulated: Option<u64>) -> Option<(ProcKind, i32)> {
    use std::os::unix::fs::MetadataExt;
    let link = format!("/proc/{tid}/fd/{}", fd as i32);
    let fs = nix::sys::statfs::statfs(link.as_str()).ok()?;
    let kind = if fs.filesystem_type() == nix::sys::statfs::PROC_SUPER_MAGIC {
        ProcKind::Real
    } else {
        let file = std::fs::metadata(&link).ok()?;
        if !file.is_dir() || Some(file.dev()) != emulated {
            return None;
        }
        ProcKind::Emulated
    };
    let path = std::fs::read_link(&link).ok()?;
    let n = match kind {
        ProcKind::Real => path.to_str()?.strip_prefix("/proc/")?,
        ProcKind::Emulated => path.file_name()?.to_str()?,
    };
    n.parse().ok().filter(|&n: &i32| n > 0).map(|n| (kind, n))
}

/// pidfd_send_signal(fd, sig, info, flags) (`args`) on a `/proc` directory
/// of real pid `real` as the call by number that does the same
/// (`pidfd_send_signal()` by its flags, `kill_pid_info()`): its number and
/// first four arguments. `None` where none does (a siginfo to a process
/// group, an unknown flag: left to fail as a FUSE directory's fd, after
/// its flags are checked).
fn by_number(real: i32, args: &[u64; 6]) -> Option<(i64, [u64; 4])> {
    let (pid, sig, info) = (real as u64, args[1], args[2]);
    const THREAD: u64 = 1;
    const THREAD_GROUP: u64 = 2;
    const PROCESS_GROUP: u64 = 4;
    Some(match (args[3], info) {
        (0 | THREAD_GROUP, 0) => (libc::SYS_kill, [pid, sig, 0, 0]),
        (0 | THREAD_GROUP, _) => (libc::SYS_rt_sigqueueinfo, [pid, sig, info, 0]),
        (THREAD, 0) => (libc::SYS_tgkill, [pid, pid, sig, 0]),
        (THREAD, _) => (libc::SYS_rt_tgsigqueueinfo, [pid, pid, sig, info]),
        (PROCESS_GROUP, 0) => (libc::SYS_kill, [(-real) as i64 as u64, sig, 0, 0]),
        _ => return None,
    })
}

/// What a setns(2) fd is, for the core.
enum SetnsTarget {
    /// A pid namespace file of the core's namespace.
    Ns(taskcore::pid::NsId),
    /// A pidfd of the process with this virtual pid (root namespace).
    Pidfd(i32),
    /// No file open with that number (`EBADF`).
    NotOpen,
}

/// `rt_sigreturn`'s saved mask: `uc_sigmask` of the `rt_sigframe` at the
/// stack pointer less 8 (its `pretcode` was popped by the handler's `ret`):
/// 8 (pretcode) + 8 (uc_flags) + 8 (uc_link) + 24 (uc_stack) + 256
/// (uc_mcontext) bytes in, arch/x86/include/asm/sigframe.h.
const UC_SIGMASK_FROM_SP: u64 = 296;

/// Offset of `pid` in `struct __user_cap_header_struct` (after `__u32
/// version`), include/uapi/linux/capability.h.
const CAP_HEADER_PID: u64 = 4;

impl Supervisor {
    /// A seccomp stop of thread `tid`.
    pub(super) fn on_entry(&mut self, tid: i32) {
        let Ok(mut regs) = Regs::get(tid) else {
            return;
        };
        // A call entering proves the last one returned.
        if let Some(t) = self.threads.get_mut(&tid) {
            t.in_call = None;
        }
        if !self.sending.is_empty() {
            self.sending.remove(&tid);
        }
        let nr = regs.nr();
        if self.tid_address_before_clone(tid, nr, &regs) {
            return;
        }
        let Some(c) = calls::lookup(nr) else {
            self.resume(tid, 0);
            return;
        };
        self.report.calls_served += 1;
        *self.report.calls.entry(c.name).or_default() += 1;
        let Some(task) = self.map.task(tid) else {
            self.resume(tid, 0);
            return;
        };
        self.confirm_frame(tid, task, nr == libc::SYS_rt_sigreturn);
        self.sync_userns(tid, task);
        let vargs = regs.args();
        if self.log.on() {
            dline!(self, "[debug]   entry {} {:?}", c.name, &vargs[..3]);
        }
        let mut confine = false;
        // A call that would change or read the supervisor (init) itself.
        let mut on_init =
            nr == libc::SYS_pidfd_getfd && pidfd_target(tid, vargs[0]) == Some(self.sup_pid);
        match c.translate {
            Translate::Eperm => {
                self.refuse(tid, &mut regs, c.name, libc::EPERM, None);
                return;
            }
            Translate::Refuse(idx) => {
                // The caller's own tid names the calling thread, as 0
                // does (`find_task_by_vpid()` of itself): rewritten to 0.
                let mut own = Vec::new();
                for &i in idx.iter().filter(|&&i| vargs[i] as i32 != 0) {
                    if self.map.to_real(&self.k, task, vargs[i] as i32) != Some(tid) {
                        let msg = format!(
                            "{}() with a pid other than the caller's is not translated; refused with ENOSYS",
                            c.name
                        );
                        self.refuse(tid, &mut regs, c.name, libc::ENOSYS, Some(&msg));
                        return;
                    }
                    own.push(i);
                }
                if !own.is_empty() {
                    for i in own {
                        regs.set_arg(i, 0);
                    }
                    let _ = regs.set(tid);
                }
                self.resume(tid, 0);
                return;
            }
            Translate::Args(list) => {
                for &(i, kind) in list {
                    match self.translate(task, kind, &vargs, i) {
                        // A signal for the namespace's init is the core's
                        // to answer (`SIGNAL_UNKILLABLE`): the supervisor,
                        // which stands for init, is never signalled from
                        // inside.
                        Target::Real(r) if sends_signal(nr) && r as i32 == self.sup_pid => {
                            confine = true
                        }
                        Target::Real(r)
                            if r as i32 == self.sup_pid && acts_on_target(nr, &vargs) =>
                        {
                            on_init = true
                        }
                        Target::Real(r) => regs.set_arg(i, r),
                        Target::Confine => confine = true,
                    }
                }
            }
            Translate::None => {}
        }
        if on_init {
            let msg = format!(
                "{}() on the namespace's init (the supervisor) is refused with EPERM",
                c.name
            );
            self.refuse(tid, &mut regs, c.name, libc::EPERM, Some(&msg));
            return;
        }
        let mem = Memory::new(tid);
        let call = Syscall::from_raw_with(nr as u64, vargs, &mem);
        // A pidfd names its process for the core by the virtual pid of
        // the real one behind it.
        let vpid_of_fd = |fd: u64| match pidfd_target(tid, fd) {
            Some(r) if r > 0 => Some(self.map.to_virtual(r)).filter(|&v| v > 0),
            Some(_) => Some(NOPID),
            None => None,
        };
        // pidfd_send_signal: the core's own pidfd for that process, open
        // for the call only (closed below).
        let mut tmp_pidfd = None;
        let mut tmp_nsref = None;
        let mut outside_pidfd = false;
        // pidfd_send_signal's target: the process of its pidfd or of its
        // `/proc/PID` directory, as a virtual pid (`Some(None)`: a live
        // process outside the namespace; `NOPID`: reaped; `None`: neither
        // kind of file). A directory of the emulated `/proc` (`--proc`) is
        // kept too: the real kernel, to which it is a FUSE directory
        // (EBADF), is given the same signal by number below.
        let (signal_target, emulated_dir) = if nr == libc::SYS_pidfd_send_signal {
            let real = pidfd_target(tid, vargs[0]).map(|r| (ProcKind::Real, r));
            match real.or_else(|| proc_dir_target(tid, vargs[0], self.proc_dev)) {
                Some((ProcKind::Emulated, v)) => (Some(Some(v)), Some(v)),
                Some((ProcKind::Real, r)) if r > 0 => {
                    (Some(Some(self.map.to_virtual(r)).filter(|&v| v > 0)), None)
                }
                // Reaped: the core's answer is ESRCH.
                Some((ProcKind::Real, _)) => (Some(Some(NOPID)), None),
                None => (None, None),
            }
        } else {
            (None, None)
        };
        let call = match (nr, call) {
            (libc::SYS_setns, _) => {
                let nstype = i64::from(vargs[1] as i32) as u64;
                match self.setns_target(tid, vargs[0]) {
                    Some(SetnsTarget::Ns(ns)) => self
                        .ns_file_of(ns)
                        .map(|r| {
                            tmp_nsref = Some(r);
                            Syscall::Setns {
                                fd: SetnsFd::Ns(r),
                                nstype,
                            }
                        })
                        .ok_or(Errno::ENOSYS),
                    Some(SetnsTarget::Pidfd(v)) => {
                        let fd = self.k.pidfd_open(self.init, v, 0);
                        tmp_pidfd = fd.ok();
                        fd.map(|fd| Syscall::Setns {
                            fd: SetnsFd::PidFd(fd),
                            nstype,
                        })
                    }
                    Some(SetnsTarget::NotOpen) => Err(Errno::EBADF),
                    // Another file, or a namespace the core does not
                    // model: not checked.
                    None => Err(Errno::ENOSYS),
                }
            }
            (libc::SYS_pidfd_send_signal, _) => match signal_target {
                // A live process outside the namespace (a pidfd inherited
                // from outside, a `/proc/PID` directory of the real
                // procfs): `access_pidfd_pidns()` fails, EINVAL, and the
                // real call is not made.
                Some(None) => {
                    outside_pidfd = true;
                    Err(Errno::EINVAL)
                }
                Some(Some(v)) => {
                    // Init's pidfd: answered by the core, as a kill(1).
                    confine |= v == 1;
                    let info = match vargs[2] {
                        0 => Ok(None),
                        p => Syscall::from_raw_with(
                            libc::SYS_rt_sigqueueinfo as u64,
                            [v as u64, vargs[1], p, 0, 0, 0],
                            &mem,
                        )
                        .map(|c| match c {
                            Syscall::RtSigqueueinfo { info, .. } => Some(info),
                            _ => None,
                        }),
                    };
                    let fd = self.k.pidfd_open(self.init, v, 0);
                    tmp_pidfd = fd.ok();
                    match (fd, info) {
                        (Ok(fd), Ok(info)) => Ok(Syscall::PidfdSendSignal {
                            fd,
                            sig: vargs[1] as i32,
                            info,
                            flags: vargs[3] as u32,
                        }),
                        (Err(e), _) | (_, Err(e)) => Err(e),
                    }
                }
                None => Err(Errno::EBADF),
            },
            (
                _,
                Ok(Syscall::Waitid {
                    idtype: P_PIDFD,
                    id,
                    options,
                }),
            ) => match vpid_of_fd(id as u64) {
                Some(v) => Ok(Syscall::Waitid {
                    idtype: P_PID,
                    // The caller's number for it (0 when outside its
                    // namespace; NOPID stays a number nobody has).
                    id: match v {
                        NOPID => NOPID,
                        v => crate::pidmap::in_ns_of(&self.k, task, v),
                    },
                    options,
                }),
                None => Err(Errno::EBADF),
            },
            (_, c) => c,
        };
        if sends_signal(nr) {
            // The signal is sent once this thread runs again: every report
            // already waiting (a target's delivery stop of a signal this one
            // would discard, SIGCONT after SIGSTOP or the reverse) happened
            // before it, and is taken first.
            self.drain_stops();
        }
        let alive = self.alive(task);
        match nr {
            libc::SYS_exit | libc::SYS_exit_group => {
                if alive {
                    if let Ok(call) = &call {
                        self.pull_subreapers_in_flight(tid);
                        self.seize_dying(task);
                        let before = self.hand_on_before(tid, task);
                        let report = self.report_before_death(task);
                        let _ = dispatch(&mut self.k, task, call);
                        self.hand_on_after(before);
                        self.note_dying(tid, nr == libc::SYS_exit_group, report);
                    }
                }
                self.resume(tid, 0);
                // A vfork child's exit releases its parent (`exit_mm_release()`).
                self.release_vfork_parent(tid);
                return;
            }
            libc::SYS_rt_sigreturn => {
                if alive {
                    let sp = regs.0.rsp;
                    if let Ok(mask) = mem.read_u64(sp.wrapping_add(UC_SIGMASK_FROM_SP)) {
                        let _ = self.k.rt_sigreturn(task, mask);
                    }
                }
                self.resume(tid, 0);
                return;
            }
            _ => {}
        }
        let mut early = None;
        if outside_pidfd {
            confine = true;
            early = Some(Err(Errno::EINVAL));
        }
        if matches!(nr, libc::SYS_rt_sigprocmask | libc::SYS_rt_sigaction) && alive {
            // Their effect is at the entry and their only result is 0 or
            // an errno the core knows from the arguments: when the core
            // accepts them, no syscall-exit stop is needed (the most
            // frequent trapped calls of a shell).
            if let Ok(c) = &call {
                let r = dispatch(&mut self.k, task, c);
                if r.is_ok() {
                    self.report.checked += 1;
                    self.resume(tid, 0);
                    return;
                }
                early = Some(r);
            }
        }
        if nr == libc::SYS_rt_sigsuspend && alive {
            // The mask is replaced at the entry: what arrives while it
            // sleeps is taken under it.
            if let Ok(call) = &call {
                early = Some(dispatch(&mut self.k, task, call));
            }
        }
        if sends_signal(nr) && alive {
            if let Ok(call) = &call {
                // SIGKILL's deaths reach the core at the real death
                // reports (the moment a parent can see them); here only
                // its existence and permission checks (signal 0).
                let probe = match kill_sig(call) {
                    Some(libc::SIGKILL) => with_sig(call, 0),
                    _ => None,
                };
                if probe.is_none() {
                    self.seize_fatal_targets(task, call);
                }
                let before = self.stops_pending_at_sigcont(task, call);
                let kept = self.report_before_kill(task, call);
                early = Some(dispatch(&mut self.k, task, probe.as_ref().unwrap_or(call)));
                if self.log.on() {
                    dline!(
                        self,
                        "[debug]   applied at the entry: {early:?}, report kept {kept:x?}"
                    );
                }
                self.note_report_taken_by_kill(tid, kept);
                if probe.is_none() {
                    self.recent_kills.push_back((tid, task, call.clone(), None));
                    if self.recent_kills.len() > 32 {
                        self.recent_kills.pop_front();
                    }
                }
                self.note_discarded_stops(before);
                self.note_cont_in_flight(tid, call);
            }
        }
        if nr == libc::SYS_setns && alive {
            // Its only effect is the caller's pid_for_children, which no
            // other task sees: applied here, while the core's handle on
            // the namespace is open.
            if let Ok(call) = &call {
                early = Some(dispatch(&mut self.k, task, call));
            }
        }
        if let Some(fd) = tmp_pidfd {
            let _ = self.k.pidfd_close(fd);
        }
        if let Some(r) = tmp_nsref {
            let _ = self.k.ns_close(r);
        }
        if confine {
            // Answered by the core; what `kill(-1)` reaches is sent by the
            // supervisor, to the namespace's processes only.
            let r = early.clone().unwrap_or(Err(Errno::ESRCH)).map(|r| r.raw());
            if let (Ok(_), Ok(Syscall::Kill { pid: -1, sig })) = (&r, &call) {
                self.kill_all_but(task, *sig);
            }
            self.report.checked += 1;
            regs.skip_with(match r {
                Ok(v) => v,
                Err(e) => -(e.as_i32() as i64),
            });
            let _ = regs.set(tid);
            self.resume(tid, 0);
            return;
        }
        // A wait's peek: what the core would report now, nothing reaped
        // (the start of its window; `ECHILD` lets a childless wait be
        // answered here).
        let peek = match (&call, alive) {
            (Ok(c), true) => self.peek_result(task, c),
            _ => None,
        };
        if alive {
            let core_childless = matches!(peek, Some(Err(Errno::ECHILD)));
            if let Some(real) = self.real_answer_at_entry(tid, nr, &regs.args(), core_childless) {
                // Answered here: no syscall-exit stop (supervisor/answer.rs).
                let shown = if returns_pid(nr) && real > 0 {
                    self.map
                        .global_to_virtual_for(&self.k, task, real as i32)
                        .into()
                } else if returns_group(nr) && real == 0 {
                    self.map.outside_group_for(&self.k, task).into()
                } else {
                    real
                };
                self.report.answered_at_entry += 1;
                if nr == libc::SYS_set_tid_address {
                    self.keep_tid_address(tid, vargs[0]);
                }
                regs.skip_with(shown);
                // Only a thread still in its stop was read inside its call:
                // one a SIGKILL woke meanwhile (ESRCH) is exiting, and its
                // exit may have handed its children on before the read.
                if regs.set(tid).is_err() {
                    self.report.not_checked("caller killed at its entry");
                } else if self.opts.check {
                    self.check(tid, InCall::new(nr, c.name, vargs, call, early), shown);
                }
                self.resume(tid, 0);
                return;
            }
        }
        if let Some(v) = emulated_dir {
            if vargs[2] != 0 && mem.read_i32(vargs[2]).is_ok_and(|s| s != vargs[1] as i32) {
                // A siginfo for another signal: pidfd_send_signal's own
                // EINVAL, which none of the calls below makes.
                self.report
                    .not_checked("emulated /proc directory: siginfo check");
                self.refuse(tid, &mut regs, c.name, libc::EINVAL, None);
                return;
            }
            let real = self.map.to_real(&self.k, self.init, v).unwrap_or(NOPID);
            if let Some((nr, args)) = by_number(real, &vargs) {
                regs.set_nr(nr);
                for (i, a) in args.into_iter().enumerate() {
                    regs.set_arg(i, a);
                }
                let _ = regs.set(tid);
            }
        } else if regs.args() != vargs {
            let _ = regs.set(tid);
        }
        // A sender's own siginfo names itself in virtual numbers: the real
        // kernel gets the real pid (restored at the exit), so that what it
        // later hands out is renumbered like every pid it wrote.
        let mut restore_pid = None;
        let info_arg = match nr {
            libc::SYS_rt_sigqueueinfo | libc::SYS_pidfd_send_signal => Some(2),
            libc::SYS_rt_tgsigqueueinfo => Some(3),
            _ => None,
        };
        let carries_pid = |a: usize| {
            // The signal is the argument before the siginfo.
            let code = mem.read_i32(vargs[a] + 8).unwrap_or(1);
            has_pid(vargs[a - 1] as i32, code)
        };
        if let Some(a) = info_arg.filter(|&a| vargs[a] != 0 && carries_pid(a)) {
            let at = vargs[a] + SI_PID_OFFSET;
            let v = mem.read_i32(at).unwrap_or(0);
            if let Some(r) = self
                .map
                .to_real(&self.k, task, v)
                .filter(|&r| v > 0 && r != v)
            {
                if mem.write_i32(at, r).is_ok() {
                    restore_pid = Some((at, v));
                }
            }
        }
        // capget/capset name a process in their header (`pid` after the
        // 32-bit version): made real for the call, put back at its exit.
        if matches!(nr, libc::SYS_capget | libc::SYS_capset) && vargs[0] != 0 {
            let at = vargs[0] + CAP_HEADER_PID;
            if let Ok(v) = mem.read_i32(at) {
                if v > 0 {
                    let mut a = [0u64; 6];
                    a[0] = v as u64;
                    if let Target::Real(r) = self.translate(task, Arg::Pid, &a, 0) {
                        if r as i32 != v && mem.write_i32(at, r as i32).is_ok() {
                            restore_pid = Some((at, v));
                        }
                    }
                }
            }
        }
        let entry_peek = match &peek {
            Some(Ok(SysRet::Waitid(taskcore::WaitOutcome::Reported(w)))) => Some(Some(w.pid)),
            Some(Ok(_)) => Some(None),
            _ => None,
        };
        let entry_read = match (&call, alive) {
            (Ok(c), true) if reads_only(nr) => Some(dispatch(&mut self.k, task, c)),
            // A setpgid or setsid: its answer at the entry, on a copy of
            // the core (kept for a refusal, supervisor/exit.rs).
            (Ok(c), true) if matches!(nr, libc::SYS_setpgid | libc::SYS_setsid) => {
                Some(dispatch(&mut self.k.snapshot(), task, c))
            }
            _ => None,
        };
        let entry_report = match peek {
            Some(Ok(SysRet::Waitid(taskcore::WaitOutcome::Reported(w)))) => Some(w),
            _ => None,
        };
        if self.log.on() {
            if let Some(w) = &entry_report {
                dline!(self, "[debug]   entry report {w:x?}");
            }
        }
        if let Some(t) = self.threads.get_mut(&tid) {
            t.in_call = Some(InCall {
                entry_peek,
                entry_report,
                entry_read,
                restore_pid,
                entry_seq: self.stops_seen,
                ..InCall::new(nr, c.name, vargs, call, early)
            });
            if sends_signal(nr) {
                self.sending.insert(tid);
            }
        }
        if nr == libc::SYS_prctl && vargs[0] == libc::PR_SET_CHILD_SUBREAPER as u64 && alive {
            if let Some(g) = self.exit_decided_by_subreaper(task, vargs[1] != 0) {
                // Held until that exit's hand-on is done for real.
                if self.log.on() {
                    dline!(self, "[debug]   subreaper prctl held for the exit of {g}");
                }
                self.held_prctls.insert(tid, g);
                return;
            }
        }
        if self.holds.on() {
            let sig = self
                .threads
                .get(&tid)
                .and_then(|t| t.in_call.as_ref()?.call.as_ref().ok())
                .and_then(kill_sig);
            if let Some(d) = self.holds.at_entry(c.name, sig) {
                dline!(self, "[debug]   hold: {} resumed later", c.name);
                self.holds.hold(tid, d);
                return;
            }
        }
        self.resume(tid, 0);
    }

    /// What fd `fd` of thread `tid` is for setns(2), from its
    /// `/proc/TID/fd/FD` link: a pid namespace file (`pid:[INODE]`) of a
    /// namespace the core mirrors, or a pidfd (`anon_inode:[pidfd]`) of a
    /// process of the run; `None` for anything else.
    fn setns_target(&self, tid: i32, fd: u64) -> Option<SetnsTarget> {
        let link = match std::fs::read_link(format!("/proc/{tid}/fd/{}", fd as i32)) {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Some(SetnsTarget::NotOpen)
            }
            Err(_) => return None,
        };
        let link = link.to_str()?;
        if let Some(ino) = link.strip_prefix("pid:[").and_then(|l| l.strip_suffix(']')) {
            return self.map.ns_of_inode(ino.parse().ok()?).map(SetnsTarget::Ns);
        }
        if link == "anon_inode:[pidfd]" {
            return match pidfd_target(tid, fd)? {
                r if r > 0 => Some(self.map.to_virtual(r)).filter(|&v| v > 0),
                _ => Some(NOPID),
            }
            .map(SetnsTarget::Pidfd);
        }
        None
    }

    /// A core namespace file on `ns`, opened through one of its live
    /// tasks (`None` when none is left: a namespace only a file holds).
    fn ns_file_of(&mut self, ns: taskcore::pid::NsId) -> Option<taskcore::NsRef> {
        let t = self
            .map
            .threads()
            .map(|(_, t)| t)
            .find(|&t| self.k.task_active_pid_ns(t).ok() == Some(ns))?;
        self.k.ns_open(t, taskcore::NsKind::Pid).ok()
    }

    /// Before `task` exits: the supervisor is its real tracer, so its
    /// parent sees the zombie only once the supervisor has seen the death
    /// (`wait_consider_task()` hides a traced zombie from a parent that is
    /// not its tracer). The core's init seizes the process's leader, and
    /// reaps it as its tracer at the real death report, which then hands
    /// the zombie to the parent (`__ptrace_detach()`, `do_notify_parent()`).
    pub(super) fn seize_dying(&mut self, task: taskcore::TaskId) -> bool {
        let Ok(tgid) = self.k.getpid(task) else {
            return false;
        };
        let Ok(leader) = self.k.find_task_by_vpid(task, tgid) else {
            return false;
        };
        let Ok(vtgid) = self.k.pid_vnr(self.init, leader) else {
            return false;
        };
        // Whatever its parent (an orphan of init, stopped and listened for
        // real, takes signals its core task must see too). EPERM when the
        // program traces it itself: then unseized.
        let ok = self.k.ptrace_attach(self.init, vtgid, true).is_ok();
        if ok {
            self.seized.insert(leader);
        }
        ok
    }

    /// For a wait, the core's answer now to the same wait with `WNOWAIT |
    /// WNOHANG` (nothing reaped); `None` for other calls.
    fn peek_result(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
    ) -> Option<taskcore::sys::SysResult> {
        use taskcore::uapi::{WNOHANG, WNOWAIT};
        let (idtype, id, options) = waitid_form(call)?;
        let peek = Syscall::Waitid {
            idtype,
            id,
            options: options | WNOWAIT | WNOHANG,
        };
        Some(dispatch(&mut self.k, task, &peek))
    }

    /// For a wait, the report the core would give now, without reaping.
    pub(super) fn peek_wait_report(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
    ) -> Option<taskcore::WaitReport> {
        match self.peek_result(task, call)? {
            Ok(SysRet::Waitid(taskcore::WaitOutcome::Reported(w))) => Some(w),
            _ => None,
        }
    }

    /// For a wait, the child the core would report now without reaping it
    /// (`Some(None)`: none); `None` for other calls or an error.
    pub(super) fn peek_wait(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
    ) -> Option<Option<i32>> {
        match self.peek_result(task, call)? {
            Ok(SysRet::Waitid(taskcore::WaitOutcome::Reported(w))) => Some(Some(w.pid)),
            Ok(_) => Some(None),
            Err(_) => None,
        }
    }

    /// Before a signal is sent: each target process it will kill is seized
    /// by the core's init (see [`Self::seize_dying`]), so that the core
    /// takes no fast path (a traced target's fatal signal waits for its
    /// delivery stop, as in the real kernel under the supervisor).
    fn seize_fatal_targets(&mut self, task: taskcore::TaskId, call: &Syscall) {
        let (pid, sig, group) = match *call {
            Syscall::Kill { pid, sig } => (pid, sig, pid <= 0),
            Syscall::Tgkill { tid, sig, .. } | Syscall::Tkill { tid, sig } => (tid, sig, false),
            _ => return,
        };
        if !(1..=64).contains(&sig) {
            return;
        }
        let targets: Vec<taskcore::TaskId> = if !group {
            self.k.find_task_by_vpid(task, pid).into_iter().collect()
        } else {
            // The group in the caller's numbers; each thread's, in its
            // own, is compared through the root namespace's numbers.
            let pgid = match pid {
                0 => self.k.getpgid(task, 0).unwrap_or(0),
                -1 => -1,
                p => -p,
            };
            let root_pgid = crate::pidmap::in_root(&self.k, task, pgid);
            self.map
                .threads()
                .map(|(_, t)| t)
                .filter(|&t| match pgid {
                    // Every process with a number in the caller's namespace.
                    -1 => self.k.pid_vnr(task, t).is_ok_and(|n| n > 0),
                    _ => self.k.getpgid(t, 0).is_ok_and(|g| {
                        root_pgid > 0 && crate::pidmap::in_root(&self.k, t, g) == root_pgid
                    }),
                })
                .collect()
        };
        for t in targets {
            if self.is_fatal(t, sig) {
                self.seize_dying(t);
            }
        }
    }

    /// Refuses the call `name` that thread `tid` is entering: counted as
    /// refused, `warning` printed once per call name, the call skipped
    /// with `-errno`, the thread resumed.
    fn refuse(
        &mut self,
        tid: i32,
        regs: &mut Regs,
        name: &'static str,
        errno: i32,
        warning: Option<&str>,
    ) {
        *self.report.refused.entry(name).or_default() += 1;
        if let Some(msg) = warning {
            self.warn_once(name, msg);
        }
        regs.skip_with(-(errno as i64));
        let _ = regs.set(tid);
        self.resume(tid, 0);
    }

    /// The real value of pid argument `i` of kind `kind`, as `task` sees
    /// the virtual numbers.
    fn translate(&self, task: taskcore::TaskId, kind: Arg, a: &[u64; 6], i: usize) -> Target {
        let v = a[i] as i32;
        // In a nested pid namespace the real one confines the task as the
        // core's does: its pid 1 is its init, and kill(-1) reaches that
        // namespace only.
        let nested = self.k.task_active_pid_ns(task).ok() != Some(self.k.root_ns());
        let pid = |v: i32| -> i32 {
            if v == 1 && !nested {
                self.sup_pid
            } else {
                self.map.to_real(&self.k, task, v).unwrap_or(NOPID)
            }
        };
        let real = |r: i32| Target::Real(r as i64 as u64);
        match kind {
            Arg::Pid | Arg::Pgid if v <= 0 => Target::Real(a[i]),
            Arg::Pid | Arg::Pgid => real(pid(v)),
            Arg::KillTarget if nested && v == -1 => Target::Real(a[i]),
            Arg::KillTarget => match v {
                -1 | 1 if !nested => Target::Confine,
                0 => Target::Real(0),
                v if v > 0 => real(pid(v)),
                // kill(INT_MIN) is ESRCH in Linux: -INT_MIN overflows.
                i32::MIN => real(i32::MIN),
                v => match pid(-v) {
                    p if p == self.sup_pid && !nested => Target::Confine,
                    p => real(-p),
                },
            },
            Arg::WaitSelector => match v {
                -1 | 0 | i32::MIN => Target::Real(a[i]),
                v if v > 0 => real(pid(v)),
                v => real(-pid(-v)),
            },
            Arg::WaitidId => match a[0] as u32 {
                libc::P_PID | libc::P_PGID if v > 0 => real(pid(v)),
                _ => Target::Real(a[i]),
            },
            Arg::PrioWho => match a[0] as i32 {
                0 | 1 if v > 0 => real(pid(v)), // PRIO_PROCESS, PRIO_PGRP
                _ => Target::Real(a[i]),
            },
            Arg::IoprioWho => match a[0] as i32 {
                1 | 2 if v > 0 => real(pid(v)), // IOPRIO_WHO_PROCESS, _PGRP
                _ => Target::Real(a[i]),
            },
        }
    }

    /// `kill(-1, sig)` from `task`: every process of the namespace but
    /// init and the caller's own, sent for real by the supervisor.
    fn kill_all_but(&mut self, task: taskcore::TaskId, sig: i32) {
        if sig == 0 {
            return;
        }
        let own = self.k.getpid(task).ok();
        let mut targets: Vec<i32> = Vec::new();
        for (tid, t) in self.map.threads() {
            let Ok(tgid) = self.k.getpid(t) else { continue };
            if Some(tgid) != own && self.k.gettid(t).ok() == Some(tgid) {
                targets.push(tid);
            }
        }
        for tid in targets {
            // SAFETY: kill of a traced process of the namespace.
            unsafe { libc::kill(tid, sig) };
        }
    }
}

/// A wait call as `waitid(idtype, id, options)` (wait4's selector and
/// options mapped as `kernel_wait4()` does); `None` for other calls and
/// wait4's `INT_MIN` (`ESRCH`).
pub(super) fn waitid_form(call: &Syscall) -> Option<(i32, i32, i32)> {
    use taskcore::uapi::{P_ALL, P_PGID, P_PID, WEXITED, WSTOPPED};
    match *call {
        Syscall::Wait4 { pid, options } => {
            let (t, id) = match pid {
                -1 => (P_ALL, 0),
                0 => (P_PGID, 0),
                p if p > 0 => (P_PID, p),
                p if p == i32::MIN => return None,
                p => (P_PGID, -p),
            };
            // wait4's WUNTRACED is waitid's WSTOPPED.
            Some((t, id, options | WEXITED | (options & WSTOPPED)))
        }
        Syscall::Waitid {
            idtype,
            id,
            options,
        } => Some((idtype, id, options)),
        _ => None,
    }
}
