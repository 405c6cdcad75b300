//! User pointers the recording shows as addresses (strace did not read
//! them), checked against the emulated address space: `EFAULT` results
//! of traces recorded with `%memory`.
//!
//! The emulation knows a range exactly where the trace itself mapped,
//! moved or unmapped it since the process's exec ([`Engine::touch`]), and
//! the kernel half everywhere. There a pointer's fault is the emulation's
//! answer, and the recorded result is checked against it. Elsewhere (the
//! stack, the program, memory mapped before the trace) the emulation does
//! not know what is mapped: a pointer there is taken as the recording
//! says (an `EFAULT` result faulted, any other did not), and a call whose
//! `EFAULT` rests on it is counted as not checkable.
//!
//! Inputs ([`Access::Read`]) are checked before the call: a refused one is
//! the call's `EFAULT`, nothing applied. Outputs ([`Access::Write`],
//! [`Access::WriteAlways`]) are checked in [`Engine::sys`] after the call
//! acted: its effects stay, its result becomes `EFAULT`. clone3's pidfd
//! and set_tid are handed to the core inside the call
//! (`Clone3Args::pidfd_fault`, an empty `set_tid`), which refuses them at
//! Linux's point.
//!
//! # Linux
//! `access_ok()` and the page-fault fixup of `copy_from_user()` /
//! `copy_to_user()` (see `taskcore::sys::uaccess`).

use std::sync::Arc;

use taskcore::mm::flags::{PROT_READ, PROT_WRITE};
use taskcore::mm::TASK_SIZE_X86_64;
use taskcore::sys::uaccess::vma_access;
use taskcore::sys::{SysResult, SysRet, Syscall};
use taskcore::wait::WaitOutcome;
use taskcore::{Errno, SigWait, TaskId};

use super::state::CurPtrs;
use super::Engine;
use crate::event::{Access, Event, Outcome, Rec, UserPtr};

/// Why a call is not checked when its `EFAULT` rests on memory the
/// emulation does not know.
/// The [`Stats::checked_calls`](super::Stats::checked_calls) entry of
/// `EFAULT` results checked against the emulated address space.
pub(crate) const CHECKED: &str = "EFAULT from a user pointer";

pub(super) const UNKNOWN: &str = "pointer outside the memory the trace mapped";

impl Engine {
    /// Applies system call `e` (`call`, `rec`) by `cur`, whose pointers
    /// strace printed as addresses: each checked against the emulated
    /// address space as the call touches it.
    pub(super) fn apply_with_ptrs(
        &mut self,
        e: &Arc<Event>,
        cur: TaskId,
        call: &Syscall,
        rec: &Rec,
    ) {
        let (checked, mismatches) = (self.stats.checked, self.stats.mismatches.len());
        self.begin_ptrs(e, call);
        self.apply_sys(e, cur, call, rec);
        let was_checked = self.stats.checked > checked;
        if self.end_ptrs() && was_checked {
            // The EFAULT came from the recording, not the model.
            self.stats.checked = checked;
            self.unchecked_because(e, UNKNOWN);
        } else if was_checked
            && e.ret == Outcome::Errno(Errno::EFAULT)
            && self.stats.mismatches.len() == mismatches
        {
            self.count_efault();
        }
    }

    /// Checks the input pointers of `e` by `cur` before it is applied.
    /// Returns `true` when that settled the event: an input the emulation
    /// refuses (the call's result is `EFAULT`, checked), or an `EFAULT`
    /// that only unknown memory explains (not checkable). Either way
    /// nothing is applied, as Linux did nothing.
    pub(super) fn input_faults(&mut self, e: &Event, cur: TaskId) -> bool {
        let Some(ptrs) = e.uptrs.clone() else {
            return false;
        };
        let mut unknown = false;
        let mut readable = false;
        for p in ptrs.iter().filter(|p| p.access == Access::Read) {
            match self.verdict(cur, p, PROT_READ) {
                Verdict::Faults => {
                    self.stats.checked += 1;
                    if e.ret == Outcome::Errno(Errno::EFAULT) {
                        self.count_efault();
                    } else {
                        self.mismatch(
                            e,
                            "user pointer",
                            super::report::fmt_outcome(&e.ret),
                            format!("= -1 EFAULT (nothing readable at {:#x})", p.addr),
                        );
                    }
                    return true;
                }
                Verdict::Unknown => unknown = true,
                Verdict::Fine => readable = true,
            }
        }
        if e.ret != Outcome::Errno(Errno::EFAULT) {
            return false;
        }
        if unknown {
            self.unchecked_because(e, UNKNOWN);
            return true;
        }
        if readable && !self.output_may_fault(e, cur) {
            // strace could not read what the emulation has mapped.
            self.stats.checked += 1;
            self.mismatch(
                e,
                "user pointer",
                "= -1 EFAULT".into(),
                "readable (mapped by the trace)".into(),
            );
            return true;
        }
        false
    }

    /// Counts a checked `EFAULT` from a user pointer in
    /// [`Stats::checked_calls`](super::Stats::checked_calls).
    pub(super) fn count_efault(&mut self) {
        *self
            .stats
            .checked_calls
            .entry(CHECKED.to_string())
            .or_default() += 1;
    }

    /// Whether an output pointer of `e` could explain its `EFAULT`.
    fn output_may_fault(&self, e: &Event, cur: TaskId) -> bool {
        e.uptrs.iter().flat_map(|p| p.iter()).any(|p| {
            p.access != Access::Read && !matches!(self.verdict(cur, p, PROT_WRITE), Verdict::Fine)
        })
    }

    /// Makes the output pointers of `e` (a recorded system call) the ones
    /// [`Engine::sys`] checks until [`Engine::end_ptrs`].
    pub(super) fn begin_ptrs(&mut self, e: &Event, call: &Syscall) {
        self.mem.cur_ptrs = CurPtrs {
            ptrs: e.uptrs.clone(),
            name: call.name(),
            efault: e.ret == Outcome::Errno(Errno::EFAULT),
            trusted: false,
        };
    }

    /// Ends [`Engine::begin_ptrs`]: returns whether a fault was taken from
    /// the recording.
    pub(super) fn end_ptrs(&mut self) -> bool {
        std::mem::take(&mut self.mem.cur_ptrs).trusted
    }

    /// clone3's pointers inside the call: `call` with the pidfd and set_tid
    /// refusals the emulation (or, in unknown memory, the recording) gives.
    pub(super) fn clone3_faults(&mut self, cur: TaskId, call: &Syscall) -> Option<Syscall> {
        let Syscall::Clone3(args) = call else {
            return None;
        };
        let ptrs = self
            .mem
            .cur_ptrs
            .ptrs
            .clone()
            .filter(|_| self.mem.cur_ptrs.name == call.name())?;
        let mut args = args.clone();
        let mut faulted = false;
        let mut unknown = Vec::new();
        for p in ptrs.iter() {
            let prot = match p.access {
                Access::ClonePidfd => PROT_WRITE,
                Access::CloneSetTid => PROT_READ,
                _ => continue,
            };
            match self.verdict(cur, p, prot) {
                Verdict::Faults => {
                    fault_clone3(&mut args, p);
                    faulted = true;
                }
                Verdict::Unknown => unknown.push(*p),
                Verdict::Fine => {}
            }
        }
        if !faulted && self.mem.cur_ptrs.efault && !unknown.is_empty() {
            for p in &unknown {
                fault_clone3(&mut args, p);
            }
            self.mem.cur_ptrs.trusted = true;
        }
        Some(Syscall::Clone3(args))
    }

    /// `r`, the result of `call` by `cur`, with the output pointers of the
    /// current event written: `EFAULT` where one is refused.
    pub(super) fn output_faults(&mut self, cur: TaskId, call: &Syscall, r: SysResult) -> SysResult {
        let Some(ptrs) = self.mem.cur_ptrs.ptrs.clone() else {
            return r;
        };
        if self.mem.cur_ptrs.name != call.name() {
            return r;
        }
        let mut unknown = false;
        for p in ptrs.iter() {
            let written = match p.access {
                Access::Write => writes_result(&r),
                Access::WriteAlways => !sleeps(&r),
                _ => false,
            };
            if !written {
                continue;
            }
            match self.verdict(cur, p, PROT_WRITE) {
                Verdict::Faults => return Err(Errno::EFAULT),
                Verdict::Unknown => unknown = true,
                Verdict::Fine => {}
            }
        }
        if unknown && self.mem.cur_ptrs.efault {
            self.mem.cur_ptrs.trusted = true;
            return Err(Errno::EFAULT);
        }
        r
    }

    /// Whether `p` in `cur`'s address space refuses `prot`.
    fn verdict(&self, cur: TaskId, p: &UserPtr, prot: u32) -> Verdict {
        match p.addr.checked_add(p.reach) {
            Some(end) if end <= TASK_SIZE_X86_64 => {}
            _ => return Verdict::Faults,
        }
        let Ok(tgid) = self.k.getpid(cur) else {
            return Verdict::Unknown;
        };
        if !self.is_known(tgid, p.addr, p.len) {
            return Verdict::Unknown;
        }
        match self.k.mm(cur) {
            Ok(mm) => match vma_access(mm, p.addr, p.len, prot) {
                Ok(()) => Verdict::Fine,
                Err(_) => Verdict::Faults,
            },
            Err(_) => Verdict::Unknown,
        }
    }
}

/// What the emulation says of one pointer.
enum Verdict {
    Faults,
    Fine,
    /// Memory the emulation does not know.
    Unknown,
}

/// A refused clone3 pointer handed to the core.
fn fault_clone3(args: &mut taskcore::Clone3Args, p: &UserPtr) {
    match p.access {
        Access::ClonePidfd => args.pidfd_fault = true,
        Access::CloneSetTid => {
            args.set_tid = Some(Vec::new());
            args.set_tid_size = p.len / 4;
        }
        _ => {}
    }
}

/// Whether a call that ended with `r` wrote its outputs: it succeeded with
/// something to report (not a wait still sleeping or empty).
fn writes_result(r: &SysResult) -> bool {
    match r {
        Ok(SysRet::Wait(w) | SysRet::Waitid(w)) => matches!(w, WaitOutcome::Reported(_)),
        Ok(SysRet::SigWait(w)) => matches!(w, SigWait::Signal(_)),
        Ok(_) => true,
        Err(_) => false,
    }
}

/// Whether the caller still sleeps in the call (nothing written yet).
fn sleeps(r: &SysResult) -> bool {
    matches!(
        r,
        Ok(SysRet::Wait(WaitOutcome::WouldBlock)
            | SysRet::Waitid(WaitOutcome::WouldBlock)
            | SysRet::SigWait(SigWait::WouldBlock))
    )
}
