//! The seccomp stop: a trapped call is about to run. Its pid arguments
//! are renumbered for the real kernel; calls whose effect another task
//! may observe before this one's syscall exit (signals, exit) are applied
//! to the core here; calls the namespace confines are answered here.

use taskcore::sys::{dispatch, SysRet, Syscall};
use taskcore::uapi::{P_PID, P_PIDFD};
use taskcore::Errno;

use super::{InCall, Supervisor};
use crate::calls::{self, Arg, Translate};
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

/// The kill family: calls that send a signal.
fn sends_signal(nr: i64) -> bool {
    matches!(
        nr,
        libc::SYS_kill
            | libc::SYS_tgkill
            | libc::SYS_tkill
            | libc::SYS_rt_sigqueueinfo
            | libc::SYS_rt_tgsigqueueinfo
            | libc::SYS_pidfd_send_signal
    )
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

/// `rt_sigreturn`'s saved mask: `uc_sigmask` of the `rt_sigframe` at the
/// stack pointer less 8 (its `pretcode` was popped by the handler's `ret`):
/// 8 (pretcode) + 8 (uc_flags) + 8 (uc_link) + 24 (uc_stack) + 256
/// (uc_mcontext) bytes in, arch/x86/include/asm/sigframe.h.
const UC_SIGMASK_FROM_SP: u64 = 296;

impl Supervisor {
    /// A seccomp stop of thread `tid`.
    pub(super) fn on_entry(&mut self, tid: i32) {
        let Ok(mut regs) = Regs::get(tid) else {
            return;
        };
        // A call entering proves the last one returned (a failed execve,
        // resumed without its exit stop).
        let stale = self.threads.get_mut(&tid).and_then(|t| t.in_call.take());
        if stale.is_some_and(|c| !c.applied && !super::exit_wanted(c.nr)) {
            self.report.not_checked("execve failure (file system)");
        }
        let nr = regs.nr();
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
        let vargs = regs.args();
        if self.debug {
            eprintln!("[debug]   entry {} {:?}", c.name, &vargs[..3]);
        }
        let mut confine = false;
        match c.translate {
            Translate::Eperm => {
                *self.report.refused.entry(c.name).or_default() += 1;
                regs.skip_with(-(libc::EPERM as i64));
                let _ = regs.set(tid);
                self.resume(tid, 0);
                return;
            }
            Translate::Refuse(idx) => {
                if idx.iter().any(|&i| vargs[i] as i32 != 0) {
                    *self.report.refused.entry(c.name).or_default() += 1;
                    let msg = format!(
                        "{}() with a pid other than the caller's is not translated; refused with ENOSYS",
                        c.name
                    );
                    self.warn_once(c.name, &msg);
                    regs.skip_with(-(libc::ENOSYS as i64));
                    let _ = regs.set(tid);
                }
                self.resume(tid, 0);
                return;
            }
            Translate::Args(list) => {
                for &(i, kind) in list {
                    match self.translate(task, kind, &vargs, i) {
                        Target::Real(r) => regs.set_arg(i, r),
                        Target::Confine => confine = true,
                    }
                }
            }
            Translate::None => {}
        }
        let mem = Memory::new(tid);
        let call = match nr {
            libc::SYS_execveat => Ok(Syscall::Execve {
                filename: String::new(),
                argv: None,
            }),
            _ => Syscall::from_raw_with(nr as u64, vargs, &mem),
        };
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
        let call = match (nr, call) {
            (libc::SYS_pidfd_send_signal, _) => match vpid_of_fd(vargs[0]) {
                Some(v) => {
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
                    id: v,
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
                        self.seize_dying(task);
                        let _ = dispatch(&mut self.k, task, call);
                    }
                }
                self.resume(tid, 0);
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
                let probe = match *call {
                    Syscall::Kill {
                        pid,
                        sig: libc::SIGKILL,
                    } => Some(Syscall::Kill { pid, sig: 0 }),
                    Syscall::Tgkill {
                        tgid,
                        tid,
                        sig: libc::SIGKILL,
                    } => Some(Syscall::Tgkill { tgid, tid, sig: 0 }),
                    Syscall::Tkill {
                        tid,
                        sig: libc::SIGKILL,
                    } => Some(Syscall::Tkill { tid, sig: 0 }),
                    Syscall::PidfdSendSignal {
                        fd,
                        sig: libc::SIGKILL,
                        flags,
                        ..
                    } => Some(Syscall::PidfdSendSignal {
                        fd,
                        sig: 0,
                        info: None,
                        flags,
                    }),
                    _ => None,
                };
                if probe.is_none() {
                    self.seize_fatal_targets(task, call);
                }
                early = Some(dispatch(&mut self.k, task, probe.as_ref().unwrap_or(call)));
            }
        }
        if let Some(fd) = tmp_pidfd {
            let _ = self.k.pidfd_close(fd);
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
        if alive {
            if let Some(real) = self.real_answer_at_entry(tid, nr, &regs.args()) {
                // Answered here: no syscall-exit stop (supervisor/answer.rs).
                let shown = if super::exit::returns_pid(nr) && real > 0 {
                    self.map.to_virtual(real as i32).into()
                } else {
                    real
                };
                self.report.answered_at_entry += 1;
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
        if regs.args() != vargs {
            let _ = regs.set(tid);
        }
        // A sender's own siginfo names itself in virtual numbers: the real
        // kernel gets the real pid (restored at the exit), so that what it
        // later hands out is renumbered like every pid it wrote.
        let mut restore_si_pid = None;
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
                    restore_si_pid = Some((at, v));
                }
            }
        }
        let entry_peek = match (&call, alive) {
            (Ok(c), true) => self.peek_wait(task, c),
            _ => None,
        };
        if let Some(t) = self.threads.get_mut(&tid) {
            t.in_call = Some(InCall {
                entry_peek,
                restore_si_pid,
                ..InCall::new(nr, c.name, vargs, call, early)
            });
        }
        self.resume(tid, 0);
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
        let Ok(leader) = self.k.find_task_by_vpid(self.init, tgid) else {
            return false;
        };
        // EPERM when the program traces it itself: then unseized.
        let ok = self.k.ptrace_attach(self.init, tgid, true).is_ok();
        if ok {
            self.seized.insert(leader);
        }
        ok
    }

    /// For a wait, the child the core would report now without reaping it
    /// (`Some(None)`: none); `None` for other calls or an error.
    pub(super) fn peek_wait(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
    ) -> Option<Option<i32>> {
        use taskcore::uapi::{P_ALL, P_PGID, P_PID, WEXITED, WNOHANG, WNOWAIT, WSTOPPED};
        let (idtype, id, options) = match *call {
            Syscall::Wait4 { pid, options } => {
                let (t, id) = match pid {
                    -1 => (P_ALL, 0),
                    0 => (P_PGID, 0),
                    p if p > 0 => (P_PID, p),
                    p if p == i32::MIN => return None,
                    p => (P_PGID, -p),
                };
                // wait4's WUNTRACED is waitid's WSTOPPED.
                (t, id, options | WEXITED | (options & WSTOPPED))
            }
            Syscall::Waitid {
                idtype,
                id,
                options,
            } => (idtype, id, options),
            _ => return None,
        };
        let peek = Syscall::Waitid {
            idtype,
            id,
            options: options | WNOWAIT | WNOHANG,
        };
        match dispatch(&mut self.k, task, &peek) {
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
            let pgid = match pid {
                0 => self.k.getpgid(task, 0).unwrap_or(0),
                -1 => -1,
                p => -p,
            };
            self.map
                .threads()
                .map(|(_, t)| t)
                .filter(|&t| pgid == -1 || self.k.getpgid(t, 0).ok() == Some(pgid))
                .collect()
        };
        for t in targets {
            if self.is_fatal(t, sig) {
                self.seize_dying(t);
            }
        }
    }

    /// The real value of pid argument `i` of kind `kind`, as `task` sees
    /// the virtual numbers.
    fn translate(&self, task: taskcore::TaskId, kind: Arg, a: &[u64; 6], i: usize) -> Target {
        let v = a[i] as i32;
        let pid = |v: i32| -> i32 {
            if v == 1 {
                self.sup_pid
            } else {
                self.map.to_real(&self.k, task, v).unwrap_or(NOPID)
            }
        };
        let real = |r: i32| Target::Real(r as i64 as u64);
        match kind {
            Arg::Pid | Arg::Pgid if v <= 0 => Target::Real(a[i]),
            Arg::Pid | Arg::Pgid => real(pid(v)),
            Arg::KillTarget => match v {
                -1 | 1 => Target::Confine,
                0 => Target::Real(0),
                v if v > 0 => real(pid(v)),
                // kill(INT_MIN) is ESRCH in Linux: -INT_MIN overflows.
                i32::MIN => real(i32::MIN),
                v => match pid(-v) {
                    p if p == self.sup_pid => Target::Confine,
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
