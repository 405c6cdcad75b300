//! The line-to-event state machine: joins `<unfinished ...>` /
//! `<... resumed>` halves and produces events in order.
//!
//! ```text
//!   pending: HashMap<pid, Pending>      at most one open call per task
//!
//!   NAME(ARGS <unfinished ...>   -> pending[pid] = entry (a second entry
//!                                   for the same pid flushes the first)
//!   <... NAME resumed>REST       -> event(entry.args + REST), at this line
//!   +++ exited/killed +++        -> flush pending[pid] (completed = false),
//!                                   then the exit event
//!   L +++ superseded ... pid T   -> flush pending[L]; pending[T] moves to L
//!                                   (its execve resumes under L)
//!   end of input                 -> flush every pending call, entry order
//! ```
//!
//! Complexity: O(1) expected per line plus the line's length; memory is
//! O(tasks with an open call).
//!
//! No Linux analogue: this undoes strace's output interleaving
//! (`printleader()`'s `<unfinished ...>`, `TCB_REPRINT`, and
//! `maybe_switch_tcbs()` for a non-leader execve()).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::args::parse_value;
use super::consts::signal_number;
use super::decode::{decode_full, siginfo};
use super::event::{Event, EventKind, Ret, SyscallLine};
use super::line::{lex, split_call_tail, Body};

/// A line the parser could not use, with where it is and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The trace file's name.
    pub file: Arc<str>,
    /// 1-based line number.
    pub line: usize,
    /// What was wrong, lowercase.
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.msg)
    }
}

/// Per-syscall counts (keyed by the name strace printed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyscallCount {
    /// Lines naming this syscall: whole calls, `<unfinished ...>` and
    /// `<... resumed>` lines each count once.
    pub lines: u64,
    /// Events produced (a joined pair counts once).
    pub calls: u64,
    /// Events whose call never resumed (`completed == false`).
    pub unfinished: u64,
    /// Events whose typed decoding failed (`Call::Other` with a reason).
    pub undecoded: u64,
}

/// Counters over one trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lines read.
    pub lines: u64,
    /// Lines carrying no event (`strace:` messages, blank lines).
    pub noise_lines: u64,
    /// Lines that produced a [`ParseError`] (all of them, even beyond
    /// [`MAX_STORED_ERRORS`]).
    pub error_lines: u64,
    /// Per syscall name.
    pub syscalls: BTreeMap<Box<str>, SyscallCount>,
    /// `--- SIG... ---` lines (including `stopped by`).
    pub signal_lines: u64,
    /// Signal lines whose siginfo could not be decoded.
    pub undecoded_siginfo: u64,
    /// `+++ exited with +++` lines.
    pub exited_lines: u64,
    /// `+++ killed by +++` lines.
    pub killed_lines: u64,
    /// `+++ superseded by execve +++` lines.
    pub superseded_lines: u64,
    /// Lines that named their task (`-f`'s leading pid).
    pub pid_lines: u64,
    /// Completed clone, clone3, fork and vfork calls that returned a child.
    pub child_clones: u64,
    /// The first line holding a NUL byte (strace escapes every
    /// unprintable byte, so such a file is binary, not strace's text).
    pub first_nul_line: Option<u64>,
}

impl Stats {
    /// The counters for syscall `name` (zero if never seen).
    #[cfg(test)]
    pub fn syscall(&self, name: &str) -> SyscallCount {
        self.syscalls.get(name).copied().unwrap_or_default()
    }

    /// Bumps `f` of `name`'s counters.
    fn bump(&mut self, name: &str, f: impl FnOnce(&mut SyscallCount)) {
        if let Some(c) = self.syscalls.get_mut(name) {
            f(c);
        } else {
            let mut c = SyscallCount::default();
            f(&mut c);
            self.syscalls.insert(name.into(), c);
        }
    }
}

/// The longest error message kept, in bytes (a quoted line is cut).
pub const MAX_MSG: usize = 200;

/// How many [`ParseError`]s a parser keeps; later ones are only counted.
pub const MAX_STORED_ERRORS: usize = 1000;

/// The entry half of a call awaiting its `<... resumed>` line.
#[derive(Clone, Debug)]
struct Pending {
    /// Syscall name.
    name: Box<str>,
    /// The argument text printed on entry.
    args: String,
    /// Entry line number.
    line: usize,
    /// Entry timestamp.
    ts: f64,
    /// The task that entered the call.
    pid: i32,
}

/// Turns trace lines into [`Event`]s; holds the join state, counters and
/// errors of one trace. Feed lines in order with [`Parser::feed`], then call
/// [`Parser::finish`].
#[derive(Debug)]
pub struct Parser {
    /// The file name stamped on events and errors.
    file: Arc<str>,
    /// The pid for lines without one.
    default_pid: i32,
    /// Number of the last line fed.
    line: usize,
    /// Open calls by pid.
    pending: HashMap<i32, Pending>,
    /// Counters.
    stats: Stats,
    /// The first [`MAX_STORED_ERRORS`] errors.
    errors: Vec<ParseError>,
    /// The text of the last call joined from its halves (a buffer reused
    /// from line to line).
    joined: String,
}

impl Parser {
    /// A parser for the trace named `file`.
    pub fn new(file: impl Into<Arc<str>>) -> Parser {
        Parser {
            file: file.into(),
            default_pid: 0,
            line: 0,
            pending: HashMap::default(),
            stats: Stats::default(),
            errors: Vec::new(),
            joined: String::new(),
        }
    }

    /// Sets the pid given to lines that carry none (a single-process trace,
    /// or one `strace -ff` output file, whose pid is in its name).
    pub fn with_default_pid(mut self, pid: i32) -> Parser {
        self.default_pid = pid;
        self
    }

    /// The counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The errors so far (at most [`MAX_STORED_ERRORS`]; see
    /// [`Stats::error_lines`] for the total).
    pub fn errors(&self) -> &[ParseError] {
        &self.errors
    }

    /// The entry line of the earliest call of the clone family (`clone`,
    /// `clone3`, `fork`, `vfork`) still open: a reader that places clones at
    /// their entry line must wait until it resumes. `None` when none is
    /// open.
    pub fn open_clone_line(&self) -> Option<usize> {
        self.pending
            .values()
            .filter(|p| matches!(&*p.name, "clone" | "clone3" | "fork" | "vfork"))
            .map(|p| p.line)
            .min()
    }

    /// Calls entered (`<unfinished ...>`) and not yet resumed.
    pub fn open_calls(&self) -> usize {
        self.pending.len()
    }

    /// The number of the last line fed.
    pub fn line(&self) -> usize {
        self.line
    }

    /// Records an error at the current line. The message is cut to about
    /// [`MAX_MSG`] bytes.
    fn error(&mut self, mut msg: String) {
        if msg.len() > MAX_MSG {
            let mut cut = MAX_MSG;
            while !msg.is_char_boundary(cut) {
                cut -= 1;
            }
            msg.truncate(cut);
            msg.push_str("... (cut)");
        }
        self.stats.error_lines += 1;
        if self.errors.len() < MAX_STORED_ERRORS {
            self.errors.push(ParseError {
                file: self.file.clone(),
                line: self.line,
                msg,
            });
        }
    }

    /// Records a failure to read the next line (I/O or decompression error)
    /// as an error on that line.
    pub fn feed_error(&mut self, msg: String) {
        self.line += 1;
        self.error(msg);
    }

    /// Consumes the next line (without its newline), appending the events it
    /// completes to `out`. Never fails: a malformed line is recorded as a
    /// [`ParseError`] and skipped.
    pub fn feed(&mut self, text: &str, out: &mut VecDeque<Event>) {
        let before = out.len();
        self.feed_line(text, out);
        if self.stats.first_nul_line.is_none() && text.contains('\0') {
            self.stats.first_nul_line = Some(self.line as u64);
        }
        for e in out.iter().skip(before) {
            if let EventKind::Syscall(sc) = &e.kind {
                if sc.call.creates_task() && matches!(sc.ret, Ret::Val(v) if v > 0) {
                    self.stats.child_clones += 1;
                }
            }
        }
    }

    /// As [`Parser::feed`], for the line's bytes as read: bytes that are
    /// not UTF-8 become U+FFFD (strace escapes every unprintable byte, so a
    /// trace line is plain ASCII, checked without decoding each character).
    pub fn feed_bytes(&mut self, bytes: &[u8], out: &mut VecDeque<Event>) {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.feed(text, out),
            Err(_) => self.feed(&String::from_utf8_lossy(bytes), out),
        }
    }

    fn feed_line(&mut self, text: &str, out: &mut VecDeque<Event>) {
        self.line += 1;
        self.stats.lines += 1;
        let l = match lex(text) {
            Ok(l) => l,
            Err(msg) => return self.error(msg),
        };
        if l.pid.is_some() {
            self.stats.pid_lines += 1;
        }
        let pid = l.pid.unwrap_or(self.default_pid);
        let ts = l.ts;
        let line = self.line;
        let file = self.file.clone();
        let event = |kind| Event {
            file: file.clone(),
            line,
            entry_line: line,
            pid,
            entry_pid: pid,
            ts,
            entry_ts: ts,
            kind,
        };
        match l.body {
            Body::Noise => self.stats.noise_lines += 1,
            Body::Call { name, args, result } => {
                self.stats.bump(name, |c| c.lines += 1);
                match Ret::parse(result) {
                    Ok(ret) => {
                        let mut sc = self.syscall(name, args, ret, true);
                        sc.set_host_pid(crate::pidns::host_pid_comment(result));
                        let ev = event(EventKind::Syscall(sc));
                        out.push_back(ev);
                    }
                    Err(msg) => self.error(msg),
                }
            }
            Body::Unfinished { name, args } => {
                self.stats.bump(name, |c| c.lines += 1);
                let entry = Pending {
                    name: name.into(),
                    args: args.to_string(),
                    line,
                    ts,
                    pid,
                };
                if let Some(old) = self.pending.insert(pid, entry) {
                    self.error(format!(
                        "{}() entered on line {} never resumed before {name}()",
                        old.name, old.line
                    ));
                    out.push_back(self.dangling(old));
                }
            }
            Body::Resumed { name, rest } => {
                self.stats.bump(name, |c| c.lines += 1);
                self.resume(pid, ts, name, rest, out);
            }
            Body::Signal { name, info } => {
                self.stats.signal_lines += 1;
                let Some(sig) = signal_number(name) else {
                    return self.error(format!("unknown signal {name}"));
                };
                let info = if info.is_empty() {
                    None
                } else {
                    match siginfo(&parse_value(info)) {
                        Ok(i) => Some(i),
                        Err(_) => {
                            // The signal itself is known; keep the event.
                            self.stats.undecoded_siginfo += 1;
                            None
                        }
                    }
                };
                out.push_back(event(EventKind::Signal { sig, info }));
            }
            Body::Stopped { name } => {
                self.stats.signal_lines += 1;
                match signal_number(name) {
                    Some(sig) => out.push_back(event(EventKind::Stopped { sig })),
                    None => self.error(format!("unknown stop signal {name}")),
                }
            }
            Body::Exited { code } => {
                self.stats.exited_lines += 1;
                self.flush_pid(pid, out);
                out.push_back(event(EventKind::Exited { code }));
            }
            Body::Killed { name, core_dumped } => {
                self.stats.killed_lines += 1;
                self.flush_pid(pid, out);
                match signal_number(name) {
                    Some(sig) => out.push_back(event(EventKind::Killed { sig, core_dumped })),
                    None => self.error(format!("unknown fatal signal {name}")),
                }
            }
            Body::Superseded { by_pid } => {
                self.stats.superseded_lines += 1;
                // The old leader's own open call never returns.
                self.flush_pid(pid, out);
                // The execve()ing thread's call resumes under the leader's pid.
                if let Some(mut p) = self.pending.remove(&by_pid) {
                    if by_pid != pid {
                        p.pid = by_pid;
                        self.pending.insert(pid, p);
                    }
                }
                out.push_back(event(EventKind::Superseded { by_pid }));
            }
        }
    }

    /// Joins a `<... NAME resumed>` line with its entry.
    fn resume(&mut self, pid: i32, ts: f64, name: &str, rest: &str, out: &mut VecDeque<Event>) {
        let entry = match self.pending.remove(&pid) {
            Some(p) if &*p.name == name => p,
            Some(p) => {
                self.error(format!(
                    "{name}() resumed while {}() from line {} was open",
                    p.name, p.line
                ));
                out.push_back(self.dangling(p));
                return;
            }
            None => return self.error(format!("{name}() resumed without an unfinished entry")),
        };
        // The whole call's text, in a buffer kept across lines.
        let mut whole = std::mem::take(&mut self.joined);
        whole.clear();
        whole.extend([name, "(", &entry.args, rest]);
        let sc = self.joined_syscall(name, &whole, entry.line);
        self.joined = whole;
        let Some(sc) = sc else { return };
        out.push_back(Event {
            file: self.file.clone(),
            line: self.line,
            entry_line: entry.line,
            pid,
            entry_pid: entry.pid,
            ts,
            entry_ts: entry.ts,
            kind: EventKind::Syscall(sc),
        });
    }

    /// Decodes the call `whole` (`NAME(ARGS) = RESULT`, joined from the
    /// halves whose entry is on line `entry_line`); `None` after recording
    /// the error when it has no `) = result`.
    fn joined_syscall(
        &mut self,
        name: &str,
        whole: &str,
        entry_line: usize,
    ) -> Option<SyscallLine> {
        let Some((args, result)) = split_call_tail(whole, name.len()) else {
            self.error(format!(
                "no `) = result` after joining {name}() with line {entry_line}"
            ));
            return None;
        };
        let ret = match Ret::parse(result) {
            Ok(r) => r,
            Err(msg) => {
                self.error(msg);
                return None;
            }
        };
        let mut sc = self.syscall(name, args, ret, true);
        sc.set_host_pid(crate::pidns::host_pid_comment(result));
        Some(sc)
    }

    /// Decodes a call and counts it.
    fn syscall(&mut self, name: &str, args: &str, ret: Ret, completed: bool) -> SyscallLine {
        let d = decode_full(name, args, &ret);
        let undecoded = d.call.is_undecoded();
        self.stats.bump(name, |c| {
            c.calls += 1;
            c.unfinished += u64::from(!completed);
            c.undecoded += u64::from(undecoded);
        });
        SyscallLine {
            name: name.into(),
            call: d.call,
            ret,
            completed,
            args_complete: d.complete,
            ret_host_pid: None,
            hex_args: d.hex,
            user_ptrs: d.uptrs,
        }
    }

    /// The event of a call that was entered but never resumed, placed at the
    /// current line.
    fn dangling(&mut self, p: Pending) -> Event {
        let sc = self.syscall(&p.name, &p.args, Ret::Unknown, false);
        Event {
            file: self.file.clone(),
            line: self.line.max(p.line),
            entry_line: p.line,
            pid: p.pid,
            entry_pid: p.pid,
            ts: p.ts,
            entry_ts: p.ts,
            kind: EventKind::Syscall(sc),
        }
    }

    /// Emits `pid`'s open call, if any, as never resumed.
    fn flush_pid(&mut self, pid: i32, out: &mut VecDeque<Event>) {
        if let Some(p) = self.pending.remove(&pid) {
            let ev = self.dangling(p);
            out.push_back(ev);
        }
    }

    /// Ends the trace: every still-open call is emitted as never resumed, in
    /// order of its entry line, positioned at the last line.
    pub fn finish(&mut self, out: &mut VecDeque<Event>) {
        let mut open: Vec<Pending> = self.pending.drain().map(|(_, p)| p).collect();
        open.sort_by_key(|p| p.line);
        for p in open {
            let ev = self.dangling(p);
            out.push_back(ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{Call, Recorded};
    use crate::siginfo::SigInfo;
    use taskcore::sys::Syscall;

    fn run(text: &str) -> (Vec<Event>, Parser) {
        let mut p = Parser::new("t");
        let mut out = VecDeque::new();
        for l in text.lines() {
            p.feed(l, &mut out);
        }
        p.finish(&mut out);
        (out.into(), p)
    }

    fn sc(e: &Event) -> &SyscallLine {
        match &e.kind {
            EventKind::Syscall(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn vfork_pair_joins_at_the_resumed_line() {
        let (ev, p) = run("32031 1795224796.456624 vfork( <unfinished ...>\n\
             32032 1795224796.456844 execve(\"./configure\", [\"./configure\"], 0x55e4bd866a98 /* 35 vars */ <unfinished ...>\n\
             32031 1795224796.456967 <... vfork resumed>) = 32032\n\
             32031 1795224796.456994 wait4(-1,  <unfinished ...>\n\
             32032 1795224796.457115 <... execve resumed>) = 0\n");
        assert!(p.errors().is_empty(), "{:?}", p.errors());
        assert_eq!(ev.len(), 3, "{ev:#?}");
        assert_eq!((ev[0].line, ev[0].entry_line, ev[0].pid), (3, 1, 32031));
        assert!((ev[0].entry_ts - 1795224796.456624).abs() < 1e-6);
        assert!((ev[0].ts - 1795224796.456967).abs() < 1e-6);
        let s = sc(&ev[0]);
        assert_eq!(s.ret, Ret::Val(32032));
        assert_eq!(s.call.syscall(), Some(&Syscall::Vfork));
        assert_eq!((ev[1].line, ev[1].entry_line), (5, 2));
        assert!(
            matches!(sc(&ev[1]).call.syscall(), Some(Syscall::Execve { filename, .. }) if filename == "./configure")
        );
        // The wait never resumed: emitted at the end, not completed.
        assert_eq!((ev[2].line, ev[2].entry_line), (5, 4));
        let w = sc(&ev[2]);
        assert!(!w.completed && !w.args_complete);
        assert_eq!(w.ret, Ret::Unknown);
        assert_eq!(
            w.call,
            Call::Sys {
                call: Syscall::Wait4 {
                    pid: -1,
                    options: 0
                },
                out: Recorded::Wait4 { status: None },
            }
        );
        let c = p.stats().syscall("wait4");
        assert_eq!((c.lines, c.calls, c.unfinished), (1, 1, 1));
        assert_eq!(p.stats().syscall("vfork").lines, 2);
        assert_eq!(p.stats().syscall("vfork").calls, 1);
    }

    #[test]
    fn joined_args_span_both_halves() {
        let (ev, p) = run("1 1.0 rt_sigaction(SIGINT, {sa_handler=0x1, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2},  <unfinished ...>\n\
             1 1.1 <... rt_sigaction resumed>{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0\n\
             2 1.2 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>\n\
             2 1.3 <... clone resumed>, child_tidptr=0x7fa86f4f3a10) = 3\n\
             4 1.4 clone3({flags=CLONE_VM|CLONE_THREAD, exit_signal=0, stack=0x1} <unfinished ...>\n\
             4 1.5 <... clone3 resumed> => {parent_tid=[5]}, 88) = 5\n");
        assert!(p.errors().is_empty(), "{:?}", p.errors());
        let Call::Sys {
            call: Syscall::RtSigaction { sig, act },
            out: Recorded::OldHandler(old),
        } = &sc(&ev[0]).call
        else {
            panic!()
        };
        assert_eq!(*sig, 2);
        assert!(act.is_some() && old.is_some());
        let Some(Syscall::Clone(c)) = sc(&ev[1]).call.syscall() else {
            panic!()
        };
        assert_eq!(c.exit_signal, 17);
        let Some(Syscall::Clone3(c)) = sc(&ev[2]).call.syscall() else {
            panic!()
        };
        assert_eq!(c.flags, 0x100 | 0x10000);
        assert_eq!(sc(&ev[2]).ret, Ret::Val(5));
    }

    #[test]
    fn a_task_dying_in_a_call_flushes_it_before_its_exit() {
        let (ev, p) = run("27100 1.0 kill(27100, SIGKILL <unfinished ...>\n\
             27084 1.1 kill(27100, SIGKILL) = 0\n\
             27100 1.2 +++ killed by SIGKILL +++\n\
             6550 1.3 ???( <unfinished ...>\n\
             6550 1.4 +++ killed by SIGKILL +++\n");
        assert!(p.errors().is_empty(), "{:?}", p.errors());
        assert_eq!(ev.len(), 5);
        assert_eq!((ev[1].line, ev[1].entry_line, ev[1].pid), (3, 1, 27100));
        assert!(!sc(&ev[1]).completed);
        assert_eq!(
            sc(&ev[1]).call.syscall(),
            Some(&Syscall::Kill { pid: 27100, sig: 9 })
        );
        assert_eq!(
            ev[2].kind,
            EventKind::Killed {
                sig: 9,
                core_dumped: false
            }
        );
        assert_eq!(&*sc(&ev[3]).name, "???");
        assert!(matches!(
            sc(&ev[3]).call,
            Call::Other {
                undecoded: None,
                ..
            }
        ));
    }

    #[test]
    fn exit_group_resumed_with_question_mark() {
        let (ev, _) = run("5 1.0 exit_group(0 <unfinished ...>\n5 1.1 <... exit_group resumed>) = ?\n5 1.2 +++ exited with 0 +++\n");
        assert_eq!(ev.len(), 2);
        let s = sc(&ev[0]);
        assert!(s.completed && s.args_complete);
        assert_eq!(
            (s.ret.clone(), s.call.syscall()),
            (Ret::Unknown, Some(&Syscall::ExitGroup { code: 0 }))
        );
        assert_eq!(ev[1].kind, EventKind::Exited { code: 0 });
    }

    #[test]
    fn non_leader_execve_moves_to_the_leader_pid() {
        let (ev, p) = run("27114 1.0 execve(\"/bin/true\", [\"true\", \"from-thread\"], 0x7ffc3ddc5228 /* 39 vars */ <unfinished ...>\n\
             27113 1.1 +++ exited with 0 +++\n\
             27112 1.2 +++ superseded by execve in pid 27114 +++\n\
             27112 1.3 <... execve resumed>) = 0\n\
             27112 1.4 exit_group(0) = ?\n");
        assert!(p.errors().is_empty(), "{:?}", p.errors());
        assert_eq!(ev[1].kind, EventKind::Superseded { by_pid: 27114 });
        assert_eq!(
            (ev[2].pid, ev[2].entry_pid, ev[2].entry_line, ev[2].line),
            (27112, 27114, 1, 4)
        );
        assert!(matches!(
            sc(&ev[2]).call.syscall(),
            Some(Syscall::Execve { argv: Some(a), .. }) if *a == [b"true".to_vec(), b"from-thread".to_vec()]
        ));
    }

    #[test]
    fn signals_and_stops() {
        let (ev, p) = run("27084 1.0 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=27100, si_uid=0, si_status=SIGKILL, si_utime=0, si_stime=0} ---\n\
             27100 1.1 --- stopped by SIGSTOP ---\n\
             27103 1.2 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_WEIRD, si_addr=NULL} ---\n");
        assert!(p.errors().is_empty());
        let info = SigInfo {
            signo: 17,
            code: 2,
            pid: Some(27100),
            uid: Some(0),
            status: Some(9),
            addr: None,
            ..SigInfo::default()
        };
        assert_eq!(
            ev[0].kind,
            EventKind::Signal {
                sig: 17,
                info: Some(info)
            }
        );
        assert_eq!(ev[1].kind, EventKind::Stopped { sig: 19 });
        // An undecodable siginfo keeps the signal.
        assert_eq!(
            ev[2].kind,
            EventKind::Signal {
                sig: 11,
                info: None
            }
        );
        assert_eq!(p.stats().undecoded_siginfo, 1);
    }

    #[test]
    fn malformed_and_orphan_lines_are_counted_and_skipped() {
        let (ev, p) = run("garbage\n\
             1 1.0 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 2\n\
             1 1.1 wait4(-1,  <unfinished ...>\n\
             1 1.2 <... kill resumed>) = 0\n\
             1 1.3 getpid() = 1\n\
             strace: Process 5 attached\n\
             2 1.4 getpid() = bogus\n\
             3 1.5 --- SIGBOGUS {} ---\n");
        let lines: Vec<usize> = p.errors().iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![1, 2, 4, 7, 8]);
        assert_eq!(p.stats().error_lines, 5);
        assert_eq!(p.stats().noise_lines, 1);
        // The wait interrupted by a mismatched resume is still emitted.
        assert_eq!(ev.len(), 2);
        assert!(!sc(&ev[0]).completed);
        assert_eq!(ev[1].kind, EventKind::Syscall(sc(&ev[1]).clone()));
        assert!(p.errors()[0].to_string().starts_with("t:1: "));
    }

    #[test]
    fn lines_without_pid_use_the_default() {
        let mut p = Parser::new("f").with_default_pid(77);
        let mut out = VecDeque::new();
        p.feed("getpid() = 77", &mut out);
        p.feed("[pid 78] getpid() = 78", &mut out);
        assert_eq!((out[0].pid, out[1].pid), (77, 78));
    }

    #[test]
    fn events_never_go_back_in_line_order() {
        let (ev, _) = run("1 1.0 wait4(-1,  <unfinished ...>\n\
             2 1.1 exit_group(3 <unfinished ...>\n\
             1 1.2 wait4(-1,  <unfinished ...>\n\
             2 1.3 +++ exited with 3 +++\n\
             3 1.4 vfork( <unfinished ...>\n");
        let lines: Vec<usize> = ev.iter().map(|e| e.line).collect();
        assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
        assert_eq!(ev.len(), 5);
    }
}
