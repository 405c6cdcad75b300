//! The files that describe an address space: `/proc/PID/statm` and
//! `/proc/PID/maps`, and the memory counters `stat` and `status` show.
//!
//! # Counters
//! Linux keeps `total_vm`, `data_vm`, `stack_vm`, `exec_vm` and
//! `locked_vm` up to date on every mapping change (`vm_stat_account`); we
//! compute them from the VMAs when a file is read, in O(VMAs), with the same
//! classification:
//!
//! | counter | VMAs counted (`vm_flags` tests of mm/internal.h) |
//! |---|---|
//! | `exec_vm`  | `VM_EXEC` without `VM_WRITE` or `VM_STACK` |
//! | `stack_vm` | `VM_STACK` (`VM_GROWSDOWN` on x86) |
//! | `data_vm`  | `VM_WRITE` without `VM_SHARED` or `VM_STACK` |
//! | `locked_vm`| `VM_LOCKED` |
//!
//! Resident pages are not modelled: RSS counters are 0. The text segment
//! (`start_code..end_code`, set by the ELF loader) is taken to be the
//! lowest file-backed executable VMA.
//!
//! # Linux
//! fs/proc/task_mmu.c `task_statm()`, `task_mem()`, `task_vsize()`,
//! fs/proc/array.c `proc_pid_statm()`; mm/mmap.c `vm_stat_account()`.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::mm::flags::{PAGE_SHIFT, VM_EXEC, VM_GROWSDOWN, VM_LOCKED, VM_SHARED, VM_WRITE};
use crate::mm::MmStruct;
use crate::procfs::fs::ProcFs;
use crate::procfs::seq::SeqBuf;

/// `VM_STACK` on x86_64 (`VM_GROWSDOWN`).
const VM_STACK: u64 = VM_GROWSDOWN;

/// The memory counters of an address space, in pages unless stated.
///
/// # Linux
/// Fields of `struct mm_struct`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MmCounters {
    /// `total_vm`: pages mapped.
    pub total_vm: u64,
    /// `data_vm`: private writable pages outside stacks.
    pub data_vm: u64,
    /// `stack_vm`: stack pages.
    pub stack_vm: u64,
    /// `exec_vm`: executable, non-writable pages outside stacks.
    pub exec_vm: u64,
    /// `locked_vm`: `VM_LOCKED` pages.
    pub locked_vm: u64,
    /// `start_code` (bytes).
    pub start_code: u64,
    /// `end_code` (bytes).
    pub end_code: u64,
    /// `start_stack` (bytes).
    pub start_stack: u64,
    /// `start_brk` (bytes).
    pub start_brk: u64,
}

impl MmCounters {
    /// Counts `mm`'s VMAs (the gate VMA excluded, as it is not in the mm).
    pub fn of(mm: &MmStruct) -> MmCounters {
        let mut c = MmCounters {
            start_stack: mm.layout().start_stack,
            start_brk: mm.layout().start_brk,
            ..MmCounters::default()
        };
        let mut text: Option<(u64, u64)> = None;
        for v in mm.iter() {
            let f = v.vm_flags();
            let pages = v.pages();
            c.total_vm += pages;
            if f & (VM_EXEC | VM_WRITE | VM_STACK) == VM_EXEC {
                c.exec_vm += pages;
                if text.is_none() && v.file.is_some() {
                    text = Some((v.start, v.end));
                }
            } else if f & VM_STACK != 0 {
                c.stack_vm += pages;
            } else if f & (VM_WRITE | VM_SHARED) == VM_WRITE {
                c.data_vm += pages;
            }
            if f & VM_LOCKED != 0 {
                c.locked_vm += pages;
            }
        }
        if let Some((s, e)) = text {
            c.start_code = s;
            c.end_code = e;
        }
        c
    }

    /// `task_vsize()`: bytes mapped.
    pub fn vsize(&self) -> u64 {
        self.total_vm << PAGE_SHIFT
    }

    /// Text pages (`PAGE_ALIGN(end_code) - start_code`, in pages).
    pub fn text_pages(&self) -> u64 {
        (self.end_code.saturating_sub(self.start_code) >> PAGE_SHIFT).min(self.exec_vm)
    }

    /// `mm_pgtables_bytes()`, estimated: one 4 KiB page-table page per
    /// 2 MiB mapped.
    pub fn pgtables_bytes(&self) -> u64 {
        self.total_vm.div_ceil(512) << PAGE_SHIFT
    }
}

impl ProcFs<'_> {
    /// The address space of task `t`: `None` for a task without one (a
    /// zombie), `Some(None)` for an address space with no mapping yet.
    pub(crate) fn task_mm(&self, t: TaskIx) -> Option<Option<&MmStruct>> {
        self.k.mm_struct(self.k.tasks[t].mm)
    }

    /// The counters of task `t`'s address space, `None` if it has none.
    pub(crate) fn task_counters(&self, t: TaskIx) -> Option<MmCounters> {
        self.task_mm(t)
            .map(|mm| mm.map(MmCounters::of).unwrap_or_default())
    }

    /// `/proc/PID/statm`: `size resident shared text lib data dt`, in pages.
    ///
    /// # Linux
    /// `proc_pid_statm()`: `"0 0 0 0 0 0 0\n"` without an address space.
    pub(crate) fn render_statm(&self, t: TaskIx) -> Vec<u8> {
        let mut m = SeqBuf::new();
        match self.task_counters(t) {
            None => m.puts("0 0 0 0 0 0 0\n"),
            Some(c) => {
                // size resident shared text lib(0) data dt(0).
                m.put_decimal_ull("", c.total_vm);
                m.put_decimal_ull(" ", 0);
                m.put_decimal_ull(" ", 0);
                m.put_decimal_ull(" ", c.text_pages());
                m.put_decimal_ull(" ", 0);
                m.put_decimal_ull(" ", c.data_vm + c.stack_vm);
                m.put_decimal_ull(" ", 0);
                m.putc(b'\n');
            }
        }
        m.into_bytes()
    }

    /// `/proc/PID/maps`: the address space's VMAs, empty without one.
    ///
    /// # Errors
    /// `EIO` if rendering fails (it does not for a well-formed tree).
    ///
    /// # Linux
    /// `show_map()` (fs/proc/task_mmu.c) via
    /// [`MmStruct::render_maps`].
    pub(crate) fn render_maps(&self, t: TaskIx) -> Result<Vec<u8>> {
        let mut m = SeqBuf::new();
        if let Some(Some(mm)) = self.task_mm(t) {
            mm.render_maps(&mut m).map_err(|_| Errno::EIO)?;
        }
        Ok(m.into_bytes())
    }

    /// The `Vm*` lines of `/proc/PID/status` for counters `c`.
    ///
    /// # Linux
    /// `task_mem()` (fs/proc/task_mmu.c) and `hugetlb_report_usage()`:
    /// `SEQ_PUT_DEC` prints pages as kB, right-aligned in 8 columns.
    pub(crate) fn render_task_mem(&self, m: &mut SeqBuf, c: &MmCounters) {
        let kb = |pages: u64| pages << (PAGE_SHIFT - 10);
        let text_kb = c.text_pages() << (PAGE_SHIFT - 10);
        let lib_kb = kb(c.exec_vm).saturating_sub(text_kb);
        m.put_decimal_ull_width("VmPeak:\t", kb(c.total_vm), 8);
        m.put_decimal_ull_width(" kB\nVmSize:\t", kb(c.total_vm), 8);
        m.put_decimal_ull_width(" kB\nVmLck:\t", kb(c.locked_vm), 8);
        m.put_decimal_ull_width(" kB\nVmPin:\t", 0, 8);
        m.put_decimal_ull_width(" kB\nVmHWM:\t", 0, 8);
        m.put_decimal_ull_width(" kB\nVmRSS:\t", 0, 8);
        m.put_decimal_ull_width(" kB\nRssAnon:\t", 0, 8);
        m.put_decimal_ull_width(" kB\nRssFile:\t", 0, 8);
        m.put_decimal_ull_width(" kB\nRssShmem:\t", 0, 8);
        m.put_decimal_ull_width(" kB\nVmData:\t", kb(c.data_vm), 8);
        m.put_decimal_ull_width(" kB\nVmStk:\t", kb(c.stack_vm), 8);
        m.put_decimal_ull_width(" kB\nVmExe:\t", text_kb, 8);
        m.put_decimal_ull_width(" kB\nVmLib:\t", lib_kb, 8);
        m.put_decimal_ull_width(" kB\nVmPTE:\t", c.pgtables_bytes() >> 10, 8);
        m.put_decimal_ull_width(" kB\nVmSwap:\t", 0, 8);
        m.puts(" kB\n");
        m.put_decimal_ull_width("HugetlbPages:\t", 0, 8);
        m.puts(" kB\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::{parse_maps, MmLayout};

    const MAPS: &str = "\
55d0c2a00000-55d0c2a02000 r--p 00000000 08:01 1234                       /usr/bin/cat
55d0c2a02000-55d0c2a07000 r-xp 00002000 08:01 1234                       /usr/bin/cat
55d0c2a07000-55d0c2a09000 r--p 00007000 08:01 1234                       /usr/bin/cat
55d0c2a0a000-55d0c2a0b000 rw-p 00009000 08:01 1234                       /usr/bin/cat
55d0c3000000-55d0c3021000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000026000 r--p 00000000 08:01 99                         /usr/lib/libc.so.6
7f0000026000-7f000017b000 r-xp 00026000 08:01 99                         /usr/lib/libc.so.6
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
";

    #[test]
    fn counters_classify_like_vm_stat_account() {
        let vmas = parse_maps(MAPS).unwrap();
        let mm = MmStruct::from_vmas(vmas, MmLayout::default()).unwrap();
        let c = MmCounters::of(&mm);
        // 2 + 5 + 2 + 1 + 0x21 + 0x26 + 0x155 + 0x21 pages.
        assert_eq!(c.total_vm, 2 + 5 + 2 + 1 + 33 + 38 + 341 + 33);
        assert_eq!(c.exec_vm, 5 + 341);
        assert_eq!(c.stack_vm, 33);
        assert_eq!(c.data_vm, 1 + 33);
        assert_eq!((c.start_code, c.end_code), (0x55d0c2a02000, 0x55d0c2a07000));
        assert_eq!(c.text_pages(), 5);
        assert_eq!(c.vsize(), c.total_vm * 4096);
    }
}
