//! `/proc/PID/limits`: the thread group's resource limits as a table.
//!
//! # Linux
//! fs/proc/base.c `proc_pid_limits()` and its `lnames` table: a header,
//! then per resource `"%-25s %-20s %-20s "` (name, soft, hard; `unlimited`
//! for `RLIM_INFINITY`) and the unit `"%-10s"` (nothing at all for nice
//! and rtprio, which have none).

use crate::ix::TaskIx;
use crate::procfs::fs::ProcFs;
use crate::procfs::seq::SeqBuf;
use crate::uapi::{RLIM_INFINITY, RLIM_NLIMITS};

/// Resource names and units, in `RLIMIT_*` order.
const LNAMES: [(&str, &str); RLIM_NLIMITS] = [
    ("Max cpu time", "seconds"),
    ("Max file size", "bytes"),
    ("Max data size", "bytes"),
    ("Max stack size", "bytes"),
    ("Max core file size", "bytes"),
    ("Max resident set", "bytes"),
    ("Max processes", "processes"),
    ("Max open files", "files"),
    ("Max locked memory", "bytes"),
    ("Max address space", "bytes"),
    ("Max file locks", "locks"),
    ("Max pending signals", "signals"),
    ("Max msgqueue size", "bytes"),
    ("Max nice priority", ""),
    ("Max realtime priority", ""),
    ("Max realtime timeout", "us"),
];

/// Appends `s` left-aligned in `width` columns (`%-Ns`).
fn pad(m: &mut SeqBuf, s: &str, width: usize) {
    m.puts(s);
    for _ in s.len()..width {
        m.putc(b' ');
    }
}

impl ProcFs<'_> {
    /// Renders `proc_pid_limits()` for task `t`'s thread group.
    pub(crate) fn render_limits(&self, t: TaskIx) -> Vec<u8> {
        let rlim = &self.k.groups[self.k.tasks[t].group].rlim;
        let mut m = SeqBuf::new();
        for (s, w) in [("Limit", 25), ("Soft Limit", 20), ("Hard Limit", 20)] {
            pad(&mut m, s, w);
            m.putc(b' ');
        }
        pad(&mut m, "Units", 10);
        m.putc(b'\n');
        for (r, (name, unit)) in rlim.iter().zip(LNAMES) {
            pad(&mut m, name, 25);
            m.putc(b' ');
            for v in [r.cur, r.max] {
                if v == RLIM_INFINITY {
                    pad(&mut m, "unlimited", 20);
                } else {
                    pad(&mut m, &v.to_string(), 20);
                }
                m.putc(b' ');
            }
            // Nice and rtprio have no unit and no padding either.
            if !unit.is_empty() {
                pad(&mut m, unit, 10);
            }
            m.putc(b'\n');
        }
        m.into_bytes()
    }
}
