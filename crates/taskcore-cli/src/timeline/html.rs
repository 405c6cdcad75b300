//! The timeline as one self-contained HTML page (inline SVG, CSS and a
//! small script; nothing loaded from the network): a row per process in
//! tree order, its name indented by depth in a left column, its lifetime as
//! a bar coloured by how it ended, the signals it took as blue ticks on the
//! bar, the wait that reaped it as a dashed link from its end to its
//! reaper's row, details on hover (SVG `<title>`), and a horizontal zoom
//! (buttons, or Ctrl + wheel) that widens the bars' SVG.

use std::fmt::Write;

use super::tree::{signal_name, Row, SignalMark};

/// Height of a row, in pixels.
const ROW_H: usize = 14;
/// Height of a bar within its row.
const BAR_H: usize = 10;
/// Width of the bars' SVG at zoom 1, in pixels (and viewBox units).
const PLOT_W: f64 = 1200.0;
/// Indentation per tree level, in pixels.
const INDENT: usize = 8;
/// Widest left column, in pixels.
const MAX_LABEL_W: usize = 420;
/// Longest argv shown on hover, in characters (the JSON has all of it).
const MAX_ARGV: usize = 400;
/// Longest title shown in the header, in characters (the whole on hover).
const MAX_TITLE: usize = 80;
/// Most execve calls listed on hover (the JSON has all of them).
const MAX_EXECS: usize = 8;

/// `s` escaped for XML text and attribute values.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() && c != '\n' => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

/// The hover text of `r`: pid, ppid, argv, start and end seconds (as
/// recorded, `-ttt`), how it ended.
fn details(r: &Row<'_>) -> String {
    let mut argv = r.rec.argv.join(" ");
    if argv.chars().count() > MAX_ARGV {
        argv = argv.chars().take(MAX_ARGV).collect::<String>() + "…";
    }
    let end = match r.rec.end {
        Some(e) => format!("{e:.6}"),
        None => "-".to_string(),
    };
    let mut execs = String::new();
    for (ts, path) in r.rec.execs.iter().take(MAX_EXECS) {
        let _ = write!(execs, "\nexecve(\"{path}\") at {ts:.6} s");
    }
    if r.rec.execs.len() > MAX_EXECS {
        let _ = write!(execs, "\n… {} more", r.rec.execs.len() - MAX_EXECS);
    }
    format!(
        "{} (pid {}, ppid {}, pgid {}, sid {})\nargv: {}{}\nstart {:.6} s, end {} s ({:.6} s)\n{}",
        r.name,
        r.rec.pid,
        r.rec.ppid,
        r.rec.pgid,
        r.rec.sid,
        argv,
        execs,
        r.rec.start,
        end,
        r.end - r.start,
        r.ending
    )
}

/// The hover text of signal mark `m` on process `pid`'s row.
fn signal_details(m: &SignalMark, pid: i32) -> String {
    let from = match m.sender {
        0 => String::new(),
        p => format!(" from {p}"),
    };
    let thread = if m.tid == pid {
        String::new()
    } else {
        format!(" (thread {})", m.tid)
    };
    format!(
        "--- {}{} --- at {:.6} s, pid {}{}",
        signal_name(m.signo),
        from,
        m.ts,
        pid,
        thread
    )
}

/// The page for `rows`, titled with `source`: a trace's path (shown by
/// its file name) or the command run (shown whole).
pub(crate) fn render(rows: &[Row<'_>], source: &str) -> String {
    let span = rows.iter().map(|r| r.end).fold(0.0, f64::max).max(1e-6);
    let label_w = rows
        .iter()
        .map(|r| 8 + r.depth * INDENT + r.name.chars().count() * 7)
        .max()
        .unwrap_or(100)
        .clamp(100, MAX_LABEL_W);
    let h = rows.len().max(1) * ROW_H;
    let count = |class: &str| rows.iter().filter(|r| r.ending.class() == class).count();
    let nsig: usize = rows.iter().map(|r| r.signals.len()).sum();
    let nreap = rows.iter().filter(|r| r.reaped.is_some()).count();
    let mut o = String::with_capacity(rows.len() * 420 + 8192);
    let shown = if source.starts_with("taskcore run") {
        source
    } else {
        source.rsplit('/').next().unwrap_or(source)
    };
    let title = if shown.chars().count() > MAX_TITLE {
        esc(&(shown.chars().take(MAX_TITLE).collect::<String>() + "…"))
    } else {
        esc(shown)
    };
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>taskcore timeline: {title}</title>\n<style>{CSS}\n#tl{{grid-template-columns:{label_w}px auto}}</style></head>\n\
<body data-rows=\"0\"><header><b>taskcore timeline</b> <span title=\"{path}\">{title}</span>: {n} processes over {span:.3} s \
<button id=\"zin\" title=\"zoom in (Ctrl + wheel)\">+</button><button id=\"zout\" title=\"zoom out\">&#8722;</button>\
<button id=\"fit\">fit</button> \
<span class=\"key ok\"></span>exited with 0 ({ok}) <span class=\"key fail\"></span>exited with non-zero ({fail}) \
<span class=\"key sig\"></span>killed by a signal ({sig}) <span class=\"key run\"></span>running at the end ({run}) \
<span class=\"key sgk\"></span>signal taken ({nsig}) <span class=\"key wlk\"></span>reaped by a wait ({nreap})</header>\n\
<div id=\"tl\"><div id=\"corner\"></div><svg id=\"axis\" width=\"{PLOT_W}\" height=\"20\"></svg>\n\
<svg id=\"names\" width=\"{label_w}\" height=\"{h}\">\n",
        path = esc(source),
        n = rows.len(),
        ok = count("ok"),
        fail = count("fail"),
        sig = count("sig"),
        run = count("run"),
    );
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            4 + r.depth * INDENT,
            i * ROW_H + BAR_H + 1,
            esc(&r.name)
        );
    }
    let _ = write!(
        o,
        "</svg>\n<svg id=\"bars\" width=\"{PLOT_W}\" height=\"{h}\" viewBox=\"0 0 {PLOT_W} {h}\" \
preserveAspectRatio=\"none\" data-span=\"{span}\">\n"
    );
    let scale = PLOT_W / span;
    for (i, r) in rows.iter().enumerate() {
        let x = r.start * scale;
        let w = ((r.end - r.start) * scale).max(1.0);
        let _ = writeln!(
            o,
            "<rect class=\"{}\" x=\"{x:.3}\" y=\"{}\" width=\"{w:.3}\" height=\"{BAR_H}\"><title>{}</title></rect>",
            r.ending.class(),
            i * ROW_H + 2,
            esc(&details(r))
        );
    }
    // Marks above the bars: reap links, then signal ticks.
    let mid = |i: usize| i * ROW_H + 2 + BAR_H / 2;
    let _ = writeln!(o, "<g id=\"marks\">");
    for (i, r) in rows.iter().enumerate() {
        if let Some((t, by)) = r.reaped {
            let _ = writeln!(
                o,
                "<line class=\"wl\" x1=\"{:.3}\" y1=\"{}\" x2=\"{:.3}\" y2=\"{}\"><title>{} (pid {}) reaped by {} (pid {}) at {:.6} s</title></line>",
                r.end * scale,
                mid(i),
                t * scale,
                mid(by),
                esc(&r.name),
                r.rec.pid,
                esc(&rows[by].name),
                rows[by].rec.pid,
                r.rec.start + (t - r.start)
            );
        }
    }
    for (i, r) in rows.iter().enumerate() {
        for m in &r.signals {
            let x = m.t * scale;
            let _ = writeln!(
                o,
                "<line class=\"sg\" x1=\"{x:.3}\" y1=\"{}\" x2=\"{x:.3}\" y2=\"{}\"><title>{}</title></line>",
                i * ROW_H + 1,
                i * ROW_H + 3 + BAR_H,
                esc(&signal_details(m, r.rec.pid))
            );
        }
    }
    let _ = write!(
        o,
        "</g></svg></div>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    o
}

/// The page's style: colours by ending (the classes of
/// [`super::tree::Ending::class`]), sticky names and axis.
const CSS: &str = "body{margin:0;font:12px sans-serif;color:#222}\
header{height:28px;line-height:28px;padding:0 8px;border-bottom:1px solid #ccc;white-space:nowrap;overflow:hidden}\
header button{min-width:28px;margin-left:4px}\
.key{display:inline-block;width:12px;height:10px;margin:0 3px 0 10px}\
#tl{display:grid;align-content:start;overflow:auto;height:calc(100vh - 29px)}\
#corner{position:sticky;top:0;left:0;z-index:3;background:#fff;border-bottom:1px solid #ccc}\
#axis{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #ccc}\
#axis text{font-size:10px;fill:#555}#axis line{stroke:#bbb}\
#names{position:sticky;left:0;z-index:1;background:#fff;border-right:1px solid #ccc}\
#names text{font-size:11px;font-family:sans-serif}\
#names,#bars{background-image:repeating-linear-gradient(#fff 0 14px,#f3f5f8 14px 28px)}\
#bars rect:hover{stroke:#000;stroke-width:1px;vector-effect:non-scaling-stroke}\
.ok{fill:#3a9d4a;background:#3a9d4a}.fail{fill:#f08a24;background:#f08a24}\
.sig{fill:#d62f2f;background:#d62f2f}.run{fill:#8a8f99;background:#8a8f99}\
.sg{stroke:#1f4fd8;stroke-width:2px;vector-effect:non-scaling-stroke}.sgk{background:#1f4fd8;width:3px}\
.wl{stroke:#555;stroke-width:1px;stroke-dasharray:3 2;vector-effect:non-scaling-stroke}\
.wlk{height:0;border-top:1px dashed #555}\
#marks line:hover{stroke-width:3px}";

/// The zoom: scales the bars' SVG width (its viewBox stays, so bars
/// stretch horizontally only) from the window's width up, keeps the time
/// under the cursor in place, and redraws the time axis. An address ending
/// in `#zoom=N` opens zoomed N times. For checks from outside, it counts the
/// rows into `body[data-rows]` and keeps the zoom in `#bars[data-zoom]`.
const SCRIPT: &str = r#"
(function(){
var bars=document.getElementById('bars'),axis=document.getElementById('axis'),tl=document.getElementById('tl');
var W=+bars.getAttribute('width'),span=+bars.dataset.span,NS='http://www.w3.org/2000/svg';
var namesW=document.getElementById('names').getBoundingClientRect().width;
var fitK=Math.max((tl.clientWidth-namesW-24)/W,0.05),k=fitK;bars.setAttribute('width',W*k);
document.body.dataset.rows=bars.querySelectorAll('rect').length;
function label(t,step){return step>=1?t.toFixed(0)+' s':step>=0.001?(t*1e3).toFixed(step>=0.01?0:1)+' ms':(t*1e6).toFixed(0)+' \u00b5s';}
function drawAxis(){
  var w=W*k;axis.setAttribute('width',w);while(axis.firstChild)axis.removeChild(axis.firstChild);
  var raw=span*90/w,p=Math.pow(10,Math.floor(Math.log10(raw))),step=[1,2,5,10].map(function(m){return m*p;}).find(function(s){return s>=raw;});
  for(var t=0;t<=span;t+=step){var x=t/span*w;
    var l=document.createElementNS(NS,'line');l.setAttribute('x1',x);l.setAttribute('x2',x);l.setAttribute('y1',14);l.setAttribute('y2',20);axis.appendChild(l);
    var s=document.createElementNS(NS,'text');s.setAttribute('x',x+2);s.setAttribute('y',11);s.textContent=label(t,step);axis.appendChild(s);}
}
function zoom(f,cx){
  var nk=Math.min(Math.max(k*f,fitK),100000*fitK);if(nk===k)return;
  if(cx===undefined)cx=(tl.clientWidth-namesW)/2;
  var t=(tl.scrollLeft+cx)/(W*k);k=nk;bars.setAttribute('width',W*k);drawAxis();
  tl.scrollLeft=t*W*k-cx;bars.dataset.zoom=k/fitK;
}
document.getElementById('zin').onclick=function(){zoom(2);};
document.getElementById('zout').onclick=function(){zoom(0.5);};
document.getElementById('fit').onclick=function(){zoom(1/k);};
tl.addEventListener('wheel',function(e){if(!e.ctrlKey)return;e.preventDefault();
  var names=document.getElementById('names').getBoundingClientRect();
  zoom(e.deltaY<0?1.25:0.8,e.clientX-names.right);},{passive:false});
drawAxis();
var z=/zoom=([0-9.]+)/.exec(location.hash);if(z)zoom(+z[1]);
bars.dataset.zoom=k/fitK;
})();
"#;

#[cfg(test)]
mod tests {
    use super::super::tree::rows;
    use super::*;
    use taskcore_replay::{Mark, ProcessRecord};

    #[test]
    fn a_bar_per_process_with_escaped_text() {
        let recs = vec![
            ProcessRecord {
                pid: 7,
                ppid: 0,
                pgid: 7,
                sid: 7,
                argv: vec!["/bin/a<&b".into(), "x\"y".into()],
                execs: vec![(10.5, "/bin/a<&b".into())],
                start: 10.0,
                end: Some(12.0),
                exit_status: Some(9),
            },
            ProcessRecord {
                pid: 8,
                ppid: 7,
                pgid: 7,
                sid: 7,
                argv: vec!["true".into()],
                execs: Vec::new(),
                start: 11.0,
                end: Some(11.5),
                exit_status: Some(0),
            },
        ];
        let marks = vec![
            Mark::Signal {
                ts: 11.5,
                pid: 7,
                tid: 7,
                signo: 17,
                sender: 8,
            },
            Mark::Reap {
                ts: 11.75,
                reaper: 7,
                child: 8,
            },
        ];
        let page = render(&rows(&recs, &marks), "/t/x.strace.gz");
        assert_eq!(page.matches("<rect class=").count(), 2);
        assert!(page.contains("<rect class=\"sig\" x=\"0.000\""));
        assert!(page.contains(">a&lt;&amp;b</text>"));
        assert!(page.contains(
            "argv: /bin/a&lt;&amp;b x&quot;y\nexecve(&quot;/bin/a&lt;&amp;b&quot;) at 10.500000 s"
        ));
        assert!(page.contains("killed by SIGKILL"));
        // SIGCHLD from the child, a tick on the parent's row at 3/4 of
        // the span; the child's link from its end to its reap.
        assert!(page.contains(&format!(
            "<line class=\"sg\" x1=\"{x:.3}\" y1=\"1\" x2=\"{x:.3}\"",
            x = PLOT_W * 0.75
        )));
        assert!(page.contains("--- SIGCHLD from 8 --- at 11.500000 s, pid 7"));
        assert!(page.contains(&format!(
            "<line class=\"wl\" x1=\"{:.3}\" y1=\"{}\" x2=\"{:.3}\" y2=\"{}\">",
            PLOT_W * 0.75,
            ROW_H + 2 + BAR_H / 2,
            PLOT_W * 0.875,
            2 + BAR_H / 2
        )));
        assert!(page.contains("reaped by a&lt;&amp;b (pid 7) at 11.750000 s"));
        assert!(page.contains("signal taken (1)"));
        // The child starts half-way through the 2 s span, one level in.
        assert!(page.contains(&format!("<rect class=\"ok\" x=\"{:.3}\"", PLOT_W / 2.0)));
        assert!(page.contains(&format!(
            "<text x=\"{}\" y=\"{}\">true</text>",
            4 + INDENT,
            ROW_H + BAR_H + 1
        )));
    }
}
