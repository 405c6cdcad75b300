//! Replaying memory syscalls: mmap, munmap, mprotect, mremap and brk act on
//! the calling process's emulated address space at the addresses the
//! recording shows, and their results are checked.
//!
//! What exec mapped (the program, the interpreter, the stack, the vDSO) is
//! not in the trace, and the kernel randomises placement. So:
//! - a successful mmap is replayed at the address it returned, with
//!   `MAP_FIXED_NOREPLACE` when it was not fixed: the emulated map must have
//!   room exactly there, which checks every earlier unmap, move and resize;
//! - an mremap that moved is replayed with `MREMAP_FIXED` to where it went;
//! - an mprotect (or mremap) that succeeded on memory the trace never
//!   mapped reveals an exec-time mapping: it is learned (mapped in) and the
//!   call is counted as not checkable;
//! - the first brk of an image reveals its randomised break, which is
//!   learned ([`learned`](super::learned)); later brk calls are checked
//!   against it.

use taskcore::mm::flags::{
    MAP_ANONYMOUS, MAP_FIXED, MAP_FIXED_NOREPLACE, MAP_PRIVATE, MREMAP_DONTUNMAP, MREMAP_FIXED,
    MREMAP_MAYMOVE, PROT_READ,
};
use taskcore::mm::{FileId, MmLayout, MmStruct, MmapFile};
use taskcore::sys::{SysRet, Syscall};
use taskcore::{Errno, TaskId};

use super::known::{Attr, Read};
use super::Engine;
use crate::event::{Event, Outcome, Rec};

const PAGE: u64 = 4096;

impl Engine {
    /// A memory call applied through [`taskcore::sys::dispatch`]: the
    /// address it returned (0 for munmap and mprotect).
    fn mem_sys(&mut self, cur: TaskId, call: Syscall) -> taskcore::Result<u64> {
        self.sys(cur, &call).map(|r| match r {
            SysRet::Addr(a) => a,
            _ => 0,
        })
    }

    /// Applies and checks memory syscall `ev` by `cur` (`call` as
    /// recorded, `rec` its recorded fd for mmap).
    pub(super) fn apply_memory(&mut self, ev: &Event, cur: TaskId, call: &Syscall, rec: &Rec) {
        let Ok(tgid) = self.k.getpid(cur) else { return };
        let i = ev;
        match (call.clone(), ev.ret.clone()) {
            (
                Syscall::Mmap {
                    addr,
                    len,
                    prot,
                    flags,
                    pgoff,
                    ..
                },
                ret,
            ) => {
                let fd = match rec {
                    Rec::Mmap { fd } => *fd,
                    _ => -1,
                };
                // The replay's file table: each (process, fd) one file.
                let file = (flags & MAP_ANONYMOUS == 0 && fd >= 0).then(|| MmapFile {
                    id: FileId {
                        major: 0,
                        minor: 0,
                        inode: ((tgid as u64) << 20) | fd as u64,
                    },
                    path: format!("fd:{fd}").into(),
                    readable: true,
                    writable: true,
                });
                match ret {
                    Outcome::Value(at) => {
                        let at = at as u64;
                        let f = if flags & MAP_FIXED != 0 {
                            flags
                        } else {
                            flags | MAP_FIXED_NOREPLACE
                        };
                        let r = self.mem_sys(
                            cur,
                            Syscall::Mmap {
                                addr: at,
                                len,
                                prot,
                                flags: f,
                                file,
                                pgoff,
                            },
                        );
                        self.touch(tgid, at, len);
                        self.check_addr(i, r, at);
                    }
                    Outcome::Errno(err @ (Errno::EEXIST | Errno::EINVAL)) => {
                        let r = self.mem_sys(
                            cur,
                            Syscall::Mmap {
                                addr,
                                len,
                                prot,
                                flags,
                                file,
                                pgoff,
                            },
                        );
                        self.check_err(i, r.map(|_| ()), err);
                    }
                    _ => self.unchecked(i),
                }
            }
            (Syscall::Munmap { addr, len }, Outcome::Value(0)) => {
                let r = self.mem_sys(cur, Syscall::Munmap { addr, len });
                self.touch(tgid, addr, len);
                self.check_ok(i, r.map(drop));
            }
            (Syscall::Munmap { addr, len }, Outcome::Errno(err)) => {
                let r = self.mem_sys(cur, Syscall::Munmap { addr, len });
                self.check_err(i, r.map(drop), err);
            }
            (Syscall::Mprotect { addr, len, prot }, Outcome::Value(0)) => {
                match self.mem_sys(cur, Syscall::Mprotect { addr, len, prot }) {
                    Ok(_) => self.check_ok(i, Ok(())),
                    Err(Errno::ENOMEM) if !self.is_touched(tgid, addr, len) => {
                        // Memory mapped before the trace (exec, the
                        // loader): learn it.
                        self.learn_range(cur, addr, len);
                        let _ = self.mem_sys(cur, Syscall::Mprotect { addr, len, prot });
                        self.unchecked_because(i, "memory mapped before the trace, learned");
                    }
                    Err(err) => self.check_ok(i, Err(err)),
                }
            }
            (Syscall::Mprotect { addr, len, prot }, Outcome::Errno(err)) => {
                let r = self.mem_sys(cur, Syscall::Mprotect { addr, len, prot });
                self.check_err(i, r.map(drop), err);
            }
            (
                Syscall::Mremap {
                    old,
                    old_len,
                    new_len,
                    flags,
                    new,
                },
                Outcome::Value(to),
            ) => {
                let to = to as u64;
                let (f, n) = if to != old && flags & MREMAP_MAYMOVE != 0 {
                    (flags | MREMAP_FIXED, to)
                } else {
                    (flags, new)
                };
                // Without MREMAP_FIXED glibc passes garbage as the new
                // address, which the kernel checks under MREMAP_DONTUNMAP:
                // strace does not print it, so the result is not checkable
                // (the recorded move is still applied).
                let unrecorded_arg = flags & MREMAP_DONTUNMAP != 0 && flags & MREMAP_FIXED == 0;
                let moved = Syscall::Mremap {
                    old,
                    old_len,
                    new_len,
                    flags: f,
                    new: n,
                };
                let r = self.mem_sys(cur, moved.clone());
                self.touch(tgid, old, old_len.max(PAGE));
                self.touch(tgid, to, new_len);
                if matches!(r, Err(Errno::EFAULT)) && !self.is_touched(tgid, old, old_len.max(PAGE))
                {
                    // Memory mapped before the trace: learn it, then move.
                    self.learn_range(cur, old, old_len.max(PAGE));
                    let _ = self.mem_sys(cur, moved);
                    self.unchecked_because(i, "memory mapped before the trace, learned");
                    return;
                }
                if unrecorded_arg {
                    self.unchecked_because(i, "new address not recorded");
                    return;
                }
                self.check_addr(i, r, to);
            }
            (call @ Syscall::Mremap { flags, .. }, Outcome::Errno(err)) => {
                if flags & MREMAP_DONTUNMAP != 0 && flags & MREMAP_FIXED == 0 {
                    // The failure may come from the unrecorded new address.
                    self.unchecked_because(i, "new address not recorded");
                    return;
                }
                let r = self.mem_sys(cur, call);
                self.check_err(i, r.map(|_| ()), err);
            }
            (Syscall::Brk { addr }, Outcome::Value(got)) => {
                let got = got as u64;
                // The image's randomised break, seen for the first time.
                let read = self.first_read(cur, Attr::Brk, true, |en| {
                    en.learn_brk(cur, got);
                    true
                });
                if read == Read::Learned && (addr == 0 || addr == got) {
                    return self.unchecked_because(i, &Attr::Brk.why());
                }
                let r = self.mem_sys(cur, Syscall::Brk { addr });
                self.check_addr(i, r, got);
            }
            _ => self.unchecked(i),
        }
    }

    fn check_addr(&mut self, i: &Event, r: taskcore::Result<u64>, want: u64) {
        self.stats.checked += 1;
        match r {
            Ok(a) if a == want => {}
            Ok(a) => self.mismatch(i, "address", format!("= {want:#x}"), format!("= {a:#x}")),
            Err(e) => self.mismatch(
                i,
                "result",
                format!("= {want:#x}"),
                format!("= -1 {}", e.name()),
            ),
        }
    }

    fn check_ok(&mut self, i: &Event, r: taskcore::Result<()>) {
        self.stats.checked += 1;
        if let Err(e) = r {
            self.mismatch(i, "result", "= 0".into(), format!("= -1 {}", e.name()));
        }
    }

    fn check_err(&mut self, i: &Event, r: taskcore::Result<()>, want: Errno) {
        self.stats.checked += 1;
        match r {
            Err(e) if e == want => {}
            other => self.mismatch(
                i,
                "result",
                format!("= -1 {}", want.name()),
                super::notation::fmt_unit(&other),
            ),
        }
    }

    /// Records that the trace itself mapped, moved or unmapped `[addr,
    /// addr + len)` in process `tgid`: memory the replay must never learn.
    pub(super) fn touch(&mut self, tgid: i32, addr: u64, len: u64) {
        let end = addr.saturating_add(len.div_ceil(PAGE) * PAGE);
        let v = self.mem.mm_touched.entry(tgid).or_default();
        let (mut s, mut e) = (addr, end);
        v.retain(|&(a, b)| {
            if b < s || a > e {
                true
            } else {
                s = s.min(a);
                e = e.max(b);
                false
            }
        });
        let at = v.partition_point(|&(a, _)| a < s);
        v.insert(at, (s, e));
    }

    /// Whether the trace touched all of `[addr, addr + len)` in `tgid`
    /// (its ranges are merged: one of them covers it): the emulation knows
    /// exactly what is mapped there.
    pub(super) fn is_known(&self, tgid: i32, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len.max(1));
        self.mem
            .mm_touched
            .get(&tgid)
            .is_some_and(|v| v.iter().any(|&(a, b)| a <= addr && end <= b))
    }

    /// Whether the trace touched any part of `[addr, addr + len)` in `tgid`.
    fn is_touched(&self, tgid: i32, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len.div_ceil(PAGE) * PAGE);
        self.mem
            .mm_touched
            .get(&tgid)
            .is_some_and(|v| v.iter().any(|&(a, b)| a < end && b > addr))
    }

    /// Maps the unmapped parts of `[addr, addr + len)` (an exec-time
    /// mapping the trace reveals).
    fn learn_range(&mut self, cur: TaskId, addr: u64, len: u64) {
        let end = addr.saturating_add(len.div_ceil(PAGE) * PAGE);
        let mut holes = Vec::new();
        let mut at = addr;
        if let Ok(Some(mm)) = self.k.mm(cur) {
            for v in mm.iter() {
                if v.end <= at {
                    continue;
                }
                if v.start >= end {
                    break;
                }
                if v.start > at {
                    holes.push((at, v.start));
                }
                at = at.max(v.end);
            }
        }
        if at < end {
            holes.push((at, end));
        }
        for (s, e) in holes {
            let _ = self.k.mmap(
                cur,
                s,
                e - s,
                PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                None,
                0,
            );
        }
    }

    /// Sets the program break of `cur`'s image to `brk`, keeping its
    /// mappings.
    fn learn_brk(&mut self, cur: TaskId, brk: u64) {
        let vmas: Vec<_> = match self.k.mm(cur) {
            Ok(Some(mm)) => mm.iter().cloned().collect(),
            _ => Vec::new(),
        };
        let layout = MmLayout {
            start_brk: brk,
            brk,
            ..MmLayout::default()
        };
        if let Ok(mm) = MmStruct::from_vmas(vmas, layout) {
            let _ = self.k.set_mm(cur, mm);
        }
    }
}
