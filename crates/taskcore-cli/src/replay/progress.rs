//! The progress line of `taskcore replay`: shown on standard error, as
//! cargo does, only when that is a terminal and only once the replay has
//! run for [`SHOW_AFTER`]; cleared when it ends.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a replay runs before its progress line appears.
pub(crate) const SHOW_AFTER: Duration = Duration::from_secs(2);

/// How often the progress line is redrawn.
const REDRAW_EVERY: Duration = Duration::from_millis(120);

/// Counters the replaying threads update, drawn by the progress line.
pub(crate) struct Progress {
    bar: ProgressBar,
    files: usize,
    files_done: AtomicUsize,
    events: AtomicU64,
    mismatches: AtomicU64,
}

impl Progress {
    /// A hidden progress line over `files` files.
    pub(crate) fn new(files: usize) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} Replaying [{elapsed}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        Progress {
            bar,
            files,
            files_done: AtomicUsize::new(0),
            events: AtomicU64::new(0),
            mismatches: AtomicU64::new(0),
        }
    }

    /// `n` more events read; `mismatches` final mismatches of one file
    /// more than at its previous call.
    pub(crate) fn add(&self, n: u64, mismatches: u64) {
        self.events.fetch_add(n, Ordering::Relaxed);
        self.mismatches.fetch_add(mismatches, Ordering::Relaxed);
    }

    /// One more file finished.
    pub(crate) fn file_done(&self) {
        self.files_done.fetch_add(1, Ordering::Relaxed);
    }

    /// Draws the counters (from the drawing thread only: the replaying
    /// threads never wait on the terminal).
    fn redraw(&self) {
        let mut msg = format!(
            "{} events, {} mismatches",
            self.events.load(Ordering::Relaxed),
            self.mismatches.load(Ordering::Relaxed)
        );
        if self.files > 1 {
            msg.push_str(&format!(
                ", {}/{} files",
                self.files_done.load(Ordering::Relaxed),
                self.files
            ));
        }
        self.bar.set_message(msg);
    }

    /// Runs `work`, showing the line on a terminal's standard error (when
    /// `allowed`) if `work` takes longer than [`SHOW_AFTER`], redrawn every
    /// [`REDRAW_EVERY`] by a thread of its own.
    pub(crate) fn around<T: Send>(&self, allowed: bool, work: impl FnOnce() -> T + Send) -> T {
        if !allowed || !std::io::stderr().is_terminal() {
            return work();
        }
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let out = std::thread::scope(|s| {
            s.spawn(move || {
                if done_rx.recv_timeout(SHOW_AFTER).is_ok() {
                    return;
                }
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
                loop {
                    self.redraw();
                    self.bar.tick();
                    if done_rx.recv_timeout(REDRAW_EVERY).is_ok() {
                        break;
                    }
                }
                self.bar.finish_and_clear();
            });
            let out = work();
            let _ = done_tx.send(());
            out
        });
        out
    }
}
