//! Python bindings of taskcore (`import taskcore`), built with maturin:
//!
//! - `taskcore.Kernel`: the process core: fork, clone, exit, exit_group,
//!   wait4, waitid, kill, setpgid, setsid, the id queries and a `/proc`
//!   read; Linux's errnos are raised as `OSError` with the right `errno`
//!   (so `ChildProcessError` for ECHILD, `ProcessLookupError` for ESRCH, …);
//!   and `Kernel.syscall(task, nr, args)`, any call of `taskcore::sys`
//!   from its raw x86_64 number and registers ([`raw_syscall`]); the
//!   signal path for a caller that delivers signals itself
//!   (`signal_delivery="on_get_signal"`: `sigaction`, `sigprocmask`,
//!   `get_signal`, `rt_sigreturn`, `take_notifications`, and
//!   `taskcore.resolve_restart` for an interrupted call);
//! - `taskcore.replay(path)`: an iterator over the per-process records of
//!   a `strace -f` recording (pid, ppid, pgid, sid, argv, start, end, exit
//!   status), with the replay's summary and mismatches once it is done.
//!
//! The pure-Rust part ([`RecordStream`], [`os_message`], [`raw_syscall`]) builds without
//! Python and is tested by `cargo test`; the module itself needs the
//! `python` feature (`maturin build` turns it on).

use std::collections::VecDeque;
use std::io::BufRead;
use std::path::Path;

use taskcore_replay::{InputError, Mismatch, Options, ProcessRecord, Replayer, Summary};
use taskcore_strace::TraceReader;

#[cfg(feature = "python")]
mod python;
#[cfg(feature = "python")]
mod python_signal;
mod syscall;

pub use syscall::{raw_syscall, PidFds, RangeMemory, Raw};

/// The C library's message for `errno` (`strerror`), without Rust's
/// `(os error N)` suffix.
pub fn os_message(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    match s.rfind(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// A trace replayed lazily: each call to [`Iterator::next`] reads and
/// replays until the next process record is final.
pub struct RecordStream {
    file: String,
    reader: TraceReader<Box<dyn BufRead + Send>>,
    replayer: Option<Replayer>,
    ready: VecDeque<ProcessRecord>,
    mismatches: Vec<Mismatch>,
    summary: Option<Summary>,
    unusable: Option<InputError>,
}

impl std::fmt::Debug for RecordStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordStream")
            .field("file", &self.file)
            .field("done", &self.summary.is_some())
            .finish()
    }
}

impl RecordStream {
    /// Opens `path` (plain or gzip).
    ///
    /// # Errors
    /// [`InputError`] when the file cannot be read.
    pub fn open(path: &Path) -> Result<RecordStream, InputError> {
        let file = path.display().to_string();
        let src = taskcore_replay::open(path)?;
        Ok(RecordStream {
            reader: TraceReader::new(file.as_str(), src),
            file,
            replayer: Some(Replayer::new(Options {
                records: true,
                ..Options::default()
            })),
            ready: VecDeque::new(),
            mismatches: Vec::new(),
            summary: None,
            unusable: None,
        })
    }

    /// The summary, once the stream is exhausted.
    pub fn summary(&self) -> Option<&Summary> {
        self.summary.as_ref()
    }

    /// The mismatches found so far (all of them once exhausted).
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }

    /// Why the input is not a usable trace, once exhausted (`None`: it is).
    pub fn unusable(&self) -> Option<&InputError> {
        self.unusable.as_ref()
    }

    /// The parser's counters.
    pub fn parse_stats(&self) -> &taskcore_strace::Stats {
        self.reader.stats()
    }

    fn finish(&mut self) {
        let Some(r) = self.replayer.take() else {
            return;
        };
        let mut s = r.finish();
        self.mismatches.append(&mut s.mismatches);
        self.ready.extend(s.records.drain(..));
        self.unusable = taskcore_replay::verdict(&self.file, self.reader.parser()).err();
        self.summary = Some(s);
    }
}

impl Iterator for RecordStream {
    type Item = ProcessRecord;

    fn next(&mut self) -> Option<ProcessRecord> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Some(r);
            }
            let r = self.replayer.as_mut()?;
            match self.reader.next() {
                Some(_)
                    if taskcore_replay::not_a_trace(&self.file, self.reader.stats()).is_some() =>
                {
                    // A binary file or a recording without -f: said
                    // before any mismatch (the verdict at the finish), and
                    // nothing more replayed.
                    self.finish();
                    self.mismatches.clear();
                    self.ready.clear();
                }
                Some(e) => {
                    r.push(&e);
                    if let Some(w) = self.reader.watermark() {
                        r.watermark(w);
                        self.ready.extend(r.take_records());
                        self.mismatches.extend(r.take_mismatches());
                    }
                }
                None => self.finish(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_strerror() {
        assert_eq!(os_message(10), "No child processes");
        assert_eq!(os_message(3), "No such process");
    }

    #[test]
    fn a_bundled_trace_streams_its_processes() {
        let f = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/traces/python-multiprocessing.strace.gz");
        let mut s = RecordStream::open(&f).unwrap();
        let recs: Vec<ProcessRecord> = s.by_ref().collect();
        let sum = s.summary().expect("done");
        assert!(s.mismatches().is_empty());
        assert!(s.unusable().is_none());
        // One record per process (threads are not processes).
        let procs = recs.len() as u64;
        assert!(
            procs > 30 && procs < sum.stats.tasks,
            "{procs} of {}",
            sum.stats.tasks
        );
        assert!(recs.iter().all(|r| r.end.is_some_and(|e| e >= r.start)));
        assert!(
            recs.iter()
                .any(|r| r.argv.iter().any(|a| a.contains("mp.py"))),
            "{:?}",
            &recs[..3]
        );
        let mut pids: Vec<i32> = recs.iter().map(|r| r.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        assert_eq!(pids.len(), recs.len(), "a pid reported twice");
    }

    #[test]
    fn a_trace_without_f_is_unusable_with_no_mismatch() {
        let dir = std::env::temp_dir().join(format!("taskcore-py-nof-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.strace");
        std::fs::write(
            &f,
            "1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101\n\
             1.1 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101\n\
             1.2 wait4(-1, 0x7ffc, WNOHANG, NULL) = -1 ECHILD (No child processes)\n",
        )
        .unwrap();
        let mut s = RecordStream::open(&f).unwrap();
        let _ = s.by_ref().count();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(s.summary().is_some());
        let e = s.unusable().expect("refused").to_string();
        assert!(e.contains("without -f"), "{e}");
        assert!(s.mismatches().is_empty());
    }
}
