//! The recorded system calls: each is a [`Syscall`] with the numbers the
//! trace printed, handed to the module of its family, which maps its
//! numbers to the emulation's, applies it through
//! [`taskcore::sys::dispatch`] and compares the result with the recorded
//! one.

use std::sync::Arc;

use taskcore::sys::{dispatch, Prctl, SysResult, SysRet, Syscall};
use taskcore::TaskId;

use super::Engine;
use crate::event::{Event, Outcome, Rec};

impl Engine {
    /// `call` applied to the emulated kernel on behalf of `cur`; the
    /// current event's user pointers (`uaccess.rs`) refused where the
    /// emulated address space refuses them.
    pub(super) fn sys(&mut self, cur: TaskId, call: &Syscall) -> SysResult {
        if let Some(c3) = self.clone3_faults(cur, call) {
            let r = dispatch(&mut self.k, cur, &c3);
            return self.output_faults(cur, call, r);
        }
        let r = dispatch(&mut self.k, cur, call);
        self.output_faults(cur, call, r)
    }

    /// Applies the recorded system call of `e` (`call`, with the numbers
    /// the trace printed; `rec`, its recorded outputs) and checks its
    /// result.
    pub(super) fn apply_sys(&mut self, e: &Arc<Event>, cur: TaskId, call: &Syscall, rec: &Rec) {
        if matches!(
            call,
            Syscall::Getuid
                | Syscall::Geteuid
                | Syscall::Getgid
                | Syscall::Getegid
                | Syscall::Getresuid
                | Syscall::Getresgid
                | Syscall::Setuid { .. }
                | Syscall::Setgid { .. }
                | Syscall::Setreuid { .. }
                | Syscall::Setregid { .. }
                | Syscall::Setresuid { .. }
                | Syscall::Setresgid { .. }
                | Syscall::Setfsuid { .. }
                | Syscall::Setfsgid { .. }
        ) {
            self.learned.ids_shown = true;
        }
        match call {
            // The name and the dumpable flag are process state the
            // process-API checks count.
            Syscall::Prctl(Prctl::GetName | Prctl::GetDumpable | Prctl::SetDumpable(_)) => {
                self.apply_procapi(e, cur, call, rec)
            }
            Syscall::Capget { .. }
            | Syscall::Capset { .. }
            | Syscall::Getgroups { .. }
            | Syscall::Setgroups { .. }
            | Syscall::Prctl(
                Prctl::CapbsetRead(_)
                | Prctl::CapbsetDrop(_)
                | Prctl::CapAmbient(..)
                | Prctl::GetKeepcaps
                | Prctl::SetKeepcaps(_)
                | Prctl::GetSecurebits
                | Prctl::SetSecurebits(_)
                | Prctl::GetNoNewPrivs(_)
                | Prctl::SetNoNewPrivs(_),
            ) => self.apply_caps(e, cur, call, rec),
            Syscall::Prctl(p) => self.apply_prctl(e, cur, p, rec),
            Syscall::RtSigaction { .. }
            | Syscall::RtSigprocmask { .. }
            | Syscall::RtSigpending
            | Syscall::RtSigqueueinfo { .. }
            | Syscall::RtTgsigqueueinfo { .. }
            | Syscall::RtSigtimedwait { .. }
            | Syscall::RtSigsuspend { .. }
            | Syscall::Pause
            | Syscall::RtSigreturn { .. } => self.apply_sigcall(e, cur, call, rec),
            Syscall::Mmap { .. }
            | Syscall::Munmap { .. }
            | Syscall::Mprotect { .. }
            | Syscall::Mremap { .. }
            | Syscall::Brk { .. } => self.apply_memory(e, cur, call, rec),
            // The lifecycle calls; it hands the rest (credentials, limits,
            // pidfd_open, unshare) to the process-API checks.
            _ => self.apply_lifecycle(e, cur, call, rec),
        }
    }

    /// The prctl options other than `PR_GET_NAME` (a process-API call).
    fn apply_prctl(&mut self, e: &Event, cur: TaskId, p: &Prctl, rec: &Rec) {
        let call = Syscall::Prctl(p.clone());
        match (p, rec) {
            (Prctl::SetChildSubreaper(_), _) if e.ret != Outcome::Value(0) => self.unchecked(e),
            (Prctl::GetChildSubreaper | Prctl::GetPdeathsig, Rec::Written(value)) => {
                if e.ret != Outcome::Value(0) {
                    return self.unchecked(e);
                }
                match (value, self.sys(cur, &call)) {
                    (Some(v), Ok(SysRet::Written(got))) => {
                        self.stats.checked += 1;
                        if matches!(p, Prctl::GetChildSubreaper) {
                            if (*v != 0) != (got != 0) {
                                let (v, got) = (*v != 0, got != 0);
                                self.mismatch(e, "subreaper", v.to_string(), got.to_string());
                            }
                        } else if *v != got as u64 {
                            self.mismatch(e, "pdeath signal", v.to_string(), got.to_string());
                        }
                    }
                    _ => self.unchecked(e),
                }
            }
            _ => {
                let r = self.sys(cur, &call);
                self.check_unit(e, r.map(drop));
            }
        }
    }
}
