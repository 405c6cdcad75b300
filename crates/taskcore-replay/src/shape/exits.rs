//! Whether the trace prints `+++ exited with N +++` lines, and the deaths
//! taken from `exit_group(N) = ?` / `exit(N) = ?` when it does not.
//!
//! `strace -qq` drops every `+++ exited` line (it keeps `+++ killed by`
//! and `+++ superseded by`). The replay ends a task at its `+++` line, so
//! without them no task would die. The call line already says that the
//! task exits and with what code, so in such a trace each `exit_group(N)
//! = ?` and `exit(N) = ?` line is followed by a synthetic `+++ exited with
//! N +++` (and its [`Kind::Die`](crate::event::Kind::Die)), both placed by
//! default at that line and held, as their windows run, until the first
//! line that reports the task (below).
//!
//! A trace says which it is only by the absence of the lines. Under `-q`
//! strace prints a task's `+++ exited` line when it reaps the task, a few
//! lines after its `= ?` line (at most 124 lines in every recording of the
//! repository; a leader that exits while its threads run is reaped later,
//! but the threads' own `+++` lines then come). So from the first exit
//! call on, the converter holds its output until either a `+++ exited`
//! line comes (the trace prints them: everything is handed on as it is)
//! or [`DECIDE_AFTER`] lines pass without one, or the input ends (they are
//! dropped: the held exit calls get their synthetic lines). A `+++
//! exited` line later still switches back. Memory: the events of at most
//! [`DECIDE_AFTER`] lines, once per trace.
//!
//! A synthetic line is strace's reap, so it cannot come before the kernel
//! lets strace reap the task: a leader that called `exit` while threads
//! of its process live stays a zombie until they are gone
//! (`delay_group_leader()`), and its line waits for the last of their
//! deaths (the threads the trace's `CLONE_THREAD` clones created;
//! memory: live threads, one held line per such leader).

use rustc_hash::FxHashMap as HashMap;

use crate::event::Call;
use crate::event::{Event, Kind, Outcome, Rec};
use taskcore::sys::Syscall;

/// Lines after the first exit call without any `+++ exited` line before
/// the trace is taken to drop them.
pub(crate) const DECIDE_AFTER: usize = 2048;

/// Lines after its exit call by which a task's missing `+++ exited` line
/// is placed when no line reported the task before: at the call's own
/// line, so before the next line (`-q` recordings print it within 1 line
/// for 92% of the 7,540 exit calls of the repository's recordings, within
/// 9 for all but 3; placed at the next line it came after that line's
/// event, after a parent's `--- SIGCHLD` it caused once every task is
/// traced: `suite/cpython-pidns-qq`).
pub(crate) const REAP_WITHIN: usize = 0;

/// Lines after its exit call a task's missing `+++ exited` line waits for
/// a line that reports the task (the end of its window).
pub(crate) const REAP_HOLD: usize = 512;

/// Whether a trace prints `+++ exited with N +++` lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExitLines {
    /// Not known yet (no task exited through exit/exit_group so far).
    #[default]
    Unknown,
    /// Printed (`strace -f` or `-f -q`).
    Printed,
    /// Dropped (`strace -qq`): deaths are taken from the exit calls.
    Dropped,
}

impl ExitLines {
    /// `unknown`, `printed` or `dropped`.
    pub fn name(self) -> &'static str {
        match self {
            ExitLines::Unknown => "unknown",
            ExitLines::Printed => "printed",
            ExitLines::Dropped => "dropped",
        }
    }
}

/// The exit code of an exit call that did not return (`= ?`).
pub(crate) fn exit_call(e: &Event) -> Option<i32> {
    match (&e.kind, &e.ret) {
        (
            Kind::Call(Call::Sys {
                call: Syscall::Exit { code } | Syscall::ExitGroup { code },
                ..
            }),
            Outcome::Died,
        ) => Some(*code),
        _ => None,
    }
}

/// The task a line shows to be reaped already, or to be gone: the
/// `si_pid` of a `--- SIGCHLD` line, a wait's result, the child of a clone
/// (its number reused), or the task of the line (a new task with the
/// number).
pub(crate) fn reports(e: &Event) -> Option<i32> {
    match (&e.kind, &e.ret) {
        (Kind::Signal { sig, info: Some(i) }, _) if *sig == taskcore::uapi::SIGCHLD => i.pid,
        (
            Kind::Call(Call::Sys {
                call: Syscall::Wait4 { .. },
                ..
            }),
            Outcome::Value(v),
        ) if *v > 0 => Some(*v as i32),
        (
            Kind::Call(Call::Sys {
                out: Rec::Waitid { info: Some(i) },
                ..
            }),
            Outcome::Value(0),
        ) if i.pid > 0 => Some(i.pid),
        (k, Outcome::Value(v)) if k.is_clone() && *v > 0 => Some(*v as i32),
        _ => Some(e.pid),
    }
}

/// The exit call's line of a held reap or death (a death's window begins
/// earlier, at the task's last activity; both are released together).
fn held_since(e: &Event) -> usize {
    e.at.unwrap_or(e.entry_line)
}

/// The mode and the events held while it is unknown.
#[derive(Debug, Default)]
pub(crate) struct Exits {
    pub(crate) mode: ExitLines,
    /// Events held since the first exit call (mode unknown).
    pub(crate) held: Vec<Event>,
    /// The line of the first held exit call.
    pub(crate) since: Option<usize>,
    /// When the trace drops them: the `+++ exited` lines of the tasks
    /// whose exit call was seen, each after its death ([`Kind::Die`]),
    /// by process (tgid), until a line reports the process.
    pub(crate) unreaped: HashMap<i32, Vec<Event>>,
    /// The tgid of each thread a `CLONE_THREAD` clone created (memory: the
    /// threads not yet reaped).
    pub(crate) tgid: HashMap<i32, i32>,
    /// The threads (not the leader) of each process that a `CLONE_THREAD`
    /// clone created and that have not died yet, while the trace may drop
    /// `+++ exited` lines (memory: live threads).
    pub(crate) threads: HashMap<i32, Vec<i32>>,
    /// When the trace drops them: the `+++ exited` line of a leader that
    /// called `exit` while threads of its process lived, by process, held
    /// until the last of them dies (see [`Exits::held_leader`]).
    pub(crate) leaders: HashMap<i32, Event>,
}

impl Exits {
    /// Notes the threads `e` creates.
    pub(crate) fn note_clone(&mut self, e: &Event) {
        let (Kind::Call(Call::Sys { call, .. }), Outcome::Value(v)) = (&e.kind, &e.ret) else {
            return;
        };
        let flags = match call {
            Syscall::Clone(a) => a.flags,
            Syscall::Clone3(a) => a.flags,
            _ => return,
        };
        if flags & taskcore::uapi::CLONE_THREAD != 0 && *v > 0 {
            let tgid = self.tgid_of(e.pid);
            self.tgid.insert(*v as i32, tgid);
            self.threads.entry(tgid).or_default().push(*v as i32);
        }
    }

    /// The trace prints `+++ exited` lines: nothing of the threads is
    /// needed.
    pub(crate) fn forget_threads(&mut self) {
        self.tgid = HashMap::default();
        self.threads = HashMap::default();
    }

    /// Whether the `+++ exited` line of `pid`'s exit call `e` waits for
    /// the threads of its process: `pid` is a leader that called `exit`
    /// (not `exit_group`) while threads the trace created live. strace
    /// cannot reap it before them (`delay_group_leader()`: a zombie leader
    /// is reaped once its thread group is empty, and a traced thread
    /// leaves it when strace reaps it, at its exit), so its line comes
    /// after their deaths, however long they run on.
    pub(crate) fn held_leader(&self, e: &Event) -> bool {
        matches!(
            e.kind,
            Kind::Call(Call::Sys {
                call: Syscall::Exit { .. },
                ..
            })
        ) && self.tgid_of(e.pid) == e.pid
            && self.threads.get(&e.pid).is_some_and(|t| !t.is_empty())
    }

    /// Task `pid` died (its [`Kind::Die`]); `group`: with its whole thread
    /// group (`exit_group`, a fatal signal). The held `+++` line of its
    /// process's leader, when that was its last live thread.
    pub(crate) fn died(&mut self, pid: i32, group: bool) -> Option<Event> {
        let tgid = self.tgid_of(pid);
        let empty = match self.threads.get_mut(&tgid) {
            Some(t) if !group => {
                t.retain(|&x| x != pid);
                t.is_empty()
            }
            _ => true,
        };
        if !empty {
            return None;
        }
        self.threads.remove(&tgid);
        self.leaders.remove(&tgid)
    }

    /// Takes the `+++` lines due before line `line`: those of process
    /// `reported`, and those whose exit call is [`REAP_HOLD`] lines old.
    pub(crate) fn due(&mut self, reported: Option<i32>, line: usize) -> Vec<Event> {
        let mut out = reported
            .and_then(|p| self.unreaped.remove(&p))
            .unwrap_or_default();
        if self
            .unreaped
            .values()
            .flatten()
            .any(|e| held_since(e) + REAP_HOLD <= line)
        {
            for v in self.unreaped.values_mut() {
                let (old, keep) = std::mem::take(v)
                    .into_iter()
                    .partition(|e| held_since(e) + REAP_HOLD <= line);
                *v = keep;
                let old: Vec<Event> = old;
                out.extend(old);
            }
            self.unreaped.retain(|_, v| !v.is_empty());
        }
        out.sort_by_key(|e| (e.entry_line, e.seq));
        out
    }

    /// The process of recorded task `tid`.
    pub(crate) fn tgid_of(&self, tid: i32) -> i32 {
        self.tgid.get(&tid).copied().unwrap_or(tid)
    }

    /// The lowest line a held event may be placed at, if any is held.
    pub(crate) fn floor(&self) -> Option<usize> {
        // A held leader's line is placed at the line that releases it,
        // not earlier.
        self.held
            .iter()
            .chain(self.unreaped.values().flatten())
            .map(|e| e.entry_line.min(e.line))
            .min()
    }
}
