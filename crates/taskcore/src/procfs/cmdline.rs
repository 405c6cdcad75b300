//! `/proc/PID/cmdline`, `/proc/PID/comm` and `/proc/PID/task/TID/children`.
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

use super::seq::SeqBuf;
use crate::procfs::fs::ProcFs;

impl ProcFs<'_> {
    /// `/proc/PID/cmdline` of task `t`.
    pub(crate) fn render_cmdline(&self, t: u32) -> Vec<u8> {
        self.k.cmdline_of(t).to_vec()
    }

    /// `/proc/PID/task/TID/children` of thread `t`: the pid of each process
    /// it created (or adopted), in its `children` list's order, each
    /// followed by a space, as the mount's namespace numbers them.
    ///
    /// # Linux
    /// `children_seq_show()` (fs/proc/array.c), `CONFIG_PROC_CHILDREN`.
    pub(crate) fn render_children(&self, t: u32) -> Vec<u8> {
        let mut m = SeqBuf::new();
        let kids = crate::list::collect(self.k.tasks[t].children, &self.k.groups, |g| &g.sibling);
        for g in kids {
            let nr = self.tid_nr(self.k.groups[g].leader);
            if nr != 0 {
                m.put_decimal_ull("", u64::from(nr));
                m.putc(b' ');
            }
        }
        m.into_bytes()
    }

    /// `/proc/PID/comm` of task `t`.
    pub(crate) fn render_comm(&self, t: u32) -> Vec<u8> {
        let mut v = self.k.comm_of(t).to_vec();
        v.push(b'\n');
        v
    }
}
