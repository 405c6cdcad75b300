//! Handler frames the kernel may not have set up.
//!
//! At a signal-delivery stop the core takes the signal at once, with the
//! action it holds. The kernel reads the action only after the tracer
//! resumes the thread (`get_signal()`: `ka = &sighand->action[signr - 1]`
//! after `ptrace_signal()`), so another thread's `rt_sigaction` that
//! runs between the resume and that read decides instead: a `SIG_IGN`
//! there discards the signal, and no frame is set up (CPython's
//! `test_signal` `test_stress_modifying_handlers` does this thousands of
//! times a second). The core's frame, with the mask it blocks while the
//! handler runs, would then stay for good.
//!
//! So a frame the core sets up is confirmed at the thread's next stop: an
//! `rt_sigreturn` entering proves it (a handler ran); otherwise the
//! thread's real mask (`PTRACE_GETSIGMASK`) is the frame's, or the one it
//! saved when the kernel discarded the signal. Between the two stops the
//! thread ran only calls that are not trapped, and every mask change is
//! a trapped call, so the real mask is one of the two. A frame found
//! missing is undone in the core (its saved mask restored, as
//! `rt_sigreturn` restores it) and counted under `not_checked`.

use taskcore::TaskId;

use super::{Frame, Supervisor};

/// Thread `tid`'s real blocked mask; `None` if it cannot be read.
fn real_mask(tid: i32) -> Option<u64> {
    let mut mask = 0u64;
    // SAFETY: PTRACE_GETSIGMASK writes `data`'s 8 bytes (the size given
    // in `addr`) of a stopped tracee's mask.
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_GETSIGMASK,
            tid,
            std::mem::size_of::<u64>(),
            &mut mask as *mut u64,
        )
    };
    (r == 0).then_some(mask)
}

impl Supervisor {
    /// After the core took a handler's signal for `tid` (`task`): its
    /// frame is kept to be confirmed at the thread's next stop.
    pub(super) fn frame_set_up(&mut self, tid: i32, task: TaskId, saved: u64) {
        let running = self.k.sigmask(task).unwrap_or(saved);
        if running == saved {
            // SA_NODEFER with an empty sa_mask: nothing to tell apart.
            return;
        }
        if let Some(t) = self.threads.get_mut(&tid) {
            t.frame = Some(Frame { saved, running });
        }
    }

    /// At a stop of `tid` (`task`): the frame its last delivery set up in
    /// the core is confirmed by an `rt_sigreturn` (`sigreturn`) or by the
    /// real mask, or undone.
    pub(super) fn confirm_frame(&mut self, tid: i32, task: TaskId, sigreturn: bool) {
        let Some(f) = self.threads.get_mut(&tid).and_then(|t| t.frame.take()) else {
            return;
        };
        if sigreturn {
            return;
        }
        let real = real_mask(tid);
        if real != Some(f.saved) || self.k.sigmask(task) != Ok(f.running) {
            return;
        }
        if self.log.on() {
            dline!(
                self,
                "[debug]   frame undone: real mask {:#x}, the core's {:#x}",
                f.saved,
                f.running
            );
        }
        let _ = self.k.rt_sigreturn(task, f.saved);
        self.report
            .not_checked("handler not run (another thread's rt_sigaction after the delivery stop)");
    }
}
