//! Pid namespaces and cyclic pid allocation.
//!
//! A namespace owns an [`Idr`] from numbers to `struct pid`s, its `pid_max`
//! and the allocation cursor. A task gets a number in its own namespace and
//! in every ancestor, so `alloc_pid` allocates one number per level.
//!
//! Allocation is cyclic, exactly as Linux's `alloc_pid()` with
//! `idr_alloc_cyclic()`: search upward from the cursor (the last number
//! handed out plus one) to `pid_max - 1`, then wrap and search from the
//! minimum, which is 1 until the cursor has passed [`RESERVED_PIDS`] and
//! 300 afterwards. Each search is one `Idr::find_free`, O(log64 pid_max)
//! whatever the fill.
//!
//! # Linux
//! kernel/pid.c `alloc_pid`, kernel/pid_namespace.c `create_pid_namespace`,
//! lib/idr.c `idr_alloc_cyclic`.

use super::idr::Idr;
use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
#[cfg(test)]
use crate::uapi::PID_MAX_DEFAULT;
use crate::uapi::RESERVED_PIDS;

/// A handle on a pid namespace.
///
/// A plain index: it names the namespace while something holds it (a task
/// in it, a child namespace, an nsproxy, an `NsRef`); a
/// namespace nothing holds is freed and its slot reused. Hold an
/// `NsRef` to keep one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NsId(pub(crate) NsIx);

impl core::fmt::Debug for NsId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "NsId({})", self.0)
    }
}

crate::slab::slab_index!(
    /// Index of a pid namespace in the kernel's namespace slab.
    NsIx
);

/// A pid namespace (`struct pid_namespace`).
#[derive(Clone, Debug)]
pub(crate) struct PidNamespace {
    /// Number -> `struct pid` slab index.
    pub(crate) idr: Idr,
    /// Depth: 0 for the root namespace.
    pub(crate) level: usize,
    /// The parent namespace's slab index, or `None` for the root.
    pub(crate) parent: Option<NsIx>,
    /// Numbers are allocated below this (`pid_max`, per namespace since
    /// Linux 6.14).
    pub(crate) pid_max: u32,
    /// Where the next cyclic search starts (`idr_next`).
    pub(crate) cursor: u32,
    /// The task that reaps orphans (`child_reaper`), or `None` before init
    /// exists.
    pub(crate) child_reaper: Option<TaskIx>,
    /// Whether forks into the namespace are allowed (`PIDNS_ADDING`); cleared
    /// when init exits.
    pub(crate) adding: bool,
    /// The last thread of the namespace's init, whose exit waits in
    /// `zap_pid_ns_processes()` until the namespace is empty (tasks traced
    /// from outside outlive the SIGKILL until their tracer reaps them), and
    /// whether its group is dead. `put_pid` resumes it.
    pub(crate) zap_waiter: Option<(TaskIx, bool)>,
    /// References (`ns.count`): `struct pid`s whose deepest level this is,
    /// child namespaces, nsproxies (`pid_ns_for_children`), open namespace
    /// files (`NsRef`), and one for the root namespace.
    pub(crate) refs: u32,
    /// The part of `refs` held by open namespace files (checked by the
    /// invariants).
    pub(crate) file_refs: u32,
    /// The owning user namespace (`user_ns`, holding a reference; the
    /// initial one for the root namespace): capabilities over the
    /// namespace are held there.
    pub(crate) user_ns: crate::ix::UserNsIx,
}

impl PidNamespace {
    pub(crate) fn new(level: usize, parent: Option<NsIx>, pid_max: u32) -> PidNamespace {
        PidNamespace {
            idr: Idr::new(),
            level,
            parent,
            pid_max,
            cursor: 0,
            child_reaper: None,
            adding: true,
            zap_waiter: None,
            refs: 0,
            file_refs: 0,
            user_ns: crate::ix::UserNsId::default().0,
        }
    }

    /// The number the next allocation would get, without changing anything.
    ///
    /// With `set_tid`, that exact number (clone3's `set_tid`).
    ///
    /// # Errors
    /// - `EAGAIN`: every number below `pid_max` is in use.
    /// - `EINVAL`: `set_tid` out of `[1, pid_max)`, or not 1 in a namespace
    ///   without init.
    /// - `EEXIST`: `set_tid` is in use.
    ///
    /// # Linux
    /// The number `alloc_pid()` computes for one level.
    pub(crate) fn peek_nr(&self, set_tid: Option<i32>) -> Result<u32> {
        if let Some(tid) = set_tid {
            if tid < 1 || tid as u32 >= self.pid_max {
                return Err(Errno::EINVAL);
            }
            // Also fail if a PID != 1 is requested and no PID 1 exists.
            if tid != 1 && self.child_reaper.is_none() {
                return Err(Errno::EINVAL);
            }
            // Linux maps the idr's ENOSPC for a taken set_tid to EEXIST.
            return match self.idr.get(tid as u32) {
                Some(_) => Err(Errno::EEXIST),
                None => Ok(tid as u32),
            };
        }
        // Linux reports EAGAIN, not ENOSPC, once the pid space is exhausted.
        next_cyclic(&self.idr, self.cursor, self.pid_max).ok_or(Errno::EAGAIN)
    }

    /// Cyclic allocation of a number for `value` with the tags of `tags`
    /// (as [`Idr::insert_tagged`]), the cursor advanced past it: the
    /// number [`PidNamespace::peek_nr`]`(None)` names, found and stored in
    /// one walk down the tree when the number at the cursor is free (the
    /// usual case), else searched for by [`next_cyclic`] and stored.
    /// `None`, with nothing changed, when every number is taken.
    ///
    /// # Linux
    /// `idr_alloc_cyclic()` (lib/idr.c) as `alloc_pid()` calls it.
    pub(crate) fn alloc_cyclic(&mut self, value: u32, tags: u64) -> Option<u32> {
        let min = if self.cursor > RESERVED_PIDS {
            RESERVED_PIDS
        } else {
            1
        };
        let start = self.cursor.max(min);
        let nr = if start < self.pid_max.min(crate::pid::idr::IDR_MAX)
            && self.idr.try_insert_tagged(start, value, tags) == Ok(true)
        {
            start
        } else {
            let nr = next_cyclic(&self.idr, self.cursor, self.pid_max)?;
            self.idr
                .insert_tagged(nr, value, tags)
                .expect("number found free by next_cyclic");
            nr
        };
        self.cursor = nr + 1;
        Some(nr)
    }
}

/// The number cyclic pid allocation picks next in `idr`: the lowest free
/// number at or after `cursor` below `pid_max`, else (after a wrap) the
/// lowest free one from 1, or from [`RESERVED_PIDS`] once `cursor` has
/// passed it. `None` when every number is taken. At most two
/// [`Idr::find_free`] searches, O(log64 pid_max) each, at any fill.
///
/// # Linux
/// The `pid_min` choice in `alloc_pid()` (kernel/pid.c) and
/// `idr_alloc_cyclic()` (lib/idr.c); the caller advances the cursor to the
/// returned number plus one.
pub fn next_cyclic(idr: &Idr, cursor: u32, pid_max: u32) -> Option<u32> {
    // Once the cursor has passed RESERVED_PIDS, a wrap restarts there.
    let min = if cursor > RESERVED_PIDS {
        RESERVED_PIDS
    } else {
        1
    };
    let start = cursor.max(min);
    // The usual case: the number after the last one handed out is free.
    // One lookup answers it without the free-bitmap search.
    if start < pid_max.min(crate::pid::idr::IDR_MAX) && !idr.contains(start) {
        return Some(start);
    }
    idr.find_free(start, pid_max)
        .or_else(|| (start > min).then(|| idr.find_free(min, pid_max)).flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(ns: &mut PidNamespace, n: usize) -> Vec<u32> {
        (0..n)
            .map(|i| {
                let nr = ns.peek_nr(None).unwrap();
                ns.idr.insert(nr, i as u32).unwrap();
                ns.cursor = nr + 1;
                nr
            })
            .collect()
    }

    #[test]
    fn first_pid_is_one_and_allocation_is_cyclic() {
        let mut ns = PidNamespace::new(0, None, 400);
        let got = fill(&mut ns, 3);
        assert_eq!(got, vec![1, 2, 3]);
        ns.idr.remove(2);
        // Cyclic: 2 is free but the cursor is past it.
        assert_eq!(ns.peek_nr(None), Ok(4));
    }

    #[test]
    fn wrap_restarts_at_reserved_pids() {
        let mut ns = PidNamespace::new(0, None, 400);
        let got = fill(&mut ns, 399);
        assert_eq!(got.last(), Some(&399));
        assert_eq!(ns.peek_nr(None), Err(Errno::EAGAIN));
        ns.idr.remove(5);
        // Number 5 is below RESERVED_PIDS: never reused after a wrap.
        assert_eq!(ns.peek_nr(None), Err(Errno::EAGAIN));
        ns.idr.remove(301);
        ns.idr.remove(300);
        assert_eq!(ns.peek_nr(None), Ok(300));
    }

    #[test]
    fn wrap_before_reserved_restarts_at_one() {
        let mut ns = PidNamespace::new(0, None, 400);
        fill(&mut ns, 3);
        ns.idr.remove(1);
        ns.cursor = 200;
        for nr in 200..400 {
            ns.idr.insert(nr, 0).unwrap();
        }
        assert_eq!(ns.peek_nr(None), Ok(1));
    }

    #[test]
    fn set_tid_rules() {
        let mut ns = PidNamespace::new(1, Some(crate::slab::SlabIx::from_slot(1)), 400);
        assert_eq!(ns.peek_nr(Some(5)), Err(Errno::EINVAL));
        assert_eq!(ns.peek_nr(Some(1)), Ok(1));
        ns.idr.insert(1, 0).unwrap();
        ns.child_reaper = Some(crate::slab::SlabIx::from_slot(1));
        assert_eq!(ns.peek_nr(Some(1)), Err(Errno::EEXIST));
        assert_eq!(ns.peek_nr(Some(0)), Err(Errno::EINVAL));
        assert_eq!(ns.peek_nr(Some(400)), Err(Errno::EINVAL));
        assert_eq!(ns.peek_nr(Some(399)), Ok(399));
    }

    #[test]
    fn alloc_cyclic_gives_what_peek_nr_names_and_stores_it_tagged() {
        // Two namespaces filled and emptied alike, one by peek_nr + insert,
        // one by alloc_cyclic: the same numbers, through wraps and a full
        // space, the cursor kept in step.
        let (mut a, mut b) = (
            PidNamespace::new(0, None, 700),
            PidNamespace::new(0, None, 700),
        );
        let mut x = 7u64;
        for step in 0..5000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 33).is_multiple_of(3) && !a.idr.is_empty() {
                // Free a pseudo-random used number in both.
                let from = ((x >> 40) % 700) as u32;
                let (nr, _) = a
                    .idr
                    .next_used(from)
                    .or_else(|| a.idr.next_used(0))
                    .unwrap();
                assert!(a.idr.remove(nr).is_some() && b.idr.remove(nr).is_some());
                continue;
            }
            let want = a.peek_nr(None);
            let got = b.alloc_cyclic(step + 1, 1 << 0);
            assert_eq!(want.ok(), got, "step {step}");
            if let Some(nr) = got {
                a.idr.insert_tagged(nr, step + 1, 1 << 0).unwrap();
                a.cursor = nr + 1;
                assert_eq!(b.idr.get(nr), Some(step + 1));
                assert!(b.idr.get_tag(nr, 0));
            }
            assert_eq!((a.cursor, a.idr.len()), (b.cursor, b.idr.len()));
        }
        b.idr.check_invariants();
    }

    #[test]
    fn default_pid_max() {
        let ns = PidNamespace::new(0, None, PID_MAX_DEFAULT);
        assert_eq!(ns.pid_max, 32768);
    }
}
