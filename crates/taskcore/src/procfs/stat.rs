//! `/proc/PID/stat` and `/proc/PID/task/TID/stat`: one line of 52 fields.
//!
//! # Fields
//! proc(5) numbers them from 1. What the core models comes from it; what
//! it does not model has the value a fresh, idle, unprivileged-looking task
//! of Linux shows:
//!
//! | # | field | value |
//! |---|---|---|
//! | 1 | pid | the task's number in the mount's namespace |
//! | 2 | comm | `(comm)`, unescaped |
//! | 3 | state | see [`TaskState`](crate::procfs::TaskState) |
//! | 4-6 | ppid pgrp session | modelled, 0 when outside the namespace |
//! | 7-8 | tty_nr tpgid | 0 and -1: no controlling terminal |
//! | 9 | flags | `PF_RANDOMIZE`, plus `PF_FORKNOEXEC`, `PF_EXITING` |
//! | 10-17 | faults and times | 0: no accounting |
//! | 18-19 | priority nice | 20 0 (`SCHED_OTHER`, nice 0) |
//! | 20 | num_threads | modelled |
//! | 21 | itrealvalue | 0 |
//! | 22 | starttime | clock ticks from boot to the task's start |
//! | 23-24 | vsize rss | bytes mapped; 0 pages resident |
//! | 25 | rsslim | `RLIM_INFINITY` |
//! | 26-28 | startcode endcode startstack | from the address space |
//! | 29-30 | kstkesp kstkeip | 0 (Linux zeroes them too) |
//! | 31-34 | signal blocked sigignore sigcatch | the thread's pending set and mask, the group's ignored and caught signals (first 31) |
//! | 35 | wchan | 1 if not running (single-threaded or per-thread view) |
//! | 36-37 | nswap cnswap | 0 |
//! | 38 | exit_signal | the group's (leader), -1 (other threads) |
//! | 39-44 | processor ... cguest_time | 0 |
//! | 45-51 | start_data ... env_end | `start_brk` from the address space, others 0 |
//! | 52 | exit_code | the task's status word, or the group's when exiting or stopped |
//!
//! # Linux
//! fs/proc/array.c `do_task_stat()` (`whole` = 1 for `/proc/PID/stat`,
//! 0 for `task/TID/stat`), as of Linux 6.x. A reader that may not
//! `ptrace_may_access(PTRACE_MODE_READ_FSCREDS)` the task sees 0 for
//! wchan, 1 for startcode and endcode, 0 for startstack, fields 45-51 and
//! exit_code; a reader outside the emulated table is treated as
//! permitted.

use crate::ix::TaskIx;
use crate::procfs::fs::ProcFs;
use crate::procfs::seq::SeqBuf;
use crate::task::task_struct::{SIGNAL_GROUP_EXIT, SIGNAL_STOP_STOPPED};

/// `RLIM_INFINITY` as `/proc/PID/stat` prints `rsslim`.
const RLIM_INFINITY: u64 = u64::MAX;

/// Default priority of a `SCHED_OTHER` task at nice 0 (`task_prio`).
const DEFAULT_PRIO: i64 = 20;

impl ProcFs<'_> {
    /// Renders `do_task_stat()` for task `t`; `whole` sums the thread
    /// group (`/proc/PID/stat`) rather than one thread.
    pub(crate) fn render_stat(&self, t: TaskIx, whole: bool) -> Vec<u8> {
        let k = self.k;
        let task = &k.tasks[t];
        let g = &k.groups[task.group];
        let state = self.task_state(t);
        let counters = self.task_counters(t);
        let has_mm = counters.is_some();
        let c = counters.unwrap_or_default();
        let num_threads = g.nr_threads as i64;
        let mask31 = |m: u64| m & 0x7fff_ffff;

        // do_task_stat(): a reader that may not ptrace_may_access() the
        // task (PTRACE_MODE_READ_FSCREDS) sees no wchan, code bounds of 1,
        // and zeros for the stack, data, argument bounds and exit code.
        let permitted = self.permitted(t);
        let wchan = if permitted && (!whole || num_threads < 2) {
            u64::from(state != crate::procfs::TaskState::Running)
        } else {
            0
        };
        let mut exit_code = if task.traced_stop() {
            task.trap_code.get()
        } else {
            task.exit_code
        };
        if whole
            && g.flags
                .get()
                .intersects(SIGNAL_GROUP_EXIT | SIGNAL_STOP_STOPPED)
        {
            exit_code = g.group_exit_code.get();
        }

        let mut m = SeqBuf::new();
        m.put_decimal_ull("", u64::from(self.tid_nr(t)));
        m.puts(" (");
        m.put_bytes(k.comm_of(t));
        m.puts(") ");
        m.putc(state.letter() as u8);
        m.put_decimal_ll(" ", i64::from(self.ppid_nr(t)));
        m.put_decimal_ll(" ", i64::from(self.pgrp_nr_in(t, self.ns)));
        m.put_decimal_ll(" ", i64::from(self.session_nr_in(t, self.ns)));
        m.put_decimal_ll(" ", 0); // tty_nr
        m.put_decimal_ll(" ", -1); // tty_pgrp
        m.put_decimal_ull(" ", u64::from(self.linux_task_flags(t)));
        for _ in 0..4 {
            m.put_decimal_ull(" ", 0); // min_flt cmin_flt maj_flt cmaj_flt
        }
        m.put_decimal_ull(" ", 0); // utime
        m.put_decimal_ull(" ", 0); // stime
        m.put_decimal_ll(" ", 0); // cutime
        m.put_decimal_ll(" ", 0); // cstime
        m.put_decimal_ll(" ", DEFAULT_PRIO);
        m.put_decimal_ll(" ", 0); // nice
        m.put_decimal_ll(" ", num_threads);
        m.put_decimal_ull(" ", 0); // itrealvalue
        m.put_decimal_ull(" ", self.clock.ticks_since_boot(task.start_time));
        m.put_decimal_ull(" ", c.vsize());
        m.put_decimal_ull(" ", 0); // rss
        m.put_decimal_ull(" ", RLIM_INFINITY);
        let code = |v: u64| match (has_mm, permitted) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => v,
        };
        m.put_decimal_ull(" ", code(c.start_code));
        m.put_decimal_ull(" ", code(c.end_code));
        m.put_decimal_ull(
            " ",
            if has_mm && permitted {
                c.start_stack
            } else {
                0
            },
        );
        m.put_decimal_ull(" ", 0); // esp
        m.put_decimal_ull(" ", 0); // eip
                                   // The obsolete decimal signal fields: the thread's own pending set
                                   // and its mask, first 31 signals.
        m.put_decimal_ull(" ", mask31(task.pending.signal()));
        m.put_decimal_ull(" ", mask31(task.blocked));
        m.put_decimal_ull(" ", mask31(g.sighand.get().ignored));
        m.put_decimal_ull(" ", mask31(g.sighand.get().handled));
        m.put_decimal_ull(" ", wchan);
        m.put_decimal_ull(" ", 0); // nswap
        m.put_decimal_ull(" ", 0); // cnswap
        m.put_decimal_ll(" ", i64::from(self.exit_signal(t)));
        m.put_decimal_ll(" ", 0); // processor
        m.put_decimal_ull(" ", 0); // rt_priority
        m.put_decimal_ull(" ", 0); // policy
        m.put_decimal_ull(" ", 0); // delayacct_blkio_ticks
        m.put_decimal_ull(" ", 0); // guest_time
        m.put_decimal_ll(" ", 0); // cguest_time
        if has_mm && permitted {
            m.put_decimal_ull(" ", 0); // start_data
            m.put_decimal_ull(" ", 0); // end_data
            m.put_decimal_ull(" ", c.start_brk);
            for _ in 0..4 {
                m.put_decimal_ull(" ", 0); // arg_start arg_end env_start env_end
            }
        } else {
            m.puts(" 0 0 0 0 0 0 0");
        }
        m.put_decimal_ll(" ", if permitted { i64::from(exit_code) } else { 0 });
        m.putc(b'\n');
        m.into_bytes()
    }
}
