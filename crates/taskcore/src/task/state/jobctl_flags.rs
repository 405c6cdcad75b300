//! The job-control bits of a task (`task->jobctl`): a pending group stop
//! and its signal, ptrace traps, `PTRACE_LISTEN`, and the ptrace bits kept
//! beside them (`TIF_SYSCALL_TRACE`, a pending exit or vfork-done stop).
//!
//! # Linux
//! include/linux/sched/jobctl.h.

/// The stop signal of the group stop a thread takes part in.
pub(crate) const JOBCTL_STOP_SIGMASK: u32 = 0xffff;
/// A signal was dequeued for a signal-delivery-stop and no SIGCONT came
/// since: a stop signal the tracer resumes the thread with still stops it
/// (`do_signal_stop()`; `prepare_signal()`'s SIGCONT clears it).
pub(crate) const JOBCTL_STOP_DEQUEUED: u32 = 1 << 16;
/// The thread has yet to take part in a group stop.
pub(crate) const JOBCTL_STOP_PENDING: u32 = 1 << 17;
/// Its part counts in `group_stop_count`.
pub(crate) const JOBCTL_STOP_CONSUME: u32 = 1 << 18;
/// A traced thread must enter a group-stop trap.
pub(crate) const JOBCTL_TRAP_STOP: u32 = 1 << 19;
/// A seized thread must re-trap to report a group-stop change.
pub(crate) const JOBCTL_TRAP_NOTIFY: u32 = 1 << 20;
/// A seized thread in a group-stop trap was told `PTRACE_LISTEN`.
pub(crate) const JOBCTL_LISTENING: u32 = 1 << 22;
/// The thread is stopped by a group stop (`TASK_STOPPED`).
pub(crate) const JOBCTL_STOPPED: u32 = 1 << 26;
/// What makes a thread enter `get_signal()` (`JOBCTL_PENDING_MASK`).
pub(crate) const JOBCTL_PENDING_MASK: u32 =
    JOBCTL_STOP_PENDING | JOBCTL_TRAP_STOP | JOBCTL_TRAP_NOTIFY;
/// Thread flag kept in `jobctl` (Linux: `TIF_SYSCALL_TRACE`): stop at the
/// next syscall entry or exit.
pub(crate) const TIF_SYSCALL_TRACE: u32 = 1 << 28;
/// `jobctl` bit, no Linux analogue: the thread stopped in its
/// `PTRACE_EVENT_EXIT` stop and exits when resumed (Linux goes on in
/// `do_exit()`); the status word is `ptrace_message`.
pub(crate) const JOBCTL_EXIT_PENDING: u32 = 1 << 29;
/// `jobctl` bit, no Linux analogue: its vfork child released the thread
/// while it was stopped; it takes its `PTRACE_EVENT_VFORK_DONE` stop when
/// resumed (Linux: `wait_for_vfork_done()` then the event).
pub(crate) const JOBCTL_VFORK_DONE_PENDING: u32 = 1 << 30;
