//! What the engine knows, by concept: the types of
//! [`Engine`](super::Engine)'s fields whose behaviour is their concept's
//! module (its `impl Engine`: [`world`](super::world),
//! [`deaths`](super::deaths), [`memory`](super::memory) and
//! [`uaccess`](super::uaccess), [`signals`](super::signals) and
//! [`frames`](super::frames), [`procapi`](super::procapi)). They stand
//! below the engine that holds them and import nothing that imports it;
//! their fields are the engine's modules' to read and write.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

use taskcore::{PidFd, TaskId};

use super::sigwait::Sleep;
use crate::event::{Restart, UserPtr};

/// The processes the trace ran in, as the emulation made them.
#[derive(Clone, Debug)]
pub(super) struct World {
    /// The emulated init.
    pub(super) init: taskcore::TaskId,
    /// The emulated strace: every traced task's tracer (see
    /// [`strace`](super::strace)).
    pub(super) strace: taskcore::TaskId,
    /// The tracee the emulated strace last resumed from a ptrace stop (see [`Engine::take_signal`](super::Engine::take_signal)).
    pub(super) resumed: Option<taskcore::TaskId>,
    /// The tracee the emulated strace last resumed from its
    /// `PTRACE_EVENT_EXIT` stop, which exits then (see
    /// [`Engine::take_signal`](super::Engine::take_signal)).
    pub(super) exit_resumed: Option<taskcore::TaskId>,
    /// The tracee and siginfo (`PTRACE_GETSIGINFO`) of the last
    /// signal-delivery-stop the emulated strace saw.
    pub(super) stopped_with: Option<(taskcore::TaskId, taskcore::SigInfo)>,
    /// The signal, while a thread dequeues a stop or core-dumping signal
    /// it takes with the default action: strace leaves that
    /// signal-delivery-stop until the thread's
    /// [`Kind::Resume`](crate::event::Kind::Resume) (see
    /// [`strace`](super::strace)).
    pub(super) defer_stop: Option<i32>,
    /// The tracees in such a signal-delivery-stop, with their signal.
    pub(super) held_stops: Vec<(taskcore::TaskId, i32)>,
    /// Emulated numbers of the processes outside the trace.
    pub(super) outside: Vec<i32>,
    /// The emulated process group the traced root inherited (strace's).
    pub(super) inherited_pgid: i32,
}

/// What the engine knows of deaths in progress: the core's exit codes, the
/// exits begun, and which deaths strace has not printed (reaped) yet.
#[derive(Clone, Debug, Default)]
pub(super) struct Deaths {
    /// Exit status words from `Exited` notifications.
    pub(super) exit_codes: HashMap<TaskId, i32>,
    /// Pending `exit(code)` of a recorded tid.
    pub(super) pending_exit: HashMap<i32, i32>,
    /// Pending `exit_group(code)` by a recorded tid, keyed by its leader
    /// task.
    pub(super) pending_group_exit: HashMap<TaskId, (i32, i32)>,
    /// The status word of each group (leader task) whose exit began
    /// (`exit_group` entered, or a fatal signal applied): what `wait`
    /// reports for any of its zombies from then on.
    pub(super) group_status: HashMap<TaskId, i32>,
    /// The leader of each task that died in the core, until its `+++` line.
    pub(super) death_leader: HashMap<TaskId, TaskId>,
    /// Tasks dead in the core whose `+++` line has not been seen.
    pub(super) unconfirmed_dead: HashSet<TaskId>,
    /// Recorded tids whose `exit(N) = ?` / `exit_group(N) = ?` line came
    /// after their death in the core (their group's exit reached them
    /// first), until their `+++` line.
    pub(super) exit_after_death: HashSet<i32>,
    /// Groups (leader tasks) stopped by a kill whose `--- stopped` line has
    /// not been seen.
    pub(super) unconfirmed_stop: HashSet<TaskId>,
}

/// What the memory calls need to know beyond the core's address spaces.
#[derive(Clone, Debug, Default)]
pub(super) struct Mem {
    /// Per emulated tgid, the address ranges the trace itself mapped, moved
    /// or unmapped since its last exec (sorted, merged): memory there is
    /// never learned to explain a failure.
    pub(super) mm_touched: rustc_hash::FxHashMap<i32, Vec<(u64, u64)>>,
    /// The user pointers of the call being applied (`uaccess.rs`).
    pub(super) cur_ptrs: CurPtrs,
}

/// The user pointers of the event being applied, for [`Engine::sys`](super::Engine::sys).
#[derive(Clone, Debug, Default)]
pub(super) struct CurPtrs {
    pub(super) ptrs: Option<Arc<[UserPtr]>>,
    /// The call they belong to (its name).
    pub(super) name: &'static str,
    /// The recorded result is `EFAULT`.
    pub(super) efault: bool,
    /// A fault was taken from the recording, not the emulation.
    pub(super) trusted: bool,
}

/// A handler frame set up at a `---` line, until its `rt_sigreturn`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// The mask the frame saved.
    pub(super) old_mask: u64,
    /// Whether `rt_sigreturn` must give EINTR (`Some(true)`), restart the
    /// call (`Some(false)`), or return what the call returned (`None`).
    pub(super) eintr: Option<bool>,
    /// The signal it was set up for.
    pub(super) sig: i32,
    /// The `---` line it was set up at.
    pub(super) line: usize,
    /// Another thread's `rt_sigaction` that discards `sig` was open at
    /// `line`: an order the recording allows has no frame (see
    /// [`frames`](super::frames)).
    pub(super) maybe_not: bool,
    /// The entry line of the thread's first event after `line`.
    pub(super) next_line: Option<usize>,
}

/// The engine's signal state (cloned with the engine for checkpoints).
#[derive(Clone, Debug, Default)]
pub(crate) struct SigState {
    /// The trace records the `%signal` class (a mask or signal-wait call
    /// was seen).
    pub(super) recorded: bool,
    /// Open handler frames, innermost last, by emulated thread.
    pub(super) frames: HashMap<TaskId, Vec<Frame>>,
    /// How the last call of each recorded thread was interrupted.
    pub(super) last_restart: HashMap<i32, Option<Restart>>,
    /// Signal-sending calls the replay does not apply, per recorded
    /// process (tgid) of the sender, not yet matched with a `---` line.
    pub(super) unapplied_sends: HashMap<i32, u32>,
    /// Threads asleep in a signal wait until a signal from outside the
    /// replay is sent at their `---` line.
    pub(super) sleeping: HashMap<TaskId, Sleep>,
    /// The line of the event being applied.
    pub(super) cur_line: usize,
    /// Processes (leaders) that opened a signalfd or inherited one at
    /// fork: a signal pending for them may be consumed unseen (see
    /// [`consumed`](super::consumed)).
    pub(super) signalfd: HashSet<TaskId>,
    /// Each thread's last `---` line of a signal it ignored (see
    /// [`frames`](super::frames)).
    pub(super) ignored_takes: HashMap<TaskId, IgnoredTake>,
    /// Signals sent to each process (by leader) while it ignored them and
    /// did not block them, which only tracing kept queued (see
    /// [`Engine::note_send`](super::Engine::note_send)); for the report alone.
    pub(super) sent_ignored: HashMap<TaskId, u64>,
}

/// A `---` line of a signal the thread ignored.
#[derive(Clone, Copy, Debug)]
pub(super) struct IgnoredTake {
    pub(super) sig: i32,
    pub(super) line: usize,
    /// The thread's mask then.
    pub(super) mask: u64,
    /// The entry line of the thread's next event.
    pub(super) next_line: Option<usize>,
    /// Another thread's `rt_sigaction` setting a handler overlapped the
    /// read of the action.
    pub(super) maybe_handled: bool,
}

/// What the engine knows of the recorded processes' pidfds and limits.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProcState {
    /// Per thread group (its leader task), its pidfds by recorded fd.
    pub(super) fds: HashMap<TaskId, HashMap<i32, PidFd>>,
    /// How many fd tables hold each open pidfd.
    pub(super) refs: HashMap<PidFd, u32>,
    /// Clones since the last purge.
    pub(super) clones: u64,
}
