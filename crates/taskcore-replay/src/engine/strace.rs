//! The emulated strace: the core-level tracer of every traced task, as
//! `strace -f` is. It seizes the traced root with strace's options (the
//! clone, fork and vfork children are auto-attached by the core) and
//! handles each ptrace stop the way strace's event loop does, driving the
//! core's ptrace API directly (the stop reaches it as a
//! [`Notification::PtraceStopped`](taskcore::Notification), so no wait
//! call is spent to learn of it):
//! - an event stop (`PTRACE_EVENT_FORK`/`VFORK`/`CLONE`/`EXEC`/`EXIT`) is
//!   resumed at once; at a clone's, the new tracee's first stop (a seized
//!   child starts with `JOBCTL_TRAP_STOP`) is taken and resumed too;
//! - a signal-delivery-stop is resumed with its signal (strace prints the
//!   `---` line there and injects the signal back); that of a stop or
//!   core-dumping signal taken with the default action at the thread's
//!   [`Kind::Resume`](crate::event::Kind::Resume), where it runs on into
//!   `do_signal_stop()` (a SIGCONT sent meanwhile cancels the stop:
//!   `tests/oracle/ptrace_edges.out`, `sigstop_cancelled`) or
//!   `do_coredump()`;
//! - a group-stop trap (`PTRACE_EVENT_STOP` with a stop signal) is left
//!   listening (`PTRACE_LISTEN`, strace's `--- stopped by` line); any
//!   other `PTRACE_EVENT_STOP` (a new child's first stop, the re-trap
//!   after a SIGCONT) is resumed.
//!
//! The zombies of its tracees are its to reap: it does so at their `+++`
//! lines ([`deaths`](super::deaths)).
//!
//! # strace
//! `strace.c`: `ptrace_setoptions` = `PTRACE_O_TRACESYSGOOD |
//! PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT`, and with `-f`
//! `PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK`,
//! given to `PTRACE_SEIZE`; `next_event()` / `dispatch_event()`.

use taskcore::task::ptrace::event::{
    PTRACE_EVENT_CLONE, PTRACE_EVENT_EXIT, PTRACE_EVENT_FORK, PTRACE_EVENT_STOP,
    PTRACE_EVENT_VFORK, PTRACE_O_TRACECLONE, PTRACE_O_TRACEEXEC, PTRACE_O_TRACEEXIT,
    PTRACE_O_TRACEFORK, PTRACE_O_TRACESYSGOOD, PTRACE_O_TRACEVFORK,
};
use taskcore::uapi::{sig_kernel_coredump, sig_kernel_stop, SIGTRAP};
use taskcore::TaskId;

use super::Engine;

/// The options `strace -f` seizes its tracees with.
pub(super) const STRACE_OPTIONS: u32 = PTRACE_O_TRACESYSGOOD
    | PTRACE_O_TRACEEXEC
    | PTRACE_O_TRACEEXIT
    | PTRACE_O_TRACECLONE
    | PTRACE_O_TRACEFORK
    | PTRACE_O_TRACEVFORK;

impl Engine {
    /// strace's handling of tracee `task`'s ptrace stop with stop code
    /// `code` (the wait status's `>> 8`).
    pub(super) fn strace_stop(&mut self, task: TaskId, code: i32) {
        let strace = self.world.strace;
        let Ok(nr) = self.k.pid_vnr(strace, task) else {
            return;
        };
        let event = code >> 8;
        let sig = code & 0x7f;
        if event == 0 {
            // Signal-delivery-stop: strace prints the `---` line from
            // PTRACE_GETSIGINFO and restarts the tracee with the signal.
            if let Ok(info) = self.k.ptrace_getsiginfo(strace, nr) {
                self.world.stopped_with = Some((task, info));
            }
            if self.world.defer_stop == Some(sig) {
                // Resumed at the thread's `Kind::Resume`.
                self.world.held_stops.retain(|&(t, _)| t != task);
                self.world.held_stops.push((task, sig));
                return;
            }
            let _ = self.k.ptrace_cont(strace, nr, sig);
            self.world.resumed = Some(task);
            return;
        }
        if event == PTRACE_EVENT_STOP {
            if sig_kernel_stop(sig) {
                // Group-stop: strace prints `--- stopped by` and listens.
                let _ = self.k.ptrace_listen(strace, nr);
            } else {
                let _ = self.k.ptrace_cont(strace, nr, 0);
                self.world.resumed = Some(task);
            }
            return;
        }
        debug_assert_eq!(sig, SIGTRAP);
        let child = if matches!(
            event,
            PTRACE_EVENT_FORK | PTRACE_EVENT_VFORK | PTRACE_EVENT_CLONE
        ) {
            self.k.ptrace_geteventmsg(strace, nr).ok()
        } else {
            None
        };
        let _ = self.k.ptrace_cont(strace, nr, 0);
        if event == PTRACE_EVENT_EXIT {
            // Resumed from its exit stop, the thread goes on in do_exit().
            self.world.exit_resumed = Some(task);
        }
        if let Some(c) = child.and_then(|c| i32::try_from(c).ok()) {
            // The new tracee's first stop (a seized child's
            // JOBCTL_TRAP_STOP, taken on its way to user space).
            if let Ok(ct) = self.k.find_task_by_vpid(strace, c) {
                let _ = self.k.get_signal_jobctl(ct);
            }
        }
    }

    /// strace restarts tracee `cur` from the signal-delivery-stop of stop
    /// or core-dumping signal `sig` it left it in at the `---` line (see
    /// [`Kind::Resume`](crate::event::Kind::Resume)): the thread runs on
    /// with the signal, into `do_signal_stop()`, or gives the stop up if a
    /// SIGCONT came meanwhile (`JOBCTL_STOP_DEQUEUED` cleared), or
    /// discards it (a terminal stop signal in an orphaned process group);
    /// or into `do_coredump()` and `do_group_exit()`. Whether the dump
    /// happens depends on `RLIMIT_CORE` and `core_pattern`, which the
    /// trace need not show: `core`, the thread's `+++ killed by` line,
    /// says (learned, not checked). Nothing of it is a line of the trace:
    /// nothing is checked.
    pub(super) fn resume_stop(&mut self, cur: TaskId, sig: i32, core: Option<bool>) {
        let Some(i) = self
            .world
            .held_stops
            .iter()
            .position(|&(t, s)| t == cur && s == sig)
        else {
            return;
        };
        self.world.held_stops.swap_remove(i);
        let strace = self.world.strace;
        let Ok(nr) = self.k.pid_vnr(strace, cur) else {
            return;
        };
        if let Some(core) = core.filter(|_| sig_kernel_coredump(sig)) {
            if self.k.config().core_dumps != core {
                *self
                    .stats
                    .learned
                    .entry("core dumps (RLIMIT_CORE, core_pattern), at a death".into())
                    .or_default() += 1;
            }
            self.k.set_core_dumps(core);
        }
        self.world.resumed = None;
        if self.k.ptrace_cont(strace, nr, sig).is_ok() {
            let _ = self.take_signal_from(cur, true);
        }
        self.drain();
    }

    /// `get_signal()` for thread `t`, through the ptrace stops the
    /// emulated strace resumes (signal-delivery-stops, a re-trap after a
    /// SIGCONT, its `PTRACE_EVENT_EXIT` stop on a fatal signal): what the
    /// thread does once resumed (a stop it stays in is a group stop's; one
    /// resumed from its exit stop exits, `SignalAction::Exit`).
    pub(super) fn take_signal(&mut self, t: TaskId) -> taskcore::Result<taskcore::SignalAction> {
        self.take_signal_from(t, false)
    }

    /// [`Engine::take_signal`], for a thread just resumed from a ptrace
    /// stop when `resumed` (one dequeue at most).
    fn take_signal_from(
        &mut self,
        t: TaskId,
        mut resumed: bool,
    ) -> taskcore::Result<taskcore::SignalAction> {
        loop {
            // Once resumed, one dequeue: a signal it then discards ends the
            // turn (the next dequeue is the next `---` line's).
            let r = if resumed {
                self.k.get_signal_once(t)
            } else {
                self.k.get_signal(t)
            };
            if r != Ok(taskcore::SignalAction::Stopped) {
                return r;
            }
            self.world.resumed = None;
            self.world.exit_resumed = None;
            self.drain();
            if self.world.exit_resumed.take() == Some(t) {
                // Killed (do_group_exit() -> do_exit()), its exit stop
                // resumed: it is not stopped.
                return Ok(taskcore::SignalAction::Exit);
            }
            if self.world.resumed.take() != Some(t) {
                return r;
            }
            resumed = true;
        }
    }
}
