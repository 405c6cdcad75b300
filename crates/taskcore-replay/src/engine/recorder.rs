//! The engine's recorder (with [`crate::Options::records`]): opens each
//! process's record ([`ProcessRecord`]) at its creation, notes its execs,
//! signals taken and children reaped, and closes it at its `+++` line.

use taskcore::TaskId;

use super::records::{Finished, Mark, ProcessRecord};
use super::Engine;
use crate::event::Event;

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

    /// Keeps timeline mark `m` at the current position.
    fn push_mark(&mut self, m: Mark) {
        self.rec.finished.push((self.pos, Finished::Mark(m)));
    }

    /// Notes the `---` line `e` of thread `cur` (signal `signo`, sent by
    /// recorded `sender`) for the timeline.
    pub(super) fn mark_signal(&mut self, e: &Event, cur: TaskId, signo: i32, sender: i32) {
        if self.rec.on {
            let pid = self.rec_process(cur, e.pid);
            self.push_mark(Mark::Signal {
                ts: e.ts,
                pid,
                tid: e.pid,
                signo,
                sender,
            });
        }
    }

    /// Notes that the wait `e` of thread `cur` reaped recorded `child`.
    pub(super) fn mark_reap(&mut self, e: &Event, cur: TaskId, child: i32) {
        if self.rec.on {
            let reaper = self.rec_process(cur, e.pid);
            self.push_mark(Mark::Reap {
                ts: e.ts,
                reaper,
                child,
            });
        }
    }
}
