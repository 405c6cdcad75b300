//! The world the trace ran in. strace ran as a job of a shell: init ->
//! shell (its own session) -> strace (its own process group, ignoring
//! signals) -> the traced root. These outside processes stand for every
//! pid the trace never created.

use taskcore::{SigAction, SigHandler};

use super::Engine;

/// The processes the trace ran in, as the emulation made them.
#[derive(Clone, Debug)]
pub(super) struct World {
    /// The emulated init.
    pub(super) init: taskcore::TaskId,
    /// The emulated strace: every traced task's tracer (see
    /// [`strace`](super::strace)).
    pub(super) strace: taskcore::TaskId,
    /// The tracee the emulated strace last resumed from a ptrace stop (see [`Engine::take_signal`]).
    pub(super) resumed: Option<taskcore::TaskId>,
    /// The tracee the emulated strace last resumed from its
    /// `PTRACE_EVENT_EXIT` stop, which exits then (see
    /// [`Engine::take_signal`]).
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

impl Engine {
    /// Creates the outside processes and the traced root, recorded tid
    /// `root`.
    pub(super) fn start(&mut self, root: i32) {
        let k = &mut self.k;
        let shell = k.fork(self.world.init).expect("fork of init");
        k.setsid(shell).expect("setsid of a fresh process");
        let job = k.fork(shell).expect("fork of the shell");
        k.setpgid(job, 0, 0).expect("setpgid of a fresh process");
        for sig in 1..=64 {
            if !taskcore::uapi::sig_kernel_only(sig) {
                let ign = SigAction::new(SigHandler::Ignore, 0);
                k.rt_sigaction(job, sig, Some(ign)).expect("valid signal");
            }
        }
        k.set_comm(shell, b"sh").expect("live");
        k.set_comm(job, b"strace").expect("live");
        let root_task = k.fork(job).expect("fork of the job");
        self.world.strace = job;
        for sig in 1..=64 {
            if !taskcore::uapi::sig_kernel_only(sig) {
                k.rt_sigaction(root_task, sig, Some(SigAction::DEFAULT))
                    .expect("valid signal");
            }
        }
        for t in [self.world.init, shell, job] {
            let nr = k.pid_vnr(self.world.init, t).expect("live");
            self.world.outside.push(nr);
        }
        self.world.inherited_pgid = k.getpgid(root_task, 0).expect("live");
        let nr = k.pid_vnr(job, root_task).expect("live");
        k.ptrace_seize(job, nr, super::strace::STRACE_OPTIONS)
            .expect("strace may seize its child");
        k.take_notifications();
        self.adopt(root, root_task, None);
    }
}
