//! The rows of a timeline: every process record once, parents before
//! their children (depth first, siblings by start time), with its depth in
//! the process tree and what ended it, in strace's notation.

use std::collections::HashMap;

use taskcore_replay::ProcessRecord;

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
    match nix::sys::signal::Signal::try_from(n) {
        Ok(s) => s.as_str().to_string(),
        Err(_) if (32..=64).contains(&n) => format!("SIGRT_{}", n - 32),
        Err(_) => n.to_string(),
    }
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
}

/// The basename of `argv[0]`, or `?`.
pub(crate) fn exec_name(argv: &[String]) -> String {
    match argv.first() {
        Some(a) => a.rsplit('/').next().unwrap_or(a).to_string(),
        None => "?".to_string(),
    }
}

/// The rows of `records` in tree order, with times from the earliest
/// start. A parent is the record with the child's `ppid` that started
/// last before the child (pids may be reused within a trace).
pub(crate) fn rows(records: &[ProcessRecord]) -> Vec<Row<'_>> {
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
    let mut out = Vec::with_capacity(records.len());
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
            out.push(Row {
                rec,
                depth,
                name: exec_name(&rec.argv),
                start: rec.start - t0,
                end: rec.end.unwrap_or(t_end) - t0,
                ending: Ending::of(rec.exit_status),
            });
            stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
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
            start,
            end,
            exit_status: st,
        }
    }

    #[test]
    fn children_follow_their_parent_by_start() {
        let recs = vec![
            rec(12, 10, 3.0, Some(4.0), Some(0)),
            rec(10, 1, 1.0, Some(9.0), Some(0)),
            rec(11, 10, 2.0, Some(5.0), Some(1 << 8)),
            rec(13, 11, 2.5, None, None),
        ];
        let r = rows(&recs);
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
        let seq: Vec<(i32, usize)> = rows(&recs).iter().map(|r| (r.rec.pid, r.depth)).collect();
        assert_eq!(seq, vec![(20, 0), (21, 1), (20, 0), (22, 1)]);
    }

    #[test]
    fn a_parent_cycle_still_gives_every_row_once() {
        let recs = vec![rec(5, 6, 1.0, None, None), rec(6, 5, 1.0, None, None)];
        let mut pids: Vec<i32> = rows(&recs).iter().map(|r| r.rec.pid).collect();
        pids.sort();
        assert_eq!(pids, vec![5, 6]);
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
