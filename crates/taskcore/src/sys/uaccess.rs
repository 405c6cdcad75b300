//! User memory through the task's address space: `copy_from_user()` and
//! `copy_to_user()` refuse (`EFAULT`) a range that a VMA does not cover or
//! whose protection refuses the access, before the embedder's memory is
//! read or written.
//!
//! [`TaskMemory`] wraps the embedder's [`UserMemory`] for one task: give
//! it to [`Syscall::from_raw_with`](super::Syscall::from_raw_with) (or
//! `from_raw_in`) so that every pointer argument the decoder reads is
//! checked against the task's VMAs, and ask
//! [`TaskMemory::check_write`] before writing a call's outputs. An
//! embedder that does not model address spaces says so with
//! [`AddressSpace::Unmodelled`]: only `access_ok()` (the kernel half)
//! applies, as with the bare [`UserMemory`].
//!
//! Not modelled: a fault that grows a `VM_GROWSDOWN` stack, and
//! `MAP_SHARED` pages of a file shorter than the mapping (`SIGBUS`, not
//! `EFAULT`).
//!
//! # Linux
//! `copy_from_user()`/`copy_to_user()` (`access_ok()`, then the page
//! fault handler: `lock_mm_and_find_vma()` and `access_error()` of
//! arch/x86/mm/fault.c; a refused fault is fixed up as `-EFAULT`).

use super::decode::UserMemory;
use crate::errno::{Errno, Result};
use crate::mm::flags::{PROT_READ, PROT_WRITE};
use crate::mm::MmStruct;
use crate::task::kernel::{Kernel, TaskId};

/// Whether the embedder models the tasks' address spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressSpace {
    /// The task's VMAs are the memory: a range outside them, or one whose
    /// protection refuses the access, is `EFAULT`.
    Modelled,
    /// The embedder keeps memory itself: only the kernel-half check
    /// applies, then its [`UserMemory`] answers.
    Unmodelled,
}

/// Whether `mm`'s VMAs cover `[addr, addr + len)` with `prot` (`PROT_READ`
/// or `PROT_WRITE`) allowed on every page.
///
/// # Errors
/// `EFAULT`: a byte of the range is in no VMA (or `mm` is `None`: nothing
/// is mapped), or in one whose protection lacks `prot` (`access_error()`:
/// a read of a `PROT_NONE` page, a write of a read-only one); a range
/// that wraps. An empty range is never refused.
pub fn vma_access(mm: Option<&MmStruct>, addr: u64, len: u64, prot: u32) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let end = addr.checked_add(len).ok_or(Errno::EFAULT)?;
    let mm = mm.ok_or(Errno::EFAULT)?;
    let mut a = addr;
    while a < end {
        let v = mm.vma_lookup(a).ok_or(Errno::EFAULT)?;
        if v.prot & prot != prot {
            return Err(Errno::EFAULT);
        }
        a = v.end;
    }
    Ok(())
}

/// One task's user memory: the embedder's bytes behind the task's VMAs.
pub struct TaskMemory<'a> {
    /// The task's address space when modelled (`None` inside: nothing
    /// mapped yet).
    mm: Option<Option<&'a MmStruct>>,
    mem: &'a dyn UserMemory,
}

impl<'a> TaskMemory<'a> {
    /// Task `t`'s memory in `k`, its bytes read from `mem`.
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale.
    pub fn new(
        k: &'a Kernel,
        t: TaskId,
        mem: &'a dyn UserMemory,
        space: AddressSpace,
    ) -> Result<TaskMemory<'a>> {
        let mm = k.mm(t)?;
        Ok(TaskMemory {
            mm: (space == AddressSpace::Modelled).then_some(mm),
            mem,
        })
    }

    /// `copy_to_user()`'s check before a call's output of `len` bytes is
    /// written at `addr`: the kernel half, then (when modelled) writable
    /// VMAs over the whole range.
    ///
    /// # Errors
    /// `EFAULT` as above.
    pub fn check_write(&self, addr: u64, len: u64) -> Result<()> {
        access_ok(addr, len)?;
        match self.mm {
            Some(mm) => vma_access(mm, addr, len, PROT_WRITE),
            None => Ok(()),
        }
    }

    /// `copy_from_user()`'s check of `len` bytes at `addr`, nothing read:
    /// the kernel half, then (when modelled) readable VMAs over the whole
    /// range.
    ///
    /// # Errors
    /// `EFAULT` as above.
    pub fn check_read(&self, addr: u64, len: u64) -> Result<()> {
        access_ok(addr, len)?;
        match self.mm {
            Some(mm) => vma_access(mm, addr, len, PROT_READ),
            None => Ok(()),
        }
    }
}

/// `access_ok()`: the range ends at or below `TASK_SIZE`.
fn access_ok(addr: u64, len: u64) -> Result<()> {
    match addr.checked_add(len) {
        Some(end) if end <= crate::mm::TASK_SIZE_X86_64 => Ok(()),
        _ => Err(Errno::EFAULT),
    }
}

impl core::fmt::Debug for TaskMemory<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let space = match self.mm {
            Some(Some(mm)) => format!("{} VMAs", mm.map_count()),
            Some(None) => "no VMAs".to_string(),
            None => "unmodelled".to_string(),
        };
        write!(f, "TaskMemory({space})")
    }
}

impl UserMemory for TaskMemory<'_> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.check_read(addr, buf.len() as u64)?;
        self.mem.read(addr, buf)
    }

    fn check_write(&self, addr: u64, len: u64) -> Result<()> {
        TaskMemory::check_write(self, addr, len)?;
        self.mem.check_write(addr, len)
    }
}
