//! fork(2): duplicating an address space.
//!
//! Two ways, giving the same child VMAs:
//! - [`MmStruct::dup_bulk`]: copy every tree node depth-first, O(n), no
//!   search and no rebalancing (Linux >= 6.8, `__mt_dup()`).
//! - [`MmStruct::dup_cow`]: share every node, O(1); the first write to
//!   either side copies one root-to-leaf path, O(log n). No Linux analogue
//!   (Linux always copies the tree; page tables, not VMAs, are COW).
//!
//! The pre-6.8 algorithm, inserting every VMA into an empty tree one by one
//! (O(n log n), `dup_mmap()` with `vma_iter_bulk_store()`), is the baseline
//! of `taskcore bench fork` and lives with it
//! (`crates/taskcore-bench/src/fork.rs`), built on the public
//! [`RangeTree`](super::RangeTree) API.
//!
//! Per-VMA fork rules (`dup_mmap()` in `kernel/fork.c`): `VM_DONTCOPY`
//! VMAs are left out of the child; `VM_LOCKED`/`VM_LOCKONFAULT` are
//! cleared in the child; `VM_WIPEONFORK` VMAs get no anon_vma in the child.
//! The child keeps the parent's anon_vma identities (Linux gives each
//! child VMA a new anon_vma chained to the parent's; merges treat chains
//! as singular, see [`vma`](super::vma)).

use super::flags::*;
use super::mm_struct::MmStruct;
use super::vma::Vma;
use crate::errno::Result;

/// The child's copy of a parent VMA (fields `dup_mmap()` changes).
fn child_vma(v: &Vma) -> Vma {
    let mut c = v.clone();
    c.flags &= !VM_LOCKED_MASK;
    if c.flags & VM_WIPEONFORK != 0 {
        c.anon_vma = None;
    }
    c
}

impl MmStruct {
    /// Duplicates the address space for fork by bulk-copying the tree.
    ///
    /// # Errors
    /// `ENOMEM` if node allocation fails (only under
    /// [`MmStruct::dup_bulk_with_budget`]); the source is never modified
    /// and a partial copy is freed.
    ///
    /// # Linux
    /// Mirrors `dup_mmap()` with `__mt_dup()` (`kernel/fork.c`,
    /// `lib/maple_tree.c`, Linux 6.8): depth-first pre-order copy of every
    /// node, each entry replaced by the child's VMA copy, then
    /// `VM_DONTCOPY` VMAs cleared from the child's tree.
    pub fn dup_bulk(&self) -> Result<MmStruct> {
        self.dup_bulk_with_budget(None)
    }

    /// [`MmStruct::dup_bulk`] with at most `budget` node allocations
    /// (`None`: unlimited): failure injection for tests, as the maple tree
    /// test suite's `mt_set_non_kernel()`.
    ///
    /// # Errors
    /// `ENOMEM` when the budget runs out before the copy is complete.
    #[doc(hidden)]
    pub fn dup_bulk_with_budget(&self, budget: Option<usize>) -> Result<MmStruct> {
        let tree = self.tree.dup_bulk(budget, &mut child_vma)?;
        let mut child = MmStruct {
            tree,
            ..self.shallow_fields()
        };
        child.drop_dontcopy();
        Ok(child)
    }

    /// Duplicates the address space in O(1) by sharing the tree's nodes
    /// copy-on-write. VMAs with fork rules to apply (`VM_DONTCOPY`,
    /// `VM_LOCKED`, `VM_WIPEONFORK`) are found through the tree's tag
    /// summaries and fixed in O(k log n) for k such VMAs.
    ///
    /// # Examples
    /// ```
    /// use taskcore::mm::{flags::*, MmStruct};
    /// let mut parent = MmStruct::default();
    /// let a = parent.mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, None, 0)?;
    /// let mut child = parent.dup_cow();
    /// child.munmap(a, 4096)?;
    /// assert!(child.vma_lookup(a).is_none());
    /// assert!(parent.vma_lookup(a).is_some());
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    ///
    /// # Linux
    /// No analogue: Linux copies the tree at fork (see
    /// [`MmStruct::dup_bulk`]).
    pub fn dup_cow(&self) -> MmStruct {
        let mut child = self.clone();
        let special = VM_DONTCOPY | VM_LOCKED_MASK | VM_WIPEONFORK;
        if child.tree.any_tagged(special) {
            for start in child.tree.tagged(special) {
                if let Some(v) = child.tree.lookup(start) {
                    let c = child_vma(v);
                    if c != *v {
                        let r = child.tree.replace(start, c);
                        debug_assert!(r.is_ok());
                    }
                }
            }
            child.drop_dontcopy();
        }
        child
    }

    /// Everything but the tree (left empty).
    fn shallow_fields(&self) -> MmStruct {
        MmStruct {
            tree: Default::default(),
            layout: self.layout,
            max_map_count: self.max_map_count,
            gate: self.gate.clone(),
            next_anon_vma: self.next_anon_vma,
            next_shmem_ino: self.next_shmem_ino,
        }
    }

    fn drop_dontcopy(&mut self) {
        if self.tree.any_tagged(VM_DONTCOPY) {
            for start in self.tree.tagged(VM_DONTCOPY) {
                self.tree.remove(start);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errno::Errno;
    use crate::mm::{MmLayout, VmaName};
    use std::sync::Arc;

    fn big_mm(n: u64, name: &Arc<str>, special: bool) -> MmStruct {
        let vmas: Vec<Vma> = (0..n)
            .map(|i| {
                let mut v = Vma::anon(0x10_0000 + i * 0x2000, 0x10_1000 + i * 0x2000, PROT_READ);
                v.name = VmaName::Anon(name.clone());
                if special && i % 50 == 0 {
                    v.flags |= VM_LOCKED;
                }
                if special && i % 77 == 0 {
                    v.flags |= VM_DONTCOPY;
                }
                v
            })
            .collect();
        MmStruct::from_vmas(vmas, MmLayout::default()).unwrap()
    }

    fn snapshot(mm: &MmStruct) -> Vec<Vma> {
        mm.iter().cloned().collect()
    }

    #[test]
    fn both_dups_follow_the_fork_rules() {
        let name: Arc<str> = "x".into();
        let mut mm = big_mm(2000, &name, true);
        // Some VM_WIPEONFORK VMAs with an anon_vma, too.
        for start in mm.iter().step_by(13).map(|v| v.start).collect::<Vec<_>>() {
            let mut v = mm.vma_lookup(start).unwrap().clone();
            v.flags |= VM_WIPEONFORK;
            v.anon_vma = Some(mm.new_anon_vma());
            mm.tree.replace(start, v).unwrap();
        }
        mm.check_invariants();
        let a = mm.dup_bulk().unwrap();
        let b = mm.dup_cow();
        for d in [&a, &b] {
            d.check_invariants();
        }
        // The reference: a plain scan of the parent with dup_mmap()'s rules.
        let want: Vec<Vma> = mm
            .iter()
            .filter(|v| v.flags & VM_DONTCOPY == 0)
            .map(|v| {
                let mut c = v.clone();
                c.flags &= !(VM_LOCKED | VM_LOCKONFAULT);
                if c.flags & VM_WIPEONFORK != 0 {
                    c.anon_vma = None;
                }
                c
            })
            .collect();
        assert!(want.len() < mm.map_count());
        assert!(want.iter().any(|v| v.flags & VM_WIPEONFORK != 0));
        assert_eq!(snapshot(&a), want);
        assert_eq!(snapshot(&b), want);
        assert_eq!(a.tree.shared_nodes(&mm.tree), 0);
    }

    #[test]
    fn failed_bulk_dup_leaks_nothing() {
        let name: Arc<str> = "x".into();
        let mm = big_mm(3000, &name, true);
        let before = snapshot(&mm);
        let refs = Arc::strong_count(&name);
        let nodes = mm.tree.node_count();
        let mut failures = 0;
        for budget in [0, 1, 2, nodes / 3, nodes / 2, nodes - 1] {
            let r = mm.dup_bulk_with_budget(Some(budget));
            assert_eq!(r.unwrap_err(), Errno::ENOMEM);
            failures += 1;
            // Source intact, every copied entry and node freed.
            assert_eq!(snapshot(&mm), before);
            assert_eq!(Arc::strong_count(&name), refs);
            assert_eq!(mm.tree.max_node_refcount(), 1);
            mm.check_invariants();
        }
        assert_eq!(failures, 6);
        let ok = mm.dup_bulk_with_budget(Some(nodes)).unwrap();
        ok.check_invariants();
    }

    #[test]
    fn cow_child_write_leaves_parent_alone() {
        let name: Arc<str> = "x".into();
        let mm = big_mm(5000, &name, false);
        let before = snapshot(&mm);
        let mut child = mm.dup_cow();
        let shared_before = child.tree.shared_nodes(&mm.tree);
        assert_eq!(shared_before, mm.tree.node_count());
        let addr = child.iter().nth(1234).unwrap().start;
        child.munmap(addr, PAGE_SIZE).unwrap();
        child.check_invariants();
        assert_eq!(snapshot(&mm), before);
        assert!(child.vma_lookup(addr).is_none());
        assert!(mm.vma_lookup(addr).is_some());
        let shared_after = child.tree.shared_nodes(&mm.tree);
        // One root-to-leaf path copied (plus siblings touched by a
        // rebalance, if any).
        assert!(shared_after < shared_before);
        assert!(shared_before - shared_after <= child.tree.height() + 3);
        // Locked VMAs: dup_cow copies only the paths to them.
        let special = big_mm(5000, &name, true);
        let c2 = special.dup_cow();
        c2.check_invariants();
        assert!(c2
            .iter()
            .all(|v| v.flags & (VM_LOCKED_MASK | VM_DONTCOPY) == 0));
    }
}
