//! Per-process records: what a trace says of each process (its pid,
//! parent, group, session, program, lifetime and exit status), for people
//! who analyse build and CI traces. A record is open while the process
//! lives (memory: live processes) and handed out at its `+++` line.

use taskcore::TaskId;

use super::Engine;
use crate::event::Event;

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

impl Engine {
    /// Recorded number of emulated `nr`; 0 for a process outside the trace.
    fn rec_number(&self, nr: taskcore::Result<i32>) -> i32 {
        nr.ok().and_then(|n| self.pids.rec_of(n)).unwrap_or(0)
    }

    /// Opens the record of process `rec` (emulated `task`), created by the
    /// event `e` (`None` for the traced root).
    pub(super) fn open_record(&mut self, rec: i32, task: TaskId, e: Option<&Event>) {
        if !self.rec.on || self.k.getpid(task) != self.k.gettid(task) {
            return;
        }
        let ppid = self.rec_number(self.k.getppid(task));
        let argv = e
            .and_then(|e| self.pids.task(e.pid))
            .and_then(|t| self.k.getpid(t.task).ok())
            .and_then(|tgid| self.pids.rec_of(tgid))
            .and_then(|p| self.rec.open.get(&p))
            .map(|r| r.argv.clone())
            .unwrap_or_default();
        let rec_pgid = self.rec_number(self.k.getpgid(task, 0));
        let rec_sid = self.rec_number(self.k.getsid(task, 0));
        self.rec.open.insert(
            rec,
            ProcessRecord {
                pid: rec,
                ppid,
                pgid: rec_pgid,
                sid: rec_sid,
                argv,
                execs: Vec::new(),
                start: e.map_or(self.t0.unwrap_or(0.0), |e| e.ts),
                end: None,
                exit_status: None,
            },
        );
    }

    /// A successful execve of `filename` by `cur` at `ts` seconds: its
    /// process's program.
    pub(super) fn record_exec(&mut self, cur: TaskId, ts: f64, filename: &str, argv: &[Vec<u8>]) {
        let tgid = self.k.getpid(cur);
        if let Some(r) = tgid
            .ok()
            .and_then(|n| self.pids.rec_of(n))
            .and_then(|p| self.rec.open.get_mut(&p))
        {
            r.argv = argv
                .iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            r.execs.push((ts, filename.to_string()));
        }
    }

    /// The `+++` line of recorded `rec` with status `status`: closes its
    /// record if it is a process.
    pub(super) fn close_record(&mut self, e: &Event, status: i32) {
        let Some(mut r) = self.rec.open.remove(&e.pid) else {
            return;
        };
        if let Some(nr) = self.pids.nr_of(e.pid) {
            if let Ok(g) = self.k.getpgid(self.world.init, nr) {
                r.pgid = self.rec_number(Ok(g));
            }
            if let Ok(s) = self.k.getsid(self.world.init, nr) {
                r.sid = self.rec_number(Ok(s));
            }
        }
        r.end = Some(e.ts);
        r.exit_status = Some(status);
        self.rec.finished.push((self.pos, Finished::Record(r)));
    }

    /// Closes every record still open (the trace ended first).
    pub(super) fn close_open_records(&mut self) {
        let mut open: Vec<ProcessRecord> = self.rec.open.drain().map(|(_, r)| r).collect();
        open.sort_by(|a, b| a.start.total_cmp(&b.start));
        let pos = self.pos;
        self.rec
            .finished
            .extend(open.into_iter().map(|r| (pos, Finished::Record(r))));
    }

    /// The recorded process (tgid) of thread `cur`, recorded as `tid`.
    fn rec_process(&self, cur: TaskId, tid: i32) -> i32 {
        self.k
            .getpid(cur)
            .ok()
            .and_then(|n| self.pids.rec_of(n))
            .unwrap_or(tid)
    }

    /// Notes the `---` line `e` of thread `cur` (signal `signo`, sent by
    /// recorded `sender`) for the timeline.
    pub(super) fn mark_signal(&mut self, e: &Event, cur: TaskId, signo: i32, sender: i32) {
        if self.rec.on {
            let pid = self.rec_process(cur, e.pid);
            self.rec.finished.push((
                self.pos,
                Finished::Mark(Mark::Signal {
                    ts: e.ts,
                    pid,
                    tid: e.pid,
                    signo,
                    sender,
                }),
            ));
        }
    }

    /// Notes that the wait `e` of thread `cur` reaped recorded `child`.
    pub(super) fn mark_reap(&mut self, e: &Event, cur: TaskId, child: i32) {
        if self.rec.on {
            let reaper = self.rec_process(cur, e.pid);
            self.rec.finished.push((
                self.pos,
                Finished::Mark(Mark::Reap {
                    ts: e.ts,
                    reaper,
                    child,
                }),
            ));
        }
    }
}
