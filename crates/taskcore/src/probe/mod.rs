//! Return probes on the core's operations, after Linux's kretprobes.
//!
//! A [`Kretprobe`] has an entry handler, a return handler and `maxactive`
//! pre-allocated [`KretprobeInstance`]s in an [`ObjPool`](crate::objpool).
//! Registered in a [`ProbeSet`], it fires on each call of its [`Op`]s by
//! any [`Kernel`](crate::Kernel) using that set: at entry an instance is
//! popped from the pool and given to the entry handler (which typically
//! stores a timestamp or an argument in its `data`), at return the return
//! handler sees the same instance with the call's [`RetVal`], and the
//! instance goes back. When the pool is empty the call is not traced and
//! the probe's `nmissed` grows.
//!
//! # Layout
//! ```text
//! Kernel ─ probes: KernelProbes { set ─────────┐, cache: Option<Arc<Registry>>, gen }
//!                                              ▼
//! Arc<ProbeSet> (shared by kernels, snapshots, threads)
//! ├── hot (own cache line): state = gen_lo:32 | armed mask:32   AtomicU64
//! │                         gen                                 AtomicU64
//! └── inner: Mutex { probes: [Arc<Kretprobe>], registry: Arc<Registry>, gen }
//!
//! Registry (immutable, rebuilt on every register/unregister)
//! └── by_op[NR_OPS]: [Arc<Kretprobe>]          probes of each op, in order
//!
//! Kretprobe
//! ├── pool: ObjPool<KretprobeInstance>          maxactive instances
//! ├── nmissed: AtomicU64 (padded)
//! └── ops: OpSet, entry_handler, handler        Box<dyn Fn + Send + Sync>
//!
//! KretprobeInstance { op, current: TaskId, ret: Option<RetVal>, data: [u64; 4] }
//! ```
//!
//! # A probed call
//! Every public mutating operation of [`Kernel`](crate::Kernel) is split in
//! two: the public function, whose whole body is
//! `self.probed(Op::X, current, |k| k.do_sys_x(..))`, and the unchanged
//! body, renamed `do_sys_x` (Linux's `__do_sys_x`). `probed`:
//! ```text
//! state = set.hot.state.load(Relaxed)          the one atomic of an unarmed call
//! if state & op.bit() == 0:
//!     if cache && state.gen_lo != gen: drop cache      (after a change, once)
//!     return body()
//! reg  = cache if gen == set.hot.gen else set.registry()   (lock, rare)
//! for p in reg.by_op[op]: inst = p.pool.pop() or { p.nmissed += 1; skip }
//!                         inst.reset(op, current); p.entry_handler(inst) or skip
//! r = body()
//! for (p, inst) in entered, last first: inst.ret = RetVal(r); p.handler(inst)
//! instances go back to their pools; cache = reg
//! ```
//!
//! # Vocabulary
//! - *armed op*: an op at least one registered probe covers (its bit is
//!   set in the set's mask).
//! - *registry*: an immutable snapshot of which probes are on which op;
//!   *generation*: its number, incremented by every change.
//! - *in flight*: a call between its entry and return handlers; it holds
//!   its registry, and so its probes, whatever unregisters meanwhile.
//! - *missed*: a call a probe did not trace because its pool was empty.
//!
//! # Design choices
//! - **Per-kernel sets, shareable.** Linux has one kprobe table per
//!   machine. A process may run many emulated kernels (tests, a search
//!   over snapshots, one per sandbox), so each [`Kernel`](crate::Kernel)
//!   points to an `Arc<ProbeSet>`: its own by default, or one shared with
//!   others ([`Kernel::set_probes`](crate::Kernel::set_probes)); snapshots
//!   share their kernel's.
//! - **Registry cached per kernel.** Kernels are driven through `&mut`, so
//!   a kernel can keep the registry it last used and move it out of itself
//!   for the length of a call: an armed call touches no shared reference
//!   count and takes no lock unless the set changed since the kernel's
//!   previous armed call. This is RCU with each kernel as a reader: an old
//!   registry is freed when every kernel holding it has made another call.
//! - **Handlers are closures** (`Fn(&mut KretprobeInstance) + Send +
//!   Sync`): the library reads no clock, so a latency probe's handlers read
//!   the caller's clock themselves (`taskcore replay --probe latency`).
//! - **Fixed scratch.** `data` is `[u64; PROBE_DATA_WORDS]`, zeroed at
//!   entry, instead of Linux's `data_size` bytes.
//!
//! # Guarantees
//! - An unarmed op costs one relaxed load of a read-mostly word (tests
//!   count it). The word sits alone on its cache line, so loads by many
//!   threads do not contend.
//! - Entry and return handlers pair: a call whose entry handler ran (and
//!   returned `true`) runs the return handler, even if the probe is
//!   unregistered meanwhile.
//! - A call that begins after `register`/`unregister` returns sees the
//!   change; calls overlapping it may or may not.
//! - Each public call fires the probes of one op, once: `fork` and `vfork`
//!   run `clone`'s body but fire only `Fork`/`Vfork`; `execve_argv` fires
//!   `Execve` (through `execve`); internal steps fire nothing.
//! - Probes never change an operation's result or state.
//!
//! # Complexity
//! - unarmed op: O(1), one atomic load;
//! - armed op: O(probes on the op) pool pops and pushes (lock-free) and
//!   handler calls, plus O(probes x ops) under the lock once after each
//!   change;
//! - register/unregister: O(probes x ops) under the set's mutex.
//!
//! # Linux
//! kernel/kprobes.c: `register_kretprobe()`, `unregister_kretprobe()`,
//! `pre_handler_kretprobe()`, `__kretprobe_trampoline_handler()`;
//! include/linux/kprobes.h: `struct kretprobe`, `struct
//! kretprobe_instance`. Instances come from `lib/objpool.c` since Linux
//! 6.7 (the "kretprobe scalability improvement" thread, LKML, July 2021,
//! replaced the CAS freelist of include/linux/freelist.h). Divergences: a
//! probe may cover several ops; probes attach to a set of kernels rather
//! than a machine; returns in flight at unregister still run their
//! handler.

pub(crate) mod hook;
pub(crate) mod instance;
pub(crate) mod kretprobe;
pub(crate) mod op;
pub(crate) mod set;

pub(crate) use hook::KernelProbes;
pub use instance::{KretprobeInstance, RetVal, PROBE_DATA_WORDS};
pub use kretprobe::{
    default_maxactive, EntryHandler, Kretprobe, KretprobeBuilder, RetHandler,
    KRETPROBE_MAXACTIVE_MAX,
};
pub use op::{Op, OpSet, NR_OPS};
pub use set::ProbeSet;
