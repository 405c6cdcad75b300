//! ptrace as far as `wait` needs it.
//!
//! # Linux
//! kernel/ptrace.c: `ptrace_attach`, `ptrace_traceme`, `ptrace_link`,
//! `__ptrace_unlink`, `ptrace_check_attach`, `ptrace_resume`,
//! `ptrace_detach`.

use taskcore::uapi::{NSIG, SIGSTOP};

use crate::{Errno, ExitState, Model, Result, Tid, PT_PTRACED, PT_SEIZED, SIGNAL_STOP_STOPPED};

/// `PTRACE_EVENT_STOP`: the event of a seized tracee's group-stop trap.
pub(crate) const PTRACE_EVENT_STOP: i32 = 128;

impl Model {
    /// `PTRACE_ATTACH` (the tracee is sent SIGSTOP) or `PTRACE_SEIZE`.
    ///
    /// # Errors
    /// `ESRCH`: stale caller, no task `pid`. `EPERM`: `pid` is in the
    /// caller's thread group, has exited, or is already traced; or the
    /// caller may not trace it (its real ids are not all of the target's,
    /// or the target is not dumpable, and its euid is not 0; see
    /// `access.rs`).
    ///
    /// # Linux
    /// `ptrace_attach()`; `ptrace_set_stopped()` sends SIGSTOP
    /// (`SEND_SIG_PRIV`, to the thread).
    pub fn ptrace_attach(&mut self, current: Tid, pid: i32, seize: bool) -> Result<()> {
        let cur = self.current(current)?;
        let t = self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        if self.same_thread_group(t, cur) || !self.may_attach(cur, t) {
            return Err(Errno::EPERM);
        }
        if self.task(t).exit_state != ExitState::Running || self.task(t).ptrace != 0 {
            return Err(Errno::EPERM);
        }
        let mode = if seize {
            PT_PTRACED | PT_SEIZED
        } else {
            PT_PTRACED
        };
        let stopped = self.job_stopped(t) && !self.task(t).exiting;
        self.ptrace_link(t, cur, mode);
        if stopped {
            // Already stopped: it moves into a group-stop trap
            // (JOBCTL_TRAP_STOP), reporting its stop signal; the restart's
            // signal is ignored there, and the attach's SIGSTOP, kept
            // pending, is its next stop.
            self.task_mut(t).stopped = false;
            self.group_stop_trap(t);
        }
        if !seize {
            self.send_signal(t, SIGSTOP, true, true);
        }
        self.run_deferred();
        Ok(())
    }

    /// `PTRACE_TRACEME`: traced by the real parent.
    ///
    /// # Errors
    /// `ESRCH`: stale caller. `EPERM`: already traced, or no parent; or
    /// its permitted capabilities exceed the parent's and the parent lacks
    /// `CAP_SYS_PTRACE` (`cap_ptrace_traceme()`).
    pub fn ptrace_traceme(&mut self, current: Tid) -> Result<()> {
        let cur = self.current(current)?;
        let Some(parent) = self.task(cur).real_parent else {
            return Err(Errno::EPERM);
        };
        if self.task(cur).ptrace != 0 {
            return Err(Errno::EPERM);
        }
        let (pc, cc) = (&self.task(parent).cred, &self.task(cur).cred);
        let ptrace_cap = taskcore::task::capability::CAP_SYS_PTRACE;
        if !cc.cap_permitted.is_subset(pc.cap_permitted) && !pc.cap_effective.has(ptrace_cap) {
            return Err(Errno::EPERM);
        }
        self.ptrace_link(cur, parent, PT_PTRACED);
        Ok(())
    }

    /// `__ptrace_link()`: `t` is traced by `tracer`, at the head of its list.
    fn ptrace_link(&mut self, t: usize, tracer: usize, mode: u8) {
        let task = self.task_mut(t);
        task.ptrace = mode;
        task.parent = Some(tracer);
        self.task_mut(tracer).ptraced.insert(0, t);
    }

    /// `PTRACE_CONT`: resume tracee `pid` from its ptrace stop with signal
    /// `sig` (0 for none).
    ///
    /// # Errors
    /// `ESRCH`: stale caller; `pid` is not traced by the calling thread or
    /// not in a ptrace stop. `EIO`: `sig` outside 0..=64.
    ///
    /// # Linux
    /// `ptrace_check_attach()` then `ptrace_resume()`: the tracee acts on
    /// `sig` as if it had dequeued it, then on its pending signals.
    pub fn ptrace_cont(&mut self, current: Tid, pid: i32, sig: i32) -> Result<()> {
        self.ptrace_resume(current, pid, sig, false)
    }

    /// `ptrace_resume()`: out of its stop, the tracee gets `sig` (delivered
    /// for a signal-delivery-stop, sent for a syscall stop, ignored
    /// otherwise); `syscall`: it stops at its next syscall entry or exit.
    pub(crate) fn ptrace_resume(
        &mut self,
        current: Tid,
        pid: i32,
        sig: i32,
        syscall: bool,
    ) -> Result<()> {
        let t = self.stopped_tracee(current, pid)?;
        if !(0..=NSIG).contains(&sig) {
            return Err(Errno::EIO);
        }
        let task = self.task_mut(t);
        let syscall_stop = std::mem::take(&mut task.trap_syscall);
        let delivered = if task.trap_group || task.trap_event || syscall_stop {
            0
        } else {
            sig
        };
        task.syscall_trace = syscall;
        task.traced_stop = false;
        task.trap_code = 0;
        task.trap_group = false;
        task.trap_event = false;
        if syscall_stop && sig != 0 {
            // ptrace_report_syscall(): the restart's signal is sent, to the
            // thread, privileged (send_sig(.., 1): forced), and dequeued like
            // any other.
            self.send_signal(t, sig, true, true);
            if !self.exists(t) || self.task(t).traced_stop {
                // It stopped again for that signal.
                self.run_deferred();
                return Ok(());
            }
        }
        let sig = delivered;
        self.resume_with(t, sig);
        self.run_deferred();
        Ok(())
    }

    /// `PTRACE_DETACH`: stop tracing `pid`, resuming it with `sig`.
    ///
    /// # Errors
    /// As [`Model::ptrace_cont`].
    ///
    /// # Linux
    /// `ptrace_detach()` -> `__ptrace_detach()`; a group stop in effect
    /// stops the detached task again.
    pub fn ptrace_detach(&mut self, current: Tid, pid: i32, sig: i32) -> Result<()> {
        let sig_in = sig;
        let t = self.stopped_tracee(current, pid)?;
        if !(0..=NSIG).contains(&sig) {
            return Err(Errno::EIO);
        }
        let task = self.task(t);
        let syscall_stop = task.trap_syscall;
        let sig = if task.trap_group || task.trap_event || syscall_stop {
            0
        } else {
            sig
        };
        let sent = if syscall_stop { sig_in } else { 0 };
        self.ptrace_unlink(t);
        if sent != 0 {
            self.send_signal(t, sent, true, true);
            if !self.exists(t) {
                // Killed by it and reaped at once.
                self.run_deferred();
                return Ok(());
            }
        }
        self.resume_with(t, sig);
        self.run_deferred();
        Ok(())
    }

    /// The tracee, out of its ptrace stop, handles `sig` (if any; 0 after
    /// a group-stop trap, whose restart signal `do_jobctl_trap()` ignores)
    /// by its disposition, then a group stop it has to take part in, then
    /// whatever is pending.
    fn resume_with(&mut self, t: usize, sig: i32) {
        // do_signal_stop(): a stop signal after a SIGCONT that came during
        // the signal-delivery-stop (JOBCTL_STOP_DEQUEUED cleared) stops
        // nothing (tests/oracle/ptrace_edges.out, sigstop_cancelled*).
        let dequeued = std::mem::take(&mut self.task_mut(t).stop_dequeued);
        let blocked = sig != 0 && self.task(t).blocked & crate::sigbit(sig) != 0;
        let sig = if taskcore::uapi::sig_kernel_stop(sig) && !dequeued && !blocked {
            0
        } else {
            sig
        };
        if sig != 0 && self.task(t).blocked & crate::sigbit(sig) != 0 {
            // ptrace_signal(): a blocked signal is sent again, to the
            // thread (with prepare_signal()'s flushes).
            self.send_signal(t, sig, false, true);
        } else if sig != 0 {
            self.handle_signal(t, sig);
        }
        // An exit or vfork-done stop left pending comes next (not if the
        // signal stopped it again).
        if self.exists(t)
            && !self.task(t).exiting
            && !self.task(t).traced_stop
            && self.resume_pending_event(t)
        {
            return;
        }
        if self.exists(t) {
            self.dequeue_pending(t);
        }
    }

    /// `ptrace_check_attach()`: `pid` is traced by the calling thread and in
    /// a ptrace stop, not listening (`ptrace_freeze_traced()`).
    pub(crate) fn stopped_tracee(&self, current: Tid, pid: i32) -> Result<usize> {
        let cur = self.current(current)?;
        let t = self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        let task = self.task(t);
        if task.ptrace == 0 || task.parent != Some(cur) || !task.traced_stop || task.listening {
            return Err(Errno::ESRCH);
        }
        Ok(t)
    }

    /// `__ptrace_unlink()`: `t` is no longer traced; its parent is its real
    /// parent again and a ptrace stop ends.
    pub(crate) fn ptrace_unlink(&mut self, t: usize) {
        let task = self.task_mut(t);
        let tracer = task.parent.expect("a traced task has a tracer");
        task.ptrace = 0;
        task.parent = task.real_parent;
        task.traced_stop = false;
        task.trap_code = 0;
        task.trap_group = false;
        task.trap_event = false;
        task.trap_syscall = false;
        task.syscall_trace = false;
        task.trap_notify = false;
        task.trap_stop = false;
        task.listening = false;
        task.ptrace_opts = 0;
        self.task_mut(tracer).ptraced.retain(|&u| u != t);
        // A thread of a stopped (or stopping) group goes back into the
        // group stop (JOBCTL_STOP_PENDING reinstated, uncounted).
        let gstop =
            self.sig(t).flags & SIGNAL_STOP_STOPPED != 0 || self.sig(t).group_stop_count > 0;
        if !self.task(t).exiting && self.task(t).exit_state == ExitState::Running && gstop {
            let sig = self.sig(t).stop_sig;
            let task = self.task_mut(t);
            task.stop_pending = true;
            task.jobctl_sig = sig;
        }
    }
}
