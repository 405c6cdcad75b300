//! The timeline in the Chrome trace-event format (the JSON that Perfetto
//! and `chrome://tracing` open): one complete event (`"ph": "X"`) per
//! process, with `ts`/`dur` in microseconds from the trace's first process
//! start, `pid` = `tid` = the recorded pid, and a `process_name` metadata
//! event per pid; an instant event (`"ph": "i"`) per signal taken, and a
//! flow (`"ph": "s"` at the child's end, `"f"` at the wait) per reap.

use std::collections::BTreeMap;

use serde::Serialize;

use super::tree::{signal_name, Row};

/// The file: `{"traceEvents": [...], "displayTimeUnit": "ms"}`.
#[derive(Serialize)]
struct TraceFile<'a> {
    #[serde(rename = "traceEvents")]
    trace_events: Vec<TraceEvent<'a>>,
    #[serde(rename = "displayTimeUnit")]
    display_time_unit: &'static str,
}

/// One trace event.
#[derive(Serialize)]
struct TraceEvent<'a> {
    name: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "str::is_empty")]
    cat: &'static str,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: i32,
    tid: i32,
    /// Instant events: their scope (`t`: the thread's row).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    /// Flow events: the flow's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    /// Flow ends: bind to the enclosing slice (`e`).
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    args: Args<'a>,
}

/// What an event carries besides its timing.
#[derive(Serialize)]
#[serde(untagged)]
enum Args<'a> {
    /// A process: its record, and its `+++` status in strace's words.
    Process {
        ppid: i32,
        pgid: i32,
        sid: i32,
        argv: &'a [String],
        /// Each successful execve: `[seconds, path]`.
        execs: &'a [(f64, String)],
        start_s: f64,
        end_s: Option<f64>,
        status: String,
        depth: usize,
    },
    /// `process_name` metadata.
    Name { name: &'a str },
    /// A signal taken: the thread, and `si_pid` (0: the kernel).
    Signal { tid: i32, sender: i32, ts_s: f64 },
    /// A reap: the child's pid and the reaper's.
    Reap { child: i32, reaper: i32 },
}

/// The trace-event JSON of `rows`.
pub(crate) fn render(rows: &[Row<'_>]) -> String {
    let mut events = Vec::with_capacity(rows.len() * 2);
    let mut names: BTreeMap<i32, &str> = BTreeMap::new();
    for r in rows {
        names.entry(r.rec.pid).or_insert(&r.name);
        events.push(TraceEvent {
            name: r.name.as_str().into(),
            cat: "process",
            ph: "X",
            ts: Some(r.start * 1e6),
            dur: Some((r.end - r.start).max(0.0) * 1e6),
            pid: r.rec.pid,
            tid: r.rec.pid,
            s: None,
            id: None,
            bp: None,
            args: Args::Process {
                ppid: r.rec.ppid,
                pgid: r.rec.pgid,
                sid: r.rec.sid,
                argv: &r.rec.argv,
                execs: &r.rec.execs,
                start_s: r.rec.start,
                end_s: r.rec.end,
                status: r.ending.to_string(),
                depth: r.depth,
            },
        });
        for m in &r.signals {
            events.push(TraceEvent {
                name: signal_name(m.signo).into(),
                cat: "signal",
                ph: "i",
                ts: Some(m.t * 1e6),
                dur: None,
                pid: r.rec.pid,
                tid: r.rec.pid,
                s: Some("t"),
                id: None,
                bp: None,
                args: Args::Signal {
                    tid: m.tid,
                    sender: m.sender,
                    ts_s: m.ts,
                },
            });
        }
    }
    for (i, r) in rows.iter().enumerate() {
        let Some((t, by)) = r.reaped else { continue };
        let reaper = rows[by].rec.pid;
        for (ph, ts, pid, bp) in [("s", r.end, r.rec.pid, None), ("f", t, reaper, Some("e"))] {
            events.push(TraceEvent {
                name: "reap".into(),
                cat: "wait",
                ph,
                ts: Some(ts * 1e6),
                dur: None,
                pid,
                tid: pid,
                s: None,
                id: Some(i),
                bp,
                args: Args::Reap {
                    child: r.rec.pid,
                    reaper,
                },
            });
        }
    }
    for (pid, name) in names {
        events.push(TraceEvent {
            name: "process_name".into(),
            cat: "",
            ph: "M",
            ts: None,
            dur: None,
            pid,
            tid: pid,
            s: None,
            id: None,
            bp: None,
            args: Args::Name { name },
        });
    }
    let file = TraceFile {
        trace_events: events,
        display_time_unit: "ms",
    };
    serde_json::to_string(&file).expect("serialising plain data cannot fail")
}

#[cfg(test)]
mod tests {
    use super::super::tree::rows;
    use super::*;
    use taskcore_replay::{Mark, ProcessRecord};

    #[test]
    fn one_complete_event_per_process_in_microseconds() {
        let rec = |pid, ppid, start, end| ProcessRecord {
            pid,
            ppid,
            pgid: pid,
            sid: pid,
            argv: vec![format!("/bin/p{pid}")],
            execs: Vec::new(),
            start,
            end,
            exit_status: end.map(|_| 3 << 8),
        };
        let recs = vec![
            rec(5, 0, 100.0, Some(100.5)),
            rec(6, 5, 100.25, Some(100.3)),
        ];
        let marks = vec![
            Mark::Signal {
                ts: 100.3,
                pid: 5,
                tid: 5,
                signo: 17,
                sender: 6,
            },
            Mark::Reap {
                ts: 100.4,
                reaper: 5,
                child: 6,
            },
        ];
        let v: serde_json::Value = serde_json::from_str(&render(&rows(&recs, &marks))).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        let x: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(x.len(), 2);
        assert_eq!(x[1]["name"], "p6");
        assert_eq!(x[1]["ts"], 250000.0);
        assert!((x[1]["dur"].as_f64().unwrap() - 50000.0).abs() < 1e-6);
        assert_eq!(x[0]["args"]["status"], "exited with 3");
        let i: Vec<_> = ev.iter().filter(|e| e["ph"] == "i").collect();
        assert_eq!(i.len(), 1);
        assert_eq!(i[0]["name"], "SIGCHLD");
        assert_eq!(i[0]["args"]["sender"], 6);
        let s: Vec<_> = ev.iter().filter(|e| e["ph"] == "s").collect();
        let f: Vec<_> = ev.iter().filter(|e| e["ph"] == "f").collect();
        assert_eq!((s.len(), f.len()), (1, 1));
        assert_eq!(s[0]["pid"], 6);
        assert_eq!(f[0]["pid"], 5);
        assert_eq!(s[0]["id"], f[0]["id"]);
        assert!((f[0]["ts"].as_f64().unwrap() - 400000.0).abs() < 1e-6);
        assert_eq!(ev.iter().filter(|e| e["ph"] == "M").count(), 2);
    }
}
