//! The world the trace ran in. strace ran as a job of a shell: init ->
//! shell (its own session) -> strace (its own process group, ignoring
//! signals) -> the traced root. These outside processes stand for every
//! pid the trace never created.

use taskcore::{SigAction, SigHandler};

use super::Engine;

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
