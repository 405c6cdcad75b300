//! [`ProbeSet`]: the registered return probes, what the kernels sharing it
//! fire, and the armed mask their operations check.

use core::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crossbeam_utils::CachePadded;

use crate::errno::{Errno, Result};
use crate::probe::kretprobe::Kretprobe;
use crate::probe::op::{Op, OpSet, NR_OPS};

/// A set of registered return probes, shared by any number of
/// [`Kernel`](crate::Kernel)s (`Arc<ProbeSet>`).
///
/// Every kernel has one ([`Kernel::probes`](crate::Kernel::probes)), empty
/// unless given another with
/// [`Kernel::set_probes`](crate::Kernel::set_probes); snapshots share
/// their kernel's. Registering and unregistering are safe at any time,
/// from any thread, while probed calls run on others.
///
/// # Invariants
/// 1. `state`'s mask is the union of the registered probes' ops, and its
///    high half is the low 32 bits of `gen`.
/// 2. `gen` equals `Inner::gen`, and `Inner::registry` lists, for each op,
///    exactly the registered probes on it, in registration order.
///
/// Writers keep both under `inner`'s lock; readers may see them change in
/// either order (see [`register`](Self::register)).
///
/// # Locking
/// `register`/`unregister` take the set's mutex; a kernel takes it only
/// to fetch a new registry after one of them. The call path is otherwise
/// lock-free: one relaxed load when nothing is armed for the op.
///
/// # Linux
/// The kprobe hash table `kprobe_table` (kernel/kprobes.c) and its
/// `kprobe_mutex`, plus the "is anything probed here" test that the
/// breakpoint instruction makes free in Linux; a set per group of kernels
/// instead of one per machine.
pub struct ProbeSet {
    /// The words a probed call reads, on a line of their own.
    hot: CachePadded<Hot>,
    /// Registered probes and the registry built from them.
    inner: Mutex<Inner>,
}

/// The read-mostly words of a [`ProbeSet`].
struct Hot {
    /// `(gen as u32) << 32 | mask`: bit `op` of `mask` is set iff a
    /// registered probe covers `op`. The only atomic a call of an unarmed
    /// op reads (Relaxed). The generation's low half lets such a call
    /// notice, for free, that its kernel's cached registry is stale and
    /// release it.
    state: AtomicU64,
    /// Registry generation, incremented by every register/unregister; a
    /// kernel whose cached registry has an older one fetches the current
    /// one. 64 bits: never wraps.
    gen: AtomicU64,
}

/// The lock-protected part of a [`ProbeSet`].
struct Inner {
    /// Registered probes, in registration order.
    probes: Vec<Arc<Kretprobe>>,
    /// The probes of each op, built from `probes`.
    registry: Arc<Registry>,
    /// The generation of `registry`.
    gen: u64,
}

/// The probes of each op: an immutable snapshot of a set's registrations.
///
/// A kernel keeps the one it last used; a call holds it (and so every
/// probe in it) from entry to return, which is what makes unregistering
/// safe while calls are in flight.
pub(crate) struct Registry {
    /// `by_op[op as usize]`: the probes on `op`, in registration order.
    by_op: [Box<[Arc<Kretprobe>]>; NR_OPS],
}

impl Registry {
    /// A registry listing `probes`.
    fn build(probes: &[Arc<Kretprobe>]) -> Registry {
        Registry {
            by_op: core::array::from_fn(|i| {
                let op = Op::ALL[i];
                probes
                    .iter()
                    .filter(|p| p.ops().contains(op))
                    .cloned()
                    .collect()
            }),
        }
    }

    /// The probes on `op`.
    #[inline]
    pub(crate) fn probes(&self, op: Op) -> &[Arc<Kretprobe>] {
        &self.by_op[op as usize]
    }
}

impl Default for ProbeSet {
    fn default() -> Self {
        ProbeSet::new()
    }
}

impl ProbeSet {
    /// An empty set: no op is armed.
    ///
    /// # Examples
    /// ```
    /// use taskcore::probe::{OpSet, ProbeSet};
    /// assert_eq!(ProbeSet::new().armed(), OpSet::EMPTY);
    /// ```
    ///
    /// # Linux
    /// The empty `kprobe_table` at boot (`init_kprobes()`).
    pub fn new() -> ProbeSet {
        ProbeSet {
            hot: CachePadded::new(Hot {
                state: AtomicU64::new(0),
                gen: AtomicU64::new(0),
            }),
            inner: Mutex::new(Inner {
                probes: Vec::new(),
                registry: Arc::new(Registry::build(&[])),
                gen: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics while the lock is held (handlers never run under
        // it), so a poisoned lock still guards consistent data.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Attaches `probe` to its ops for every kernel using this set.
    ///
    /// Calls that begin after `register` returns (that happen after it:
    /// on this thread, or on one that synchronised with it) fire the probe.
    /// Calls running meanwhile on other threads may or may not.
    ///
    /// # Errors
    /// `EINVAL` if `probe` is already registered in this set. (A probe may
    /// be registered in several sets; they share its instances and
    /// `nmissed`.)
    ///
    /// # Locking
    /// Takes the set's mutex. O(registered probes x ops).
    ///
    /// # Linux
    /// `register_kretprobe()` (kernel/kprobes.c), whose
    /// `warn_kprobe_rereg()` rejects a registered probe with `-EINVAL`.
    pub fn register(&self, probe: &Arc<Kretprobe>) -> Result<()> {
        let mut inner = self.lock();
        if inner.probes.iter().any(|p| Arc::ptr_eq(p, probe)) {
            return Err(Errno::EINVAL);
        }
        inner.probes.push(Arc::clone(probe));
        self.publish(&mut inner);
        Ok(())
    }

    /// Detaches `probe`: calls that begin after `unregister` returns do not
    /// fire it.
    ///
    /// Waits for nothing. Calls in flight that entered the probe finish
    /// normally: their return handler runs and their instance goes back.
    /// The probe is freed once no set, kernel or call holds it; a kernel
    /// drops its reference at its next operation of any kind.
    ///
    /// # Errors
    /// `EINVAL` if `probe` is not registered in this set.
    ///
    /// # Locking
    /// Takes the set's mutex. O(registered probes x ops).
    ///
    /// # Linux
    /// `unregister_kretprobe()` (kernel/kprobes.c), which fails a probe it
    /// does not know with `-EINVAL` (`__unregister_kprobe_top()`). Linux
    /// waits for an RCU grace period and then drops the returns still in
    /// flight (their instances come back without the handler running);
    /// here they complete, so entry and return handlers always pair.
    pub fn unregister(&self, probe: &Arc<Kretprobe>) -> Result<()> {
        let mut inner = self.lock();
        let Some(i) = inner.probes.iter().position(|p| Arc::ptr_eq(p, probe)) else {
            return Err(Errno::EINVAL);
        };
        inner.probes.remove(i);
        self.publish(&mut inner);
        Ok(())
    }

    /// Rebuilds the registry from `inner.probes` and publishes it: a new
    /// generation, then the new armed mask.
    fn publish(&self, inner: &mut Inner) {
        inner.gen += 1;
        inner.registry = Arc::new(Registry::build(&inner.probes));
        let mask = inner.probes.iter().fold(OpSet::EMPTY, |m, p| {
            OpSet::from_bits_truncate(m.bits() | p.ops().bits())
        });
        // Relaxed: the words only steer a call to the lock (or away from
        // it); the registry itself is read under the lock. Note: a racing
        // call may see the new mask with the old generation, or the
        // reverse, and use the old registry once: it overlapped the change,
        // so either outcome is allowed. A call that happens after this
        // function sees both new values (coherence).
        self.hot.gen.store(inner.gen, Ordering::Relaxed);
        self.hot.state.store(
            (inner.gen & 0xffff_ffff) << 32 | u64::from(mask.bits()),
            Ordering::Relaxed,
        );
    }

    /// The armed mask word: `gen_lo << 32 | mask`. The one atomic load an
    /// unarmed call pays.
    #[inline(always)]
    pub(crate) fn state(&self) -> u64 {
        #[cfg(test)]
        counters::STATE_LOADS.with(|c| c.set(c.get() + 1));
        self.hot.state.load(Ordering::Relaxed)
    }

    /// The current registry generation.
    #[inline]
    pub(crate) fn gen(&self) -> u64 {
        self.hot.gen.load(Ordering::Relaxed)
    }

    /// The current registry and its generation.
    pub(crate) fn registry(&self) -> (Arc<Registry>, u64) {
        let inner = self.lock();
        (Arc::clone(&inner.registry), inner.gen)
    }

    /// The ops at least one registered probe covers.
    ///
    /// # Linux
    /// The ops whose entry carries a kprobe breakpoint.
    pub fn armed(&self) -> OpSet {
        OpSet::from_bits_truncate(self.hot.state.load(Ordering::Relaxed) as u32)
    }

    /// Number of registered probes.
    ///
    /// # Locking
    /// Takes the set's mutex.
    ///
    /// # Linux
    /// The number of entries of `/sys/kernel/tracing/kprobe_profile`.
    pub fn nr_registered(&self) -> usize {
        self.lock().probes.len()
    }

    /// Whether `probe` is registered in this set.
    ///
    /// # Locking
    /// Takes the set's mutex.
    ///
    /// # Linux
    /// `__get_valid_kprobe()` (kernel/kprobes.c) finding the probe.
    pub fn is_registered(&self, probe: &Arc<Kretprobe>) -> bool {
        self.lock().probes.iter().any(|p| Arc::ptr_eq(p, probe))
    }

    /// Asserts the invariants (panics on failure, a bug in this module).
    ///
    /// # Linux
    /// No Linux analogue.
    #[cfg(any(test, debug_assertions))]
    pub fn check_invariants(&self) {
        let inner = self.lock();
        let state = self.hot.state.load(Ordering::Relaxed);
        let union = inner.probes.iter().fold(0, |m, p| m | p.ops().bits());
        assert_eq!(state as u32, union, "armed mask");
        assert_eq!(state >> 32, inner.gen & 0xffff_ffff, "generation low half");
        assert_eq!(self.hot.gen.load(Ordering::Relaxed), inner.gen);
        for op in Op::ALL {
            let want: Vec<_> = inner
                .probes
                .iter()
                .filter(|p| p.ops().contains(op))
                .collect();
            let got = inner.registry.probes(op);
            assert_eq!(got.len(), want.len(), "probes on {op}");
            assert!(got.iter().zip(want).all(|(a, b)| Arc::ptr_eq(a, b)));
        }
    }
}

impl fmt::Debug for ProbeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProbeSet")
            .field("armed", &self.armed())
            .field("probes", &self.lock().probes)
            .finish()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                Op::ALL
                    .iter()
                    .map(|op| (op, self.probes(*op).len()))
                    .filter(|(_, n)| *n > 0),
            )
            .finish()
    }
}

/// Per-thread counts of what the probe hook did (tests only): they show
/// that an unarmed call costs one atomic load and never takes the slow
/// path.
#[cfg(test)]
pub(crate) mod counters {
    use std::cell::Cell;

    thread_local! {
        /// Loads of a set's `state` word.
        pub(crate) static STATE_LOADS: Cell<u64> = const { Cell::new(0) };
        /// Calls that took the armed (slow) path.
        pub(crate) static SLOW_PATHS: Cell<u64> = const { Cell::new(0) };
    }

    /// `(state loads, slow paths)` on this thread so far.
    pub(crate) fn read() -> (u64, u64) {
        (STATE_LOADS.with(Cell::get), SLOW_PATHS.with(Cell::get))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::kretprobe::KretprobeBuilder;

    #[test]
    fn register_and_unregister_keep_mask_and_registry_in_step() {
        let set = ProbeSet::new();
        set.check_invariants();
        let a = KretprobeBuilder::new(OpSet::of(Op::Fork).with(Op::Kill), 1)
            .build()
            .unwrap();
        let b = KretprobeBuilder::new(OpSet::of(Op::Kill), 1)
            .build()
            .unwrap();
        set.register(&a).unwrap();
        set.check_invariants();
        assert_eq!(set.register(&a), Err(Errno::EINVAL));
        set.register(&b).unwrap();
        set.check_invariants();
        assert_eq!(set.armed(), OpSet::of(Op::Fork).with(Op::Kill));
        assert_eq!(set.nr_registered(), 2);
        let (reg, gen) = set.registry();
        assert_eq!((reg.probes(Op::Kill).len(), gen), (2, 2));
        set.unregister(&a).unwrap();
        set.check_invariants();
        assert_eq!(set.unregister(&a), Err(Errno::EINVAL));
        assert_eq!(set.armed(), OpSet::of(Op::Kill));
        assert!(set.is_registered(&b) && !set.is_registered(&a));
        set.unregister(&b).unwrap();
        set.check_invariants();
        assert_eq!(set.armed(), OpSet::EMPTY);
        // The old registry handed out above still holds both probes.
        assert_eq!(reg.probes(Op::Kill).len(), 2);
        assert_eq!(set.gen(), 4);
    }
}
