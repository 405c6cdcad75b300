//! `/proc/PID/cmdline` and `/proc/PID/comm`.
//!
//! `cmdline` is the argument area of the task's address space: each
//! argument followed by a NUL, as `execve` copied it. It is empty for a
//! zombie (no address space) and for a task whose argv was never given to
//! the core ([`Kernel::execve_argv`](crate::Kernel::execve_argv),
//! [`Kernel::set_cmdline`](crate::Kernel::set_cmdline)); ps then shows
//! `[comm]`, as for a kernel thread. `comm` is the task's command name and
//! a newline.
//!
//! # Linux
//! fs/proc/base.c `proc_pid_cmdline_read()` / `get_mm_cmdline()` (without
//! the `setproctitle()` heuristics: the area is never rewritten here),
//! `comm_show()` (`proc_task_name(m, p, false)`, `"%.64s"`, unescaped).

use crate::ix::TaskIx;
use crate::procfs::fs::ProcFs;

impl ProcFs<'_> {
    /// `/proc/PID/cmdline` of task `t`.
    pub(crate) fn render_cmdline(&self, t: TaskIx) -> Vec<u8> {
        self.k.cmdline_of(t).to_vec()
    }

    /// `/proc/PID/comm` of task `t`.
    pub(crate) fn render_comm(&self, t: TaskIx) -> Vec<u8> {
        let mut v = self.k.comm_of(t).to_vec();
        v.push(b'\n');
        v
    }
}
