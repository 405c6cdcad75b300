//! The shape of the replay's events: the `+++` lines strace prints (or,
//! with `-qq`, does not), the deaths behind them and their windows, and
//! the stop-signal lines held until the stop took effect. strace's events
//! come in with their calls already the core's
//! ([`taskcore_strace::Call`]); this module places them in time.

use rustc_hash::FxHashMap as HashMap;

pub(crate) mod exits;
#[cfg(test)]
mod tests;

use crate::event::{Event, Kind, Outcome, Rec, Restart};
use taskcore::sys::Syscall;
use taskcore_strace::{self as strace, Call, EventKind, Ret};

/// Shapes parsed strace events into the engine's, one at a time.
///
/// Each `+++ exited`/`+++ killed` line becomes two events. Under strace
/// every task is traced: a task's `do_exit` (its children reparented, its
/// tracer told) happens after its last printed activity, and its parent can
/// see it only once strace has reaped it and printed `+++`. A synthetic
/// [`Kind::Die`] event, whose window spans from the task's last activity to
/// the `+++` line, stands for the first moment; the `+++` event for the
/// second. The shaper keeps the last activity line of each task until
/// its `+++` (memory: live tasks).
///
/// A `--- SIGSTOP` (or SIGTSTP, SIGTTIN, SIGTTOU, or a core-dumping signal's) line is printed at the
/// signal-delivery-stop, after the dequeue and before the thread acts on
/// the signal; the stop itself (and the parent's SIGCHLD) comes once
/// strace resumes it, before its `--- stopped by` line. Such a line is
/// the dequeue, at its own place, and is followed by a synthetic
/// [`Kind::Resume`] held until the thread's next line, whose window spans
/// both (memory: one event per such thread): placed just after the `---`
/// line when the next line is the thread's `--- stopped by`, or its `+++
/// killed by` the signal line (strace resumes a tracee as soon as it
/// printed the stop; that line also says whether it dumped core), else
/// at the next line. A SIGCONT sent in between
/// finds the thread in its signal-delivery-stop and cancels the stop
/// (`prepare_signal()` clears `JOBCTL_STOP_DEQUEUED`).
#[derive(Debug, Default)]
pub(crate) struct Shaper {
    /// Entry line of the last event of each task not yet ended.
    last: HashMap<i32, usize>,
    /// Sequence number of the next event.
    seq: u64,
    /// Held restarts of stop-signal lines ([`Kind::Resume`]), by task.
    held_stop: HashMap<i32, Event>,
    /// Held `+++ superseded by execve in pid T +++` lines, by the old
    /// leader's pid (see [`Shaper::convert_one`]).
    held_exec: HashMap<i32, HeldExec>,
    /// Completing line of the last event of each task not yet ended.
    prev_line: HashMap<i32, usize>,
    /// Whether the trace prints `+++ exited` lines (see [`exits`]).
    exits: exits::Exits,
    /// Signal-mask calls seen (rt_sigprocmask, rt_sigreturn's frames):
    /// without `%signal` there are none, and masks are unknown.
    pub(crate) mask_calls: u64,
    /// The last line converted.
    max_line: usize,
    /// The events of the line being converted (kept for its capacity).
    scratch: Vec<Event>,
    /// The trace was merged from `strace -ff` files (`ffmerge.rs`): a
    /// call's completing line is a bound the merge chose, not a stop
    /// strace saw, so a signal the thread dequeues next may have been
    /// dequeued from the call's entry on.
    pub(crate) merged: bool,
}

/// A `+++ superseded by execve in pid T +++` line held until the old
/// leader's next event (see [`Shaper::convert_one`]).
#[derive(Debug)]
struct HeldExec {
    /// The thread that exec'd (T).
    by: i32,
    line: usize,
    ts: f64,
    file: std::sync::Arc<str>,
}

impl HeldExec {
    /// T's execve when the trace has not its call (its entry came before
    /// the trace began): one with arguments strace did not print, placed
    /// at the line.
    fn unseen_call(self) -> Event {
        Event {
            seq: 0,
            file: self.file,
            line: self.line,
            entry_line: self.line,
            pid: self.by,
            ts: self.ts,
            restart: None,
            at: None,
            uptrs: None,
            kind: Kind::Call(Call::Sys {
                call: Syscall::Execve {
                    filename: String::new(),
                    argv: None,
                },
                out: Rec::Ret,
            }),
            ret: Outcome::Value(0),
        }
    }
}

/// Whether `sig` is one of the stop signals.
fn stop_signal(sig: i32) -> bool {
    taskcore::uapi::sig_kernel_stop(sig)
}

impl Shaper {
    /// A shaper for a trace read from one file (`merged` false) or merged
    /// from `strace -ff` files ([`Shaper::merged`]).
    pub(crate) fn new(merged: bool) -> Shaper {
        Shaper {
            merged,
            ..Shaper::default()
        }
    }

    /// Hands out every held event (end of input).
    pub(crate) fn flush(&mut self, mut out: impl FnMut(Event)) {
        if self.exits.mode == exits::ExitLines::Unknown && self.exits.since.is_some() {
            self.exits.mode = exits::ExitLines::Dropped;
        }
        self.release(&mut out);
        // Deaths no line reported: reaped at the end.
        let mut left: Vec<Event> = self.exits.unreaped.drain().flat_map(|(_, e)| e).collect();
        left.sort_by_key(|e| e.line);
        let end = self.max_line;
        for mut l in left {
            if matches!(l.kind, Kind::Die { .. }) {
                // Its point and sequence stay; its window reaches the end.
                l.line = end.max(l.line);
                out(l);
                continue;
            }
            l.at = Some(l.entry_line + exits::REAP_WITHIN);
            l.line = end.max(l.line);
            l.seq = self.next_seq();
            out(l);
        }
        // Leaders whose threads outlived the trace: at its end.
        let mut leaders: Vec<Event> = self.exits.leaders.drain().map(|(_, e)| e).collect();
        leaders.sort_by_key(|e| e.line);
        for mut l in leaders {
            (l.entry_line, l.line, l.at) = (end, end, Some(end));
            l.seq = self.next_seq();
            out(l);
        }
        let execs: Vec<HeldExec> = self.held_exec.drain().map(|(_, h)| h).collect();
        let mut held: Vec<Event> = self.held_stop.drain().map(|(_, e)| e).collect();
        held.extend(execs.into_iter().map(HeldExec::unseen_call));
        held.sort_by_key(|e| e.line);
        for mut h in held {
            h.seq = self.next_seq();
            out(h);
        }
    }

    /// Whether the trace prints `+++ exited` lines, as far as known.
    pub(crate) fn exit_lines(&self) -> exits::ExitLines {
        self.exits.mode
    }

    /// The lowest line an event still held here may be placed at.
    pub(crate) fn floor(&self) -> Option<usize> {
        let stops = self
            .held_stop
            .values()
            .map(|e| e.entry_line)
            .chain(self.held_exec.values().map(|h| h.line))
            .min();
        match (self.exits.floor(), stops) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Converts `e`, handing the resulting events to `out` (or holding
    /// them while it is not known whether the trace prints `+++ exited`
    /// lines, see [`exits`]).
    pub(crate) fn push(&mut self, e: &strace::Event, mut out: impl FnMut(Event)) {
        use exits::ExitLines;
        // A buffer kept across calls: no allocation per event.
        let mut evs = std::mem::take(&mut self.scratch);
        self.convert_one(e, |ev| evs.push(ev));
        for ev in evs.drain(..) {
            if matches!(ev.kind, Kind::Exited { .. }) {
                self.exits.mode = ExitLines::Printed;
                self.release(&mut out);
                self.exits.forget_threads();
            }
            if matches!(
                ev.kind,
                Kind::Call(Call::Sys {
                    call: Syscall::RtSigprocmask { .. },
                    ..
                })
            ) {
                self.mask_calls += 1;
            }
            let exit = exits::exit_call(&ev).is_some();
            match self.exits.mode {
                ExitLines::Unknown if exit || self.exits.since.is_some() => {
                    self.exits.since.get_or_insert(ev.line);
                    self.exits.held.push(ev);
                }
                _ => self.route(ev, &mut out),
            }
        }
        self.scratch = evs;
        if self.exits.mode == ExitLines::Unknown
            && self
                .exits
                .since
                .is_some_and(|l| e.line >= l + exits::DECIDE_AFTER)
        {
            self.exits.mode = ExitLines::Dropped;
            self.release(&mut out);
        }
    }

    /// Hands on the held events.
    fn release(&mut self, out: &mut impl FnMut(Event)) {
        self.exits.since = None;
        let held = std::mem::take(&mut self.exits.held);
        for ev in held {
            self.route(ev, out);
        }
    }

    /// Hands on `ev`. When the trace drops `+++ exited` lines: an exit call
    /// is followed by its task's death, and the `+++ exited with N +++`
    /// line strace did not print (its reap, after which the parent sees
    /// the task) comes before the first line that reports the process (a
    /// SIGCHLD's `si_pid`, a wait's result, a new task with its number),
    /// or [`exits::REAP_HOLD`] lines after the call, whichever is first;
    /// its window spans back to the call, and it is placed by default
    /// [`exits::REAP_WITHIN`] lines after the call (or at its line if
    /// that is earlier).
    ///
    /// A leader that calls `exit` while threads the trace created live
    /// cannot be reaped before they are gone (`delay_group_leader()`): its
    /// line is held until the last of them dies (its exit call's or `+++
    /// killed` line's [`Kind::Die`], or a group death) and placed just
    /// after that death, or until a line of its own or one that reports it
    /// (see [`exits::Exits::held_leader`]).
    fn route(&mut self, mut ev: Event, out: &mut impl FnMut(Event)) {
        match self.exits.mode {
            exits::ExitLines::Dropped => {}
            exits::ExitLines::Unknown => {
                // The threads a later leader's exit may wait for.
                self.exits.note_clone(&ev);
                out(ev);
                return;
            }
            exits::ExitLines::Printed => {
                out(ev);
                return;
            }
        }
        let raw = exits::reports(&ev);
        let reported = raw.map(|p| self.exits.tgid_of(p));
        let mut due = self.exits.due(reported, ev.line);
        // A held leader's line: reported only by a line that names the
        // leader itself (a thread's own lines say nothing of its reap).
        if let Some(mut l) = raw.and_then(|p| self.exits.leaders.remove(&p)) {
            self.exits.threads.remove(&l.pid);
            // Placed at this line (below), not back at the exit call.
            l.entry_line = ev.line;
            due.push(l);
        }
        if !due.is_empty() {
            // Before `ev` in the default order: lower sequence numbers.
            for mut line in due {
                if matches!(line.kind, Kind::Die { .. }) {
                    // Its point and sequence stay (before its reap); its
                    // window reaches this line.
                    line.line = ev.line.max(line.line);
                    out(line);
                    continue;
                }
                self.exits.tgid.remove(&line.pid);
                line.at = Some(ev.line.min(line.entry_line + exits::REAP_WITHIN));
                line.line = ev.line;
                line.ts = ev.ts;
                line.seq = self.next_seq();
                out(line);
            }
            ev.seq = self.next_seq();
        }
        self.exits.note_clone(&ev);
        let Some(code) = exits::exit_call(&ev) else {
            let died = match ev.kind {
                Kind::Die { sig, .. } => Some((ev.pid, sig.is_some())),
                _ => None,
            };
            let (line, ts) = (ev.line, ev.ts);
            out(ev);
            if let Some((pid, group)) = died {
                self.release_leader(pid, group, (line, ts), out);
            }
            return;
        };
        let group = !matches!(
            ev.kind,
            Kind::Call(Call::Sys {
                call: Syscall::Exit { .. },
                ..
            })
        );
        let held = self.exits.held_leader(&ev);
        let mut line = ev.clone();
        line.kind = Kind::Exited {
            code,
            inferred: true,
        };
        line.ret = Outcome::Unknown;
        line.restart = None;
        // The reap comes after the call's line.
        line.entry_line = ev.line;
        out(ev);
        self.prev_line.remove(&line.pid);
        let from = self
            .last
            .remove(&line.pid)
            .unwrap_or(line.line)
            .min(line.line);
        let die = Event {
            seq: self.next_seq(),
            entry_line: from,
            at: Some(line.line),
            kind: Kind::Die {
                code: Some(code),
                sig: None,
            },
            ret: Outcome::Unknown,
            ..line.clone()
        };
        let tgid = self.exits.tgid_of(line.pid);
        if held {
            out(die);
            self.exits.leaders.insert(tgid, line);
            return;
        }
        // The death (`do_exit()`, which reparents the children) comes
        // between the task's last activity and its reap: its window ends
        // where the reap's does, at the first line that reports the task;
        // its point stays at the exit call.
        let (pid, at) = (line.pid, (line.line, line.ts));
        let unreaped = self.exits.unreaped.entry(tgid).or_default();
        unreaped.push(die);
        unreaped.push(line);
        self.release_leader(pid, group, at, out);
    }

    /// Task `pid` died at line `at` (and its time; `group`: with its
    /// thread group): the held `+++` line of its process's leader, when it
    /// was the last thread, is placed just after the death.
    fn release_leader(
        &mut self,
        pid: i32,
        group: bool,
        (at, ts): (usize, f64),
        out: &mut impl FnMut(Event),
    ) {
        if let Some(mut l) = self.exits.died(pid, group) {
            self.exits.tgid.remove(&l.pid);
            (l.entry_line, l.line, l.at, l.ts) = (at, at, Some(at), ts);
            l.seq = self.next_seq();
            out(l);
        }
    }

    /// Converts `e`, handing the resulting events to `out`.
    ///
    /// A thread's execve: strace prints `+++ superseded by execve in pid
    /// T +++` for the old leader L once it sees the exec (`de_thread()`
    /// done, T renumbered L, `PTRACE_EVENT_EXEC`), and T's execve then
    /// completes under pid L. The line is held until L's next event; when
    /// that is the execve T entered, the call is placed at the line (a
    /// point of its window, where the exec had taken effect) as T's, and
    /// the line is not an event of its own.
    fn convert_one(&mut self, e: &strace::Event, mut out: impl FnMut(Event)) {
        self.max_line = self.max_line.max(e.line);
        let mut exec_by = None;
        if let Some(h) = self.held_exec.remove(&e.pid) {
            match &e.kind {
                EventKind::Syscall(s)
                    if h.by == e.entry_pid
                        && matches!(s.call.syscall(), Some(Syscall::Execve { .. })) =>
                {
                    exec_by = Some((h.by, h.line));
                }
                _ => {
                    let mut x = h.unseen_call();
                    x.seq = self.next_seq();
                    out(x);
                }
            }
        }
        if let Some(mut h) = self.held_stop.remove(&e.pid) {
            // strace resumed the thread between its `---` line and this
            // one: at once, as its event loop does, when this line shows
            // the stop took effect (`--- stopped by`: other threads'
            // lines in between may be its group stop's doing); else as
            // late as this line (a SIGCONT meanwhile cancelled the stop).
            h.line = e.line;
            match (&mut h.kind, &e.kind) {
                (Kind::Resume { .. }, EventKind::Stopped { .. }) => h.at = Some(h.entry_line),
                // It dumped core or not (`RLIMIT_CORE`, `core_pattern`,
                // which the trace need not show), and died.
                (
                    Kind::Resume { sig, core },
                    &EventKind::Killed {
                        sig: s,
                        core_dumped,
                    },
                ) if *sig == s => {
                    *core = Some(core_dumped);
                    h.at = Some(h.entry_line);
                }
                _ => {}
            }
            h.seq = self.next_seq();
            out(h);
        }
        if let EventKind::Superseded { by_pid } = e.kind {
            let h = HeldExec {
                by: by_pid,
                line: e.line,
                ts: e.ts,
                file: e.file.clone(),
            };
            self.held_exec.insert(e.pid, h);
            return;
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
            at: None,
            uptrs: match &e.kind {
                EventKind::Syscall(s) => s.user_ptrs.clone(),
                _ => None,
            },
            kind: op,
            ret,
        };
        let prev = match ev.kind {
            Kind::Exited { .. } | Kind::Killed { .. } => self.prev_line.remove(&ev.pid),
            // An interrupted call of a merged trace: dequeues that
            // follow may come from its entry on.
            _ if self.merged && ev.restart.is_some() => {
                self.prev_line.insert(ev.pid, ev.entry_line)
            }
            _ => self.prev_line.insert(ev.pid, ev.line),
        };
        if let (true, &Outcome::Value(v)) = (ev.kind.is_clone(), &ev.ret) {
            // A new task's first line (a signal it took) opens its window
            // at the clone that created it.
            if let Ok(child) = i32::try_from(v) {
                if child > 0 {
                    self.prev_line.entry(child).or_insert(ev.line);
                }
            }
        }
        match (&ev.kind, prev) {
            // Dequeued after the thread's previous line; strace prints it
            // when it gets to the signal-delivery-stop.
            (Kind::Signal { .. }, Some(prev)) if prev < ev.line => {
                ev.entry_line = prev;
            }
            // The thread stopped after its previous line; strace prints it
            // when it gets to the stop.
            (Kind::Stopped { .. }, Some(prev)) if prev < ev.line => ev.entry_line = prev,
            _ => {}
        }
        let (code, sig) = match ev.kind {
            Kind::Exited { code, .. } => (Some(code), None),
            Kind::Killed { sig, core } => (None, Some((sig, core))),
            Kind::Signal { sig, .. }
                if stop_signal(sig) || taskcore::uapi::sig_kernel_coredump(sig) =>
            {
                // The thread's last activity is the line itself.
                self.last.insert(ev.pid, ev.line);
                let resume = Event {
                    entry_line: ev.line,
                    kind: Kind::Resume { sig, core: None },
                    ret: Outcome::Unknown,
                    restart: None,
                    uptrs: None,
                    ..ev.clone()
                };
                ev.seq = self.next_seq();
                out(ev);
                self.held_stop.insert(resume.pid, resume);
                return;
            }
            _ => {
                self.last.insert(ev.pid, ev.entry_line);
                ev.seq = self.next_seq();
                if let Some((by, line)) = exec_by {
                    ev.pid = by;
                    ev.at = Some(line);
                }
                out(ev);
                return;
            }
        };
        self.death_events(ev, code, sig, &mut out);
    }

    /// The synthetic death behind `+++` line `ev` (from the task's last
    /// activity to the line), then the line itself.
    fn death_events(
        &mut self,
        mut ev: Event,
        code: Option<i32>,
        sig: Option<(i32, bool)>,
        out: &mut impl FnMut(Event),
    ) {
        let from = self.last.remove(&ev.pid).unwrap_or(ev.line).min(ev.line);
        let die = Event {
            seq: self.next_seq(),
            entry_line: from,
            kind: Kind::Die { code, sig },
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

/// The engine's view of one parsed event: strace's call as it is (a
/// [`Call::Sys`] is already the core's call with the trace's numbers),
/// under two rules of the replay's own (below).
fn convert(e: &strace::Event) -> (Kind, Outcome) {
    let s = match &e.kind {
        EventKind::Syscall(s) => s,
        EventKind::Signal { sig, info } => {
            return (
                Kind::Signal {
                    sig: *sig,
                    info: *info,
                },
                Outcome::Unknown,
            )
        }
        EventKind::Stopped { sig } => return (Kind::Stopped { sig: *sig }, Outcome::Unknown),
        EventKind::Exited { code } => {
            let kind = Kind::Exited {
                code: *code,
                inferred: false,
            };
            return (kind, Outcome::Unknown);
        }
        EventKind::Killed { sig, core_dumped } => {
            return (
                Kind::Killed {
                    sig: *sig,
                    core: *core_dumped,
                },
                Outcome::Unknown,
            )
        }
        // Held by `Shaper::convert_one`, never converted.
        EventKind::Superseded { .. } => {
            return (
                Kind::Other {
                    name: "+++ superseded".into(),
                },
                Outcome::Unknown,
            )
        }
    };
    let mut ret = outcome(&s.ret);
    let op = match &s.call {
        // Never routed to the engine, which does not check them (its pid
        // map answers for the recording's numbers): counted as not
        // modelled, as before the calls were the core's.
        Call::Sys {
            call: Syscall::Getpid | Syscall::Gettid | Syscall::Getpgrp,
            ..
        } => Kind::Other {
            name: s.name.to_string(),
        },
        c @ Call::Sys { out, .. } => {
            // Under `--decode-pids=pidns`, the line labels and a clone's
            // result carry strace's number; the caller's is kept (in
            // `ns_nr`) for the check.
            if let (Rec::Clone { ns_nr: Some(_), .. }, Some(host)) = (out, s.ret_host_pid) {
                ret = Outcome::Value(i64::from(host));
            }
            Kind::Call(c.clone())
        }
        // The decoder's own shapes, as they are.
        c @ (Call::Raw { .. }
        | Call::Refused { .. }
        | Call::ProcWrite { .. }
        | Call::Unchecked { .. }
        | Call::RestartSyscall { .. }) => Kind::Call(c.clone()),
        // clone3 given an address strace could not read: its pointer is
        // checked where the trace mapped the memory (`engine/uaccess.rs`).
        Call::Other { .. }
            if &*s.name == "clone3" && s.hex_args.first().is_some_and(|h| h.0 == 0) =>
        {
            Kind::Call(Call::Unchecked {
                name: "clone3",
                why: "structure not read",
            })
        }
        Call::Other { .. } => Kind::Other {
            name: s.name.to_string(),
        },
    };
    // A call cut short before strace printed its arguments: the decoder
    // filled them with defaults, which must not be applied as if recorded.
    // (A clone's child still exists: its flags come first and are kept.)
    if !s.args_complete && !matches!(op, Kind::Other { .. }) && !op.is_clone() {
        return (
            Kind::Unrecorded {
                name: s.name.to_string(),
            },
            ret,
        );
    }
    (op, ret)
}
