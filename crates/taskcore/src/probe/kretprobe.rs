//! A return probe: [`Kretprobe`], its handlers, its pool of
//! `maxactive` [`KretprobeInstance`]s and its `nmissed` count; and
//! [`KretprobeBuilder`], which makes one.

use core::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::errno::{Errno, Result};
use crate::objpool::{ObjPool, OBJPOOL_NR_SHARDS_MAX};
use crate::probe::instance::KretprobeInstance;
use crate::probe::op::OpSet;

/// Largest `maxactive` a probe may have.
///
/// # Linux
/// `KRETPROBE_MAXACTIVE_MAX` (include/linux/kprobes.h), 4096.
pub const KRETPROBE_MAXACTIVE_MAX: usize = 4096;

/// The default `maxactive` for a machine of `nr_cpus` CPUs:
/// `max(10, 2 * nr_cpus)`.
///
/// The library reads no system state: pass the CPU count the caller's
/// workers run on, e.g. `std::thread::available_parallelism()`.
///
/// # Linux
/// `register_kretprobe()` (kernel/kprobes.c) with `maxactive <= 0` on a
/// preemptible kernel: `max_t(unsigned int, 10, 2 * num_possible_cpus())`.
///
/// # Examples
/// ```
/// use taskcore::probe::default_maxactive;
/// assert_eq!(default_maxactive(2), 10);
/// assert_eq!(default_maxactive(64), 128);
/// ```
pub const fn default_maxactive(nr_cpus: usize) -> usize {
    let twice = nr_cpus.saturating_mul(2);
    if twice > 10 {
        twice
    } else {
        10
    }
}

/// An entry handler: called with a fresh instance when a probed operation
/// enters; returning `false` drops the instance and skips the return
/// handler for this call.
pub type EntryHandler = dyn Fn(&mut KretprobeInstance) -> bool + Send + Sync;

/// A return handler: called with the call's instance, its
/// [`retval`](KretprobeInstance::retval) set, when the operation returns.
pub type RetHandler = dyn Fn(&mut KretprobeInstance) + Send + Sync;

/// A return probe on a set of [`Op`](super::Op)s.
///
/// When a probed operation enters, the probe takes an instance from its
/// pool of [`maxactive`](Self::maxactive) pre-allocated ones and runs the
/// entry handler; when the operation returns, it runs the return handler
/// and gives the instance back. If the pool is empty (`maxactive` calls
/// are already in flight: on other threads, or nested inside a handler)
/// the call is not traced and [`nmissed`](Self::nmissed) is incremented.
///
/// Made by [`KretprobeBuilder`]; attached with
/// [`ProbeSet::register`](super::ProbeSet::register). Shared as
/// `Arc<Kretprobe>`: the probe lives as long as a set holds it or a call
/// uses it.
///
/// # Locking
/// None on the call path: the pool is lock-free, `nmissed` an atomic.
/// Handlers run with no lock of this module held, on the thread of the
/// probed call, possibly on several threads at once.
///
/// # Linux
/// `struct kretprobe` (include/linux/kprobes.h): `handler`,
/// `entry_handler`, `maxactive`, `nmissed`, and the objpool of instances
/// (`rp->rph->pool`, since Linux 6.7). Divergences: one probe may cover
/// several ops; `data_size` is fixed (`PROBE_DATA_WORDS` words).
pub struct Kretprobe {
    /// The instances; `capacity() == maxactive`.
    pool: ObjPool<KretprobeInstance>,
    /// Calls not traced because the pool was empty. Relaxed increments: a
    /// statistic that orders nothing. Padded: it is written by whichever
    /// threads miss, so it must not share a line with the read-only fields.
    nmissed: CachePadded<AtomicU64>,
    /// The ops probed (when registered).
    ops: OpSet,
    /// Called at entry; `None` traces every call.
    entry_handler: Option<Box<EntryHandler>>,
    /// Called at return.
    handler: Option<Box<RetHandler>>,
}

impl Kretprobe {
    /// The ops this probe attaches to.
    ///
    /// # Linux
    /// `kretprobe.kp.symbol_name`, for several symbols.
    pub fn ops(&self) -> OpSet {
        self.ops
    }

    /// The number of instances: how many calls may be traced at once.
    ///
    /// # Linux
    /// `kretprobe.maxactive`.
    pub fn maxactive(&self) -> usize {
        self.pool.capacity()
    }

    /// Calls this probe did not trace because all `maxactive` instances
    /// were in use. Never decreases.
    ///
    /// # Linux
    /// `kretprobe.nmissed`, shown in `/sys/kernel/tracing/kprobe_profile`.
    pub fn nmissed(&self) -> u64 {
        self.nmissed.load(Ordering::Relaxed)
    }

    /// Counts one untraced call.
    #[inline]
    pub(crate) fn miss(&self) {
        self.nmissed.fetch_add(1, Ordering::Relaxed);
    }

    /// The instance pool.
    #[inline]
    pub(crate) fn pool(&self) -> &ObjPool<KretprobeInstance> {
        &self.pool
    }

    /// Runs the entry handler on `inst`: whether to trace the return.
    #[inline]
    pub(crate) fn call_entry(&self, inst: &mut KretprobeInstance) -> bool {
        match &self.entry_handler {
            Some(h) => h(inst),
            None => true,
        }
    }

    /// Runs the return handler on `inst`.
    #[inline]
    pub(crate) fn call_handler(&self, inst: &mut KretprobeInstance) {
        if let Some(h) = &self.handler {
            h(inst);
        }
    }

    /// Checks the pool and returns the number of free instances (all of
    /// them, `maxactive`, when no call is in flight). `&mut` guarantees
    /// that none is (get it with `Arc::get_mut` once every set and kernel
    /// holding the probe is gone).
    ///
    /// # Linux
    /// No Linux analogue.
    #[cfg(any(test, debug_assertions))]
    pub fn check_invariants(&mut self) -> usize {
        self.pool.check_invariants()
    }
}

impl fmt::Debug for Kretprobe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kretprobe")
            .field("ops", &self.ops)
            .field("maxactive", &self.maxactive())
            .field("nmissed", &self.nmissed())
            .field("entry_handler", &self.entry_handler.is_some())
            .field("handler", &self.handler.is_some())
            .finish()
    }
}

/// Builds a [`Kretprobe`].
///
/// # Examples
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
/// use taskcore::probe::{KretprobeBuilder, Op, OpSet, RetVal};
/// use taskcore::{Config, Kernel};
///
/// let forks = Arc::new(AtomicU64::new(0));
/// let seen = Arc::clone(&forks);
/// let probe = KretprobeBuilder::new(OpSet::of(Op::Fork), 2)
///     .entry_handler(|inst| {
///         inst.data[0] = 42; // per-call state for the return handler
///         true
///     })
///     .handler(move |inst| {
///         assert_eq!(inst.data[0], 42);
///         if let Some(RetVal::Value(pid)) = inst.retval() {
///             seen.fetch_add(pid as u64, Ordering::Relaxed);
///         }
///     })
///     .build()
///     .unwrap();
/// let mut k = Kernel::new(Config::default()).unwrap();
/// k.probes().register(&probe).unwrap();
/// let init = k.init_task().unwrap();
/// let child = k.fork(init).unwrap();
/// assert_eq!(forks.load(Ordering::Relaxed), k.pid_vnr(init, child).unwrap() as u64);
/// assert_eq!(probe.nmissed(), 0);
/// ```
///
/// # Linux
/// Filling in a `struct kretprobe` before `register_kretprobe()`.
pub struct KretprobeBuilder {
    ops: OpSet,
    nr_cpus: usize,
    maxactive: usize,
    entry_handler: Option<Box<EntryHandler>>,
    handler: Option<Box<RetHandler>>,
}

impl KretprobeBuilder {
    /// A probe on `ops` for callers running on `nr_cpus` CPUs: `maxactive`
    /// defaults to [`default_maxactive(nr_cpus)`](default_maxactive)
    /// (capped at [`KRETPROBE_MAXACTIVE_MAX`]) and the instance pool gets
    /// one shard per CPU (at most `maxactive` and
    /// [`OBJPOOL_NR_SHARDS_MAX`]). No handlers yet.
    ///
    /// # Linux
    /// A zeroed `struct kretprobe` with `kp.symbol_name` set.
    pub fn new(ops: OpSet, nr_cpus: usize) -> KretprobeBuilder {
        KretprobeBuilder {
            ops,
            nr_cpus,
            maxactive: 0,
            entry_handler: None,
            handler: None,
        }
    }

    /// Sets `maxactive`; 0 means the default.
    ///
    /// # Linux
    /// `kretprobe.maxactive`, where `<= 0` also means the default.
    pub fn maxactive(mut self, maxactive: usize) -> KretprobeBuilder {
        self.maxactive = maxactive;
        self
    }

    /// Sets the entry handler, run at entry with a fresh instance
    /// ([`op`](KretprobeInstance::op), [`current`](KretprobeInstance::current)
    /// set, [`data`](KretprobeInstance::data) zeroed). Returning `false`
    /// skips this call: the instance goes back and the return handler is
    /// not run.
    ///
    /// # Linux
    /// `kretprobe.entry_handler`, where a non-zero return skips the call.
    pub fn entry_handler(
        mut self,
        f: impl Fn(&mut KretprobeInstance) -> bool + Send + Sync + 'static,
    ) -> KretprobeBuilder {
        self.entry_handler = Some(Box::new(f));
        self
    }

    /// Sets the return handler, run when the operation returns, with the
    /// instance the entry handler saw and its
    /// [`retval`](KretprobeInstance::retval) set.
    ///
    /// # Linux
    /// `kretprobe.handler`.
    pub fn handler(
        mut self,
        f: impl Fn(&mut KretprobeInstance) + Send + Sync + 'static,
    ) -> KretprobeBuilder {
        self.handler = Some(Box::new(f));
        self
    }

    /// Allocates the probe and its `maxactive` instances.
    ///
    /// # Errors
    /// - `EINVAL`: `ops` is empty, or `nr_cpus` is 0.
    /// - `E2BIG`: `maxactive` above [`KRETPROBE_MAXACTIVE_MAX`].
    /// - `ENOMEM`: the instances cannot be allocated.
    ///
    /// # Linux
    /// The allocation half of `register_kretprobe()` (kernel/kprobes.c):
    /// `-E2BIG` for too large a `maxactive`, the default for `<= 0`, then
    /// `objpool_init()` of `maxactive` instances.
    pub fn build(self) -> Result<Arc<Kretprobe>> {
        // Linux: no symbol to probe is -EINVAL.
        if self.ops.is_empty() || self.nr_cpus == 0 {
            return Err(Errno::EINVAL);
        }
        if self.maxactive > KRETPROBE_MAXACTIVE_MAX {
            return Err(Errno::E2BIG);
        }
        let maxactive = if self.maxactive == 0 {
            default_maxactive(self.nr_cpus).min(KRETPROBE_MAXACTIVE_MAX)
        } else {
            self.maxactive
        };
        // More shards than instances would only add empty rings to scan.
        let nr_shards = self.nr_cpus.min(maxactive).min(OBJPOOL_NR_SHARDS_MAX);
        let pool = ObjPool::with_shards(maxactive, nr_shards, |_| KretprobeInstance::blank())?;
        Ok(Arc::new(Kretprobe {
            pool,
            nmissed: CachePadded::new(AtomicU64::new(0)),
            ops: self.ops,
            entry_handler: self.entry_handler,
            handler: self.handler,
        }))
    }
}

impl fmt::Debug for KretprobeBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KretprobeBuilder")
            .field("ops", &self.ops)
            .field("nr_cpus", &self.nr_cpus)
            .field("maxactive", &self.maxactive)
            .field("entry_handler", &self.entry_handler.is_some())
            .field("handler", &self.handler.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::op::Op;

    #[test]
    fn build_checks_its_arguments_as_register_kretprobe_does() {
        let ops = OpSet::of(Op::Fork);
        assert_eq!(
            KretprobeBuilder::new(OpSet::EMPTY, 2).build().unwrap_err(),
            Errno::EINVAL
        );
        assert_eq!(
            KretprobeBuilder::new(ops, 0).build().unwrap_err(),
            Errno::EINVAL
        );
        assert_eq!(
            KretprobeBuilder::new(ops, 2)
                .maxactive(KRETPROBE_MAXACTIVE_MAX + 1)
                .build()
                .unwrap_err(),
            Errno::E2BIG
        );
        let p = KretprobeBuilder::new(ops, 2).build().unwrap();
        assert_eq!((p.maxactive(), p.nmissed(), p.ops()), (10, 0, ops));
        let p = KretprobeBuilder::new(ops, 8).build().unwrap();
        assert_eq!(p.maxactive(), 16);
        let mut p = KretprobeBuilder::new(ops, 3).maxactive(1).build().unwrap();
        assert_eq!(p.maxactive(), 1);
        assert_eq!(Arc::get_mut(&mut p).unwrap().check_invariants(), 1);
    }
}
