//! A scalable lock-free MPMC object pool, after Linux's `lib/objpool.c`.
//!
//! [`ObjPool<T>`] pre-allocates `capacity` objects and lends them out with
//! [`ObjPool::pop`]; the returned [`ObjRef`] gives exclusive access and
//! pushes the object back when dropped. It is the allocator of kretprobe
//! instances in Linux (`kernel/kprobes.c`), where a probe hit that finds the
//! pool empty is counted as missed.
//!
//! # Algorithm
//! Linux's objpool (wuqiang, Linux 6.7; the thread that led to it is
//! "kretprobe scalability improvement", LKML, July 2021): one ring per CPU,
//! each big enough for *every* object (capacity rounded up to a power of
//! two), so a push can never fail and never has to look at another ring.
//! Objects are spread evenly over the rings at creation. A push goes to the
//! local ring; a pop tries the local ring, then the others in order.
//!
//! Within a ring this module differs from Linux in two ways, both because a
//! user-space thread can be preempted anywhere, for any length of time:
//!
//! 1. **Per-entry stamps instead of `last`.** Linux publishes entries with
//!    one `last` counter per slot; that is correct only because the pushes
//!    to a slot run on its own CPU with interrupts off, so they complete in
//!    order. Here several threads share a shard, and a producer may stall
//!    between reserving position `p` and writing it while a later producer
//!    publishes `p + 1`. So each entry carries the low 32 bits of the
//!    position that wrote it (as the sequence numbers of D. Vyukov's
//!    bounded MPMC queue do), and a consumer takes position `p` only once
//!    the entry in slot `p & mask` is stamped `p`.
//! 2. **64-bit `head` and `tail`.** Linux's `u32` counters could in
//!    principle ABA (a pop that reads `head`, stalls while the ring does
//!    2^32 pops, then CASes successfully with a stale entry); in the kernel
//!    the window is a few instructions with interrupts off. A user thread
//!    can be descheduled or `SIGSTOP`ped for minutes, and 2^32 pops at
//!    ~10 ns take 43 s. With 64 bits, wrapping needs 2^64 operations,
//!    584 years at one per nanosecond, so positions are unique and the CAS
//!    on `head` cannot succeed with a stale value.
//!
//! Consumers never read `tail` and producers never read `head`, so the two
//! counters' lines are each written by one side only.
//!
//! # Layout
//! ```text
//! ObjPool<T>
//! ├── runs:  [Vec<ObjCell<T>>; nr_shards]  objects, one allocation per shard
//! │     run r: [obj obj .. obj | spare >= 128 B]  holds the objects ring r
//! │                                              starts with; the spare
//! │                                              capacity pads the tail
//! ├── rings: [Ring; nr_shards]             each Ring 128-byte aligned:
//! │     ┌───────── 128 B ──────────┐
//! │     │ lines (ptr, len), mask   │     read-only after creation
//! │     ├───────── 128 B ──────────┤
//! │     │ head: AtomicU64          │     consumers' CAS
//! │     ├───────── 128 B ──────────┤
//! │     │ tail: AtomicU64          │     producers' fetch_add
//! │     └──────────────────────────┘
//! │     lines ──► [e0 e1 .. e15][e16 .. e31] ...   one 128-B line each,
//! │                                                  size = 2^k >= max(capacity, 16)
//! │     entry (u64) = stamp:u32 << 32 | object id:u32
//! │     object id   = run << run_shift | offset in run
//! └── nr_objs, run_shift, run_len, run_extra, shard_magic   (read-only)
//! ```
//! (128 B is `CachePadded`'s size on x86_64 and aarch64; it adapts to the
//! target elsewhere.) Separate, tail-padded runs keep the objects that
//! different shards start with off each other's cache lines (allocations
//! made one after the other; the allocator decides the rest). Objects
//! migrate between shards as threads steal, and within a run they are
//! packed: wrap `T` in `crossbeam_utils::CachePadded` if holders on
//! different CPUs write neighbouring objects often.
//!
//! # Vocabulary
//! - *shard*: one ring and the threads whose thread number maps to it
//!   (Linux: the per-CPU `objpool_slot`).
//! - *local shard*: the calling thread's; threads are numbered round-robin
//!   on first use, and the shard is the number modulo `nr_shards`.
//! - *position*: a value of `head`/`tail`, 64-bit, never reused. *Slot*:
//!   `position & mask`. *Lap*: `position / size`.
//! - *entry*: the `AtomicU64` of a slot. *Published for p*: its stamp is
//!   `p as u32`.
//! - *object id*: what an entry stores, `run << run_shift | offset`;
//!   *index*: the object's number in `0..capacity`, the argument `objinit`
//!   got ([`ObjRef::index`]). Ids are at most 26 bits: the longest run is
//!   `ceil(capacity / nr_shards)`.
//! - *holder*: the owner of an [`ObjRef`]/[`OwnedObjRef`].
//!
//! # Operations
//! ```text
//! push(id):   p = tail.fetch_add(1)                          AcqRel
//!             entries[p & mask].store({stamp: p, id})        Release
//! pop():      h = head.load()                                Relaxed
//!         ┌─► e = entries[h & mask].load()                   Acquire
//!         │   if e.stamp != h:   h' = head.load()
//!         │                      h' == h ? return None : h = h', retry ─┐
//!         │   head.cas(h, h + 1) ok ? return e.id                  AcqRel
//!         └──────────────────── else h = current head, retry ◄──────────┘
//! ```
//!
//! # Correctness
//! *Ownership.* Every pushed object was owned by the pusher, so the
//! objects at positions `head..tail` of a ring are distinct and not held by
//! anyone: `tail - head <= capacity <= size` at every instant
//! (invariant 2 of `Ring`). A pop owns position `h`'s object exactly when
//! its CAS moves `head` from `h` to `h + 1`; 64-bit positions are never
//! reused, so each position is consumed once, and a CAS with a stale `h`
//! fails.
//!
//! *The entry read belongs to position h.* The pop reads the entry before
//! its CAS. While `head == h`, position `h + size` cannot be reserved
//! (it would make `tail - head > size`), so slot `h & mask` still holds
//! position `h`'s entry when the CAS succeeds. A stale `h` whose slot
//! happens to carry a matching 32-bit stamp (a position `h + k * 2^32`)
//! fails the 64-bit CAS.
//!
//! *No early overwrite.* The write of position `p` must follow, in the
//! memory model and not only in time, the read of position `p - size` by
//! the pop that consumed it; otherwise the read could see the new entry or
//! the slot's modification order could invert. Among the `size + 1`
//! positions `p - size ..= p` two hold the same object (pigeonhole), at
//! `a < b`; the pop of `a` happens before the push of `b` (the object
//! passed through its holder). The chain: pop of `p - size` (entry load,
//! then CAS with Release) → release sequence of `head` → CAS of the pop of
//! `a` (Acquire) → holder → `fetch_add` of `b` (Release) → release sequence
//! of `tail` → `fetch_add` of `p` (Acquire) → the entry store of `p`. Hence
//! AcqRel on both counters. The entry Release/Acquire pair carries the
//! object's contents from one holder to the next.
//!
//! *Spurious misses.* A pop never waits. If the entry at `head` is reserved
//! but not yet published (its producer is between `fetch_add` and store)
//! the ring reads as empty, even if later positions are published; and a
//! pop scans the rings one at a time, so an object moving between rings can
//! be missed. Linux has the same behaviour (`last` lags `tail`; per-CPU
//! scans race with pushes). When every push happens-before the pop (no
//! push overlaps it, e.g. the pushers were joined or synchronised with),
//! `pop` returns `None` only if all objects are held.
//!
//! # Complexity
//! - push (dropping a handle): O(1), wait-free: one `fetch_add`, one store.
//! - pop: lock-free; O(`nr_shards`) ring probes, each O(1) plus one retry
//!   per competing consumer that succeeded meanwhile.
//! - creation: O(`nr_shards * ring size + capacity`); teardown
//!   O(`nr_shards + capacity`).
//!
//! # Checking
//! - Unit tests: `cargo test -p taskcore objpool`.
//! - Stress (8 threads, per-object "held" flags):
//!   `cargo test -p taskcore --test it objpool_stress::`.
//! - Model checking, every interleaving of small scenarios:
//!   `LOOM_MAX_PREEMPTIONS=3 RUSTFLAGS="--cfg loom" cargo test -p taskcore --test it --release objpool_loom::`.
//! - Undefined behaviour and weak-memory checks:
//!   `cargo +nightly miri test -p taskcore objpool`.
//!
//! `scripts/miri-loom.sh` runs the last two.
//!
//! # Linux
//! Follows `lib/objpool.c` and `include/linux/objpool.h`: `objpool_init()`
//! ([`ObjPool::with_shards`]), `objpool_pop()` ([`ObjPool::pop`]),
//! `objpool_push()` (dropping an [`ObjRef`]), `objpool_fini()` and
//! `objpool_drop()` (dropping the pool, or the last [`OwnedObjRef`]).
//! Divergences: shards follow threads, not CPUs; per-entry stamps and
//! 64-bit counters (above); no `release` callback (`T`'s `Drop` runs at
//! teardown); `ENOMEM` above [`OBJPOOL_NR_ENTRIES_MAX`] ring entries.

mod pool;
mod ring;
mod sync;

pub use pool::{
    ObjPool, ObjRef, OwnedObjRef, OBJPOOL_NR_ENTRIES_MAX, OBJPOOL_NR_OBJECT_MAX,
    OBJPOOL_NR_SHARDS_MAX,
};
