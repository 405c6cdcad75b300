//! ptrace, as far as `wait` needs it: attach, seize, traceme, continue and
//! detach; ptrace stops reported to the tracer as `CLD_TRAPPED`.
//!
//! A traced task that receives a signal other than SIGKILL stops and
//! reports it to its tracer instead of acting on it; `PTRACE_CONT` and
//! `PTRACE_DETACH` resume it and may deliver a signal. A traced task's exit
//! is reported to the tracer first, then (for a process, once the tracer
//! reaped it) to its real parent.
//!
//! # Linux
//! kernel/ptrace.c: `ptrace_attach`, `ptrace_traceme`, `__ptrace_link`,
//! `__ptrace_unlink`, `ptrace_detach`, `ptrace_resume`.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::list;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::ptrace::access::PtraceMode;
use crate::task::signal::sigsend::{PidType, SendInfo};
use crate::task::state::jobctl_flags::JOBCTL_STOPPED;
use crate::task::state::jobctl_flags::TIF_SYSCALL_TRACE;
use crate::task::state::jobctl_flags::{
    JOBCTL_LISTENING, JOBCTL_STOP_PENDING, JOBCTL_STOP_SIGMASK, JOBCTL_TRAP_NOTIFY,
    JOBCTL_TRAP_STOP,
};
use crate::task::task_struct::PF_EXITING;
use crate::task::task_struct::{ExitState, PT_PTRACED, PT_SEIZED, SIGNAL_STOP_STOPPED};
use crate::uapi::SIGSTOP;

/// `PTRACE_EVENT_STOP`: the event of a seized tracee's group-stop trap.
pub const PTRACE_EVENT_STOP: i32 = 128;

/// # ptrace: attach, seize, traceme, resume and detach (`kernel/ptrace.c`).
impl Kernel {
    /// `PTRACE_ATTACH` (`seize == false`: the tracee is sent SIGSTOP and
    /// stops, reported as `CLD_TRAPPED`) or `PTRACE_SEIZE` (no stop). A
    /// tracee already stopped by a group stop moves into a ptrace stop for
    /// it either way, reporting the group's stop signal (seized: with
    /// `PTRACE_EVENT_STOP << 8`).
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale; no task `pid`.
    /// - `EPERM`: `pid` is in the caller's thread group, already traced, or
    ///   a zombie; or [`Kernel::ptrace_may_access`] refuses it in
    ///   [`PtraceMode::AttachRealCreds`] (the caller's real uid and gid are
    ///   not all of the target's, or the target is not dumpable, and the
    ///   caller lacks `CAP_SYS_PTRACE`; or the target's permitted
    ///   capabilities exceed the caller's).
    ///
    /// # Linux
    /// `ptrace_attach()` (kernel/ptrace.c).
    pub fn ptrace_attach(&mut self, current: TaskId, pid: i32, seize: bool) -> Result<()> {
        self.probed(crate::probe::Op::PtraceAttach, current, |k| {
            k.do_sys_ptrace_attach(current, pid, seize)
        })
    }

    pub(crate) fn do_sys_ptrace_attach(
        &mut self,
        current: TaskId,
        pid: i32,
        seize: bool,
    ) -> Result<()> {
        let cur = self.current(current)?;
        let t = self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        // Linux checks exit_state only: a namespace's init still waiting
        // for its namespace to empty (PF_EXITING) can be attached.
        // __ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS) refuses with
        // EPERM too (tests/oracle/ptrace_access.c).
        if self.same_group(Some(t), Some(cur))
            || !self.may_access(cur, t, PtraceMode::AttachRealCreds)
            || self.tasks[t].ptrace != 0
            || self.tasks[t].exit_state() != ExitState::Alive
        {
            return Err(Errno::EPERM);
        }
        let exiting = self.tasks[t].flags.contains(PF_EXITING);
        let stopped = self.tasks[t].jobctl & JOBCTL_STOPPED != 0 && !exiting;
        self.ptrace_link(
            t,
            cur,
            if seize {
                PT_PTRACED | PT_SEIZED
            } else {
                PT_PTRACED
            },
        );
        if stopped {
            // ptrace_attach(): a thread stopped by a group stop moves into
            // a group-stop trap (JOBCTL_TRAP_STOP), reporting the group's
            // stop signal (a seized one as PTRACE_EVENT_STOP). The restart's
            // signal is ignored there (do_jobctl_trap()); the SIGSTOP of an
            // attach stays pending for the thread and is its next stop
            // (tests/oracle/ptrace_gstop.c, attach_stopped).
            self.tasks[t].jobctl |= JOBCTL_TRAP_STOP;
            self.do_jobctl_trap(t);
        }
        if !seize {
            // send_sig_info(SIGSTOP, SEND_SIG_PRIV, task): it flushes a
            // pending SIGCONT, and the tracee stops for it when it takes it
            // (at once, or once resumed if already stopped; never if
            // exiting), with SEND_SIG_PRIV's siginfo (SI_KERNEL, no sender).
            let _ = self.send_signal_locked(t, SIGSTOP, SendInfo::Priv, PidType::Pid, true);
        }
        self.run_deferred();
        Ok(())
    }

    /// `PTRACE_TRACEME`: the caller is traced by its real parent.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale.
    /// - `EPERM`: already traced, or no parent; or the caller's permitted
    ///   capabilities are not within its parent's and the parent lacks
    ///   `CAP_SYS_PTRACE`.
    ///
    /// # Linux
    /// `ptrace_traceme()` (kernel/ptrace.c), `cap_ptrace_traceme()`
    /// (security/commoncap.c).
    pub fn ptrace_traceme(&mut self, current: TaskId) -> Result<()> {
        self.probed(crate::probe::Op::PtraceTraceme, current, |k| {
            k.do_sys_ptrace_traceme(current)
        })
    }

    fn do_sys_ptrace_traceme(&mut self, current: TaskId) -> Result<()> {
        let cur = self.current(current)?;
        let parent = self.real_parent(cur);
        let Some(parent) = parent.filter(|_| self.tasks[cur].ptrace == 0) else {
            return Err(Errno::EPERM);
        };
        let (pc, cc) = (&self.tasks[parent].cred, &self.tasks[cur].cred);
        if !cc.cap_permitted.is_subset(pc.cap_permitted)
            && !self.ns_capable_cred(
                pc,
                cc.user_ns.0,
                crate::task::state::capability::CAP_SYS_PTRACE,
            )
        {
            return Err(Errno::EPERM);
        }
        self.ptrace_link(cur, parent, PT_PTRACED);
        Ok(())
    }

    /// `PTRACE_CONT`: resume tracee `pid` from its ptrace stop, delivering
    /// `sig` (0 for none) as if untraced.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale; `pid` is not a tracee of the calling
    ///   thread in a ptrace stop.
    /// - `EIO`: `sig` outside 0..=64.
    ///
    /// # Linux
    /// `ptrace_resume()` after `ptrace_check_attach()` (kernel/ptrace.c).
    pub fn ptrace_cont(&mut self, current: TaskId, pid: i32, sig: i32) -> Result<()> {
        self.probed(crate::probe::Op::PtraceCont, current, |k| {
            k.do_sys_ptrace_cont(current, pid, sig)
        })
    }

    fn do_sys_ptrace_cont(&mut self, current: TaskId, pid: i32, sig: i32) -> Result<()> {
        let t = self.stopped_tracee(current, pid)?;
        if !(0..=64).contains(&sig) {
            return Err(Errno::EIO);
        }
        self.ptrace_resume(t, sig, false);
        self.run_deferred();
        Ok(())
    }

    /// `PTRACE_DETACH`: stop tracing `pid`, resuming it with `sig`.
    ///
    /// # Errors
    /// As [`Kernel::ptrace_cont`].
    ///
    /// # Linux
    /// `ptrace_detach()` (kernel/ptrace.c).
    pub fn ptrace_detach(&mut self, current: TaskId, pid: i32, sig: i32) -> Result<()> {
        self.probed(crate::probe::Op::PtraceDetach, current, |k| {
            k.do_sys_ptrace_detach(current, pid, sig)
        })
    }

    fn do_sys_ptrace_detach(&mut self, current: TaskId, pid: i32, sig: i32) -> Result<()> {
        let t = self.stopped_tracee(current, pid)?;
        if !(0..=64).contains(&sig) {
            return Err(Errno::EIO);
        }
        let (kind, stopped_with) = (
            self.tasks[t].trap_kind,
            self.tasks[t].trap_code.get() & 0x7f,
        );
        self.ptrace_unlink(t);
        self.resume_with(t, sig, kind, stopped_with);
        self.run_deferred();
        Ok(())
    }

    /// `ptrace_check_attach()`: `pid` is a tracee of the calling thread in
    /// a ptrace stop (not listening).
    pub(crate) fn stopped_tracee(&self, current: TaskId, pid: i32) -> Result<TaskIx> {
        let cur = self.current(current)?;
        let t = self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        let task = &self.tasks[t];
        if task.ptrace == 0
            || task.parent != Some(cur)
            || !task.traced_stop()
            || task.jobctl & JOBCTL_LISTENING != 0
        {
            return Err(Errno::ESRCH);
        }
        Ok(t)
    }

    /// `__ptrace_unlink()`: `t` is no longer traced; a ptrace stop ends.
    pub(crate) fn ptrace_unlink(&mut self, t: TaskIx) {
        if self.tasks[t].ptrace == 0 {
            return;
        }
        self.unindex_ptrace(t);
        let tracer = self.tracer_of(t);
        let mut head = self.side.ptraced(tracer);
        list::unlink(&mut head, &mut self.tasks, t, |t| &mut t.ptrace_entry);
        self.side.set_ptraced(tracer, head);
        self.side.set_ptrace_seq(t, None);
        let task = &mut self.tasks[t];
        task.ptrace = 0;
        task.parent = None;
        task.ptrace_opts = 0;
        task.jobctl &=
            !(JOBCTL_TRAP_STOP | JOBCTL_TRAP_NOTIFY | JOBCTL_LISTENING | TIF_SYSCALL_TRACE);
        let g = task.group;
        self.set_traced_stop(t, false, 0);
        self.groups[g].nr_traced -= 1;
        // A thread of a stopped (or stopping) group goes back into the
        // group stop, uncounted.
        if !self.tasks[t].flags.contains(PF_EXITING)
            && self.tasks[t].exit_state() == ExitState::Alive
            && (self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED)
                || self.groups[g].group_stop_count > 0)
        {
            let sig = u32::from(self.groups[g].stop_sig) & JOBCTL_STOP_SIGMASK;
            let task = &mut self.tasks[t];
            task.jobctl = (task.jobctl & !JOBCTL_STOP_SIGMASK) | sig | JOBCTL_STOP_PENDING;
        }
        // Its ptrace edge left the index above; a leader's child edge loses
        // ptrace semantics.
        self.mark_task(t);
    }
}
