//! The timeline in the Chrome trace-event format (the JSON that Perfetto
//! and `chrome://tracing` open): one complete event (`"ph": "X"`) per
//! process, with `ts`/`dur` in microseconds from the trace's first process
//! start, `pid` = `tid` = the recorded pid, and a `process_name` metadata
//! event per pid.

use std::collections::BTreeMap;

use serde::Serialize;

use super::tree::Row;

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
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    cat: &'static str,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: i32,
    tid: i32,
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
        start_s: f64,
        end_s: Option<f64>,
        status: String,
        depth: usize,
    },
    /// `process_name` metadata.
    Name { name: &'a str },
}

/// The trace-event JSON of `rows`.
pub(crate) fn render(rows: &[Row<'_>]) -> String {
    let mut events = Vec::with_capacity(rows.len() * 2);
    let mut names: BTreeMap<i32, &str> = BTreeMap::new();
    for r in rows {
        names.entry(r.rec.pid).or_insert(&r.name);
        events.push(TraceEvent {
            name: &r.name,
            cat: "process",
            ph: "X",
            ts: Some(r.start * 1e6),
            dur: Some((r.end - r.start).max(0.0) * 1e6),
            pid: r.rec.pid,
            tid: r.rec.pid,
            args: Args::Process {
                ppid: r.rec.ppid,
                pgid: r.rec.pgid,
                sid: r.rec.sid,
                argv: &r.rec.argv,
                start_s: r.rec.start,
                end_s: r.rec.end,
                status: r.ending.to_string(),
                depth: r.depth,
            },
        });
    }
    for (pid, name) in names {
        events.push(TraceEvent {
            name: "process_name",
            cat: "",
            ph: "M",
            ts: None,
            dur: None,
            pid,
            tid: pid,
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
    use taskcore_replay::ProcessRecord;

    #[test]
    fn one_complete_event_per_process_in_microseconds() {
        let rec = |pid, ppid, start, end| ProcessRecord {
            pid,
            ppid,
            pgid: pid,
            sid: pid,
            argv: vec![format!("/bin/p{pid}")],
            start,
            end,
            exit_status: end.map(|_| 3 << 8),
        };
        let recs = vec![rec(5, 0, 100.0, Some(100.5)), rec(6, 5, 100.25, None)];
        let v: serde_json::Value = serde_json::from_str(&render(&rows(&recs))).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        let x: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(x.len(), 2);
        assert_eq!(x[1]["name"], "p6");
        assert_eq!(x[1]["ts"], 250000.0);
        assert_eq!(x[1]["dur"], 250000.0, "open until the trace's end");
        assert_eq!(x[0]["args"]["status"], "exited with 3");
        assert_eq!(
            x[1]["args"]["status"],
            "still running at the end of the trace"
        );
        assert_eq!(ev.iter().filter(|e| e["ph"] == "M").count(), 2);
    }
}
