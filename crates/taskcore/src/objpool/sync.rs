//! Synchronisation shim: `std` normally, `loom` under `--cfg loom`.
//!
//! Everything the pool shares between threads goes through this module so
//! that the loom model (`tests/it/objpool_loom.rs`) checks the very code that
//! ships. Three things differ between the two builds:
//!
//! * the atomics and [`Arc`] (`std::sync` or `loom::sync`);
//! * [`ObjCell`], the cell holding one pooled object: a plain
//!   [`core::cell::UnsafeCell`] normally, a `loom::cell::UnsafeCell` under
//!   loom, whose access guard ([`ObjPtr`]) makes loom report any two
//!   overlapping exclusive accesses to one object, i.e. an object handed to
//!   two holders at once;
//! * [`thread_nr`], the per-thread number the local shard is derived from
//!   (a `thread_local!` under both, loom's version being per model thread).
//!
//! # Linux
//! No Linux analogue; Linux's objpool uses the kernel's own atomics and
//! `raw_smp_processor_id()`.

#[cfg(not(loom))]
pub(super) use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

#[cfg(loom)]
pub(super) use loom::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

/// Returns the calling thread's number: 0 for the first thread that asks,
/// 1 for the next, and so on (wrapping after 2^32 threads).
///
/// Numbers are handed out round-robin on first use, so N threads using a
/// pool of N shards land on N distinct shards. A thread asking during its
/// own thread-local teardown gets 0: the number is only a placement hint,
/// never needed for correctness.
///
/// # Linux
/// Stands in for `raw_smp_processor_id()`: user space has no stable CPU
/// number (threads migrate), so the shard follows the thread instead.
#[cfg(not(loom))]
#[inline]
pub(super) fn thread_nr() -> u32 {
    use std::sync::atomic::AtomicU32;

    /// Next thread number to hand out; a plain counter, wrapping at 2^32.
    static NEXT_THREAD_NR: AtomicU32 = AtomicU32::new(0);

    std::thread_local! {
        // Relaxed: the counter only has to hand out distinct numbers, which
        // the read-modify-write guarantees whatever the ordering.
        static THREAD_NR: u32 = NEXT_THREAD_NR.fetch_add(1, Ordering::Relaxed);
    }
    THREAD_NR.try_with(|nr| *nr).unwrap_or(0)
}

/// Loom build of [`thread_nr`]: the counter is reset for every explored
/// execution, so each execution numbers its threads in first-use order.
#[cfg(loom)]
pub(super) fn thread_nr() -> u32 {
    use loom::sync::atomic::AtomicU32;

    loom::lazy_static! {
        static ref NEXT_THREAD_NR: AtomicU32 = AtomicU32::new(0);
    }
    loom::thread_local! {
        // Relaxed: distinct numbers only, as in the std build.
        static THREAD_NR: u32 = NEXT_THREAD_NR.fetch_add(1, Ordering::Relaxed);
    }
    THREAD_NR.with(|nr| *nr)
}

/// The cell holding one pooled object.
///
/// Access is exclusive by protocol, not by type: whoever popped the
/// object's index from a ring owns it until the index is pushed back (see
/// the ownership argument in the module docs of [`super`]).
#[cfg(not(loom))]
#[derive(Debug)]
pub(super) struct ObjCell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> ObjCell<T> {
    /// Wraps `value`.
    pub(super) fn new(value: T) -> Self {
        Self(core::cell::UnsafeCell::new(value))
    }

    /// Starts an exclusive access to the object; it lasts until
    /// [`ObjPtr::end_access`] (or the drop of the returned pointer).
    ///
    /// Safe in itself: only dereferencing the pointer needs the caller to
    /// own the object.
    #[inline]
    pub(super) fn get_mut(&self) -> ObjPtr<T> {
        ObjPtr(self.0.get())
    }
}

/// A raw pointer to the object of an [`ObjCell`], held for the duration of
/// one exclusive access.
#[cfg(not(loom))]
#[derive(Debug)]
pub(super) struct ObjPtr<T>(*mut T);

#[cfg(not(loom))]
impl<T> ObjPtr<T> {
    /// The object's address. Valid while the pool holding the cell lives.
    #[inline]
    pub(super) fn as_ptr(&self) -> *mut T {
        self.0
    }

    /// Ends the access; the pointer must not be dereferenced afterwards.
    /// A no-op outside loom, where the access is not tracked.
    #[inline]
    pub(super) fn end_access(&mut self) {}
}

/// Loom build of the object cell: accesses are tracked by loom.
#[cfg(loom)]
#[derive(Debug)]
pub(super) struct ObjCell<T>(loom::cell::UnsafeCell<T>);

#[cfg(loom)]
impl<T> ObjCell<T> {
    /// Wraps `value`.
    pub(super) fn new(value: T) -> Self {
        Self(loom::cell::UnsafeCell::new(value))
    }

    /// Starts a loom-tracked exclusive access; loom panics if another
    /// access to the same cell overlaps it without a happens-before edge.
    pub(super) fn get_mut(&self) -> ObjPtr<T> {
        let guard = self.0.get_mut();
        let ptr = guard.with(|ptr| ptr);
        ObjPtr {
            ptr,
            guard: Some(guard),
        }
    }
}

/// Loom build of [`ObjPtr`]: keeps loom's access guard alive until
/// [`ObjPtr::end_access`].
#[cfg(loom)]
#[derive(Debug)]
pub(super) struct ObjPtr<T> {
    /// The object's address.
    ptr: *mut T,
    /// Loom's record of the ongoing exclusive access; `None` once ended.
    guard: Option<loom::cell::MutPtr<T>>,
}

#[cfg(loom)]
impl<T> ObjPtr<T> {
    /// The object's address. Valid while the pool holding the cell lives.
    pub(super) fn as_ptr(&self) -> *mut T {
        debug_assert!(self.guard.is_some(), "object accessed after end_access");
        self.ptr
    }

    /// Ends the tracked access, before the object goes back to a ring.
    pub(super) fn end_access(&mut self) {
        self.guard = None;
    }
}
