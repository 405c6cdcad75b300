//! A kernel shared by OS threads: for an embedder whose emulated tasks are
//! threads of its own.
//!
//! [`SharedKernel`] holds the [`Kernel`] behind one mutex, the role of
//! Linux's `tasklist_lock`, and a condition variable that stands for the
//! `wait_chldexit` queues. [`SharedKernel::call`] runs one operation and
//! hands back exactly the notifications it raised. The blocking waits
//! ([`SharedKernel::wait4`], [`SharedKernel::waitid`]) park the calling
//! thread while the wait would block and return once a child event of the
//! caller's thread group lets it retry; a timeout bounds the sleep.
//!
//! # The wake-up protocol
//! Check and sleep happen under the same lock: the waiter calls the wait,
//! reads its group's [`Kernel::child_event_seq`] in the same critical
//! section, and sleeps only while that number is unchanged. Every operation
//! that wakes a group bumps the number inside the lock and then notifies
//! the condition variable, so a wake-up between the check and the sleep
//! cannot be lost (`tests/it/sync_loom.rs` checks every interleaving of a
//! small model; `tests/it/sync_stress.rs` runs 8 threads).
//!
//! Interruption by a signal comes with the signal path (a waiter is woken
//! by [`SharedKernel::interrupt`] and its wait returns `EINTR`).
//!
//! # Linux
//! `do_wait()`: `add_wait_queue(&current->signal->wait_chldexit)`, set
//! `TASK_INTERRUPTIBLE`, check, `schedule()`, and `__wake_up_parent()` from
//! `do_notify_parent()`.

#[cfg(loom)]
use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
use std::sync::{Condvar, Mutex, MutexGuard};

use std::time::{Duration, Instant};

use crate::errno::{Errno, Result};

use crate::task::kernel::{Kernel, Notification};

use crate::ix::TaskId;

use crate::wait::{WaitOutcome, WaitReport};

/// The shared kernel and its wait queue.
#[derive(Debug)]
pub struct SharedKernel {
    kernel: Mutex<Inner>,
    /// Woken (all waiters) on every `WakeChldexit` and interruption.
    chldexit: Condvar,
}

#[derive(Debug)]
struct Inner {
    k: Kernel,
    /// Tasks asked to stop waiting (`EINTR`), until their wait returns.
    interrupted: Vec<TaskId>,
}

/// What a blocking wait returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Blocking {
    /// A child's state change.
    Reported(WaitReport),
    /// `WNOHANG` and nothing to report.
    NothingYet,
    /// The timeout passed while the wait would still block.
    TimedOut,
}

impl SharedKernel {
    /// Shares `k`.
    pub fn new(k: Kernel) -> SharedKernel {
        SharedKernel {
            kernel: Mutex::new(Inner {
                k,
                interrupted: Vec::new(),
            }),
            chldexit: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic in another thread's operation leaves the kernel as that
        // operation left it; later calls see the same state.
        match self.kernel.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Runs `f` on the kernel under the lock and returns its result with
    /// the notifications it raised (and only those), oldest first. Waiters
    /// of every woken group are woken.
    pub fn call<R>(&self, f: impl FnOnce(&mut Kernel) -> R) -> (R, Vec<Notification>) {
        let mut g = self.lock();
        // Notifications left by a caller of `with_kernel` go to this call.
        let r = f(&mut g.k);
        let notes = g.k.take_notifications();
        let wake = notes
            .iter()
            .any(|n| matches!(n, Notification::WakeChldexit { .. }));
        drop(g);
        if wake {
            self.chldexit.notify_all();
        }
        (r, notes)
    }

    /// Reads the kernel under the lock (procfs, queries).
    pub fn read<R>(&self, f: impl FnOnce(&Kernel) -> R) -> R {
        f(&self.lock().k)
    }

    /// Blocking `wait4`: retries after each child event of the caller's
    /// group until the wait reports, returns nothing under `WNOHANG`, or
    /// fails; gives up after `timeout` (`None`: never).
    ///
    /// # Errors
    /// As [`Kernel::wait4`]; `EINTR` after [`SharedKernel::interrupt`].
    pub fn wait4(
        &self,
        current: TaskId,
        pid: i32,
        options: i32,
        timeout: Option<Duration>,
    ) -> Result<Blocking> {
        self.block(current, timeout, |k| k.wait4(current, pid, options))
    }

    /// Blocking `waitid`, as [`SharedKernel::wait4`].
    ///
    /// # Errors
    /// As [`Kernel::waitid`]; `EINTR` after [`SharedKernel::interrupt`].
    pub fn waitid(
        &self,
        current: TaskId,
        idtype: i32,
        id: i32,
        options: i32,
        timeout: Option<Duration>,
    ) -> Result<Blocking> {
        self.block(current, timeout, |k| k.waitid(current, idtype, id, options))
    }

    /// Makes a blocked (or the next) wait of `task` return `EINTR`.
    pub fn interrupt(&self, task: TaskId) {
        let mut g = self.lock();
        if !g.interrupted.contains(&task) {
            g.interrupted.push(task);
        }
        drop(g);
        self.chldexit.notify_all();
    }

    fn block(
        &self,
        current: TaskId,
        timeout: Option<Duration>,
        mut wait: impl FnMut(&mut Kernel) -> Result<WaitOutcome>,
    ) -> Result<Blocking> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut g = self.lock();
        loop {
            if let Some(i) = g.interrupted.iter().position(|&t| t == current) {
                g.interrupted.swap_remove(i);
                return Err(Errno::EINTR);
            }
            let r = wait(&mut g.k);
            let woke =
                g.k.take_notifications()
                    .iter()
                    .any(|n| matches!(n, Notification::WakeChldexit { .. }));
            if woke {
                // Reaping can wake others (a tracer's reap lets the real
                // parent see the zombie).
                self.chldexit.notify_all();
            }
            match r? {
                WaitOutcome::Reported(rep) => return Ok(Blocking::Reported(rep)),
                WaitOutcome::NothingYet => return Ok(Blocking::NothingYet),
                WaitOutcome::Interrupted => return Err(Errno::EINTR),
                _ => {}
            }
            let seq = g.k.child_event_seq(current)?;
            // Sleep while nothing happened to the group (and no interrupt).
            while g.k.child_event_seq(current)? == seq && !g.interrupted.contains(&current) {
                g = match deadline {
                    None => match self.chldexit.wait(g) {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    },
                    Some(d) => {
                        let now = Instant::now();
                        if now >= d {
                            return Ok(Blocking::TimedOut);
                        }
                        match self.chldexit.wait_timeout(g, d - now) {
                            Ok((g, _)) => g,
                            Err(p) => p.into_inner().0,
                        }
                    }
                };
            }
        }
    }
}
