//! `taskcore replay --timeline` on bundled recordings: the HTML page has
//! one row per process of the trace, the `.json` file is trace-event JSON
//! with one complete event per process, and a real headless Chromium
//! renders the page (skipped, saying so, where `chromium` is missing).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::repo;

/// The bundled trace `name`, or `None` (skip, said) from a packaged copy.
fn trace(name: &str, test: &str) -> Option<PathBuf> {
    repo::path(&format!("data/traces/{name}"), test)
}

/// The processes `path` records, counted from its text: the traced root
/// plus every fork, vfork, clone or clone3 that returned a pid without
/// `CLONE_THREAD` (a call split over `<unfinished ...>` and `<... resumed>`
/// lines has its flags on the first and its result on the second).
fn processes_in(path: &Path) -> usize {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let creates = |call: &str| ["fork(", "vfork(", "clone(", "clone3("].contains(&call);
    let mut pending: HashMap<&str, bool> = HashMap::new();
    let mut n = 1;
    for line in text.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let Some((_ts, body)) = rest.trim_start().split_once(' ') else {
            continue;
        };
        let thread = body.contains("CLONE_THREAD");
        let call = body.split_inclusive('(').next().unwrap_or("");
        let ret = body.rsplit_once(") = ").map(|(_, r)| r);
        let is_create = if let Some(resumed) = body.strip_prefix("<... ") {
            let name = resumed.split(' ').next().unwrap_or("");
            match pending.remove(pid) {
                Some(thread) if creates(&format!("{name}(")) => Some(thread),
                _ => None,
            }
        } else if creates(call) {
            if body.ends_with("<unfinished ...>") {
                pending.insert(pid, thread);
                None
            } else {
                Some(thread)
            }
        } else {
            None
        };
        let ok = ret.and_then(|r| r.split(' ').next()?.parse::<i32>().ok()) > Some(0);
        if is_create == Some(false) && ok {
            n += 1;
        }
    }
    n
}

/// Runs `taskcore replay --timeline out trace`; returns its stdout.
fn timeline(trace: &Path, out: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .arg("--timeline")
        .arg(out)
        .arg(trace)
        .output()
        .expect("run taskcore");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

/// Bars in the page: `<rect class="ok|fail|sig|run"`.
fn html_rows(html: &str) -> usize {
    ["ok", "fail", "sig", "run"]
        .iter()
        .map(|c| html.matches(&format!("<rect class=\"{c}\"")).count())
        .sum()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("taskcore-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn html_and_json_have_one_row_per_process() {
    for name in ["cargo-build.strace.gz", "python-multiprocessing.strace.gz"] {
        let Some(t) = trace(name, "timeline::html_and_json_have_one_row_per_process") else {
            return;
        };
        let expected = processes_in(&t);
        assert!(expected > 10, "{name}: {expected} processes");

        let html_path = tmp(&format!("{name}.html"));
        let out = timeline(&t, &html_path);
        assert!(
            out.contains(&format!("timeline: {expected} processes written")),
            "{name}: {out}"
        );
        let html = std::fs::read_to_string(&html_path).unwrap();
        assert_eq!(html_rows(&html), expected, "{name}: rows in the page");
        // A tick per `--- SIG` line of the trace; a reap link per process
        // a traced wait reported dead (at most one each, some reaped).
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&t).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        let sig_lines = text.lines().filter(|l| l.contains(" --- SIG")).count();
        assert!(sig_lines > 10, "{name}: {sig_lines} signal lines");
        assert_eq!(
            html.matches("<line class=\"sg\"").count(),
            sig_lines,
            "{name}"
        );
        let links = html.matches("<line class=\"wl\"").count();
        assert!(links > 10 && links < expected, "{name}: {links} reap links");
        // Outside the recorded text (names, hover details), nothing loads.
        let markup: String = html
            .split("<title>")
            .map(|part| part.split_once("</title>").map_or(part, |(_, after)| after))
            .collect();
        let markup = markup.split("<text").next().unwrap().to_string()
            + html.rsplit("</svg>").next().unwrap();
        for remote in ["src=", "href=", "<link", "url(", "import", "fetch("] {
            assert!(!markup.contains(remote), "{name}: the page loads {remote}");
        }

        let json_path = tmp(&format!("{name}.json"));
        timeline(&t, &json_path);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        let events = v["traceEvents"].as_array().expect("traceEvents");
        let x: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(x.len(), expected, "{name}: X events");
        let pids: HashSet<i64> = x.iter().map(|e| e["pid"].as_i64().unwrap()).collect();
        for e in &x {
            assert_eq!(e["pid"], e["tid"]);
            assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0);
            let ppid = e["args"]["ppid"].as_i64().unwrap();
            assert!(
                ppid == 0 || pids.contains(&ppid),
                "{name}: parent {ppid} missing"
            );
            let status = e["args"]["status"].as_str().unwrap();
            assert!(
                status.starts_with("exited with ")
                    || status.starts_with("killed by SIG")
                    || status == "still running at the end of the trace",
                "{name}: {status}"
            );
        }
        // The root is the first row, at time 0, at depth 0.
        assert_eq!(x[0]["ts"].as_f64(), Some(0.0));
        assert_eq!(x[0]["args"]["depth"], 0);
    }
}

#[test]
fn timeline_takes_one_trace_only() {
    let Some(t) = trace(
        "cargo-build.strace.gz",
        "timeline::timeline_takes_one_trace_only",
    ) else {
        return;
    };
    let o = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .args(["replay", "--timeline"])
        .arg(tmp("two.html"))
        .arg(&t)
        .arg(&t)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("exactly one file"));
}

/// `chromium` on PATH, or `None` after saying why the test skips.
fn chromium(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("chromium"))
            .find(|c| c.is_file())
    });
    if found.is_none() {
        eprintln!("SKIPPED {test}: no `chromium` on PATH (Debian: apt-get install chromium)");
    }
    found
}

#[test]
fn chromium_renders_the_page_with_every_row() {
    let test = "timeline::chromium_renders_the_page_with_every_row";
    let Some(t) = trace("cargo-build.strace.gz", test) else {
        return;
    };
    let Some(chromium) = chromium(test) else {
        return;
    };
    let html = tmp("render.html");
    timeline(&t, &html);
    let url = format!("file://{}", html.canonicalize().unwrap().display());
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
    ];
    // The DOM after the page's script ran: it counts the bars it drew.
    let dom = Command::new(&chromium)
        .args(flags)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&dom.stdout);
    let expected = processes_in(&t);
    assert!(
        dom.contains(&format!("data-rows=\"{expected}\"")),
        "the rendered page does not count {expected} rows: {}",
        &dom[..dom.len().min(600)]
    );
    // The zoom script: `#zoom=8` widens the bars' SVG 8 times and redraws
    // the axis with finer ticks.
    let zoomed = Command::new(&chromium)
        .args(flags)
        .arg("--dump-dom")
        .arg(format!("{url}#zoom=8"))
        .output()
        .expect("run chromium");
    let zoomed = String::from_utf8_lossy(&zoomed.stdout);
    let width = |dom: &str| -> f64 {
        let bars = &dom[dom.find("<svg id=\"bars\"").expect("the bars' svg")..];
        let w = &bars[bars.find("width=\"").unwrap() + 7..];
        w[..w.find('"').unwrap()].parse().unwrap()
    };
    let ratio = width(&zoomed) / width(&dom);
    assert!((ratio - 8.0).abs() < 0.01, "zoomed {ratio} times");
    assert!(zoomed.contains("data-zoom=\"8\""));
    let ticks = |dom: &str| dom.matches("<line").count();
    assert!(ticks(&zoomed) > ticks(&dom), "the axis is not redrawn");
    let png = tmp("render.png");
    let _ = std::fs::remove_file(&png);
    let o = Command::new(&chromium)
        .args(flags)
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1400,900")
        .arg(&url)
        .output()
        .expect("run chromium");
    let bytes = std::fs::read(&png).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // A blank 1400x900 PNG compresses to a few KB; bars and text do not.
    assert!(bytes.len() > 20_000, "screenshot of {} bytes", bytes.len());
}
