//! `set_tid_address` answered at its seccomp stop, with no syscall-exit
//! stop, while its effect cannot be observed yet.
//!
//! Its answer is the caller's tid (renumbered); its effect is the
//! thread's `clear_child_tid`, which the kernel uses once, when the
//! thread releases its address space (`mm_release()` at exit or exec):
//! it writes 0 there and wakes a futex, but only if the address space is
//! shared (`mm_users > 1`). A thread of a fresh image (its exec event
//! seen; `de_thread()` left it alone, its address space new) shares it
//! with nobody until it makes a `CLONE_VM` clone (a thread, a vfork, a
//! posix_spawn child). So its `set_tid_address` is answered at the entry
//! and skipped, its address kept; before its first `CLONE_VM` clone runs,
//! the real call is made for it (the clone's registers are turned into
//! `set_tid_address(addr)` at its seccomp stop, and at that call's exit
//! they are put back with the instruction pointer on the `syscall`
//! instruction again, so the clone enters anew). A process that never
//! shares its memory (most exec'd programs) saves a stop; one that does
//! pays two, once.

use super::Supervisor;
use crate::tracee::clone_flags_and_tids;
use crate::tracee::{self, Memory, Regs};

/// The `syscall` instruction's length (x86_64: `0f 05`).
const SYSCALL_INSN_LEN: u64 = 2;

impl Supervisor {
    /// Whether `set_tid_address` by thread `tid` may be answered at its
    /// entry (its address space shared with nobody).
    pub(super) fn tid_address_unshared(&self, tid: i32) -> bool {
        self.threads.get(&tid).is_some_and(|t| t.tid_address.fresh)
    }

    /// `set_tid_address(addr)` by thread `tid` was answered at its entry.
    pub(super) fn keep_tid_address(&mut self, tid: i32, addr: u64) {
        if let Some(t) = self.threads.get_mut(&tid) {
            t.tid_address.pending = (addr != 0).then_some(addr);
        }
    }

    /// At the seccomp stop of call `nr` (registers `regs`) of thread
    /// `tid`: if it is a `CLONE_VM` clone, the thread's address space is
    /// about to be shared; a pending `set_tid_address` is made first (the
    /// call is replaced by it, and entered again at its exit). Returns
    /// whether it was (the stop is then handled).
    pub(super) fn tid_address_before_clone(&mut self, tid: i32, nr: i64, regs: &Regs) -> bool {
        let Some(t) = self.threads.get(&tid) else {
            return false;
        };
        if !t.tid_address.fresh {
            return false;
        }
        let shares = match nr {
            libc::SYS_vfork => true,
            libc::SYS_clone | libc::SYS_clone3 => {
                let (flags, _, _) = clone_flags_and_tids(nr, &regs.args(), &Memory::new(tid));
                flags & libc::CLONE_VM as u64 != 0
            }
            _ => false,
        };
        if !shares {
            return false;
        }
        let Some(t) = self.threads.get_mut(&tid) else {
            return false;
        };
        t.tid_address.fresh = false;
        let Some(addr) = t.tid_address.pending.take() else {
            return false;
        };
        let mut call = *regs;
        call.0.orig_rax = libc::SYS_set_tid_address as u64;
        call.set_arg(0, addr);
        if call.set(tid).is_err() {
            return true;
        }
        t.tid_address.clone_regs = Some(*regs);
        let _ = tracee::syscall(tid, 0);
        true
    }

    /// At a syscall-exit stop of thread `tid`: if it is the exit of a
    /// `set_tid_address` made before a clone, the clone's registers come
    /// back, on its `syscall` instruction again. Returns whether it was
    /// (the stop is then handled).
    pub(super) fn tid_address_made(&mut self, tid: i32) -> bool {
        let Some(mut regs) = self
            .threads
            .get_mut(&tid)
            .and_then(|t| t.tid_address.clone_regs.take())
        else {
            return false;
        };
        regs.0.rip = regs.0.rip.wrapping_sub(SYSCALL_INSN_LEN);
        regs.0.rax = regs.0.orig_rax;
        let _ = regs.set(tid);
        let _ = tracee::cont(tid, 0);
        true
    }
}
