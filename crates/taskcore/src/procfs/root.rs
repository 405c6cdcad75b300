//! The `/proc` root listing: `.`, `..`, the fixed entries, `self`,
//! `thread-self`, then one directory per thread group.
//!
//! # Positions
//! ```text
//!  pos 0        .
//!  pos 1        ..
//!  pos 2..      fixed entries, in Linux's order (shorter names first,
//!               then bytewise), one position each
//!  pos 256      self              (FIRST_PROCESS_ENTRY)
//!  pos 257      thread-self
//!  pos N + 258  process N         (TGID_OFFSET = 258)
//!  end          PID_MAX_LIMIT + 258
//! ```
//! A call resumes at its cursor's position. Process positions are the
//! numbers themselves, so a listing interrupted by a full buffer resumes at
//! the first number not yet returned: processes created or reaped meanwhile
//! never make it repeat or skip a process that existed throughout.
//!
//! # Cost
//! The thread-group walk follows the namespace's [`Idr`](crate::pid::Idr)
//! tag [`TAG_TGID`] (set on every number of a live thread group's TGID, at
//! every namespace level) with [`Idr::iter_tagged_from`](crate::pid::Idr::iter_tagged_from):
//! one bit scan per returned entry within a leaf, one walk of at most 8
//! node visits per leaf holding a process, however many threads lie
//! between two processes. A call costs O(entries returned), and a full
//! listing O(processes). The
//! [`RootWalk::EveryPid`] walk visits every used number, threads included,
//! as Linux mainline does; it is kept for comparison (`taskcore bench
//! readdir`) and as the reference in tests.
//!
//! # Linux
//! fs/proc/root.c `proc_root_readdir()`, fs/proc/generic.c
//! `proc_readdir_de()`, fs/proc/base.c `proc_pid_readdir()` and
//! `next_tgid()`; the tagged walk is seed 003's "proc: use idr tgid tag
//! hint to iterate pids in readdir".

use crate::pid::entry::PidIx;
use crate::pid::TAG_TGID;
use crate::procfs::dirent::{DType, DirContext, DirCursor};
use crate::procfs::fs::ProcFs;
use crate::procfs::node::{Fixed, Node, PROC_ROOT_INO};
use crate::uapi::PID_MAX_LIMIT;

/// Position of `self` in the root listing (`FIRST_PROCESS_ENTRY`).
pub const FIRST_PROCESS_ENTRY: u64 = 256;

/// Position of process 0 in the root listing (`TGID_OFFSET`): process `N`
/// sits at `N + TGID_OFFSET`.
pub const TGID_OFFSET: u64 = FIRST_PROCESS_ENTRY + 2;

/// The position a complete root listing ends at
/// (`PID_MAX_LIMIT + TGID_OFFSET`).
pub const ROOT_END_POS: u64 = PID_MAX_LIMIT as u64 + TGID_OFFSET;

/// The fixed entries of the root, in listing order: Linux keeps them in an
/// rbtree ordered by `proc_match()`, shorter names first, then bytewise.
pub(crate) const ROOT_FIXED: [Fixed; 6] = [
    Fixed::Sys,
    Fixed::Stat,
    Fixed::Uptime,
    Fixed::Cpuinfo,
    Fixed::Loadavg,
    Fixed::Meminfo,
];

/// How the root listing finds thread groups.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootWalk {
    /// Follow the `TAG_TGID` tag: O(entries returned).
    #[default]
    Tagged,
    /// Visit every used number and keep the thread-group ids: O(numbers in
    /// use from the cursor on), threads included.
    ///
    /// # Linux
    /// Mainline `next_tgid()`: `find_ge_pid()` then `pid_task(pid,
    /// PIDTYPE_TGID)`, retried number after number.
    EveryPid,
}

/// Two-digit groups "00" to "99", for [`decimal`].
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes the decimal form of `n` into `buf`, returning the digits (two
/// at a time, as `num_to_str()` and `put_dec()` do).
#[inline]
pub(crate) fn decimal(n: u32, buf: &mut [u8; 10]) -> &[u8] {
    let mut i = buf.len();
    let mut n = n;
    while n >= 100 {
        let d = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        buf[i] = DIGIT_PAIRS[d];
        buf[i + 1] = DIGIT_PAIRS[d + 1];
    }
    if n >= 10 {
        let d = n as usize * 2;
        i -= 2;
        buf[i] = DIGIT_PAIRS[d];
        buf[i + 1] = DIGIT_PAIRS[d + 1];
    } else {
        i -= 1;
        buf[i] = b'0' + n as u8;
    }
    &buf[i..]
}

impl ProcFs<'_> {
    /// The next thread-group id `>= start` in the mount's namespace, by
    /// `walk`.
    pub(crate) fn next_tgid(&self, start: u32, walk: RootWalk) -> Option<u32> {
        let idr = &self.k.nss[self.ns].idr;
        match walk {
            RootWalk::Tagged => idr.next_tagged(start, TAG_TGID).map(|(nr, _)| nr),
            RootWalk::EveryPid => {
                let mut nr = start;
                loop {
                    let (found, pid) = idr.next_used(nr)?;
                    if self.k.pids[PidIx::from_idr(pid)].tgid_group.is_some() {
                        return Some(found);
                    }
                    nr = found.checked_add(1)?;
                }
            }
        }
    }

    /// Lists the root from `cursor.pos` into `ctx` and advances the cursor.
    ///
    /// # Linux
    /// `proc_root_readdir()` (fs/proc/root.c).
    pub(crate) fn root_readdir<C: DirContext + ?Sized>(
        &self,
        cursor: &mut DirCursor,
        ctx: &mut C,
        walk: RootWalk,
    ) {
        cursor.tid_hint = 0;
        cursor.pos = self.root_readdir_at(cursor.pos, ctx, walk);
        ctx.finish(cursor.pos);
    }

    fn root_readdir_at<C: DirContext + ?Sized>(
        &self,
        mut pos: u64,
        ctx: &mut C,
        walk: RootWalk,
    ) -> u64 {
        if pos < FIRST_PROCESS_ENTRY {
            // proc_readdir_de(): dots, then the fixed entries.
            if pos == 0 {
                if !ctx.emit(b".", PROC_ROOT_INO, DType::Dir, 0) {
                    return 0;
                }
                pos = 1;
            }
            if pos == 1 {
                if !ctx.emit(b"..", PROC_ROOT_INO, DType::Dir, 1) {
                    return 1;
                }
                pos = 2;
            }
            let first = (pos - 2) as usize;
            for &f in ROOT_FIXED.iter().skip(first) {
                let n = Node::Fixed(f);
                if !ctx.emit(f.name().as_bytes(), n.ino(), n.d_type(), pos) {
                    return pos;
                }
                pos += 1;
            }
            pos = FIRST_PROCESS_ENTRY;
        }
        self.pid_readdir_at(pos, ctx, walk)
    }

    /// `proc_pid_readdir()`: `self`, `thread-self`, then the processes.
    fn pid_readdir_at<C: DirContext + ?Sized>(
        &self,
        mut pos: u64,
        ctx: &mut C,
        walk: RootWalk,
    ) -> u64 {
        if pos >= ROOT_END_POS {
            return pos;
        }
        if pos == TGID_OFFSET - 2 {
            if !ctx.emit(b"self", Node::SelfLink.ino(), DType::Lnk, pos) {
                return pos;
            }
            pos += 1;
        }
        if pos == TGID_OFFSET - 1 {
            if !ctx.emit(b"thread-self", Node::ThreadSelfLink.ino(), DType::Lnk, pos) {
                return pos;
            }
            pos += 1;
        }
        // pos < ROOT_END_POS, so the number fits in u32.
        let tgid = (pos - TGID_OFFSET) as u32;
        let mut name = [0u8; 10];
        let mut emit = |nr: u32| -> Option<u64> {
            let pos = nr as u64 + TGID_OFFSET;
            let node = Node::Pid { nr, entry: None };
            if pos >= ROOT_END_POS || ctx.emit(decimal(nr, &mut name), node.ino(), DType::Dir, pos)
            {
                None
            } else {
                Some(pos)
            }
        };
        match walk {
            RootWalk::Tagged => {
                // The tag is exact (set and cleared with the TGID
                // attachment): no look at the pids is needed, and the walk
                // scans each leaf's tag bitmap once.
                let idr = &self.k.nss[self.ns].idr;
                for (nr, _pid) in idr.iter_tagged_from(tgid, TAG_TGID) {
                    debug_assert!(
                        self.k.pids[PidIx::from_idr(_pid)].tgid_group.is_some(),
                        "tag on a non-TGID"
                    );
                    if let Some(stop) = emit(nr) {
                        return stop;
                    }
                }
            }
            RootWalk::EveryPid => {
                let mut next = tgid;
                while let Some(nr) = self.next_tgid(next, walk) {
                    if let Some(stop) = emit(nr) {
                        return stop;
                    }
                    next = nr + 1;
                }
            }
        }
        ROOT_END_POS
    }

    /// Lists a fixed directory (`/proc/sys`, `/proc/sys/kernel`): dots,
    /// then its entries at positions 2, 3...
    ///
    /// # Linux
    /// `proc_sys_readdir()` (fs/proc/proc_sysctl.c) for the sysctl tree.
    pub(crate) fn fixed_readdir<C: DirContext + ?Sized>(
        &self,
        dir: Fixed,
        cursor: &mut DirCursor,
        ctx: &mut C,
    ) {
        let children: Vec<Fixed> = Fixed::ALL
            .iter()
            .copied()
            .filter(|f| f.parent() == Node::Fixed(dir))
            .collect();
        let me = Node::Fixed(dir);
        let parent = dir.parent();
        cursor.tid_hint = 0;
        cursor.pos = emit_list(
            cursor.pos,
            ctx,
            me.ino(),
            parent.ino(),
            children.iter().map(|&f| {
                (
                    f.name().as_bytes(),
                    Node::Fixed(f).ino(),
                    Node::Fixed(f).d_type(),
                )
            }),
        );
        ctx.finish(cursor.pos);
    }
}

/// Emits `.`, `..` and then `entries` at positions 2, 3... from `pos`;
/// returns the position to resume at (`2 + entries` once complete).
///
/// # Linux
/// `dir_emit_dots()` followed by the loop of `proc_pident_readdir()`.
pub(crate) fn emit_list<'a, C: DirContext + ?Sized>(
    mut pos: u64,
    ctx: &mut C,
    self_ino: u64,
    parent_ino: u64,
    entries: impl Iterator<Item = (&'a [u8], u64, DType)>,
) -> u64 {
    if pos == 0 {
        if !ctx.emit(b".", self_ino, DType::Dir, 0) {
            return 0;
        }
        pos = 1;
    }
    if pos == 1 {
        if !ctx.emit(b"..", parent_ino, DType::Dir, 1) {
            return 1;
        }
        pos = 2;
    }
    let mut i = 2;
    for (name, ino, t) in entries {
        if i >= pos {
            if !ctx.emit(name, ino, t, pos) {
                return pos;
            }
            pos += 1;
        }
        i += 1;
    }
    pos.max(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_entries_in_proc_match_order() {
        let key = |f: &Fixed| (f.name().len(), f.name());
        for w in ROOT_FIXED.windows(2) {
            assert!(key(&w[0]) < key(&w[1]), "{:?} before {:?}", w[0], w[1]);
        }
        assert!((ROOT_FIXED.len() as u64) + 2 <= FIRST_PROCESS_ENTRY);
    }

    #[test]
    fn decimal_digits() {
        let mut b = [0u8; 10];
        assert_eq!(decimal(0, &mut b), b"0");
        assert_eq!(decimal(4_194_303, &mut b), b"4194303");
        assert_eq!(decimal(u32::MAX, &mut b), b"4294967295");
        for n in [
            1,
            9,
            10,
            99,
            100,
            101,
            999,
            1000,
            65_535,
            100_000,
            999_999_999,
        ] {
            assert_eq!(decimal(n, &mut b), n.to_string().as_bytes());
        }
    }

    #[test]
    fn end_position_matches_linux() {
        // A full getdents64 of a real /proc gives the last record
        // d_off = 4194562.
        assert_eq!(ROOT_END_POS, 4_194_562);
    }
}
