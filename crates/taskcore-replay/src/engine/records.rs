//! Per-process records: what a trace says of each process (its pid,
//! parent, group, session, program, lifetime and exit status), for people
//! who analyse build and CI traces. A record is open while the process
//! lives (memory: live processes) and handed out at its `+++` line.

/// A point on a timeline: a signal taken, or a wait that reaped a child,
/// in the recording's numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A `--- SIGxxx {...} ---` line: thread `tid` of process `pid` took
    /// signal `signo` (x86_64 numbers) at `ts` seconds (`-ttt`); `sender`
    /// is its `si_pid` (0 when the kernel sent it or strace did not say).
    Signal {
        /// Seconds, as recorded.
        ts: f64,
        /// The process (tgid).
        pid: i32,
        /// The thread whose line it is.
        tid: i32,
        /// The signal number.
        signo: i32,
        /// `si_pid`, or 0.
        sender: i32,
    },
    /// A `wait4`/`waitid` (without `WNOWAIT`) of process `reaper` that
    /// reported the death of `child` at `ts` seconds: its zombie reaped.
    Reap {
        /// Seconds, as recorded.
        ts: f64,
        /// The process (tgid) that waited.
        reaper: i32,
        /// The pid the wait returned.
        child: i32,
    },
}

/// What the engine hands out for a timeline, with the position that made
/// it final.
#[derive(Debug, Clone)]
pub(crate) enum Finished {
    /// A process ended (its `+++` line, or the trace's end).
    Record(ProcessRecord),
    /// A signal or a reap.
    Mark(Mark),
}

/// One process of a trace, in the recording's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessRecord {
    /// Its pid (tgid) as recorded.
    pub pid: i32,
    /// Its parent's pid as recorded when it was created (0: outside the
    /// trace).
    pub ppid: i32,
    /// Its process group at its end (at its start if it never ended), as
    /// recorded; 0 for a group of the world outside the trace (strace's).
    pub pgid: i32,
    /// Its session, likewise (0: the session strace ran in).
    pub sid: i32,
    /// The argv of its last successful execve (its parent's before any).
    pub argv: Vec<String>,
    /// Its successful execve calls in order: seconds (`-ttt`) and the path
    /// as given (strace prints it whole, where argv strings may end in
    /// `...`).
    pub execs: Vec<(f64, String)>,
    /// Seconds (strace `-ttt`) of the line that created it.
    pub start: f64,
    /// Seconds of its `+++` line; `None` if the trace ends first.
    pub end: Option<f64>,
    /// Its wait status word (`WEXITSTATUS << 8`, or the signal | 0x80 when
    /// it dumped core); `None` if the trace ends first.
    pub exit_status: Option<i32>,
}

/// The per-process records (with [`crate::Options::records`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Records {
    /// Whether per-process records are kept.
    pub(crate) on: bool,
    /// Open records of live processes, by recorded pid.
    pub(crate) open: rustc_hash::FxHashMap<i32, ProcessRecord>,
    /// Closed records not yet handed out, with the position that closed
    /// them.
    pub(crate) finished: Vec<(u64, Finished)>,
}
