//! `strace -ff` recordings: one file per task (`PREFIX.TID`, its lines
//! without a pid column), merged into the one `strace -f` stream the
//! replay reads.
//!
//! With `-ff` strace prints each call on one line, stamped at its entry,
//! however long it blocked: the interleaving `-f` shows with
//! `<unfinished ...>` / `<... resumed>` is lost. What the files still
//! prove is that a task's call completed before that task's next line was
//! entered. So the merge orders lines by timestamp (with `-ttt`, or `-tt`;
//! without one no order can be recovered) and gives a call the window
//! that bound allows: when another task's line comes between its entry
//! and its task's next line, it is written as `name(args <unfinished
//! ...>` at its entry and `<... name resumed>) = result` just before the
//! task's next line. The replay's windows and order search then place it,
//! as they place a call that `-f` printed in two parts; and since that
//! resumed half is the merge's bound, not a stop strace saw, the `---`
//! line after an interrupted call may be a dequeue from the call's entry
//! on ([`Options::merged`]). A call that ended its task (`= ?`) is not
//! split; `---` and `+++` lines keep their stamp.
//!
//! `-tt` stamps are times of day. A recording that crosses midnight is
//! ordered as one shorter than 12 hours: within a file (one task's lines,
//! in its order) a stamp more than 12 hours below the one before is the
//! next day's, and a file whose first stamp lies before the largest gap
//! among the files' first stamps around the clock began after midnight
//! (the gap is the part of the day the recording did not cover).
//!
//! Memory: one line of lookahead and an 8 KiB buffer (plus an inflate
//! window for `.gz`) per task whose file is open, and a file is open only
//! between its first and last line, so at most as many files as tasks
//! overlap in time (the CLI raises the soft limit on open files to the
//! hard one for such a recording).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::input::{
    ff_parts, open, open_sized, replay_file_with, replay_source, FileReport, InputError,
};
use crate::replayer::{Options, Replayer};

/// One `strace -ff` recording: the files of its tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerTaskFiles {
    /// `PREFIX` of `strace -ff -o PREFIX`.
    pub prefix: String,
    /// Each task's file, with the tid its name gives, in tid order.
    pub files: Vec<(i32, PathBuf)>,
}

impl PerTaskFiles {
    /// How the recording is named in reports: `PREFIX.*`.
    pub fn name(&self) -> String {
        format!("{}.*", self.prefix)
    }
}

/// A replay input: one `strace -f` file, or one `strace -ff` recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file holding every task's lines (`-f`), or `-` for stdin.
    File(PathBuf),
    /// The per-task files of one `-ff` recording.
    PerTask(PerTaskFiles),
}

/// Whether `line` starts with a timestamp rather than a pid: the first
/// token has a `.` or `:` (`-ttt`, `-tt`, `-t`).
fn starts_with_stamp(line: &str) -> bool {
    let tok = line.split(' ').next().unwrap_or("");
    !tok.is_empty()
        && tok
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b':')
        && tok.bytes().any(|b| b == b'.' || b == b':')
}

/// The first line of `path`, if it can be read.
fn first_line(path: &Path) -> Option<String> {
    let mut src = open(path).ok()?;
    let mut line = String::new();
    src.read_line(&mut line).ok()?;
    Some(line)
}

/// Groups `paths` into replay inputs: the files named `PREFIX.TID` whose
/// first line carries no pid (one task's file of `strace -ff`) form one
/// input per `PREFIX`, placed where its first file was; everything else
/// stays a file of its own. A path that does not exist but names a
/// prefix of such files (`strace -ff -o t` → `t`) stands for them all.
pub fn group_inputs(paths: &[PathBuf]) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    // Each prefix's set, by its index in `out`.
    let mut sets: std::collections::HashMap<String, usize> = Default::default();
    let mut add = |out: &mut Vec<Input>, prefix: String, tid: i32, path: PathBuf| {
        let i = *sets.entry(prefix.clone()).or_insert_with(|| {
            out.push(Input::PerTask(PerTaskFiles {
                prefix,
                files: Vec::new(),
            }));
            out.len() - 1
        });
        if let Input::PerTask(set) = &mut out[i] {
            set.files.push((tid, path));
        }
    };
    for p in paths {
        if p.as_os_str() != "-" && !p.exists() {
            let expanded = prefix_files(p);
            if !expanded.is_empty() {
                for (tid, f) in expanded {
                    add(&mut out, p.display().to_string(), tid, f);
                }
                continue;
            }
        }
        match p.to_str().and_then(ff_parts) {
            Some((prefix, tid))
                if p.is_file() && first_line(p).is_some_and(|l| starts_with_stamp(&l)) =>
            {
                add(&mut out, prefix.to_string(), tid, p.clone())
            }
            _ => out.push(Input::File(p.clone())),
        }
    }
    for i in &mut out {
        if let Input::PerTask(set) = i {
            // A file given twice (`t t.*`) is merged once.
            set.files.sort();
            set.files.dedup();
        }
    }
    out
}

/// The files `PREFIX.TID[.gz]` beside `prefix` whose first line carries
/// no pid.
fn prefix_files(prefix: &Path) -> Vec<(i32, PathBuf)> {
    let dir = match prefix.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(stem) = prefix.file_name().and_then(|s| s.to_str()) else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for ent in rd.flatten() {
        let path = ent.path();
        let Some(name) = path.file_name().and_then(|s| s.to_str()) else {
            continue;
        };
        let Some(tid) = ff_parts(name).filter(|(s, _)| *s == stem).map(|(_, t)| t) else {
            continue;
        };
        if first_line(&path).is_some_and(|l| starts_with_stamp(&l)) {
            out.push((tid, prefix.with_file_name(name)));
        }
    }
    out
}

/// A timestamp as a sortable number: nanoseconds of `-ttt`'s seconds
/// since the epoch, or of `-tt`/`-t`'s time of day.
fn stamp_ns(tok: &str) -> Option<u128> {
    let (whole, frac) = tok.split_once('.').unwrap_or((tok, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut secs: u128 = 0;
    for part in whole.split(':') {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 20 {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(part.parse().ok()?)?;
    }
    if !whole.contains(':') {
        secs = whole.parse().ok()?;
    }
    let ns: u128 = format!("{frac:0<9}").parse().ok()?;
    Some(secs * 1_000_000_000 + ns)
}

/// `name(args) = result` split as `(name, "name(args", ") = result")`: the
/// last `)` followed by blanks and `= `. `None` for other lines (`---`,
/// `+++`, an `<unfinished ...>` call) and for a call that ended its task
/// (`= ?`).
fn split_call(text: &str) -> Option<(&str, &str, &str)> {
    let name_end = text.find('(')?;
    let name = &text[..name_end];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut i = text.len();
    while let Some(eq) = text[..i].rfind("= ") {
        let before = text[..eq].trim_end_matches(' ');
        if eq > 0 && bytes[eq - 1] == b' ' && before.ends_with(')') && before.len() > name_end {
            let close = before.len() - 1;
            let result = &text[eq + 2..];
            if result == "?" || result.starts_with("? <") {
                return None;
            }
            return Some((name, &text[..close], &text[close..]));
        }
        i = eq;
    }
    None
}

/// Nanoseconds in a day, and in half of one (`-tt` stamps).
const DAY_NS: u128 = 86_400 * 1_000_000_000;
const HALF_DAY_NS: u128 = DAY_NS / 2;

/// The day each file began on, from the files' first stamps (`(ns, time
/// of day)`, in file order): 0, or 1 for a file that began after the
/// midnight a `-tt` recording crossed (module docs). `-ttt` stamps are
/// not times of day: 0 each.
fn start_days(firsts: &[Option<(u128, bool)>]) -> Vec<u128> {
    let mut tod: Vec<u128> = firsts
        .iter()
        .flatten()
        .filter(|f| f.1)
        .map(|f| f.0)
        .collect();
    tod.sort_unstable();
    // The largest gap between neighbours around the clock; the recording
    // starts just after it.
    let start = tod
        .windows(2)
        .map(|w| (w[1] - w[0], w[1]))
        .chain(
            tod.first()
                .zip(tod.last())
                .map(|(&a, &z)| (a + DAY_NS - z, a)),
        )
        .max_by_key(|g| g.0)
        .map(|g| g.1);
    firsts
        .iter()
        .map(|f| match (f, start) {
            (Some((ns, true)), Some(start)) if *ns < start => 1,
            _ => 0,
        })
        .collect()
}

/// Bytes of read buffer per open task file (and as much again for a
/// `.gz` one's decompressed text, beside its inflate window).
const STREAM_BUFFER: usize = 8 << 10;

/// One line read from a task's file.
#[derive(Debug)]
struct Line {
    ns: u128,
    stamp: String,
    text: String,
}

/// One task's file while it is merged.
struct Stream {
    tid: i32,
    path: PathBuf,
    src: Option<Box<dyn BufRead + Send>>,
    /// Lines read from the file so far.
    read: usize,
    /// The next line not yet merged.
    next: Option<Line>,
    /// The resumed half of a split call, written before `next`.
    resumed: Option<String>,
    done: bool,
    /// `-tt`: nanoseconds added to the file's times of day (the days
    /// passed since the recording's first), and its last stamp so far.
    day_ns: u128,
    last_ns: u128,
}

impl Stream {
    /// The stamp of the file's first line, read and closed again (the
    /// file is opened for good when that line is merged).
    fn first_stamp(&mut self) -> io::Result<Option<(u128, bool)>> {
        self.advance()?;
        let first = self.next.take().map(|l| (l.ns, l.stamp.contains(':')));
        *self = Stream::new(self.tid, std::mem::take(&mut self.path));
        Ok(first)
    }

    /// The stream of task `tid`'s file at `path`, not opened yet.
    fn new(tid: i32, path: PathBuf) -> Stream {
        Stream {
            tid,
            path,
            src: None,
            read: 0,
            next: None,
            resumed: None,
            done: false,
            day_ns: 0,
            last_ns: 0,
        }
    }

    /// Reads the next line into `next` (opening the file at the first).
    fn advance(&mut self) -> io::Result<()> {
        self.next = None;
        if self.done {
            return Ok(());
        }
        if self.src.is_none() {
            self.src = Some(
                open_sized(&self.path, STREAM_BUFFER)
                    .map_err(|e| io::Error::other(e.to_string()))?,
            );
        }
        let Some(src) = self.src.as_mut() else {
            return Ok(());
        };
        let mut raw = String::new();
        loop {
            raw.clear();
            if src.read_line(&mut raw)? == 0 {
                self.done = true;
                self.src = None;
                return Ok(());
            }
            self.read += 1;
            let line = raw.trim_end_matches(['\n', '\r']);
            if !line.is_empty() {
                break;
            }
        }
        let line = raw.trim_end_matches(['\n', '\r']);
        let (stamp, text) = line.split_once(' ').unwrap_or((line, ""));
        let ns = stamp_ns(stamp).ok_or_else(|| {
            io::Error::other(format!(
                "{}:{}: no timestamp at the start of the line: the files of `strace -ff` \
                 can be merged only when recorded with -ttt (or -tt)",
                self.path.display(),
                self.read
            ))
        })?;
        let mut ns = ns + self.day_ns;
        if stamp.contains(':') {
            // A time of day more than 12 hours below the last: the next day.
            while ns + HALF_DAY_NS < self.last_ns {
                self.day_ns += DAY_NS;
                ns += DAY_NS;
            }
            self.last_ns = ns;
        }
        self.next = Some(Line {
            ns,
            stamp: stamp.to_string(),
            text: text.to_string(),
        });
        Ok(())
    }
}

/// The merged `strace -f` text of a [`PerTaskFiles`], produced as it is
/// read ([`Read`]).
pub struct Merge {
    streams: Vec<Stream>,
    /// `(stamp, 0 for a resumed half else 1, stream)` of each stream's
    /// next output.
    heap: BinaryHeap<Reverse<(u128, u8, usize)>>,
    buf: Vec<u8>,
    pos: usize,
}

impl std::fmt::Debug for Merge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Merge")
            .field("streams", &self.streams.len())
            .finish()
    }
}

impl Merge {
    /// Opens the recording: reads each file's first line (closing it
    /// again) to order them.
    ///
    /// # Errors
    /// [`InputError::Open`] naming a file that cannot be read, or whose
    /// first line has no timestamp.
    pub fn new(set: &PerTaskFiles) -> Result<Merge, InputError> {
        let mut streams = Vec::with_capacity(set.files.len());
        let mut heap = BinaryHeap::with_capacity(set.files.len());
        let mut firsts = Vec::with_capacity(set.files.len());
        for (tid, path) in &set.files {
            let mut s = Stream::new(*tid, path.clone());
            let first = s.first_stamp().map_err(|e| InputError::Open {
                file: path.display().to_string(),
                msg: e.to_string(),
            })?;
            firsts.push(first);
            streams.push(s);
        }
        for ((i, s), day) in streams.iter_mut().enumerate().zip(start_days(&firsts)) {
            s.day_ns = day * DAY_NS;
            if let Some((ns, _)) = firsts[i] {
                heap.push(Reverse((ns + s.day_ns, 1, i)));
            }
        }
        Ok(Merge {
            streams,
            heap,
            buf: Vec::with_capacity(1 << 12),
            pos: 0,
        })
    }

    /// Writes the next line(s) into `buf`; `false` at the end.
    fn fill(&mut self) -> io::Result<bool> {
        let Some(Reverse((_, kind, i))) = self.heap.pop() else {
            return Ok(false);
        };
        let s = &mut self.streams[i];
        if s.next.is_none() && s.read == 0 {
            s.advance()?;
        }
        if kind == 0 {
            let stamp = s.next.as_ref().map_or("", |l| l.stamp.as_str());
            let text = s.resumed.take().unwrap_or_default();
            self.buf
                .extend_from_slice(format!("{} {stamp} {text}\n", s.tid).as_bytes());
            if let Some(l) = &s.next {
                self.heap.push(Reverse((l.ns, 1, i)));
            }
            return Ok(true);
        }
        let Some(line) = s.next.take() else {
            return Ok(true);
        };
        s.advance()?;
        let s = &mut self.streams[i];
        let next_ns = s.next.as_ref().map(|l| l.ns);
        let other = self.heap.peek().map(|Reverse((ns, _, _))| *ns);
        let split = match (next_ns, other, split_call(&line.text)) {
            // Another task's line before this task's next: the call may
            // have completed anywhere up to that next line.
            (Some(n), Some(o), Some(parts)) if o <= n => Some(parts),
            _ => None,
        };
        match split {
            Some((name, head, tail)) => {
                self.buf.extend_from_slice(
                    format!("{} {} {head} <unfinished ...>\n", s.tid, line.stamp).as_bytes(),
                );
                s.resumed = Some(format!("<... {name} resumed>{tail}"));
                if let Some(n) = next_ns {
                    self.heap.push(Reverse((n, 0, i)));
                }
            }
            None => {
                self.buf.extend_from_slice(
                    format!("{} {} {}\n", s.tid, line.stamp, line.text).as_bytes(),
                );
                if let Some(n) = next_ns {
                    self.heap.push(Reverse((n, 1, i)));
                }
            }
        }
        Ok(true)
    }
}

impl Read for Merge {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            if !self.fill()? {
                return Ok(0);
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// [`replay_file_with`] for any [`Input`]: a `-f` file, or the per-task
/// files of one `strace -ff` recording, merged by timestamp
/// ([`Merge`]); the report names the latter `PREFIX.*`, and its line
/// numbers are those of the merged stream (`taskcore replay
/// --write-merged FILE` writes it).
///
/// # Errors
/// As [`replay_file`](crate::replay_file); for a `-ff` recording also [`InputError::Open`]
/// naming a file whose first line cannot be read or has no timestamp.
pub fn replay_input_with(
    input: &Input,
    name: &str,
    opts: Options,
    progress: impl FnMut(&Replayer, usize),
) -> Result<FileReport, InputError> {
    match input {
        Input::File(path) => replay_file_with(path, name, opts, progress),
        Input::PerTask(set) => {
            let src = open_merged(set)?;
            let opts = Options {
                merged: true,
                ..opts
            };
            replay_source(src, name, opts, progress)
        }
    }
}

/// The merged `strace -f` text of a `-ff` recording, as a reader.
///
/// # Errors
/// As [`Merge::new`].
pub fn open_merged(set: &PerTaskFiles) -> Result<Box<dyn BufRead + Send>, InputError> {
    Ok(Box::new(BufReader::with_capacity(
        1 << 16,
        Merge::new(set)?,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_split_at_the_last_result() {
        assert_eq!(
            split_call("wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 12 (x)"),
            Some((
                "wait4",
                "wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL",
                ") = 12 (x)"
            ))
        );
        assert_eq!(
            split_call("getuid()              = 0"),
            Some(("getuid", "getuid(", ")              = 0"))
        );
        assert_eq!(
            split_call("wait4(-1, NULL, 0, NULL) = -1 ECHILD (No child processes)"),
            Some((
                "wait4",
                "wait4(-1, NULL, 0, NULL",
                ") = -1 ECHILD (No child processes)"
            ))
        );
        assert_eq!(split_call("exit_group(0)                     = ?"), None);
        assert_eq!(split_call("--- SIGCHLD {si_signo=SIGCHLD} ---"), None);
        assert_eq!(split_call("+++ exited with 0 +++"), None);
        assert_eq!(split_call("wait4(-1,  <unfinished ...>)"), None);
    }

    /// A scratch directory of its own for `name` (the pid is small and
    /// the same inside `unshare -p`: the time makes it this run's).
    fn scratch(name: &str) -> PathBuf {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let d = std::env::temp_dir().join(format!("taskcore-ff-{name}-{}-{t}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// (mismatches, events) of a replay of `text`.
    fn replay_text(text: &str) -> (usize, u64) {
        let parsed = taskcore_strace::parse_str("t", text);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let mut r = Replayer::new(Options::default());
        for e in &parsed.events {
            r.push(e);
        }
        let s = r.finish();
        (s.mismatches.len(), s.stats.events)
    }

    /// A parent that sleeps in rt_sigsuspend until its child's SIGCHLD.
    const PARENT: &str = "1.000000 rt_sigaction(SIGCHLD, {sa_handler=0x1000, sa_mask=[], \
        sa_flags=SA_RESTORER, sa_restorer=0x2000}, NULL, 8) = 0\n\
        1.000010 clone(child_stack=NULL, flags=SIGCHLD) = 101\n\
        1.000100 rt_sigsuspend([], 8) = ? ERESTARTNOHAND (To be restarted if no handler)\n\
        1.000400 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, \
        si_status=3, si_utime=0, si_stime=0} ---\n\
        1.000500 rt_sigreturn({mask=[]}) = -1 EINTR (Interrupted system call)\n\
        1.000600 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], WNOHANG, NULL) = 101\n\
        1.000700 exit_group(0) = ?\n\
        1.000800 +++ exited with 0 +++\n";
    const CHILD: &str = "1.000200 exit_group(3) = ?\n1.000300 +++ exited with 3 +++\n";

    /// `PARENT` and `CHILD` as `-f` lines ordered by their stamps alone.
    fn by_stamp_alone() -> String {
        let mut lines: Vec<(String, String)> = PARENT
            .lines()
            .map(|l| (l.to_string(), format!("100 {l}")))
            .chain(CHILD.lines().map(|l| (l.to_string(), format!("101 {l}"))))
            .collect();
        lines.sort();
        lines.into_iter().map(|(_, l)| l + "\n").collect()
    }

    #[test]
    fn a_call_that_sleeps_gets_the_window_to_its_tasks_next_line() {
        let d = scratch("wait");
        std::fs::write(d.join("t.100"), PARENT).unwrap();
        std::fs::write(d.join("t.101"), CHILD).unwrap();
        let inputs = group_inputs(&[d.join("t")]);
        let [Input::PerTask(set)] = &inputs[..] else {
            panic!("{inputs:?}");
        };
        assert_eq!(
            set.files.iter().map(|f| f.0).collect::<Vec<_>>(),
            [100, 101]
        );
        let mut text = String::new();
        open_merged(set).unwrap().read_to_string(&mut text).unwrap();
        assert!(
            text.contains("100 1.000100 rt_sigsuspend([], 8 <unfinished ...>\n")
                && text.contains("100 1.000400 <... rt_sigsuspend resumed>) = ? ERESTARTNOHAND"),
            "{text}"
        );
        assert_eq!(replay_text(&text), (0, 10));
        // Ordered by stamp alone, the sleep ends before the child's exit
        // sends the signal that ends it: what the split is for.
        assert!(replay_text(&by_stamp_alone()).0 > 0);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_tt_recording_across_midnight_keeps_its_order() {
        // PARENT and CHILD as -tt times of day, from 23:59:59.999900 on.
        let tod = |text: &str| -> String {
            text.lines()
                .map(|l| {
                    let (stamp, rest) = l.split_once(' ').unwrap();
                    let us: u64 = stamp.replace('.', "").parse::<u64>().unwrap() - 1_000_000;
                    let t = (86_399_999_900 + us) % 86_400_000_000;
                    let (s, us) = (t / 1_000_000, t % 1_000_000);
                    format!(
                        "{:02}:{:02}:{:02}.{us:06} {rest}\n",
                        s / 3600,
                        s / 60 % 60,
                        s % 60
                    )
                })
                .collect()
        };
        let (parent, child) = (tod(PARENT), tod(CHILD));
        assert!(parent.starts_with("23:59:59.999900 ") && child.starts_with("00:00:00.000100 "));
        let d = scratch("midnight");
        std::fs::write(d.join("t.100"), &parent).unwrap();
        std::fs::write(d.join("t.101"), &child).unwrap();
        let Input::PerTask(set) = &group_inputs(&[d.join("t")])[0] else {
            panic!();
        };
        let mut text = String::new();
        open_merged(set).unwrap().read_to_string(&mut text).unwrap();
        let order: Vec<&str> = text.lines().map(|l| &l[..4]).collect();
        // The parent's clone (before midnight), its sleep, the child's
        // exit, then the parent's wake-up: as with -ttt.
        assert_eq!(
            order[..5],
            ["100 ", "100 ", "100 ", "101 ", "101 "],
            "{text}"
        );
        assert_eq!(replay_text(&text).0, 0, "{text}");
        // Both files after midnight: nothing shifts.
        assert_eq!(start_days(&[Some((5, true)), Some((9, true))]), [0, 0]);
        // -ttt stamps are never times of day.
        assert_eq!(
            start_days(&[Some((DAY_NS, false)), Some((1, false))]),
            [0, 0]
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn files_with_a_pid_column_stay_traces_of_their_own() {
        let d = scratch("group");
        std::fs::write(d.join("t.100"), PARENT).unwrap();
        std::fs::write(d.join("t.101"), CHILD).unwrap();
        std::fs::write(d.join("f.7"), "7 1.0 getpid() = 7\n").unwrap();
        let inputs = group_inputs(&[d.join("t.101"), d.join("f.7"), d.join("t.100")]);
        assert_eq!(inputs.len(), 2, "{inputs:?}");
        assert!(matches!(&inputs[0], Input::PerTask(s) if s.files.len() == 2
            && s.name() == format!("{}.*", d.join("t").display())));
        assert_eq!(inputs[1], Input::File(d.join("f.7")));
        // A line without a stamp in a -ff file: named, with its file and line.
        std::fs::write(d.join("t.101"), "1.000200 exit_group(3) = ?\nexit\n").unwrap();
        let Input::PerTask(set) = &group_inputs(&[d.join("t")])[0] else {
            panic!();
        };
        let mut text = String::new();
        let e = open_merged(set)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap_err();
        assert!(e.to_string().contains("t.101:2: no timestamp"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn stamps_sort_as_numbers() {
        assert_eq!(stamp_ns("1.5"), Some(1_500_000_000));
        assert_eq!(stamp_ns("12:00:01.000001"), Some(43_201_000_001_000));
        assert!(stamp_ns("1796318021.072291") < stamp_ns("1796318021.1"));
        assert_eq!(stamp_ns("x1.0"), None);
        assert_eq!(stamp_ns("1.0123456789"), None);
    }
}
