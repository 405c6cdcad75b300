//! A live view of the run for readers on other threads (a FUSE `/proc`
//! server): on request, the supervisor publishes a snapshot of the core
//! ([`Kernel::snapshot`]) and of the numbering between two stops, so that
//! a reader sees a state the core was in, never one half-applied.
//!
//! A reader calls [`LiveView::current`]: it raises a flag and interrupts
//! the supervisor's `waitpid` with [`view_signal`]; the supervisor
//! publishes before it waits again, and the reader takes the newest view.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use taskcore::Kernel;

/// The signal that wakes the supervisor for a view: `SIGRTMIN + 2` (no
/// program sees it; it goes to the supervisor's own thread).
pub fn view_signal() -> i32 {
    libc::SIGRTMIN() + 2
}

/// The run as of one moment between two stops.
#[derive(Debug)]
pub struct View {
    /// The core: init (the supervisor) is pid 1 of its root namespace.
    pub kernel: Kernel,
    /// Real thread id → virtual thread id, for every traced thread.
    pub to_virtual: HashMap<i32, i32>,
    /// Virtual thread id → real, the reverse.
    pub to_real: HashMap<i32, i32>,
}

#[derive(Debug, Default)]
struct Published {
    view: Option<Arc<View>>,
    /// When `view` was published.
    at: Option<Instant>,
    generation: u64,
}

/// A view this young is served as it is, if the supervisor has handled
/// no stop since it was published: the requests of one `ps` (a lookup, an
/// open and a read per file) share one snapshot, and a reader never sees
/// a state older than a stop the supervisor already applied.
const FRESH: Duration = Duration::from_millis(2);

/// Where the supervisor publishes views and readers take them.
#[derive(Debug, Default)]
pub struct LiveView {
    published: Mutex<Published>,
    changed: Condvar,
    wanted: AtomicBool,
    /// The supervisor handled a stop since the last view was published.
    stale: AtomicBool,
    /// The supervisor's thread (0 before the run starts).
    supervisor: AtomicI32,
}

impl LiveView {
    /// A view holder to give to [`crate::options::Options::live_view`].
    pub fn new() -> Arc<LiveView> {
        Arc::new(LiveView::default())
    }

    /// A fresh view: the newest if it is under 2 ms old and no stop was
    /// handled since, else asks the supervisor for one and waits up to
    /// `wait` for it; returns the newest published (`None` before the run
    /// published any).
    pub fn current(&self, wait: Duration) -> Option<Arc<View>> {
        let deadline = Instant::now() + wait;
        let mut p = self.published.lock().ok()?;
        if !self.stale.load(Ordering::SeqCst) && p.at.is_some_and(|t| t.elapsed() < FRESH) {
            return p.view.clone();
        }
        let start = p.generation;
        self.wanted.store(true, Ordering::SeqCst);
        while p.generation == start {
            let sup = self.supervisor.load(Ordering::SeqCst);
            if sup != 0 {
                // SAFETY: tgkill of the supervisor's own thread, whose
                // handler for this signal does nothing.
                unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), sup, view_signal()) };
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            // Re-signal now and then: the signal may land just before the
            // supervisor's waitpid.
            let slice = (deadline - now).min(Duration::from_millis(10));
            p = self.changed.wait_timeout(p, slice).ok()?.0;
        }
        p.view.clone()
    }

    /// Whether a reader waits for a view (clears the request).
    pub(crate) fn take_request(&self) -> bool {
        self.wanted.swap(false, Ordering::SeqCst)
    }

    /// The supervisor handled a stop: the published view may be older
    /// than the core (the next reader asks for a new one).
    pub(crate) fn invalidate(&self) {
        self.stale.store(true, Ordering::Relaxed);
    }

    /// Publishes `view` and wakes the readers.
    pub(crate) fn publish(&self, view: View) {
        if let Ok(mut p) = self.published.lock() {
            self.stale.store(false, Ordering::SeqCst);
            p.view = Some(Arc::new(view));
            p.at = Some(Instant::now());
            p.generation += 1;
        }
        self.changed.notify_all();
    }

    /// Records the supervisor's thread and installs the view signal's
    /// handler (it only interrupts `waitpid`).
    pub(crate) fn attach(&self) {
        extern "C" fn nothing(_: libc::c_int) {}
        // SAFETY: gettid, and a sigaction whose handler does nothing; no
        // SA_RESTART, so waitpid returns EINTR.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = nothing as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(view_signal(), &sa, std::ptr::null_mut());
            self.supervisor
                .store(libc::syscall(libc::SYS_gettid) as i32, Ordering::SeqCst);
        }
    }
}
