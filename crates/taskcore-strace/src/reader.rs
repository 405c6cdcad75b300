//! Reading trace files, plain or gzip-compressed, as a stream of events.
//!
//! ```text
//!   File ──(gzip magic 1f 8b? → flate2 MultiGzDecoder)──> BufRead
//!     └─ read_until('\n') → lossy UTF-8 → Parser::feed → VecDeque<Event> → Iterator
//! ```
//!
//! Memory is O(longest line + open calls); each line is handled once.
//! An I/O or decompression error mid-file is recorded as a [`ParseError`] on
//! the line after the last good one and ends the stream (open calls are
//! still flushed): the events read so far stay usable.
//!
//! No Linux analogue.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

use flate2::read::MultiGzDecoder;

use super::event::Event;
use super::join::{ParseError, Parser, Stats};

/// The longest line read whole, in bytes (1 MiB). A longer one is
/// skipped to its newline without being held, and reported as a
/// [`ParseError`] on its line.
pub const MAX_LINE: usize = 1 << 20;

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// The end of input: nothing read.
    Eof,
    /// A line (in the buffer, with its newline if it had one).
    Line,
    /// A line longer than the limit: its first bytes are in the buffer,
    /// the rest was skipped.
    TooLong,
}

/// Reads one line of at most `max` bytes into `buf` (cleared first),
/// skipping the rest of a longer one: memory stays bounded by `max`
/// whatever the input.
///
/// # Errors
/// The I/O error of the source (decompression errors included).
pub fn read_line<R: BufRead + ?Sized>(
    src: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    buf.clear();
    let mut too_long = false;
    loop {
        let avail = match src.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(match (buf.is_empty() && !too_long, too_long) {
                (true, _) => LineRead::Eof,
                (_, true) => LineRead::TooLong,
                _ => LineRead::Line,
            });
        }
        let (n, done) = match avail.iter().position(|&c| c == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if !too_long {
            let room = max.saturating_sub(buf.len());
            buf.extend_from_slice(&avail[..n.min(room)]);
            too_long = n > room;
        }
        src.consume(n);
        if done {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

/// An iterator over the events of one trace.
pub struct TraceReader<R> {
    /// The line source.
    src: R,
    /// The state machine.
    parser: Parser,
    /// Events ready to hand out.
    ready: VecDeque<Event>,
    /// Reused line buffer.
    buf: Vec<u8>,
    /// The source is exhausted (or failed) and the parser finished.
    done: bool,
}

impl<R> std::fmt::Debug for TraceReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("parser", &self.parser)
            .field("ready", &self.ready.len())
            .field("done", &self.done)
            .finish()
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads the trace named `file` from `src` (already decompressed).
    pub fn new(file: impl Into<Arc<str>>, src: R) -> TraceReader<R> {
        TraceReader::with_parser(Parser::new(file), src)
    }

    /// Reads from `src` with a configured [`Parser`] (e.g. one given a
    /// default pid).
    pub fn with_parser(parser: Parser, src: R) -> TraceReader<R> {
        TraceReader {
            src,
            parser,
            ready: VecDeque::new(),
            buf: Vec::with_capacity(512),
            done: false,
        }
    }

    /// The parser (its counters, errors and open calls).
    pub fn parser(&self) -> &Parser {
        &self.parser
    }

    /// A line before which no event still to come from this reader is
    /// placed (a clone at its entry line, anything else at its completing
    /// line), for [`taskcore-replay`'s watermark]: `None` while events
    /// already parsed wait to be handed out.
    ///
    /// [`taskcore-replay`'s watermark]: Parser::open_clone_line
    pub fn watermark(&self) -> Option<usize> {
        if !self.ready.is_empty() {
            return None;
        }
        Some(
            self.parser
                .open_clone_line()
                .unwrap_or(self.parser.line() + 1),
        )
    }

    /// The counters so far (complete once the iterator returned `None`).
    pub fn stats(&self) -> &Stats {
        self.parser.stats()
    }

    /// The errors so far (at most [`super::MAX_STORED_ERRORS`] kept).
    pub fn errors(&self) -> &[ParseError] {
        self.parser.errors()
    }

    /// Reads lines until at least one event is ready or input ends.
    fn fill(&mut self) {
        while self.ready.is_empty() && !self.done {
            match read_line(&mut self.src, &mut self.buf, MAX_LINE) {
                Ok(LineRead::Eof) => {
                    self.parser.finish(&mut self.ready);
                    self.done = true;
                }
                Ok(LineRead::Line) => {
                    self.parser.feed_bytes(&self.buf, &mut self.ready);
                }
                Ok(LineRead::TooLong) => {
                    self.parser
                        .feed_error(format!("line longer than {MAX_LINE} bytes, skipped"));
                }
                Err(e) => {
                    // Count the unreadable rest as one bad line.
                    self.parser.feed_error(format!("read error: {e}"));
                    self.parser.finish(&mut self.ready);
                    self.done = true;
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.fill();
        self.ready.pop_front()
    }
}

/// Opens `path` for reading, transparently decompressing gzip (detected by
/// its magic bytes, not the file name). The events' `file` is `path` as
/// given.
///
/// # Errors
/// The I/O error from opening or first reading the file.
pub fn open(path: &Path) -> io::Result<TraceReader<Box<dyn BufRead>>> {
    let mut f = BufReader::new(File::open(path)?);
    let gz = f.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let src: Box<dyn BufRead> = if gz {
        Box::new(BufReader::new(MultiGzDecoder::new(f)))
    } else {
        Box::new(f)
    };
    Ok(TraceReader::new(path.display().to_string(), src))
}

/// A whole trace in memory.
#[derive(Debug)]
pub struct Trace {
    /// All events, in order.
    pub events: Vec<Event>,
    /// The errors (at most [`super::MAX_STORED_ERRORS`]).
    pub errors: Vec<ParseError>,
    /// The counters.
    pub stats: Stats,
}

/// Reads all of `path` (plain or gzip) into a [`Trace`].
///
/// # Errors
/// The I/O error from opening the file; later read errors become
/// [`ParseError`]s.
pub fn read_trace(path: &Path) -> io::Result<Trace> {
    let mut r = open(path)?;
    let events: Vec<Event> = r.by_ref().collect();
    Ok(Trace {
        events,
        errors: r.errors().to_vec(),
        stats: r.stats().clone(),
    })
}

/// Parses trace text held in memory.
pub fn parse_str(file: &str, text: &str) -> Trace {
    let mut r = TraceReader::new(file, text.as_bytes());
    let events: Vec<Event> = r.by_ref().collect();
    Trace {
        events,
        errors: r.errors().to_vec(),
        stats: r.stats().clone(),
    }
}

/// Reads all of `src` as a trace named `file` (any [`Read`], e.g. stdin).
pub fn read_from(file: &str, src: impl Read) -> Trace {
    let mut r = TraceReader::new(file, BufReader::new(src));
    let events: Vec<Event> = r.by_ref().collect();
    Trace {
        events,
        errors: r.errors().to_vec(),
        stats: r.stats().clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;
    use std::io::Write;

    const SAMPLE: &str = "32031 1795224796.456624 vfork( <unfinished ...>\n\
        32032 1795224796.456844 exit_group(0)   = ?\n\
        32031 1795224796.456967 <... vfork resumed>) = 32032\n\
        32032 1795224796.463396 +++ exited with 0 +++\n";

    #[test]
    fn plain_and_gzip_files_read_the_same() {
        let dir =
            std::env::temp_dir().join(format!("taskcore-strace-reader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("t.strace");
        std::fs::write(&plain, SAMPLE).unwrap();
        let gz = dir.join("t.bin"); // no .gz suffix: detected by magic
        let mut enc = flate2::write::GzEncoder::new(
            File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        enc.write_all(SAMPLE.as_bytes()).unwrap();
        enc.finish().unwrap();
        let a = read_trace(&plain).unwrap();
        let b = read_trace(&gz).unwrap();
        assert_eq!(a.events.len(), 3);
        assert_eq!(
            a.events.iter().map(|e| (e.line, e.pid)).collect::<Vec<_>>(),
            vec![(2, 32032), (3, 32031), (4, 32032)]
        );
        assert_eq!(
            a.events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
            b.events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>()
        );
        assert_eq!(a.stats.syscall("vfork").lines, 2);
        assert!(read_trace(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn truncated_gzip_keeps_what_was_read_and_reports_an_error() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for _ in 0..200 {
            enc.write_all(SAMPLE.as_bytes()).unwrap();
        }
        let mut bytes = enc.finish().unwrap();
        bytes.truncate(bytes.len() / 2);
        let t = read_from("cut", MultiGzDecoder::new(&bytes[..]));
        assert!(!t.events.is_empty());
        assert_eq!(t.stats.error_lines, 1, "{:?}", t.errors);
        assert!(t.errors[0].msg.starts_with("read error"));
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_not_an_allocation() {
        let mut text = b"1 1.0 getpid() = 1\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        text.extend_from_slice(b"\n1 1.1 getpid() = 1\n");
        let mut r = TraceReader::new("big", BufReader::with_capacity(4096, &text[..]));
        let events: Vec<Event> = r.by_ref().collect();
        assert_eq!(events.len(), 2);
        assert_eq!(r.errors().len(), 1);
        assert_eq!(r.errors()[0].line, 2);
        assert!(r.errors()[0].msg.contains("longer than"));
        assert!(r.buf.capacity() <= 2 * MAX_LINE, "{}", r.buf.capacity());
    }

    #[test]
    fn invalid_utf8_and_missing_final_newline_are_fine() {
        let t = read_from("b", &b"1 1.0 execve(\"\xff\xfe\", [\"x\"], 0x1 /* 1 var */) = 0\n1 1.1 +++ exited with 0 +++"[..]);
        assert!(t.errors.is_empty(), "{:?}", t.errors);
        assert_eq!(t.events.len(), 2);
        assert_eq!(t.events[1].kind, EventKind::Exited { code: 0 });
    }

    #[test]
    fn parse_str_counts_errors_without_stopping() {
        let t = parse_str("s", "x\ny\n1 1.0 getpid() = 1\n");
        assert_eq!(
            (t.events.len(), t.stats.error_lines, t.errors.len()),
            (1, 2, 2)
        );
    }
}
