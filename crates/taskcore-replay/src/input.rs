//! Replaying a file: reading and parsing on a thread of its own, overlapped
//! with the replay, and the verdict on input that is not a usable trace.
//!
//! ```text
//!  reader thread: file ─(gzip?)─ lines ─ Parser ─ batches of events + watermark ─┐
//!  caller's thread:                                  Replayer::push / watermark <─┘
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;

use flate2::read::MultiGzDecoder;
use taskcore_strace::{Event, ParseError, Parser};

use crate::replayer::{Options, Replayer, Summary};

/// Events per batch sent from the reader thread.
const BATCH: usize = 128;
/// Batches the channel from the reader thread holds. The reader parses
/// faster than the replay applies, so the channel is full for most of a
/// replay: with the batch being filled and the one being applied, at most
/// `(CHANNEL_BATCHES + 2) * BATCH` parsed events are in flight (about 200
/// KB at 256 bytes an event). 16 batches of 512 held 2.8 MB (of 304-byte
/// events), a fifth of a 100,000-process replay's peak RSS; 4 of 128 keep
/// the two threads overlapped as well.
const CHANNEL_BATCHES: usize = 4;
/// Parse errors tolerated in a usable trace: at most this many, and at most
/// one line in [`MAX_ERROR_RATIO`].
pub const MAX_PARSE_ERRORS: u64 = 10;
/// See [`MAX_PARSE_ERRORS`].
pub const MAX_ERROR_RATIO: u64 = 1000;

/// Why a file is not a usable trace. Each names the file (and the line,
/// where there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The file cannot be opened or read from the start.
    Open {
        /// The file.
        file: String,
        /// The I/O error.
        msg: String,
    },
    /// A directory was given.
    Directory {
        /// The path.
        file: String,
    },
    /// Reading stopped before the end: corrupt or truncated compression,
    /// or an I/O error.
    Truncated {
        /// The file.
        file: String,
        /// The line after the last one read.
        line: usize,
        /// What failed.
        msg: String,
    },
    /// The recording is incomplete or not what the replay needs: it ends
    /// mid-line or mid-call, was recorded without `-f`, or is a binary
    /// file (a NUL byte, which strace never writes).
    Incomplete {
        /// The file.
        file: String,
        /// The line where it shows.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// No strace event at all (an empty file, or text that is no trace).
    NoEvents {
        /// The file.
        file: String,
        /// Lines read.
        lines: u64,
    },
    /// More unparsable lines than a trace may have.
    ParseErrors {
        /// The file.
        file: String,
        /// Lines that could not be parsed.
        errors: u64,
        /// Lines read.
        lines: u64,
        /// The first error.
        first: Option<ParseError>,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Open { file, msg } => write!(f, "{file}: cannot read: {msg}"),
            InputError::Directory { file } => write!(f, "{file}: is a directory, not a trace"),
            InputError::Truncated { file, line, msg } => {
                write!(f, "{file}:{line}: unreadable from here on ({msg})")
            }
            InputError::Incomplete { file, line, msg } => write!(f, "{file}:{line}: {msg}"),
            InputError::NoEvents { file, lines } => write!(
                f,
                "{file}: no strace events in {lines} lines (record with `strace -f -ttt -o FILE`)"
            ),
            InputError::ParseErrors {
                file,
                errors,
                lines,
                first,
            } => {
                write!(f, "{file}: {errors} of {lines} lines unparsable")?;
                if let Some(e) = first {
                    write!(f, "; first: {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for InputError {}

/// One file's replay.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The file, as given.
    pub file: String,
    /// Checks and mismatches.
    pub summary: Summary,
    /// The parser's counters (lines, errors, per syscall).
    pub parse: taskcore_strace::Stats,
    /// The parse errors kept (at most [`taskcore_strace::MAX_STORED_ERRORS`]).
    pub parse_errors: Vec<ParseError>,
    /// Why the input is not a usable trace, though part of it was
    /// replayed: the checks above cover only what was read.
    pub unusable: Option<InputError>,
}

/// What the reader thread sends.
enum Msg {
    Batch(Vec<Event>, usize),
    /// The input ends in the middle of something, at this line.
    Cut(usize, String),
    End(Box<Parser>),
}

/// Opens `path` (or standard input for `-`), decompressing gzip (detected
/// by its magic bytes).
///
/// # Errors
/// [`InputError::Directory`] or [`InputError::Open`].
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, InputError> {
    open_sized(path, 1 << 16)
}

/// [`open`] with buffers of `cap` bytes (a `strace -ff` recording keeps
/// one file open per task its merge is inside: small buffers).
pub(crate) fn open_sized(path: &Path, cap: usize) -> Result<Box<dyn BufRead + Send>, InputError> {
    let name = path.display().to_string();
    let raw: Box<dyn Read + Send> = if name == "-" {
        Box::new(io::stdin())
    } else {
        if path.is_dir() {
            return Err(InputError::Directory { file: name });
        }
        Box::new(File::open(path).map_err(|e| InputError::Open {
            file: name.clone(),
            msg: e.to_string(),
        })?)
    };
    let mut f = BufReader::with_capacity(cap, raw);
    let head = f.fill_buf().map_err(|e| InputError::Open {
        file: name.clone(),
        msg: e.to_string(),
    })?;
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(cap, MultiGzDecoder::new(f)))
    } else {
        Box::new(f)
    })
}

/// Reads `src` as trace `file` on a thread of its own and feeds it to
/// `replayer` on this one; `each` is called after every batch. Returns the
/// replayer, the parser, and why the input is unusable if it is but some
/// of it could be replayed (truncated, too many unparsable lines).
///
/// # Errors
/// [`InputError::NoEvents`] when nothing could be replayed; mismatches are
/// not errors.
pub fn replay_reader(
    file: &str,
    src: Box<dyn BufRead + Send>,
    mut replayer: Replayer,
    mut each: impl FnMut(&mut Replayer, usize),
) -> Result<(Replayer, Box<Parser>, Option<InputError>), InputError> {
    let (tx, rx) = crossbeam_channel::bounded::<Msg>(CHANNEL_BATCHES);
    let name: Arc<str> = file.into();
    let reader = std::thread::spawn(move || {
        let mut parser = Parser::new(name.clone());
        let mut src = src;
        let mut buf = Vec::with_capacity(512);
        let mut ready = std::collections::VecDeque::new();
        let mut batch = Vec::with_capacity(BATCH);
        let mut ended_mid_line = false;
        loop {
            match taskcore_strace::read_line(&mut src, &mut buf, taskcore_strace::MAX_LINE) {
                Ok(taskcore_strace::LineRead::Eof) => break,
                Ok(taskcore_strace::LineRead::TooLong) => {
                    parser.feed_error(format!(
                        "line longer than {} bytes, skipped",
                        taskcore_strace::MAX_LINE
                    ));
                }
                Ok(taskcore_strace::LineRead::Line) => {
                    ended_mid_line = buf.last() != Some(&b'\n');
                    parser.feed_bytes(&buf, &mut ready);
                    batch.extend(ready.drain(..));
                    if not_a_trace(&name, parser.stats()).is_some() {
                        // A binary file, or recorded without -f (a clone
                        // returned a child and no line names its task):
                        // said before any mismatch, nothing replayed.
                        batch.clear();
                        break;
                    }
                    if batch.len() >= BATCH {
                        let mark = parser.open_clone_line().unwrap_or(parser.line() + 1);
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                        if tx.send(Msg::Batch(full, mark)).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    parser.feed_error(format!("read error: {e}"));
                    break;
                }
            }
        }
        let open = parser.open_calls();
        let cut = if let Some((line, msg)) =
            not_a_trace(&name, parser.stats()).or_else(|| per_process_file(&name, parser.stats()))
        {
            Some((line, msg))
        } else if ended_mid_line {
            Some((
                parser.line(),
                "the last line has no newline: the trace ends mid-line".to_string(),
            ))
        } else if open > 0 && parser.stats().exited_lines > 0 {
            // Without `+++ exited` lines (strace -qq), a thread killed
            // inside a call by its process's exit_group never ends either:
            // an open call says nothing.
            Some((
                parser.line(),
                format!(
                    "{open} call(s) entered and never resumed, by tasks that never ended: the trace ends mid-call"
                ),
            ))
        } else {
            None
        };
        parser.finish(&mut ready);
        batch.extend(ready.drain(..));
        let _ = tx.send(Msg::Batch(batch, usize::MAX));
        if let Some((line, msg)) = cut {
            let _ = tx.send(Msg::Cut(line, msg));
        }
        let _ = tx.send(Msg::End(Box::new(parser)));
    });
    let mut parser = None;
    let mut cut = None;
    for msg in rx {
        match msg {
            Msg::Cut(line, msg) => cut = Some((line, msg)),
            Msg::Batch(events, mark) => {
                for e in &events {
                    replayer.push(e);
                }
                let n = events.len();
                if mark != usize::MAX {
                    replayer.watermark(mark);
                }
                each(&mut replayer, n);
            }
            Msg::End(p) => parser = Some(p),
        }
    }
    let _ = reader.join();
    let parser = parser.ok_or_else(|| InputError::Open {
        file: file.to_string(),
        msg: "the reader thread failed".into(),
    })?;
    let unusable = match cut {
        Some((line, msg))
            if !parser
                .errors()
                .iter()
                .any(|e| e.msg.starts_with("read error")) =>
        {
            Some(InputError::Incomplete {
                file: file.to_string(),
                line,
                msg,
            })
        }
        _ => match verdict(file, &parser) {
            Err(e @ (InputError::NoEvents { .. } | InputError::Open { .. })) => return Err(e),
            Err(e) => Some(e),
            Ok(()) => None,
        },
    };
    Ok((replayer, parser, unusable))
}

/// Whether what `parser` read of `file` is a usable trace: no read error,
/// some events, and few unparsable lines ([`MAX_PARSE_ERRORS`],
/// [`MAX_ERROR_RATIO`]).
///
/// # Errors
/// The [`InputError`] that says why not.
pub fn verdict(file: &str, parser: &Parser) -> Result<(), InputError> {
    let st = parser.stats();
    if let Some(e) = parser
        .errors()
        .iter()
        .find(|e| e.msg.starts_with("read error"))
    {
        return Err(InputError::Truncated {
            file: file.to_string(),
            line: e.line,
            msg: e.msg.clone(),
        });
    }
    let events = st.exited_lines
        + st.killed_lines
        + st.signal_lines
        + st.syscalls.values().map(|c| c.calls).sum::<u64>();
    if let Some((line, msg)) = not_a_trace(file, st) {
        return Err(InputError::Incomplete {
            file: file.to_string(),
            line,
            msg,
        });
    }
    if events == 0 {
        return Err(InputError::NoEvents {
            file: file.to_string(),
            lines: st.lines,
        });
    }
    if let Some((line, msg)) = per_process_file(file, st) {
        return Err(InputError::Incomplete {
            file: file.to_string(),
            line,
            msg,
        });
    }
    if st.error_lines > MAX_PARSE_ERRORS || st.error_lines * MAX_ERROR_RATIO > st.lines {
        return Err(InputError::ParseErrors {
            file: file.to_string(),
            errors: st.error_lines,
            lines: st.lines,
            first: parser.errors().first().cloned(),
        });
    }
    Ok(())
}

/// Replays the trace at `path` (plain or gzip; `-` for standard input).
///
/// # Errors
/// [`InputError`] when nothing of the file could be replayed (unreadable,
/// a directory, no events); a file replayed in part says why in
/// [`FileReport::unusable`]. The replay's mismatches are in the report.
pub fn replay_file(path: &Path, opts: Options) -> Result<FileReport, InputError> {
    replay_file_with(path, &path.display().to_string(), opts, |_, _| {})
}

/// [`replay_file`], naming the file `name` in the report and its messages,
/// and calling `progress` after each batch read with the replayer (for
/// [`Replayer::nr_mismatches`]) and the number of events in the batch.
///
/// # Errors
/// As [`replay_file`].
pub fn replay_file_with(
    path: &Path,
    name: &str,
    opts: Options,
    progress: impl FnMut(&Replayer, usize),
) -> Result<FileReport, InputError> {
    replay_source(open(path)?, name, opts, progress)
}

/// Replays `src` as trace `name` (see [`replay_file_with`]).
pub(crate) fn replay_source(
    src: Box<dyn BufRead + Send>,
    name: &str,
    opts: Options,
    mut progress: impl FnMut(&Replayer, usize),
) -> Result<FileReport, InputError> {
    let (r, parser, unusable) =
        replay_reader(name, src, Replayer::new(opts), |r, n| progress(r, n))?;
    Ok(FileReport {
        file: name.to_string(),
        summary: r.finish(),
        parse: parser.stats().clone(),
        parse_errors: parser.errors().to_vec(),
        unusable,
    })
}

/// The emulated kernel after every event of `path` placed up to line `at`
/// (all of them without `at`), in the default order (no search). For
/// `taskcore proc --from-trace`.
///
/// # Errors
/// [`InputError`] when the file is not a usable trace.
pub fn kernel_at(path: &Path, at: Option<usize>) -> Result<taskcore::Kernel, InputError> {
    let file = path.display().to_string();
    let src = open(path)?;
    let opts = Options {
        search: false,
        stop_after_line: at,
        ..Options::default()
    };
    let (r, _, unusable) = replay_reader(&file, src, Replayer::new(opts), |_, _| {})?;
    match unusable {
        Some(e) => Err(e),
        None => Ok(r.finish_kernel()),
    }
}

/// How to record a trace the replay can use.
const RECORD_HINT: &str = "record with `strace -f -ttt -o FILE COMMAND`";

/// `PREFIX` and the tid when `file` is named as `strace -ff` names its
/// per-task files (`PREFIX.TID`, optionally `.gz`).
pub(crate) fn ff_parts(file: &str) -> Option<(&str, i32)> {
    let base = file.strip_suffix(".gz").unwrap_or(file);
    let (stem, tid) = base.rsplit_once('.')?;
    if stem.is_empty() || stem.ends_with('/') || !tid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((stem, tid.parse().ok()?))
}

/// Whether `file`'s name is one of `strace -ff`'s per-process files.
fn ff_name(file: &str) -> bool {
    ff_parts(file).is_some()
}

/// What makes what was read of `file` so far no trace the replay can use,
/// decidable before any event is applied: a binary file (a NUL byte, which
/// strace never writes: it escapes unprintable bytes), or a recording
/// without `-f` (a clone returned a child and no line names its task; with
/// `-ff`, each process in a file of its own). The line where it shows, and
/// the message in the user's terms.
pub fn not_a_trace(file: &str, st: &taskcore_strace::Stats) -> Option<(usize, String)> {
    if let Some(line) = st.first_nul_line {
        return Some((
            line as usize,
            format!(
                "binary file (a NUL byte on this line), not strace's text output: {RECORD_HINT}"
            ),
        ));
    }
    if st.child_clones > 0 && st.pid_lines == 0 {
        let how = if ff_name(file) {
            "one process's file of `strace -ff` (FILE.PID)? The replay needs every process in one file"
        } else {
            "recorded without -f?"
        };
        return Some((
            st.lines as usize,
            format!("no pid on any line though processes were created: {how}; {RECORD_HINT}"),
        ));
    }
    None
}

/// A file named as `strace -ff` names its per-process files whose lines
/// name no task, once read to its end: every file of such a recording is
/// told so, also those of processes that created none.
pub fn per_process_file(file: &str, st: &taskcore_strace::Stats) -> Option<(usize, String)> {
    (st.pid_lines == 0 && st.lines > 0 && ff_name(file)).then(|| {
        (
            1,
            format!(
                "no pid on any line of a file named FILE.PID: one process's file of `strace -ff`? \
                 The replay merges the files of `strace -ff -ttt -o PREFIX` given as PREFIX, \
                 when recorded with -ttt; {RECORD_HINT}"
            ),
        )
    })
}

/// A trace loaded once and replayed many times (`taskcore bench objpool`'s
/// replay-throughput rows).
#[derive(Debug)]
pub struct BenchTrace {
    events: Vec<taskcore_strace::Event>,
}

impl BenchTrace {
    /// Reads and parses `path`.
    ///
    /// # Errors
    /// A message naming the file when it cannot be read.
    pub fn load(path: &std::path::Path) -> Result<BenchTrace, String> {
        let t =
            taskcore_strace::read_trace(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(BenchTrace { events: t.events })
    }

    /// Number of parsed events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the trace has no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Replays the trace once, as `taskcore replay` does (with whatever is
    /// registered on [`crate::probe::probes`]); returns the number of mismatches.
    pub fn replay(&self) -> usize {
        let mut r = Replayer::new(Options::default());
        for e in &self.events {
            r.push(e);
        }
        r.finish().mismatches.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{BATCH, CHANNEL_BATCHES};

    /// The parsed events between the reader thread and the replay (the
    /// channel full, one batch being filled, one being applied) stay a
    /// small part of a replay's memory: 256 KiB at most, whatever the size
    /// the event type grows to within reason. 16 batches of 512 were 2.8 MB.
    #[test]
    fn events_in_flight_between_the_threads_stay_small() {
        let in_flight =
            (CHANNEL_BATCHES + 2) * BATCH * std::mem::size_of::<taskcore_strace::Event>();
        assert!(in_flight <= 256 << 10, "{in_flight} bytes in flight");
    }
}
