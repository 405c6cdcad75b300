//! The typed pool: [`ObjPool`] and its handles [`ObjRef`] and
//! [`OwnedObjRef`].
#![allow(unsafe_code)]

use core::fmt;
use core::num::NonZeroUsize;
use core::ops::{Deref, DerefMut};

use crossbeam_utils::CachePadded;

use super::ring::{Ring, ENTRIES_PER_LINE};
use super::sync::{thread_nr, Arc, ObjCell, ObjPtr};
use crate::errno::{Errno, Result};

/// Most objects one pool may hold (2^24).
///
/// # Linux
/// `OBJPOOL_NR_OBJECT_MAX` (include/linux/objpool.h).
pub const OBJPOOL_NR_OBJECT_MAX: usize = 1 << 24;

/// Most shards one pool may have (8192).
///
/// # Linux
/// The largest `CONFIG_NR_CPUS` x86_64 accepts (`NR_CPUS_RANGE_END`,
/// arch/x86/Kconfig); Linux's pool has one slot per possible CPU.
pub const OBJPOOL_NR_SHARDS_MAX: usize = 8192;

/// Most ring entries one pool may allocate over all its shards
/// (2^28 entries, 2 GiB).
///
/// A request beyond it fails with `ENOMEM` up front rather than counting on
/// overcommitted memory that would be touched (and could get the process
/// killed) while the rings are initialised.
///
/// # Linux
/// No Linux analogue: Linux's `kmalloc`/`vmalloc` of the slots fails by
/// itself.
pub const OBJPOOL_NR_ENTRIES_MAX: usize = 1 << 28;

/// A scalable lock-free pool of `capacity` pre-allocated objects of type `T`,
/// sharded over `nr_shards` rings.
///
/// [`pop`](Self::pop) lends an object through an [`ObjRef`], which gives
/// exclusive access (`Deref` + `DerefMut`) and pushes the object back to
/// the calling thread's ring when dropped. Objects are built once, when the
/// pool is, and dropped once, when the pool is.
///
/// `ObjPool<T>` is `Send + Sync` when `T: Send`, like a `Mutex<T>`: the pool
/// moves objects between threads but never shares one.
///
/// ```compile_fail
/// // Rc is not Send, so a pool of Rc cannot be shared between threads.
/// fn shared<P: Sync>(_: &P) {}
/// let pool = taskcore::objpool::ObjPool::with_shards(1, 1, |_| std::rc::Rc::new(0)).unwrap();
/// shared(&pool);
/// ```
///
/// # Invariants
/// 1. Every object index in `0..capacity` is, at any instant, either held by
///    exactly one [`ObjRef`]/[`OwnedObjRef`] (or leaked with
///    `mem::forget`), or being pushed, or free in exactly one ring.
/// 2. Each ring satisfies the invariants of its type (`ring.rs`).
///
/// [`check_invariants`](Self::check_invariants) asserts both.
///
/// # Locking
/// None: `pop` is lock-free, the push on drop wait-free.
///
/// # Linux
/// Mirrors `struct objpool_head` (include/linux/objpool.h, lib/objpool.c):
/// one ring ("slot") per shard, each able to hold every object.
pub struct ObjPool<T> {
    /// One ring per shard; `Ring` is cache-padded, so two rings never share
    /// a line.
    rings: Box<[Ring]>,
    /// The objects, one run per shard: run `r` holds the objects ring `r`
    /// starts with, in an allocation of its own whose spare capacity pads
    /// its tail by [`RUN_TAIL_PAD`] bytes, so the objects that different
    /// shards' threads write start out on different cache lines (Linux
    /// allocates each CPU's objects with its slot for the same reason).
    /// Empty runs (`capacity < nr_shards`) allocate nothing.
    runs: Box<[Vec<ObjCell<T>>]>,
    /// Number of objects, `1..=OBJPOOL_NR_OBJECT_MAX`.
    nr_objs: usize,
    /// Bits of an object id that hold the offset within a run; the run
    /// number sits above them. Object id encoding (the `u32` in ring
    /// entries): `run << run_shift | offset`. Run length <= 2^run_shift.
    run_shift: u32,
    /// `capacity / nr_shards`: runs `r >= run_extra` have this many
    /// objects, runs `r < run_extra` one more.
    run_len: u32,
    /// `capacity % nr_shards`.
    run_extra: u32,
    /// Lemire's constant `u64::MAX / nr_shards + 1` (wrapping; 0 when
    /// `nr_shards == 1`), to reduce a thread number modulo `nr_shards`
    /// with two multiplications instead of a division.
    shard_magic: u64,
}

/// Bytes of spare capacity after each run of objects: the size of
/// `CachePadded` (128 on x86_64), which covers the adjacent-line prefetch
/// pair.
const RUN_TAIL_PAD: usize = core::mem::align_of::<CachePadded<u8>>();

/// Number of bits needed to write `n` (0 for 0).
fn bit_len(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

// SAFETY: sharing `&ObjPool<T>` between threads lets each thread pop
// objects and use them as `&mut T`; the rings hand each object to one holder
// at a time, with happens-before between consecutive holders (Release in
// `Ring::push`, Acquire in `Ring::pop`). That is moving a `T` between
// threads, which needs `T: Send` only; no `&T` is ever shared, so `T: Sync`
// is not needed (the same reasoning as `Mutex<T>: Sync`).
unsafe impl<T: Send> Sync for ObjPool<T> {}

/// Lemire-Kaser-Kurz "fastmod" constant for divisor `d >= 1`.
fn fastmod_magic(d: u32) -> u64 {
    (u64::MAX / u64::from(d)).wrapping_add(1)
}

/// `a % d` given `magic == fastmod_magic(d)`: exact for all `u32` `a`, `d`.
///
/// Source: D. Lemire, O. Kaser, N. Kurz, "Faster Remainder by Direct
/// Computation", Software: Practice and Experience 49(6), 2019.
#[inline]
fn fastmod(a: u32, magic: u64, d: u32) -> u32 {
    let low = magic.wrapping_mul(u64::from(a));
    ((u128::from(low) * u128::from(d)) >> 64) as u32
}

impl<T> ObjPool<T> {
    /// Creates a pool of `capacity` objects built by `objinit(index)` for
    /// `index` in `0..capacity`, with one shard per CPU the process may
    /// run on.
    ///
    /// The shard count is [`std::thread::available_parallelism`] (which
    /// asks the OS for the affinity mask and cgroup quota), 1 if that fails,
    /// capped at [`OBJPOOL_NR_SHARDS_MAX`]. Use
    /// [`with_shards`](Self::with_shards) for a fixed count.
    ///
    /// # Errors
    /// - `EINVAL`: `capacity` is 0 or above [`OBJPOOL_NR_OBJECT_MAX`].
    /// - `ENOMEM`: the rings or objects cannot be allocated, or would need
    ///   more than [`OBJPOOL_NR_ENTRIES_MAX`] ring entries.
    ///
    /// On `EINVAL` or `ENOMEM`, whatever was allocated is freed again and
    /// `objinit` was never called.
    ///
    /// # Linux
    /// Mirrors `objpool_init()` (lib/objpool.c), whose slot count is
    /// `nr_cpu_ids`.
    ///
    /// # Examples
    /// ```
    /// use taskcore::objpool::ObjPool;
    /// let pool = ObjPool::new(8, |i| i * 10).unwrap();
    /// let obj = pool.pop().unwrap();
    /// assert_eq!(*obj % 10, 0);
    /// ```
    pub fn new(capacity: usize, objinit: impl FnMut(usize) -> T) -> Result<Self> {
        let nr_shards = std::thread::available_parallelism()
            .map_or(1, NonZeroUsize::get)
            .min(OBJPOOL_NR_SHARDS_MAX);
        Self::with_shards(capacity, nr_shards, objinit)
    }

    /// Creates a pool of `capacity` objects built by `objinit(index)`,
    /// spread evenly over `nr_shards` rings.
    ///
    /// Shard `r` starts with `capacity / nr_shards` objects, plus one if
    /// `r < capacity % nr_shards`; objects are numbered shard by shard.
    /// Each ring has room for `capacity` rounded up to a power of two (at
    /// least 16 on x86_64, one cache-padded line), so a push never fails.
    ///
    /// # Errors
    /// - `EINVAL`: `capacity` is 0 or above [`OBJPOOL_NR_OBJECT_MAX`], or
    ///   `nr_shards` is 0 or above [`OBJPOOL_NR_SHARDS_MAX`].
    /// - `ENOMEM`: allocation failed, or the rings would need more than
    ///   [`OBJPOOL_NR_ENTRIES_MAX`] entries in all.
    ///
    /// On `EINVAL` or `ENOMEM`, whatever was allocated is freed again and
    /// `objinit` was never called.
    ///
    /// # Linux
    /// Mirrors `objpool_init()` and `objpool_init_percpu_slots()`
    /// (lib/objpool.c), with `nr_shards` in place of `nr_cpu_ids`.
    ///
    /// # Examples
    /// ```
    /// use taskcore::objpool::ObjPool;
    /// use taskcore::Errno;
    /// let pool = ObjPool::with_shards(3, 2, |i| i).unwrap();
    /// assert_eq!((pool.capacity(), pool.nr_shards()), (3, 2));
    /// assert_eq!(ObjPool::with_shards(3, 0, |i| i).unwrap_err(), Errno::EINVAL);
    /// ```
    pub fn with_shards(
        capacity: usize,
        nr_shards: usize,
        mut objinit: impl FnMut(usize) -> T,
    ) -> Result<Self> {
        Self::try_with_shards(capacity, nr_shards, |i| Ok(objinit(i)))
    }

    /// Like [`with_shards`](Self::with_shards), with a fallible `objinit`.
    ///
    /// # Errors
    /// Those of [`with_shards`](Self::with_shards), and the first error
    /// `objinit` returns: creation stops there and the objects built so far
    /// are dropped, in index order.
    ///
    /// # Linux
    /// Mirrors `objpool_init()`, which fails with the error of the first
    /// failing `objinit` callback.
    ///
    /// # Examples
    /// ```
    /// use taskcore::{objpool::ObjPool, Errno};
    /// let r = ObjPool::try_with_shards(4, 1, |i| if i < 2 { Ok(i) } else { Err(Errno::EAGAIN) });
    /// assert_eq!(r.unwrap_err(), Errno::EAGAIN);
    /// ```
    pub fn try_with_shards(
        capacity: usize,
        nr_shards: usize,
        mut objinit: impl FnMut(usize) -> Result<T>,
    ) -> Result<Self> {
        // Linux: objpool_init() returns -EINVAL for nr_objs <= 0 or above
        // OBJPOOL_NR_OBJECT_MAX.
        if capacity == 0 || capacity > OBJPOOL_NR_OBJECT_MAX {
            return Err(Errno::EINVAL);
        }
        if nr_shards == 0 || nr_shards > OBJPOOL_NR_SHARDS_MAX {
            return Err(Errno::EINVAL);
        }
        let ring_size = capacity.next_power_of_two().max(ENTRIES_PER_LINE);
        // Cannot overflow: 2^24 * 2^13 < 2^64; checked for 32-bit targets.
        match ring_size.checked_mul(nr_shards) {
            Some(n) if n <= OBJPOOL_NR_ENTRIES_MAX => {}
            _ => return Err(Errno::ENOMEM),
        }

        // Shard r's run: capacity / nr_shards objects, one more for the
        // first capacity % nr_shards shards (objpool_init_percpu_slots()).
        let (run_len, run_extra) = (capacity / nr_shards, capacity % nr_shards);
        let len_of = |r: usize| run_len + usize::from(r < run_extra);
        // Offsets need bit_len(longest run - 1) bits and run numbers
        // bit_len(nr_shards - 1): at most 24 + 2 bits in all, since the
        // longest run is ceil(capacity / nr_shards).
        let run_shift = bit_len(len_of(0) - 1);
        debug_assert!(run_shift + bit_len(nr_shards - 1) <= u32::BITS);
        let obj_size = core::mem::size_of::<ObjCell<T>>();
        let spare = if obj_size == 0 {
            0
        } else {
            RUN_TAIL_PAD.div_ceil(obj_size)
        };

        // Allocate everything before the first objinit call, so a failed
        // allocation leaves no side effect behind.
        let mut rings = Vec::new();
        rings
            .try_reserve_exact(nr_shards)
            .map_err(|_| Errno::ENOMEM)?;
        for _ in 0..nr_shards {
            rings.push(Ring::try_new(ring_size)?);
        }
        let mut runs = Vec::new();
        runs.try_reserve_exact(nr_shards)
            .map_err(|_| Errno::ENOMEM)?;
        for r in 0..nr_shards {
            let mut run = Vec::new();
            if len_of(r) > 0 {
                run.try_reserve_exact(len_of(r) + spare)
                    .map_err(|_| Errno::ENOMEM)?;
            }
            runs.push(run);
        }

        // Build the objects in index order, and queue each on its shard's
        // ring.
        let mut index = 0;
        for (r, (ring, run)) in rings.iter().zip(runs.iter_mut()).enumerate() {
            for offset in 0..len_of(r) {
                run.push(ObjCell::new(objinit(index)?));
                ring.push(((r as u32) << run_shift) | offset as u32);
                index += 1;
            }
        }
        debug_assert_eq!(index, capacity);

        Ok(Self {
            rings: rings.into_boxed_slice(),
            runs: runs.into_boxed_slice(),
            nr_objs: capacity,
            run_shift,
            run_len: run_len as u32,
            run_extra: run_extra as u32,
            shard_magic: fastmod_magic(nr_shards as u32),
        })
    }

    /// Number of objects in the pool, free or held.
    ///
    /// # Linux
    /// `objpool_head.nr_objs`.
    pub fn capacity(&self) -> usize {
        self.nr_objs
    }

    /// Number of shards (rings).
    ///
    /// # Linux
    /// `nr_cpu_ids`, the number of per-CPU slots.
    pub fn nr_shards(&self) -> usize {
        self.rings.len()
    }

    /// The cell of object `id` (`run << run_shift | offset`).
    #[inline]
    fn cell(&self, id: u32) -> &ObjCell<T> {
        let run = (id >> self.run_shift) as usize;
        let offset = (id & ((1 << self.run_shift) - 1)) as usize;
        &self.runs[run][offset]
    }

    /// The index (`0..capacity`, the `objinit` argument) of object `id`.
    fn index_of(&self, id: u32) -> usize {
        let run = id >> self.run_shift;
        let offset = id & ((1 << self.run_shift) - 1);
        (run * self.run_len + run.min(self.run_extra) + offset) as usize
    }

    /// The calling thread's shard: its thread number modulo `nr_shards`.
    #[inline]
    fn local_shard(&self) -> usize {
        fastmod(thread_nr(), self.shard_magic, self.rings.len() as u32) as usize
    }

    /// Takes a free object's id: local ring first, then the others in
    /// order, wrapping around.
    #[inline]
    fn pop_id(&self) -> Option<u32> {
        let nr = self.rings.len();
        let mut shard = self.local_shard();
        for _ in 0..nr {
            if let Some(id) = self.rings[shard].pop() {
                return Some(id);
            }
            shard += 1;
            if shard == nr {
                shard = 0;
            }
        }
        None
    }

    /// Returns object `id` to the calling thread's ring.
    #[inline]
    fn push_id(&self, id: u32) {
        self.rings[self.local_shard()].push(id);
    }

    /// Lends a free object, or returns `None` if none was found.
    ///
    /// Tries the calling thread's ring, then every other ring once, in
    /// order. The object goes back to the pool (the ring of whichever thread
    /// drops the handle) when the returned [`ObjRef`] is dropped; its
    /// contents are kept as the holder left them.
    ///
    /// Lock-free, and O(`nr_shards`) ring probes at worst. It never waits:
    /// `None` means "nothing free was seen", which under concurrency can
    /// miss an object whose push overlaps this call, or one queued behind a
    /// push still in progress on the same ring (see "Spurious misses" in the
    /// [module docs](super)). When every push happens-before this call,
    /// `None` means all `capacity` objects are held.
    ///
    /// # Linux
    /// Mirrors `objpool_pop()` (lib/objpool.c), which returns NULL in the
    /// same cases; a kretprobe counts that as `nmissed`.
    ///
    /// # Examples
    /// ```
    /// use taskcore::objpool::ObjPool;
    /// let pool = ObjPool::with_shards(1, 1, |_| Vec::<u8>::new()).unwrap();
    /// let mut obj = pool.pop().unwrap();
    /// obj.push(7);
    /// assert!(pool.pop().is_none());
    /// drop(obj);
    /// assert_eq!(*pool.pop().unwrap(), [7]);
    /// ```
    #[inline]
    pub fn pop(&self) -> Option<ObjRef<'_, T>> {
        let id = self.pop_id()?;
        Some(ObjRef {
            ptr: self.cell(id).get_mut(),
            id,
            pool: self,
        })
    }

    /// Like [`pop`](Self::pop), but the handle holds an `Arc` of the pool
    /// instead of borrowing it, so it may outlive the caller's reference.
    ///
    /// The pool is torn down (every object dropped) when the last `Arc`,
    /// including those inside handles, goes away, so a handle is always
    /// back before teardown.
    ///
    /// Under `--cfg loom` the `Arc` is loom's.
    ///
    /// # Linux
    /// Mirrors `objpool_pop()` plus the pool reference count that
    /// `objpool_fini()`/`objpool_drop()` release (lib/objpool.c): the pool
    /// is freed when the owner and every outstanding object are gone.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use taskcore::objpool::ObjPool;
    /// let pool = Arc::new(ObjPool::with_shards(2, 1, |i| i).unwrap());
    /// let obj = ObjPool::pop_owned(&pool).unwrap();
    /// drop(pool); // the pool lives on inside `obj`
    /// assert!(*obj < 2);
    /// ```
    #[inline]
    pub fn pop_owned(this: &Arc<Self>) -> Option<OwnedObjRef<T>> {
        let id = this.pop_id()?;
        Some(OwnedObjRef {
            ptr: this.cell(id).get_mut(),
            id,
            pool: Arc::clone(this),
        })
    }

    /// Checks the pool's invariants and returns the number of free objects.
    ///
    /// Asserts (panics on failure; a failure is a bug in this module):
    /// every ring's invariants; every free index below `capacity`; no index
    /// free twice. The count is `capacity` unless handles were leaked with
    /// `mem::forget`. O(`nr_shards * ring size`).
    ///
    /// `&mut self` guarantees no handle is alive and no operation runs.
    /// Compiled under `cfg(test)`, `debug_assertions` or `loom` only.
    ///
    /// # Linux
    /// No Linux analogue.
    #[cfg(any(test, debug_assertions, loom))]
    pub fn check_invariants(&mut self) -> usize {
        self.free_lists().iter().map(Vec::len).sum()
    }

    /// The free object indices of each ring, oldest first, after checking
    /// the invariants as [`check_invariants`](Self::check_invariants) does.
    ///
    /// Takes `&self` so single-threaded tests can call it while holding
    /// handles; the caller guarantees no operation runs concurrently.
    #[cfg(any(test, debug_assertions, loom))]
    fn free_lists(&self) -> Vec<Vec<usize>> {
        let nr_shards = self.rings.len();
        assert!(nr_shards > 0 && nr_shards <= OBJPOOL_NR_SHARDS_MAX);
        assert_eq!(self.runs.len(), nr_shards);
        assert_eq!(self.shard_magic, fastmod_magic(nr_shards as u32));
        let lens: usize = self.runs.iter().map(Vec::len).sum();
        assert_eq!(lens, self.nr_objs, "runs hold every object");
        let mut seen = vec![false; self.nr_objs];
        let mut lists = Vec::with_capacity(nr_shards);
        for ring in self.rings.iter() {
            let mut list = Vec::new();
            ring.for_each_free(self.nr_objs, |id| {
                let run = (id >> self.run_shift) as usize;
                let offset = (id & ((1 << self.run_shift) - 1)) as usize;
                assert!(
                    run < nr_shards && offset < self.runs[run].len(),
                    "bad id {id:#x}"
                );
                let idx = self.index_of(id);
                assert!(
                    !std::mem::replace(&mut seen[idx], true),
                    "object {idx} free twice"
                );
                list.push(idx);
            });
            lists.push(list);
        }
        lists
    }
}

impl<T> fmt::Debug for ObjPool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjPool")
            .field("capacity", &self.capacity())
            .field("nr_shards", &self.nr_shards())
            .finish_non_exhaustive()
    }
}

/// Exclusive access to one pooled object, borrowed from an [`ObjPool`];
/// returns the object to the pool when dropped.
///
/// Derefs to `T` mutably. Dropping it pushes the object to the ring of the
/// dropping thread (wait-free); `mem::forget` keeps the object out of
/// circulation until the pool is dropped, which still drops it.
///
/// `Send` when `T: Send`; `Sync` when `T: Send + Sync`.
///
/// The borrow ties the handle to its pool, so every `ObjRef` is back before
/// the pool can be dropped:
///
/// ```compile_fail
/// use taskcore::objpool::ObjPool;
/// let obj = {
///     let pool = ObjPool::with_shards(1, 1, |i| i).unwrap();
///     pool.pop().unwrap()
/// };
/// ```
///
/// # Linux
/// An object pointer from `objpool_pop()`; the drop is `objpool_push()`.
pub struct ObjRef<'a, T> {
    /// Tracked pointer to the object; valid while `pool` is borrowed.
    ptr: ObjPtr<T>,
    /// The object's id in `pool` (`run << run_shift | offset`).
    id: u32,
    /// The pool the object returns to.
    pool: &'a ObjPool<T>,
}

impl<T> ObjRef<'_, T> {
    /// The object's index in `0..capacity`, fixed for the pool's lifetime:
    /// `objinit(index)` built it. An associated function (call it as
    /// `ObjRef::index(&obj)`) so it cannot shadow a method of `T`.
    ///
    /// # Linux
    /// No Linux analogue (Linux hands out the object's address).
    ///
    /// # Examples
    /// ```
    /// use taskcore::objpool::{ObjPool, ObjRef};
    /// let pool = ObjPool::with_shards(4, 1, |i| i * 2).unwrap();
    /// let obj = pool.pop().unwrap();
    /// assert_eq!(*obj, ObjRef::index(&obj) * 2);
    /// ```
    pub fn index(this: &Self) -> usize {
        this.pool.index_of(this.id)
    }
}

impl<T> Deref for ObjRef<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: 1. the pointer is into a run of `pool.runs`, alive for
        // `'a`, and runs are never resized after creation, so their buffers
        // do not move; 2. this handle owns the object from the `Ring::pop`
        // that produced its id until the `Ring::push` in `drop` (pool invariant 1), and
        // the Acquire of that pop makes the previous holder's writes
        // visible; 3. the `&T` borrows `self`, so no `&mut T` from this
        // handle coexists with it.
        unsafe { &*self.ptr.as_ptr() }
    }
}

impl<T> DerefMut for ObjRef<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: 1. and 2. as in `deref`; 3. the `&mut T` borrows `self`
        // mutably, so it is the only reference derived from this handle,
        // and no other handle to the object exists.
        unsafe { &mut *self.ptr.as_ptr() }
    }
}

impl<T> Drop for ObjRef<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.ptr.end_access();
        self.pool.push_id(self.id);
    }
}

// SAFETY: sending the handle moves exclusive access to a `T` (needs
// `T: Send`) and a `&ObjPool<T>` (needs `ObjPool<T>: Sync`, i.e. `T: Send`).
unsafe impl<T: Send> Send for ObjRef<'_, T> {}

// SAFETY: a shared `&ObjRef` only yields `&T` (needs `T: Sync`); the pool
// reference inside is not reachable through `&ObjRef`, but `T: Send` is
// required too, conservatively, as for sending.
unsafe impl<T: Send + Sync> Sync for ObjRef<'_, T> {}

impl<T: fmt::Debug> fmt::Debug for ObjRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjRef")
            .field("index", &self.pool.index_of(self.id))
            .field("obj", &**self)
            .finish()
    }
}

/// Exclusive access to one pooled object, holding an `Arc` of its
/// [`ObjPool`]; returns the object when dropped, and tears the pool down
/// if it was the last reference.
///
/// Made by [`ObjPool::pop_owned`]. Otherwise as [`ObjRef`].
///
/// # Linux
/// An object from `objpool_pop()` on a pool whose owner may already have
/// called `objpool_fini()`; dropping it is `objpool_push()` (or
/// `objpool_drop()` when the pool is being finalised).
pub struct OwnedObjRef<T> {
    /// Tracked pointer to the object; valid while `pool` is alive.
    ptr: ObjPtr<T>,
    /// The object's id in `pool` (`run << run_shift | offset`).
    id: u32,
    /// The pool, kept alive by this handle.
    pool: Arc<ObjPool<T>>,
}

impl<T> OwnedObjRef<T> {
    /// The object's index in `0..capacity`; see [`ObjRef::index`].
    ///
    /// # Linux
    /// No Linux analogue.
    pub fn index(this: &Self) -> usize {
        this.pool.index_of(this.id)
    }

    /// The pool the object belongs to.
    ///
    /// # Linux
    /// No Linux analogue (kretprobe instances keep `rph`, their holder).
    pub fn pool(this: &Self) -> &Arc<ObjPool<T>> {
        &this.pool
    }
}

impl<T> Deref for OwnedObjRef<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: as for `ObjRef::deref`, with the pool kept alive by the
        // `Arc` in `self` instead of a borrow.
        unsafe { &*self.ptr.as_ptr() }
    }
}

impl<T> DerefMut for OwnedObjRef<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for `ObjRef::deref_mut`, with the pool kept alive by
        // the `Arc` in `self`.
        unsafe { &mut *self.ptr.as_ptr() }
    }
}

impl<T> Drop for OwnedObjRef<T> {
    #[inline]
    fn drop(&mut self) {
        self.ptr.end_access();
        // The push comes before the `Arc` field is dropped (fields drop
        // after this body), so the pool is alive for it; if this was the
        // last reference, the `Arc`'s release/acquire makes the push (and
        // this holder's writes) happen before the teardown.
        self.pool.push_id(self.id);
    }
}

// SAFETY: sending the handle moves exclusive access to a `T` (needs
// `T: Send`) and an `Arc<ObjPool<T>>` (needs `ObjPool<T>: Send + Sync`,
// i.e. `T: Send`).
unsafe impl<T: Send> Send for OwnedObjRef<T> {}

// SAFETY: `&OwnedObjRef` yields `&T` (needs `T: Sync`) and
// `&Arc<ObjPool<T>>` (needs `ObjPool<T>: Sync`, i.e. `T: Send`).
unsafe impl<T: Send + Sync> Sync for OwnedObjRef<T> {}

impl<T: fmt::Debug> fmt::Debug for OwnedObjRef<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedObjRef")
            .field("index", &self.pool.index_of(self.id))
            .field("obj", &**self)
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    /// An object that counts its drops in a per-index counter.
    struct Counted<'a> {
        idx: usize,
        drops: &'a [AtomicUsize],
    }

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.drops[self.idx].fetch_add(1, Relaxed);
        }
    }

    fn counters(n: usize) -> Vec<AtomicUsize> {
        (0..n).map(|_| AtomicUsize::new(0)).collect()
    }

    fn all_ones(c: &[AtomicUsize]) -> bool {
        c.iter().all(|c| c.load(Relaxed) == 1)
    }

    /// Shapes used by several tests: (capacity, nr_shards).
    const SHAPES: &[(usize, usize)] = &[(1, 1), (1, 3), (3, 2), (10, 4), (16, 1), (17, 2), (40, 3)];

    #[test]
    fn smoke() {
        let mut pool = ObjPool::with_shards(2, 1, |i| i * 100).unwrap();
        assert_eq!((pool.capacity(), pool.nr_shards()), (2, 1));
        {
            let mut a = pool.pop().unwrap();
            assert_eq!(*a, ObjRef::index(&a) * 100);
            *a += 1;
            let b = pool.pop().unwrap();
            assert_ne!(ObjRef::index(&a), ObjRef::index(&b));
            assert!(pool.pop().is_none());
            // FIFO within a ring: objects come back in drop order.
            drop(b);
            drop(a);
            let first = pool.pop().unwrap();
            assert_eq!(ObjRef::index(&first), 1);
            let second = pool.pop().unwrap();
            assert_eq!((ObjRef::index(&second), *second), (0, 1));
        }
        assert_eq!(pool.check_invariants(), 2);
    }

    #[test]
    fn every_object_returned() {
        for &(cap, shards) in SHAPES {
            let mut pool = ObjPool::with_shards(cap, shards, |i| i).unwrap();
            assert_eq!(pool.check_invariants(), cap);
            for _round in 0..3 {
                let held: Vec<_> = core::iter::from_fn(|| pool.pop()).collect();
                let idx: BTreeSet<usize> = held.iter().map(ObjRef::index).collect();
                assert_eq!(idx, (0..cap).collect(), "cap {cap} shards {shards}");
                assert!(held.iter().all(|o| **o == ObjRef::index(o)));
                assert!(pool.pop().is_none());
                assert!(pool.free_lists().iter().all(Vec::is_empty));
                drop(held);
            }
            assert_eq!(pool.check_invariants(), cap);
        }
    }

    #[test]
    fn pop_on_empty_returns_none() {
        let pool = ObjPool::with_shards(3, 2, |_| ()).unwrap();
        let held = [pool.pop(), pool.pop(), pool.pop()];
        assert!(held.iter().all(Option::is_some));
        for _ in 0..3 {
            assert!(pool.pop().is_none());
        }
        drop(held);
        assert!(pool.pop().is_some());
    }

    #[test]
    fn objects_spread_evenly_in_contiguous_runs() {
        for &(cap, shards) in SHAPES {
            let pool = ObjPool::with_shards(cap, shards, |i| i).unwrap();
            let mut next = 0;
            for (r, list) in pool.free_lists().iter().enumerate() {
                let n = cap / shards + usize::from(r < cap % shards);
                assert_eq!(*list, (next..next + n).collect::<Vec<_>>());
                assert_eq!(pool.runs[r].len(), n);
                // Spare capacity pads the run's tail (8-byte objects).
                if n > 0 {
                    assert!(pool.runs[r].capacity() >= n + RUN_TAIL_PAD / 8);
                }
                next += n;
            }
            for ring in pool.rings.iter() {
                assert!(ring.size().is_power_of_two() && ring.size() >= cap);
            }
        }
    }

    #[test]
    fn drop_counts_every_object_once() {
        for &(cap, shards) in SHAPES {
            let drops = counters(cap);
            let pool =
                ObjPool::with_shards(cap, shards, |idx| Counted { idx, drops: &drops }).unwrap();
            // Hold some, leak one, return the rest: teardown still drops
            // each object exactly once.
            let a = pool.pop();
            let b = pool.pop();
            core::mem::forget(b);
            drop(a);
            assert!(drops.iter().all(|c| c.load(Relaxed) == 0));
            drop(pool);
            assert!(all_ones(&drops), "cap {cap} shards {shards}");
        }
    }

    #[test]
    fn owned_handles_tear_down_with_the_last_reference() {
        let drops = counters(4);
        let pool =
            Arc::new(ObjPool::with_shards(4, 2, |idx| Counted { idx, drops: &drops }).unwrap());
        let a = ObjPool::pop_owned(&pool).unwrap();
        let b = ObjPool::pop_owned(&pool).unwrap();
        assert!(Arc::ptr_eq(OwnedObjRef::pool(&a), &pool));
        assert_ne!(OwnedObjRef::index(&a), OwnedObjRef::index(&b));
        drop(pool);
        drop(a);
        assert!(drops.iter().all(|c| c.load(Relaxed) == 0));
        // The last handle goes away on another thread, which tears down.
        std::thread::scope(|s| {
            s.spawn(move || drop(b));
        });
        assert!(all_ones(&drops));
    }

    #[test]
    fn bad_arguments_fail_without_calling_objinit() {
        let calls = AtomicUsize::new(0);
        let init = |i: usize| {
            calls.fetch_add(1, Relaxed);
            i
        };
        let e = |c, s| ObjPool::with_shards(c, s, init).unwrap_err();
        assert_eq!(e(0, 1), Errno::EINVAL);
        assert_eq!(e(OBJPOOL_NR_OBJECT_MAX + 1, 1), Errno::EINVAL);
        assert_eq!(e(usize::MAX, 1), Errno::EINVAL);
        assert_eq!(e(1, 0), Errno::EINVAL);
        assert_eq!(e(1, OBJPOOL_NR_SHARDS_MAX + 1), Errno::EINVAL);
        // 2^24 objects on 64 shards: 2^30 entries, over the 2^28 limit.
        assert_eq!(e(OBJPOOL_NR_OBJECT_MAX, 64), Errno::ENOMEM);
        assert_eq!(ObjPool::new(0, init).unwrap_err(), Errno::EINVAL);
        assert_eq!(calls.load(Relaxed), 0);
        // The limits themselves are accepted (too slow for miri: 8192
        // rings of 16 entries).
        if !cfg!(miri) {
            let pool = ObjPool::with_shards(1, OBJPOOL_NR_SHARDS_MAX, init).unwrap();
            assert_eq!(pool.nr_shards(), OBJPOOL_NR_SHARDS_MAX);
            assert_eq!(calls.load(Relaxed), 1);
        }
    }

    #[test]
    fn objinit_error_propagates_and_drops_built_objects() {
        let drops = counters(5);
        let r = ObjPool::try_with_shards(5, 2, |idx| {
            if idx == 3 {
                Err(Errno::ENOSPC)
            } else {
                Ok(Counted { idx, drops: &drops })
            }
        });
        assert_eq!(r.unwrap_err(), Errno::ENOSPC);
        let got: Vec<usize> = drops.iter().map(|c| c.load(Relaxed)).collect();
        assert_eq!(got, [1, 1, 1, 0, 0]);
    }

    #[test]
    fn default_shard_count_is_available_parallelism() {
        let pool = ObjPool::new(4, |i| i).unwrap();
        let cpus = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        assert_eq!(pool.nr_shards(), cpus.min(OBJPOOL_NR_SHARDS_MAX));
    }

    #[test]
    fn fastmod_matches_remainder() {
        let divisors = [
            1u32,
            2,
            3,
            5,
            7,
            8,
            12,
            96,
            1000,
            8191,
            8192,
            u32::MAX - 1,
            u32::MAX,
        ];
        let step = if cfg!(miri) { 0x0fff_ffff } else { 0x000f_ffff };
        for d in divisors {
            let m = fastmod_magic(d);
            let edges = [0u32, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX];
            let strided = (0..=u32::MAX).step_by(step as usize);
            for a in edges.into_iter().chain(strided) {
                assert_eq!(fastmod(a, m, d), a % d, "{a} % {d}");
            }
        }
    }

    #[test]
    fn handle_dropped_on_another_thread_returns_to_its_ring() {
        let mut pool = ObjPool::with_shards(4, 4, |i| i).unwrap();
        let obj = pool.pop().unwrap();
        let idx = ObjRef::index(&obj);
        let other = std::thread::scope(|s| {
            s.spawn(move || {
                let shard = obj.pool.local_shard();
                drop(obj);
                shard
            })
            .join()
            .unwrap()
        });
        assert_eq!(pool.free_lists()[other].last(), Some(&idx));
        assert_eq!(pool.check_invariants(), 4);
    }

    #[test]
    fn zero_sized_objects() {
        let mut pool = ObjPool::with_shards(3, 2, |_| ()).unwrap();
        let held: Vec<_> = core::iter::from_fn(|| pool.pop()).collect();
        assert_eq!(held.len(), 3);
        drop(held);
        assert_eq!(pool.check_invariants(), 3);
    }

    #[test]
    fn debug_output_names_shape_and_object() {
        let pool = ObjPool::with_shards(2, 1, |i| i + 40).unwrap();
        assert_eq!(
            format!("{pool:?}"),
            "ObjPool { capacity: 2, nr_shards: 1, .. }"
        );
        let obj = pool.pop().unwrap();
        assert_eq!(format!("{obj:?}"), "ObjRef { index: 0, obj: 40 }");
    }

    /// Single-threaded model: per-ring FIFO queues, the local ring first,
    /// then the others in order; pushes to the local ring. Proptest is too
    /// slow under miri.
    #[cfg(not(miri))]
    mod model {
        use super::*;
        use proptest::prelude::*;
        use std::collections::VecDeque;

        #[derive(Debug, Clone)]
        enum Op {
            Pop,
            /// Return the held object at this position (mod the number
            /// held).
            Drop(usize),
            /// Write to the held object at this position.
            Write(usize, u64),
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                3 => Just(Op::Pop),
                2 => any::<usize>().prop_map(Op::Drop),
                1 => (any::<usize>(), any::<u64>()).prop_map(|(i, v)| Op::Write(i, v)),
            ]
        }

        proptest! {
            #[test]
            fn pool_matches_fifo_ring_model(
                cap in 1usize..40,
                shards in 1usize..6,
                ops in proptest::collection::vec(op(), 0..200),
            ) {
                let pool = ObjPool::with_shards(cap, shards, |_| 0u64).unwrap();
                let local = pool.local_shard();
                let mut rings: Vec<VecDeque<usize>> = pool
                    .free_lists()
                    .into_iter()
                    .map(VecDeque::from)
                    .collect();
                let mut values = vec![0u64; cap];
                let mut held: Vec<ObjRef<'_, u64>> = Vec::new();
                for op in ops {
                    match op {
                        Op::Pop => {
                            let want = (0..shards)
                                .map(|k| (local + k) % shards)
                                .find_map(|r| rings[r].pop_front());
                            let got = pool.pop();
                            prop_assert_eq!(got.as_ref().map(ObjRef::index), want);
                            if let Some(o) = got {
                                prop_assert_eq!(*o, values[ObjRef::index(&o)]);
                                held.push(o);
                            }
                        }
                        Op::Drop(k) if !held.is_empty() => {
                            let o = held.swap_remove(k % held.len());
                            rings[local].push_back(ObjRef::index(&o));
                            drop(o);
                        }
                        Op::Write(k, v) if !held.is_empty() => {
                            let k = k % held.len();
                            *held[k] = v;
                            values[ObjRef::index(&held[k])] = v;
                        }
                        Op::Drop(_) | Op::Write(..) => {}
                    }
                    let model: Vec<Vec<usize>> =
                        rings.iter().map(|r| r.iter().copied().collect()).collect();
                    prop_assert_eq!(pool.free_lists(), model);
                }
            }
        }
    }
}
