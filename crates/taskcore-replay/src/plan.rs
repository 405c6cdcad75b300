//! The planner: one pass over the lookahead window, in file order, that
//! attaches to each event the facts later lines of the recording show
//! about it ([`Facts`]), before any engine applies it. It reads the trace
//! only; what the facts mean for the emulation is the engine's business.
//!
//! An event is planned once, when an engine first needs it (the main
//! replay, or the order search running ahead of it), with the window as it
//! is then (at least the reorder window's worth of later events): every
//! replay of it, by the search too, sees the same facts.

use taskcore::sys::Syscall;

use crate::event::Call;
use crate::event::{Event, Kind, Outcome};
use crate::facts::{Cause, Facts, Named, Unblocked};
use crate::sigbit::bit;
use crate::window::Window;

/// Later `---` lines kept per list (distinct ones): a bound on the facts'
/// size, far more than a recording's signals in flight.
const NAMED_KEPT: usize = 32;
/// Later `---` lines read per list, at most: a bound on the planner's
/// cost per line when the same line repeats (a timer's signals).
const NAMED_READ: usize = 256;

/// The facts of `e`, from the events of `w` after it (`None`: none).
pub(crate) fn plan(w: &Window, e: &Event) -> Option<Facts> {
    let report = reported(e);
    let wanted = report.is_some()
        || matches!(e.kind, Kind::Exited { .. } | Kind::Killed { .. })
        || taken_with_info(e).is_some()
        || match &e.kind {
            Kind::Signal { .. } => true,
            Kind::Call(Call::Sys { call, .. }) => {
                (e.ret == Outcome::Interrupted && is_signal_wait(call))
                    || (w.signalfd_seen && changes_mask(e))
                    || (Kind::creates(call)
                        && (w.has_ns_comments() || w.pidns_seen || e.ret == Outcome::Died))
            }
            _ => false,
        };
    if !wanted {
        return None;
    }
    let f = facts(w, e);
    (!f.is_empty()).then_some(f)
}

/// The facts of `e`.
fn facts(w: &Window, e: &Event) -> Facts {
    let mut f = Facts::default();
    if let Some((pid, what)) = reported(e) {
        f.preceded_by = reported_end(w, e, pid, what);
    }
    if matches!(e.kind, Kind::Exited { .. } | Kind::Killed { .. }) {
        f.preceded_by = dequeued_before(w, e);
    }
    if let Some((sig, info)) = taken_with_info(e) {
        f.causes = w
            .open_causes(e.line)
            .filter(|x| match x.kind {
                Kind::Stopped { .. } => {
                    sig == taskcore::uapi::SIGCHLD && info.code == taskcore::uapi::CLD_STOPPED
                }
                ref k => k.sent_signal() == Some(sig),
            })
            .map(|x| Cause {
                key: x.key(),
                seq: x.seq,
                thread: x.pid,
                stop: matches!(x.kind, Kind::Stopped { .. }),
            })
            .collect();
    }
    match &e.kind {
        Kind::Signal { .. } => {
            f.sigreturn_later = w.sigreturn_after(e.pid, e.line);
        }
        Kind::Call(Call::Sys { call, .. })
            if e.ret == Outcome::Interrupted && is_signal_wait(call) =>
        {
            f.next_signal = w
                .thread_after(e.pid, e.line)
                .next()
                .and_then(|x| match x.kind {
                    Kind::Signal { sig, info } => Some((sig, info)),
                    _ => None,
                });
        }
        _ => {}
    }
    if w.signalfd_seen && changes_mask(e) {
        f.unblocked = Some(unblocked(w, e));
    }
    if e.kind.is_clone() {
        if w.has_ns_comments() {
            let mut v: Vec<i32> = w
                .after(e.entry_line)
                .filter(|a| {
                    matches!(
                        a.kind,
                        Kind::Call(Call::Sys {
                            out: crate::event::Rec::Clone { ns_nr: Some(_), .. },
                            ..
                        })
                    )
                })
                .map(|a| a.pid)
                .collect();
            v.dedup();
            f.ns_annotated = v;
        }
        if e.ret == Outcome::Died || w.pidns_seen {
            let created = w.created();
            let mut v: Vec<i32> = Vec::new();
            for a in w.after(e.entry_line) {
                if !created.contains(&a.pid) && !v.contains(&a.pid) {
                    v.push(a.pid);
                }
            }
            f.uncreated = v;
        }
    }
    f
}

/// The signal and siginfo a `---` line takes, or an `rt_sigtimedwait`
/// returned.
fn taken_with_info(e: &Event) -> Option<(i32, crate::event::RecSigInfo)> {
    match (&e.kind, &e.ret) {
        (Kind::Signal { sig, info: Some(i) }, _) => Some((*sig, *i)),
        (
            Kind::Call(Call::Sys {
                call: Syscall::RtSigtimedwait { .. },
                out: crate::event::Rec::Siginfo { info: Some(i), .. },
            }),
            Outcome::Value(n),
        ) => Some((*n as i32, **i)),
        _ => None,
    }
}

/// What a wait reports of a child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Report {
    Death,
    Stop,
    /// A status strace did not print.
    Either,
}

/// The child (its number as the caller sees it) and the change a wait
/// `e` reports, if it reports a death or a stop.
fn reported(e: &Event) -> Option<(i32, Report)> {
    use crate::event::Rec;
    use taskcore::uapi::{CLD_DUMPED, CLD_EXITED, CLD_KILLED, CLD_STOPPED, CLD_TRAPPED};
    let Outcome::Value(v) = e.ret else {
        return None;
    };
    match &e.kind {
        Kind::Call(Call::Sys {
            out: Rec::Wait4 { status },
            ..
        }) if v > 0 => {
            let what = match status {
                None => Report::Either,
                Some(0xffff) => return None,
                Some(s) if s & 0xff == 0x7f => Report::Stop,
                Some(_) => Report::Death,
            };
            Some((v as i32, what))
        }
        Kind::Call(Call::Sys {
            out: Rec::Waitid { info: Some(i) },
            ..
        }) if i.pid > 0 => {
            let what = match i.code {
                CLD_EXITED | CLD_KILLED | CLD_DUMPED => Report::Death,
                CLD_STOPPED | CLD_TRAPPED => Report::Stop,
                _ => return None,
            };
            Some((i.pid, what))
        }
        _ => None,
    }
}

/// "A death before the wait that reports it": the kernel wakes the
/// parent from inside the child's exit or stop (`do_notify_parent()`,
/// `do_notify_parent_cldstop()`), while strace prints the `+++` or `---
/// stopped by` line only when its own `waitpid` collects the tracee's
/// event, which may be after the parent's wait returned. The first such
/// line of the child after the wait (with its death, for a `+++` line),
/// unless a clone numbered another task so in between (a reused pid).
fn reported_end(w: &Window, e: &Event, nr: i32, what: Report) -> Vec<(usize, u64)> {
    // A caller in a nested pid namespace names the child by its
    // namespace's number: strace's comment on the clone says which.
    let pid = if w.has_ns_comments() {
        w.ns_child(e.pid, nr).unwrap_or(nr)
    } else {
        nr
    };
    let mut die = None;
    for x in w.ends_after(pid, e.line) {
        let fits = match (&x.kind, what) {
            (Kind::Die { .. }, _) => {
                die = Some(x);
                continue;
            }
            (Kind::Stopped { .. }, Report::Stop | Report::Either) => true,
            (Kind::Exited { .. } | Kind::Killed { .. }, Report::Death | Report::Either) => true,
            _ => false,
        };
        if !fits {
            die = None;
            continue;
        }
        let reused = w
            .between(e.line, x.line)
            .any(|c| c.kind.is_clone() && c.ret == Outcome::Value(i64::from(pid)));
        if reused {
            return Vec::new();
        }
        let mut v: Vec<(usize, u64)> = die.map(|d| (d.key(), d.seq)).into_iter().collect();
        v.push((x.key(), x.seq));
        return v;
    }
    Vec::new()
}

/// "A dequeue before the send it did not coalesce with": strace prints a
/// `+++` line when its wait reaps the tracee, and `wait_task_zombie()`
/// sends the real parent its SIGCHLD then (`do_notify_parent()`); the
/// parent prints its `---` line once in its signal-delivery-stop, after
/// the dequeue. A non-real-time signal sent while the same one is pending
/// is lost (`legacy_queue()`), so when a later `---` SIGCHLD line of a
/// thread names the child of `+++` line `e`, that child's SIGCHLD was sent
/// after the thread's previous SIGCHLD dequeue: the thread's `---`
/// SIGCHLD line naming another process whose window (from the thread's
/// previous line) overlaps `e`'s came before `e` in the kernel, though
/// strace printed it later. `e`'s window is its line, or under `-qq` the
/// replay's reap from the exit call to the first line that reports the
/// task (`shape/exits.rs`), so the later lines are read from its start.
/// Of the first [`NAMED_READ`] later `---` SIGCHLD lines.
fn dequeued_before(w: &Window, e: &Event) -> Vec<(usize, u64)> {
    use taskcore::uapi::{CLD_DUMPED, CLD_EXITED, CLD_KILLED, SIGCHLD};
    let mut open: Vec<&Event> = Vec::new();
    let from = e.entry_line.min(e.line);
    for x in w.named_lines_after(SIGCHLD, from).take(NAMED_READ) {
        let Kind::Signal { info: Some(i), .. } = x.kind else {
            continue;
        };
        if i.pid != Some(e.pid) {
            if x.entry_line < e.line {
                open.push(x);
            }
            continue;
        }
        if !matches!(i.code, CLD_EXITED | CLD_KILLED | CLD_DUMPED) {
            continue;
        }
        return open
            .iter()
            .filter(|y| y.pid == x.pid)
            .map(|y| (y.key(), y.seq))
            .collect();
    }
    Vec::new()
}

/// Whether `call` is a signal wait (what an interruption's waker is asked
/// of).
fn is_signal_wait(call: &Syscall) -> bool {
    matches!(
        call,
        Syscall::RtSigsuspend { .. } | Syscall::Pause | Syscall::RtSigtimedwait { .. }
    )
}

/// Whether `e` may unblock signals (rt_sigprocmask, rt_sigreturn).
fn changes_mask(e: &Event) -> bool {
    matches!(
        e.kind,
        Kind::Call(Call::Sys {
            call: Syscall::RtSigprocmask { .. } | Syscall::RtSigreturn { .. },
            ..
        })
    )
}

/// What the lines after `e` show of the signals its thread unblocked.
fn unblocked(w: &Window, e: &Event) -> Unblocked {
    let mut u = Unblocked::default();
    for a in w.thread_after(e.pid, e.line) {
        match &a.kind {
            Kind::Signal { sig, .. } => u.taken |= bit(*sig),
            k if k.is_sigreturn() => {}
            _ => {
                u.decided = true;
                break;
            }
        }
    }
    let mut later: Vec<Named> = Vec::new();
    for a in w.after(e.line) {
        if let Kind::Signal { sig, info: Some(i) } = a.kind {
            let n = Named {
                thread: a.pid,
                sig,
                code: i.code,
                pid: i.pid,
            };
            let same = later.iter().filter(|m| m.sig == sig).count();
            if same < NAMED_KEPT && !later.contains(&n) {
                later.push(n);
            }
        }
    }
    u.later = later;
    u
}
