//! What `taskcore run --timeline` draws: a record per process of the run
//! (its virtual pid, parent, group, session, programs, lifetime and wait
//! status) and marks for the signals it took and the waits that reaped it,
//! in the replay's types ([`ProcessRecord`], [`Mark`]) so that one renderer
//! serves recordings and runs.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use taskcore_replay::{Mark, ProcessRecord};

/// A run's processes over time, as [`crate::Report::timeline`] gives them.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// One record per process (virtual pids; times in seconds since the
    /// Unix epoch, as `strace -ttt` prints them), in the order they ended;
    /// the namespace's init (pid 1, the supervisor) first.
    pub records: Vec<ProcessRecord>,
    /// Signals taken (at their delivery stops) and children reaped (at the
    /// syscall exit of the wait that reported a death), in order.
    pub marks: Vec<Mark>,
}

/// Seconds since the Unix epoch.
fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Builds a [`Timeline`] as the supervisor sees the run.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    /// Records of live processes, by virtual pid.
    open: HashMap<i32, ProcessRecord>,
    done: Vec<ProcessRecord>,
    marks: Vec<Mark>,
}

impl Recorder {
    /// Process `pid` (virtual) starts now, child of `ppid` in group `pgid`
    /// and session `sid`; it runs its parent's program until it execs.
    pub(crate) fn fork(&mut self, pid: i32, ppid: i32, pgid: i32, sid: i32) {
        let argv = self
            .open
            .get(&ppid)
            .map(|p| p.argv.clone())
            .unwrap_or_default();
        self.start(pid, ppid, pgid, sid, argv);
    }

    /// Process `pid` starts now running `argv`.
    pub(crate) fn start(&mut self, pid: i32, ppid: i32, pgid: i32, sid: i32, argv: Vec<String>) {
        self.open.insert(
            pid,
            ProcessRecord {
                pid,
                ppid,
                pgid,
                sid,
                argv,
                execs: Vec::new(),
                start: now(),
                end: None,
                exit_status: None,
            },
        );
    }

    /// Process `pid` completed an execve of `filename` with `argv`.
    pub(crate) fn exec(&mut self, pid: i32, filename: &str, argv: Option<&[Vec<u8>]>) {
        if let Some(r) = self.open.get_mut(&pid) {
            if let Some(argv) = argv {
                r.argv = argv
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
            }
            r.execs.push((now(), filename.to_string()));
        }
    }

    /// Process `pid` is dead with wait status `status` (as `wait4` gives
    /// it).
    pub(crate) fn exit(&mut self, pid: i32, status: i32) {
        if let Some(mut r) = self.open.remove(&pid) {
            r.end = Some(now());
            r.exit_status = Some(status);
            self.done.push(r);
        }
    }

    /// Thread `tid` of process `pid` takes `signo`, sent by `sender`
    /// (virtual; 0: the kernel).
    pub(crate) fn signal(&mut self, pid: i32, tid: i32, signo: i32, sender: i32) {
        self.marks.push(Mark::Signal {
            ts: now(),
            pid,
            tid,
            signo,
            sender,
        });
    }

    /// Process `reaper`'s wait reaped `child`.
    pub(crate) fn reap(&mut self, reaper: i32, child: i32) {
        self.marks.push(Mark::Reap {
            ts: now(),
            reaper,
            child,
        });
    }

    /// The timeline: every record (those still open end now; init, whose
    /// namespace is empty, with exit status `init_status`).
    pub(crate) fn finish(mut self, init_status: i32) -> Timeline {
        let t = now();
        let mut open: Vec<ProcessRecord> = self.open.drain().map(|(_, r)| r).collect();
        open.sort_by(|a, b| a.start.total_cmp(&b.start));
        for mut r in open {
            if r.pid == 1 {
                r.end = Some(t);
                r.exit_status = Some((init_status & 0xff) << 8);
                self.done.insert(0, r);
            } else {
                self.done.push(r);
            }
        }
        Timeline {
            records: self.done,
            marks: self.marks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_runs_its_parents_program_until_it_execs() {
        let mut r = Recorder::default();
        r.start(1, 0, 1, 1, vec!["taskcore".into(), "run".into()]);
        r.start(2, 1, 2, 1, vec!["sh".into()]);
        r.fork(3, 2, 2, 1);
        r.exec(3, "/bin/true", Some(&[b"true".to_vec()]));
        r.signal(2, 2, libc::SIGCHLD, 3);
        r.exit(3, 0);
        r.reap(2, 3);
        r.exit(2, 1 << 8);
        let t = r.finish(1);
        let pids: Vec<i32> = t.records.iter().map(|r| r.pid).collect();
        assert_eq!(pids, vec![1, 3, 2], "init first, then by end");
        assert_eq!(t.records[1].execs.len(), 1);
        assert_eq!(t.records[1].argv, vec!["true".to_string()]);
        assert_eq!(t.records[0].exit_status, Some(1 << 8));
        assert_eq!(t.records[2].exit_status, Some(1 << 8));
        assert!(t.records.iter().all(|r| r.end >= Some(r.start)));
        assert!(matches!(
            t.marks[0],
            Mark::Signal {
                pid: 2,
                sender: 3,
                ..
            }
        ));
        assert!(matches!(
            t.marks[1],
            Mark::Reap {
                reaper: 2,
                child: 3,
                ..
            }
        ));
    }

    #[test]
    fn an_unknown_process_leaves_no_trace() {
        let mut r = Recorder::default();
        r.exec(9, "/bin/x", None);
        r.exit(9, 0);
        assert!(r.finish(0).records.is_empty());
    }
}
