//! The hook every probed operation goes through: the kernel's
//! [`KernelProbes`] (its set and cached registry), [`run_armed`] (a call
//! with probes on its operation), and the [`Active`] instances of one call.
//! The kernel's side, `Kernel::probed`, is in `task/probed.rs`: this module
//! knows the kernel only as the `K` it is given.

use std::sync::Arc;

use crate::errno::Result;
use crate::ix::TaskId;
use crate::objpool::ObjRef;
use crate::probe::instance::{KretprobeInstance, RetVal};
use crate::probe::kretprobe::Kretprobe;
use crate::probe::op::Op;
use crate::probe::set::{ProbeSet, Registry};

/// A kernel's view of its [`ProbeSet`].
///
/// # Invariants
/// `cache`, when present, is the set's registry of generation `gen`.
#[derive(Clone, Debug)]
pub(crate) struct KernelProbes {
    /// The set whose probes this kernel fires.
    set: Arc<ProbeSet>,
    /// The registry this kernel last used; taken out of the kernel while a
    /// probed call runs (so the call holds it without a reference count
    /// update), and dropped when an unarmed call sees the set changed.
    cache: Option<Arc<Registry>>,
    /// Generation of `cache`.
    gen: u64,
}

impl Default for KernelProbes {
    fn default() -> Self {
        KernelProbes::new(Arc::new(ProbeSet::new()))
    }
}

impl KernelProbes {
    /// A view of `set`, with no registry cached yet.
    pub(crate) fn new(set: Arc<ProbeSet>) -> KernelProbes {
        KernelProbes {
            set,
            cache: None,
            gen: 0,
        }
    }

    /// The set whose probes this kernel fires.
    pub(crate) fn set(&self) -> &Arc<ProbeSet> {
        &self.set
    }

    /// Whether a probe is registered on `op`: one relaxed atomic load and
    /// a test. Right after the set changed, drops the stale cached registry
    /// once, so that unregistered probes are freed.
    #[inline(always)]
    pub(crate) fn armed(&mut self, op: Op) -> bool {
        let state = self.set.state();
        if state & u64::from(op.bit()) == 0 {
            if self.cache.is_some() && (state >> 32) as u32 != self.gen as u32 {
                self.release_stale((state >> 32) as u32);
            }
            return false;
        }
        true
    }

    /// The registry to use for a call: the cached one if current, else the
    /// set's (under its lock). The caller gives it back with
    /// [`put_registry`](Self::put_registry).
    pub(crate) fn take_registry(&mut self) -> Arc<Registry> {
        let gen = self.set.gen();
        match self.cache.take() {
            Some(reg) if self.gen == gen => reg,
            _ => {
                let (reg, gen) = self.set.registry();
                self.gen = gen;
                reg
            }
        }
    }

    /// Keeps `reg` for the next call.
    pub(crate) fn put_registry(&mut self, reg: Arc<Registry>) {
        self.cache = Some(reg);
    }

    /// Drops a cached registry the set has replaced (the set's generation
    /// is `gen_lo` in its low 32 bits), so unregistered probes are freed.
    #[cold]
    #[inline(never)]
    fn release_stale(&mut self, gen_lo: u32) {
        if self.gen as u32 != gen_lo {
            self.cache = None;
        }
    }
}

/// Enters `probe` for a call of `op` by `current`: takes an instance (or
/// counts a miss) and runs the entry handler; the instance if the call is
/// to be traced.
#[inline]
fn enter_one<'a>(
    probe: &'a Kretprobe,
    op: Op,
    current: TaskId,
) -> Option<ObjRef<'a, KretprobeInstance>> {
    let Some(mut inst) = probe.pool().pop() else {
        // Linux: objpool_pop() found nothing in pre_handler_kretprobe():
        // rp->nmissed++ and the return is not hooked.
        probe.miss();
        return None;
    };
    inst.reset(op, current);
    // A declined call's instance goes back at once (not a miss).
    probe.call_entry(&mut inst).then_some(inst)
}

/// Inline room for the instances of one call; more probes on one op spill
/// to the heap.
const ACTIVE_INLINE: usize = 4;

/// A probe whose entry handler accepted a call, and the call's instance.
type Entered<'a> = (&'a Kretprobe, ObjRef<'a, KretprobeInstance>);

/// The instances of one probed call, in entry order.
struct Active<'a> {
    inline: [Option<Entered<'a>>; ACTIVE_INLINE],
    len: usize,
    spill: Vec<Entered<'a>>,
}

impl<'a> Active<'a> {
    /// Enters each of `probes` for a call of `op` by `current`.
    #[inline(never)]
    fn enter(probes: &'a [Arc<Kretprobe>], op: Op, current: TaskId) -> Active<'a> {
        let mut active = Active {
            inline: Default::default(),
            len: 0,
            spill: Vec::new(),
        };
        for probe in probes {
            let Some(inst) = enter_one(probe, op, current) else {
                continue;
            };
            if active.len < ACTIVE_INLINE {
                active.inline[active.len] = Some((probe, inst));
            } else {
                active.spill.push((probe, inst));
            }
            active.len += 1;
        }
        active
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Runs the return handlers, last entered first (a shadow stack), and
    /// gives the instances back.
    #[inline(never)]
    fn ret(mut self, ret: RetVal) {
        let run = |(probe, mut inst): Entered<'a>| {
            inst.ret = Some(ret);
            probe.call_handler(&mut inst);
        };
        while let Some(e) = self.spill.pop() {
            run(e);
        }
        for slot in self.inline.iter_mut().rev() {
            if let Some(e) = slot.take() {
                run(e);
            }
        }
    }
}

/// The armed path of a probed call: runs `body` on `k`, the operation `op`
/// called for `current`, with the probes of `reg` on `op` around it;
/// `retval` summarises the result for the return handlers (`k` as the call
/// left it). `body`'s result is returned unchanged.
///
/// # Linux
/// The kretprobe trampoline: `pre_handler_kretprobe()` at entry,
/// `__kretprobe_trampoline_handler()` at return (kernel/kprobes.c).
#[inline(never)]
pub(crate) fn run_armed<K, T>(
    reg: &Registry,
    k: &mut K,
    op: Op,
    current: TaskId,
    body: impl FnOnce(&mut K) -> Result<T>,
    retval: impl FnOnce(&Result<T>, &K) -> RetVal,
) -> Result<T> {
    #[cfg(test)]
    crate::probe::set::counters::SLOW_PATHS.with(|c| c.set(c.get() + 1));
    match reg.probes(op) {
        // One probe on the op, the common case: no list of entered probes
        // to keep.
        [probe] => match enter_one(probe, op, current) {
            Some(mut inst) => {
                let r = body(k);
                inst.ret = Some(retval(&r, k));
                probe.call_handler(&mut inst);
                r
            }
            None => body(k),
        },
        probes => {
            let active = Active::enter(probes, op, current);
            let r = body(k);
            if active.is_empty() {
                drop(active);
            } else {
                active.ret(retval(&r, k));
            }
            r
        }
    }
}
