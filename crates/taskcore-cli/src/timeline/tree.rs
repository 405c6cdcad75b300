//! The rows of a timeline: every process record once, parents before
//! their children (depth first, siblings by start time), with its depth in
//! the process tree and what ended it, in strace's notation.

use std::collections::HashMap;

use taskcore_replay::{Mark, ProcessRecord};

/// How a process ended, as its `+++` line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// `+++ exited with N +++`.
    Exited(i32),
    /// `+++ killed by SIG... +++` (signal number, core dumped).
    Killed(i32, bool),
    /// The trace ends while it still runs.
    Running,
}

impl Ending {
    /// From a record's wait status word (`WEXITSTATUS << 8`, or the
    /// signal, | 0x80 when it dumped core), as Linux's `wait4()` reports it.
    pub(crate) fn of(status: Option<i32>) -> Ending {
        match status {
            None => Ending::Running,
            Some(s) if s & 0x7f == 0 => Ending::Exited((s >> 8) & 0xff),
            Some(s) => Ending::Killed(s & 0x7f, s & 0x80 != 0),
        }
    }

    /// The CSS class of its colour: `ok` (exit 0), `fail` (non-zero exit),
    /// `sig` (killed by a signal), `run` (still running at the end).
    pub(crate) fn class(self) -> &'static str {
        match self {
            Ending::Exited(0) => "ok",
            Ending::Exited(_) => "fail",
            Ending::Killed(..) => "sig",
            Ending::Running => "run",
        }
    }
}

impl std::fmt::Display for Ending {
    /// strace's `+++` text: `exited with 1`, `killed by SIGKILL (core
    /// dumped)`; `still running at the end of the trace`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Ending::Exited(n) => write!(f, "exited with {n}"),
            Ending::Killed(sig, core) => {
                write!(f, "killed by {}", signal_name(sig))?;
                if core {
                    write!(f, " (core dumped)")?;
                }
                Ok(())
            }
            Ending::Running => write!(f, "still running at the end of the trace"),
        }
    }
}

/// strace's name of signal `n` (x86_64 numbers): `SIGKILL`, `SIGRT_2`.
pub(crate) fn signal_name(n: i32) -> String {
    taskcore::uapi::signal_name(n).into_owned()
}

/// One process of the timeline.
#[derive(Debug, Clone)]
pub(crate) struct Row<'a> {
    /// Its record.
    pub(crate) rec: &'a ProcessRecord,
    /// Depth in the process tree (0: its parent is not in the trace).
    pub(crate) depth: usize,
    /// Its program: the basename of `argv[0]` (`?` without an argv).
    pub(crate) name: String,
    /// Seconds from the trace's first process start.
    pub(crate) start: f64,
    /// Seconds from that start to its `+++` line (to the trace's end when
    /// it has none).
    pub(crate) end: f64,
    /// How it ended.
    pub(crate) ending: Ending,
    /// Signals its threads took (`---` lines), in trace order.
    pub(crate) signals: Vec<SignalMark>,
    /// The wait that reaped it: seconds from the start, and the reaper's
    /// row (`None`: not reaped in the trace, or by a process outside it).
    pub(crate) reaped: Option<(f64, usize)>,
}

/// A signal on a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SignalMark {
    /// Seconds from the timeline's start.
    pub(crate) t: f64,
    /// Seconds as recorded (`-ttt`).
    pub(crate) ts: f64,
    /// The signal number.
    pub(crate) signo: i32,
    /// The thread that took it.
    pub(crate) tid: i32,
    /// `si_pid` (0: the kernel, or not shown).
    pub(crate) sender: i32,
}

/// The program of `rec`: the basename of its last execve's path (strace
/// prints paths whole), else of `argv[0]` (inherited from its parent), or
/// `?`.
pub(crate) fn exec_name(rec: &ProcessRecord) -> String {
    let path = match rec.execs.last() {
        Some((_, p)) if !p.is_empty() => p,
        _ => match rec.argv.first() {
            Some(a) => a,
            None => return "?".to_string(),
        },
    };
    let base = path.trim_end_matches('/');
    base.rsplit('/').next().unwrap_or(base).to_string()
}

/// The rows of `records` in tree order, with times from the earliest
/// start, and `marks` placed on them. A parent is the record with the
/// child's `ppid` that started last before the child (pids may be reused
/// within a trace); a mark belongs to the row of its pid that started last
/// before it.
pub(crate) fn rows<'a>(records: &'a [ProcessRecord], marks: &[Mark]) -> Vec<Row<'a>> {
    let t0 = records
        .iter()
        .map(|r| r.start)
        .fold(f64::INFINITY, f64::min);
    let t_end = records
        .iter()
        .map(|r| r.end.unwrap_or(r.start))
        .fold(t0, f64::max);
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by(|&a, &b| records[a].start.total_cmp(&records[b].start));
    // Indices by pid, by start time.
    let mut by_pid: HashMap<i32, Vec<usize>> = HashMap::new();
    for &i in &order {
        by_pid.entry(records[i].pid).or_default().push(i);
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); records.len()];
    let mut roots = Vec::new();
    for &i in &order {
        let r = &records[i];
        let parent = by_pid.get(&r.ppid).and_then(|v| {
            v.iter()
                .rev()
                .find(|&&p| p != i && records[p].start <= r.start)
                .copied()
        });
        match parent {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let mut out: Vec<Row<'a>> = Vec::with_capacity(records.len());
    let mut row_of = vec![0usize; records.len()];
    let mut seen = vec![false; records.len()];
    // Roots, then (against inconsistent input: a parent cycle of equal
    // start times) whatever they did not reach.
    for root in roots.into_iter().chain(order.iter().copied()) {
        if seen[root] {
            continue;
        }
        let mut stack = vec![(root, 0)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let rec = &records[i];
            row_of[i] = out.len();
            out.push(Row {
                rec,
                depth,
                name: exec_name(rec),
                start: rec.start - t0,
                end: rec.end.unwrap_or(t_end) - t0,
                ending: Ending::of(rec.exit_status),
                signals: Vec::new(),
                reaped: None,
            });
            stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
        }
    }
    // The record of `pid` live at `ts`: the last one started by then.
    let at = |pid: i32, ts: f64| {
        by_pid.get(&pid).and_then(|v| {
            let n = v.partition_point(|&r| records[r].start <= ts);
            v[..n].last().copied()
        })
    };
    for m in marks {
        match *m {
            Mark::Signal {
                ts,
                pid,
                tid,
                signo,
                sender,
            } => {
                if let Some(r) = at(pid, ts) {
                    out[row_of[r]].signals.push(SignalMark {
                        t: ts - t0,
                        ts,
                        signo,
                        tid,
                        sender,
                    });
                }
            }
            Mark::Reap { ts, reaper, child } => {
                if let (Some(c), Some(p)) = (at(child, ts), at(reaper, ts)) {
                    out[row_of[c]].reaped = Some((ts - t0, row_of[p]));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(pid: i32, ppid: i32, start: f64, end: Option<f64>, st: Option<i32>) -> ProcessRecord {
        ProcessRecord {
            pid,
            ppid,
            pgid: pid,
            sid: pid,
            argv: vec![format!("/bin/p{pid}")],
            execs: Vec::new(),
            start,
            end,
            exit_status: st,
        }
    }

    #[test]
    fn marks_go_to_the_row_live_at_their_time() {
        let recs = vec![
            rec(20, 0, 0.0, Some(1.0), Some(0)),
            rec(21, 20, 0.5, Some(0.8), Some(0)),
            rec(21, 20, 0.85, Some(0.95), Some(9)),
        ];
        let marks = vec![
            Mark::Signal {
                ts: 0.6,
                pid: 21,
                tid: 21,
                signo: 15,
                sender: 20,
            },
            Mark::Reap {
                ts: 0.82,
                reaper: 20,
                child: 21,
            },
            Mark::Signal {
                ts: 0.9,
                pid: 21,
                tid: 21,
                signo: 9,
                sender: 0,
            },
            Mark::Reap {
                ts: 0.97,
                reaper: 20,
                child: 21,
            },
        ];
        let r = rows(&recs, &marks);
        let seq: Vec<(i32, f64)> = r.iter().map(|r| (r.rec.pid, r.start)).collect();
        assert_eq!(seq, vec![(20, 0.0), (21, 0.5), (21, 0.85)]);
        assert_eq!(r[1].signals.len(), 1);
        assert_eq!(r[1].signals[0].signo, 15);
        assert_eq!(r[2].signals[0].signo, 9);
        assert_eq!(r[1].reaped, Some((0.82, 0)));
        assert_eq!(r[2].reaped, Some((0.97, 0)));
        assert_eq!(r[0].reaped, None);
    }

    #[test]
    fn children_follow_their_parent_by_start() {
        let recs = vec![
            rec(12, 10, 3.0, Some(4.0), Some(0)),
            rec(10, 1, 1.0, Some(9.0), Some(0)),
            rec(11, 10, 2.0, Some(5.0), Some(1 << 8)),
            rec(13, 11, 2.5, None, None),
        ];
        let r = rows(&recs, &[]);
        let seq: Vec<(i32, usize)> = r.iter().map(|r| (r.rec.pid, r.depth)).collect();
        assert_eq!(seq, vec![(10, 0), (11, 1), (13, 2), (12, 1)]);
        assert_eq!(r[0].name, "p10");
        assert_eq!(r[2].end, 8.0, "open until the trace's last end");
        assert_eq!(r[1].ending.to_string(), "exited with 1");
    }

    #[test]
    fn a_reused_pid_parents_only_what_it_started_after() {
        let recs = vec![
            rec(20, 0, 0.0, Some(1.0), Some(0)),
            rec(21, 20, 0.5, Some(0.8), Some(0)),
            rec(20, 0, 2.0, Some(3.0), Some(0)),
            rec(22, 20, 2.5, Some(2.8), Some(0)),
        ];
        let seq: Vec<(i32, usize)> = rows(&recs, &[])
            .iter()
            .map(|r| (r.rec.pid, r.depth))
            .collect();
        assert_eq!(seq, vec![(20, 0), (21, 1), (20, 0), (22, 1)]);
    }

    #[test]
    fn a_parent_cycle_still_gives_every_row_once() {
        let recs = vec![rec(5, 6, 1.0, None, None), rec(6, 5, 1.0, None, None)];
        let mut pids: Vec<i32> = rows(&recs, &[]).iter().map(|r| r.rec.pid).collect();
        pids.sort();
        assert_eq!(pids, vec![5, 6]);
    }

    #[test]
    fn the_name_is_the_last_exec_path() {
        let mut r = rec(1, 0, 0.0, None, None);
        r.argv = vec!["/home/u/.pyenv/versions/3.11.7/bin".into()];
        assert_eq!(exec_name(&r), "bin", "argv[0] as strace cut it");
        r.execs = vec![
            (0.1, "/usr/bin/bash".into()),
            (0.2, "/home/u/.pyenv/versions/3.11.7/bin/python3".into()),
        ];
        assert_eq!(exec_name(&r), "python3");
        r.execs.clear();
        r.argv.clear();
        assert_eq!(exec_name(&r), "?");
    }

    #[test]
    fn endings_in_strace_notation() {
        assert_eq!(Ending::of(Some(9)).to_string(), "killed by SIGKILL");
        assert_eq!(
            Ending::of(Some(11 | 0x80)).to_string(),
            "killed by SIGSEGV (core dumped)"
        );
        assert_eq!(Ending::of(Some(34)).to_string(), "killed by SIGRT_2");
        assert_eq!(Ending::of(Some(0)).class(), "ok");
        assert_eq!(Ending::of(Some(2 << 8)).class(), "fail");
        assert_eq!(Ending::of(Some(15)).class(), "sig");
        assert_eq!(Ending::of(None).class(), "run");
    }
}
