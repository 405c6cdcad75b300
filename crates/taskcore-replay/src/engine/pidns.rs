//! Callers in nested pid namespaces.
//!
//! strace labels every line with its own (the root namespace's) numbers,
//! while a task in a nested namespace passes and gets its namespace's
//! numbers. A clone there is checked against the number the caller saw
//! (`= 2 /* 30657 in strace's PID NS */` under `--decode-pids=pidns`; the
//! replay links the child's lines through strace's number). Since every
//! clone in the namespace is checked to give the caller the recorded
//! number, pid values in a nested caller's arguments and results are the
//! emulated ones too and need no mapping: kill, tgkill, tkill, setpgid,
//! getpgid, getsid, wait4 and waitid take them as they are, getppid's
//! result (0 for the namespace's init) and a nested receiver's `si_pid`
//! are compared as they are, and such a caller never names a process
//! outside the trace. Their checks are counted apart (`kill in a pid
//! namespace`, ...).
//!
//! Without `--decode-pids=pidns` the result is only the namespace's number
//! and nothing names the child's lines: the replay still checks that
//! number, and takes as the child the first task of the lookahead that
//! appears after the clone began and that no clone created (as for a
//! clone whose caller died in it). A trace whose children start in
//! another order can then be linked wrongly, which later checks report.

use taskcore::sys::Syscall;
use taskcore::uapi::{CLONE_NEWPID, CLONE_THREAD};
use taskcore::{NsKind, TaskId};

use super::Engine;

impl Engine {
    /// Whether `cur` lives in a pid namespace below the replay's root one.
    pub(super) fn nested(&self, cur: TaskId) -> bool {
        match (
            self.k.task_pid_ns(cur, NsKind::Pid),
            self.k.task_pid_ns(self.world.init, NsKind::Pid),
        ) {
            (Ok(a), Ok(b)) => a != b,
            _ => false,
        }
    }

    /// The number `cur` uses for recorded pid value `rec` (> 0) of one of
    /// its arguments or results.
    pub(super) fn nr_for(&self, cur: TaskId, rec: i32) -> i32 {
        if self.nested(cur) {
            rec
        } else {
            self.pids.map_nr(rec)
        }
    }

    /// Before a clone by `cur` (whose children the core numbers in
    /// strace's namespace) creating recorded task `child` with `flags`:
    /// applies the `unshare(CLONE_NEWPID)` the recording did not show when
    /// a later line proves the child lives in a nested namespace (the
    /// planner's [`Facts::ns_annotated`](crate::facts::Facts); see the
    /// module docs).
    pub(super) fn infer_new_pid_ns(&mut self, cur: TaskId, flags: u64, child: i32) {
        if flags & (CLONE_THREAD | CLONE_NEWPID) != 0 || !self.facts.ns_annotated.contains(&child) {
            return;
        }
        if self.k.task_pid_ns(cur, NsKind::PidForChildren) != self.k.task_pid_ns(cur, NsKind::Pid) {
            return;
        }
        if self
            .sys(
                cur,
                &Syscall::Unshare {
                    flags: CLONE_NEWPID,
                },
            )
            .is_ok()
        {
            *self
                .stats
                .learned
                .entry("pid namespace (--decode-pids=pidns comments)".into())
                .or_default() += 1;
        }
    }
}
