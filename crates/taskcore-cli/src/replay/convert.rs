//! From parsed strace events to the replay engine's [`Event`]s.

use std::collections::HashMap;
use std::path::Path;

use taskcore::uapi::{PR_GET_CHILD_SUBREAPER, PR_SET_CHILD_SUBREAPER};

use super::op::{Event, Op, Outcome, RecHandler, RecInfo};
use crate::strace::{self, Call, EventKind, Ret, SigHandler};

/// One trace file, converted.
pub(crate) struct Loaded {
    pub(crate) events: Vec<Event>,
    /// Lines of syscalls the replay does not model, by name.
    pub(crate) skipped: HashMap<String, u64>,
    /// Lines that could not be parsed (each reported by the parser).
    pub(crate) parse_errors: u64,
}

/// Reads and converts one trace file (plain or gzip).
///
/// # Errors
/// A message naming the file when it cannot be read.
pub(crate) fn load(path: &Path) -> Result<Loaded, String> {
    let parsed = strace::read_trace(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for err in &parsed.errors {
        eprintln!("{}:{}: {}", err.file, err.line, err.msg);
    }
    Ok(from_trace(parsed))
}

/// Converts a parsed trace.
pub(crate) fn from_trace(parsed: strace::Trace) -> Loaded {
    let mut skipped = HashMap::new();
    let mut events = Vec::with_capacity(parsed.events.len());
    for e in parsed.events {
        match convert(&e) {
            Some((op, ret)) => events.push(Event {
                file: e.file.clone(),
                line: e.line,
                entry_line: e.entry_line,
                pid: e.pid,
                ts: e.ts,
                op,
                ret,
            }),
            None => {
                let name = match &e.kind {
                    EventKind::Syscall(s) => s.name.to_string(),
                    _ => "other".to_string(),
                };
                *skipped.entry(name).or_default() += 1;
            }
        }
    }
    split_deaths(&mut events);
    Loaded {
        events,
        skipped,
        parse_errors: parsed.stats.error_lines,
    }
}

/// Splits each `+++` line in two. Under strace every task is traced: a
/// task's `do_exit` (its children reparented, its tracer told) happens
/// after its last printed activity, and its parent can see it only once
/// strace has reaped it and printed `+++`. A synthetic [`Op::Die`] event,
/// whose window spans from the task's last activity to the `+++` line,
/// stands for the first moment; the `+++` event for the second.
fn split_deaths(events: &mut Vec<Event>) {
    let mut last: HashMap<i32, usize> = HashMap::new();
    let mut out = Vec::with_capacity(events.len() + events.len() / 8);
    for e in events.drain(..) {
        let (code, sig) = match e.op {
            Op::Exited { code } => (Some(code), None),
            Op::Killed { sig, core } => (None, Some((sig, core))),
            _ => {
                last.insert(e.pid, e.entry_line);
                out.push(e);
                continue;
            }
        };
        let from = last.get(&e.pid).copied().unwrap_or(e.line).min(e.line);
        out.push(Event {
            entry_line: from,
            op: Op::Die { code, sig },
            ret: Outcome::Unknown,
            ..e.clone()
        });
        out.push(e);
    }
    *events = out;
}

fn outcome(r: &Ret) -> Outcome {
    match r {
        Ret::Val(v) => Outcome::Value(*v),
        Ret::Err(e) if e.name.starts_with("ERESTART") || &*e.name == "EINTR" => {
            Outcome::Interrupted
        }
        Ret::Err(e) => match e.errno() {
            None => Outcome::Unknown,
            Some(err) => Outcome::Errno(err),
        },
        Ret::Unknown => Outcome::Died,
    }
}

fn handler(h: SigHandler) -> RecHandler {
    match h {
        SigHandler::Dfl => RecHandler::Dfl,
        SigHandler::Ign => RecHandler::Ign,
        SigHandler::Handler(_) => RecHandler::Handler,
    }
}

/// The engine's view of one parsed event; `None` for what it does not model.
fn convert(e: &strace::Event) -> Option<(Op, Outcome)> {
    let s = match &e.kind {
        EventKind::Syscall(s) => s,
        EventKind::Signal { sig, .. } => return Some((Op::Signal { sig: *sig }, Outcome::Unknown)),
        EventKind::Stopped { sig } => return Some((Op::Stopped { sig: *sig }, Outcome::Unknown)),
        EventKind::Exited { code } => return Some((Op::Exited { code: *code }, Outcome::Unknown)),
        EventKind::Killed { sig, core_dumped } => {
            return Some((
                Op::Killed {
                    sig: *sig,
                    core: *core_dumped,
                },
                Outcome::Unknown,
            ))
        }
        EventKind::Superseded { by_pid } => {
            return Some((Op::Superseded { by: *by_pid }, Outcome::Unknown))
        }
    };
    let ret = outcome(&s.ret);
    let op = match &s.call {
        Call::Clone(c) => Op::Clone {
            flags: c.flags,
            exit_signal: c.exit_signal,
        },
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
            act: act.as_ref().map(|a| (handler(a.handler), a.flags)),
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
        _ => Op::Other {
            name: s.name.to_string(),
        },
    };
    Some((op, ret))
}
