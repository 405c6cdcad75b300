//! From parsed strace events to the replay engine's [`Event`]s.

use std::collections::HashMap;

use taskcore::uapi::{PR_GET_CHILD_SUBREAPER, PR_SET_CHILD_SUBREAPER};

/// `prctl` options (include/uapi/linux/prctl.h).
const PR_SET_PDEATHSIG: i32 = 1;
/// See [`PR_SET_PDEATHSIG`].
const PR_GET_DUMPABLE: i32 = 3;
/// See [`PR_SET_PDEATHSIG`].
const PR_SET_DUMPABLE: i32 = 4;
/// See [`PR_SET_PDEATHSIG`].
const PR_SET_NAME: i32 = 15;
/// See [`PR_SET_PDEATHSIG`].
const PR_GET_NAME: i32 = 16;

use crate::op::{Event, Op, Outcome, RecHandler, RecInfo, RecSigInfo, Restart};
use crate::procop::ProcOp;
use taskcore_strace::{self as strace, Call, EventKind, Ret, SigCall, SigHandler, SigSetArg};

/// Turns parsed strace events into the engine's, one at a time.
///
/// Each `+++ exited`/`+++ killed` line becomes two events. Under strace
/// every task is traced: a task's `do_exit` (its children reparented, its
/// tracer told) happens after its last printed activity, and its parent can
/// see it only once strace has reaped it and printed `+++`. A synthetic
/// [`Op::Die`] event, whose window spans from the task's last activity to
/// the `+++` line, stands for the first moment; the `+++` event for the
/// second. The converter keeps the last activity line of each task until
/// its `+++` (memory: live tasks).
///
/// A `--- SIGSTOP` (or SIGTSTP, SIGTTIN, SIGTTOU) line is printed at the
/// signal-delivery-stop, before the thread acts on the signal; the stop
/// itself (and the parent's SIGCHLD) comes before its `--- stopped by`
/// line. Such a line is held until the thread's next line and becomes an
/// event whose window spans both (memory: one event per such thread).
#[derive(Debug, Default)]
pub(crate) struct Converter {
    /// Entry line of the last event of each task not yet ended.
    last: HashMap<i32, usize>,
    /// Sequence number of the next event.
    seq: u64,
    /// Held stop-signal lines, by task.
    held_stop: HashMap<i32, Event>,
    /// Completing line of the last event of each task not yet ended.
    prev_line: HashMap<i32, usize>,
}

/// Whether `sig` is one of the stop signals.
fn stop_signal(sig: i32) -> bool {
    taskcore::uapi::sig_kernel_stop(sig)
}

impl Converter {
    /// Hands out every held event (end of input).
    pub(crate) fn flush(&mut self, mut out: impl FnMut(Event)) {
        let mut held: Vec<Event> = self.held_stop.drain().map(|(_, e)| e).collect();
        held.sort_by_key(|e| e.line);
        for mut h in held {
            h.seq = self.next_seq();
            out(h);
        }
    }

    /// Converts `e`, handing the resulting events to `out`.
    pub(crate) fn push(&mut self, e: &strace::Event, mut out: impl FnMut(Event)) {
        if let Some(mut h) = self.held_stop.remove(&e.pid) {
            // The stop took effect between its line and this one.
            h.line = e.line;
            h.seq = self.next_seq();
            out(h);
        }
        let (op, ret) = convert(e);
        let mut ev = Event {
            seq: 0,
            file: e.file.clone(),
            line: e.line,
            entry_line: e.entry_line,
            pid: e.pid,
            ts: e.ts,
            restart: match &e.kind {
                EventKind::Syscall(s) => restart(&s.ret),
                _ => None,
            },
            op,
            ret,
        };
        let prev = match ev.op {
            Op::Exited { .. } | Op::Killed { .. } => self.prev_line.remove(&ev.pid),
            _ => self.prev_line.insert(ev.pid, ev.line),
        };
        match (&ev.op, prev) {
            // Dequeued after the thread's previous line; strace prints it
            // when it gets to the signal-delivery-stop.
            (Op::Signal { sig, .. }, Some(prev)) if !stop_signal(*sig) && prev < ev.line => {
                ev.entry_line = prev;
            }
            // The thread stopped after its previous line; strace prints it
            // when it gets to the stop.
            (Op::Stopped { .. }, Some(prev)) if prev < ev.line => ev.entry_line = prev,
            _ => {}
        }
        let (code, sig) = match ev.op {
            Op::Exited { code } => (Some(code), None),
            Op::Killed { sig, core } => (None, Some((sig, core))),
            Op::Signal { sig, .. } if stop_signal(sig) => {
                self.last.insert(ev.pid, ev.entry_line);
                self.held_stop.insert(ev.pid, ev);
                return;
            }
            _ => {
                self.last.insert(ev.pid, ev.entry_line);
                ev.seq = self.next_seq();
                out(ev);
                return;
            }
        };
        let from = self.last.remove(&ev.pid).unwrap_or(ev.line).min(ev.line);
        let die = Event {
            seq: self.next_seq(),
            entry_line: from,
            op: Op::Die { code, sig },
            ret: Outcome::Unknown,
            ..ev.clone()
        };
        out(die);
        ev.seq = self.next_seq();
        out(ev);
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }
}

fn outcome(r: &Ret) -> Outcome {
    match r {
        Ret::Val(v) => Outcome::Value(*v),
        Ret::Err(e) if e.name.starts_with("ERESTART") || &*e.name == "EINTR" => {
            Outcome::Interrupted
        }
        Ret::Err(e) => match e.num.and_then(taskcore::Errno::from_i32) {
            None => Outcome::Unknown,
            Some(err) => Outcome::Errno(err),
        },
        Ret::Unknown => Outcome::Died,
    }
}

fn restart(r: &Ret) -> Option<Restart> {
    match r {
        Ret::Err(e) => match &*e.name {
            "ERESTARTSYS" => Some(Restart::Sys),
            "ERESTARTNOINTR" => Some(Restart::NoIntr),
            "ERESTARTNOHAND" | "ERESTART_RESTARTBLOCK" => Some(Restart::NoHand),
            "EINTR" => Some(Restart::Eintr),
            _ => None,
        },
        _ => None,
    }
}

fn handler(h: SigHandler) -> RecHandler {
    match h {
        SigHandler::Dfl => RecHandler::Dfl,
        SigHandler::Ign => RecHandler::Ign,
        SigHandler::Handler(_) => RecHandler::Handler,
    }
}

/// The engine's view of one parsed event.
fn convert(e: &strace::Event) -> (Op, Outcome) {
    let s = match &e.kind {
        EventKind::Syscall(s) => s,
        EventKind::Signal { sig, info } => {
            return (
                Op::Signal {
                    sig: *sig,
                    info: info.as_ref().map(rec_siginfo),
                },
                Outcome::Unknown,
            )
        }
        EventKind::Stopped { sig } => return (Op::Stopped { sig: *sig }, Outcome::Unknown),
        EventKind::Exited { code } => return (Op::Exited { code: *code }, Outcome::Unknown),
        EventKind::Killed { sig, core_dumped } => {
            return (
                Op::Killed {
                    sig: *sig,
                    core: *core_dumped,
                },
                Outcome::Unknown,
            )
        }
        EventKind::Superseded { by_pid } => {
            return (Op::Superseded { by: *by_pid }, Outcome::Unknown)
        }
    };
    let mut ret = outcome(&s.ret);
    let op = match &s.call {
        Call::Clone(c) => {
            // Under `--decode-pids=pidns`, the line labels and this result
            // carry strace's number; the caller's is kept for the check.
            let ns_nr = match (&ret, s.ret_host_pid) {
                (Outcome::Value(v), Some(host)) => {
                    let nr = *v as i32;
                    ret = Outcome::Value(i64::from(host));
                    Some(nr)
                }
                _ => None,
            };
            Op::Clone {
                flags: c.flags,
                exit_signal: c.exit_signal,
                clone3: c.flavor == strace::CloneFlavor::Clone3,
                pidfd: c.pidfd,
                ns_nr,
            }
        }
        Call::ProcApi(p) => Op::ProcApi(ProcOp::Call(p.clone())),
        Call::Prctl {
            option,
            name: Some(name),
            ..
        } if *option == PR_GET_NAME => Op::ProcApi(ProcOp::GetName { name: name.clone() }),
        Call::Execve(x) => Op::Execve {
            path: x.path.clone(),
            argv: x.argv.clone(),
        },
        Call::Exit { code } => Op::Exit { code: *code },
        Call::ExitGroup { code } => Op::ExitGroup { code: *code },
        Call::Wait4 {
            pid,
            status,
            options,
        } => Op::Wait4 {
            pid: *pid,
            status: *status,
            options: *options,
        },
        Call::Waitid {
            idtype,
            id,
            info,
            options,
        } => Op::Waitid {
            idtype: *idtype,
            id: *id,
            info: info.as_ref().map(|i| RecInfo {
                pid: if i.si_signo == 0 {
                    0
                } else {
                    i.si_pid.unwrap_or(0)
                },
                code: i.si_code,
                status: i.si_status.unwrap_or(0),
            }),
            options: *options,
        },
        Call::Setpgid { pid, pgid } => Op::Setpgid {
            pid: *pid,
            pgid: *pgid,
        },
        Call::Setsid => Op::Setsid,
        Call::Getpgid { pid } => Op::Getpgid { pid: *pid },
        Call::Getsid { pid } => Op::Getsid { pid: *pid },
        Call::Getppid => Op::Getppid,
        Call::Kill { pid, sig } => Op::Kill {
            pid: *pid,
            sig: *sig,
        },
        Call::Tgkill { tgid, tid, sig } => Op::Tgkill {
            tgid: *tgid,
            tid: *tid,
            sig: *sig,
        },
        Call::Tkill { tid, sig } => Op::Tkill {
            tid: *tid,
            sig: *sig,
        },
        Call::RtSigaction { sig, act, oldact } => Op::RtSigaction {
            sig: *sig,
            act: act.as_ref().map(|a| (handler(a.handler), a.flags, a.mask)),
            old: oldact.as_ref().map(|a| handler(a.handler)),
        },
        Call::Mmap {
            addr,
            len,
            prot,
            flags,
            fd,
            offset,
        } => Op::Mmap {
            addr: *addr,
            len: *len,
            prot: *prot as u32,
            flags: *flags as u32,
            fd: *fd,
            offset: *offset,
        },
        Call::Munmap { addr, len } => Op::Munmap {
            addr: *addr,
            len: *len,
        },
        Call::Mprotect { addr, len, prot } => Op::Mprotect {
            addr: *addr,
            len: *len,
            prot: *prot as u32,
        },
        Call::Mremap {
            old_addr,
            old_len,
            new_len,
            flags,
            new_addr,
        } => Op::Mremap {
            old: *old_addr,
            old_len: *old_len,
            new_len: *new_len,
            flags: *flags as u32,
            new: new_addr.unwrap_or(0),
        },
        Call::Brk { addr } => Op::Brk { addr: *addr },
        Call::Prctl { option, arg2, .. } if *option == PR_SET_CHILD_SUBREAPER => {
            Op::SetChildSubreaper {
                on: arg2.unwrap_or(0) != 0,
            }
        }
        Call::Prctl { option, arg2, .. } if *option == PR_GET_CHILD_SUBREAPER => {
            Op::GetChildSubreaper { value: *arg2 }
        }
        Call::Prctl {
            option,
            name: Some(name),
            ..
        } if *option == PR_SET_NAME => Op::SetName { name: name.clone() },
        Call::Prctl {
            option,
            arg2: Some(sig),
            ..
        } if *option == PR_SET_PDEATHSIG => Op::SetPdeathsig { sig: *sig as i32 },
        Call::Prctl {
            option,
            arg2: Some(arg),
            ..
        } if *option == PR_SET_DUMPABLE => Op::SetDumpable { arg: *arg },
        Call::Prctl { option, .. } if *option == PR_GET_DUMPABLE => Op::GetDumpable,
        Call::Signal(c) => signal_op(c),
        Call::Ptrace { request, pid, .. } => Op::Ptrace {
            request: *request,
            pid: *pid,
        },
        _ => Op::Other {
            name: s.name.to_string(),
        },
    };
    // A call cut short before strace printed its arguments: the decoder
    // filled them with defaults, which must not be applied as if recorded.
    // (A clone's child still exists: its flags come first and are kept.)
    if !s.args_complete && !matches!(op, Op::Other { .. } | Op::Clone { .. }) {
        return (
            Op::Unrecorded {
                name: s.name.to_string(),
            },
            ret,
        );
    }
    (op, ret)
}

/// The engine's view of a recorded siginfo.
fn rec_siginfo(i: &strace::SigInfo) -> RecSigInfo {
    RecSigInfo {
        signo: i.si_signo,
        code: i.si_code,
        pid: i.si_pid,
        uid: i.si_uid,
        status: i.si_status,
        int: i.si_int,
        ptr: i.si_ptr,
    }
}

/// The signal-mask, pending-set and signal-wait calls.
fn signal_op(c: &SigCall) -> Op {
    let set = |a: &SigSetArg| match a {
        SigSetArg::Null => Some(None),
        SigSetArg::Set(m) => Some(Some(*m)),
        SigSetArg::Addr(_) => None,
    };
    match c {
        SigCall::RtSigprocmask {
            how,
            set: s,
            oldset,
            sigsetsize,
        } => Op::RtSigprocmask {
            how: *how,
            set: set(s),
            old: oldset.mask(),
            sigsetsize: *sigsetsize,
        },
        SigCall::RtSigpending { set, sigsetsize } => Op::RtSigpending {
            set: set.mask(),
            sigsetsize: *sigsetsize,
        },
        SigCall::RtSigsuspend { mask, sigsetsize } => Op::SigSuspend {
            mask: mask.mask(),
            pause: false,
            sigsetsize: *sigsetsize,
        },
        SigCall::Pause => Op::SigSuspend {
            mask: None,
            pause: true,
            sigsetsize: 8,
        },
        SigCall::RtSigtimedwait {
            set,
            info,
            sigsetsize,
            ..
        } => Op::RtSigtimedwait {
            set: set.mask(),
            info: info.as_ref().map(rec_siginfo),
            sigsetsize: *sigsetsize,
        },
        SigCall::RtSigqueueinfo { tgid, sig, info } => Op::RtSigqueueinfo {
            tgid: *tgid,
            tid: None,
            sig: *sig,
            info: info.as_ref().map(rec_siginfo),
        },
        SigCall::RtTgsigqueueinfo {
            tgid,
            tid,
            sig,
            info,
        } => Op::RtSigqueueinfo {
            tgid: *tgid,
            tid: Some(*tid),
            sig: *sig,
            info: info.as_ref().map(rec_siginfo),
        },
        SigCall::RtSigreturn { mask } => Op::RtSigreturn { mask: *mask },
        SigCall::RestartSyscall { .. } => Op::RestartSyscall,
    }
}
