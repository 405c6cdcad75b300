//! `/proc/PID/status` and `/proc/PID/task/TID/status`: `Key:\tvalue`
//! lines.
//!
//! # Lines
//! In Linux 6.x order. Modelled: `Name`, `State`, `Tgid`, `Pid`, `PPid`,
//! `TracerPid`, `Uid`, `Gid`, `Groups`, `NStgid`, `NSpid`, `NSpgid`,
//! `NSsid`, the `Vm*` sizes, `Threads`, `SigIgn`, `SigCgt`, `SigPnd`,
//! `ShdPnd`, `SigBlk`, the five `Cap*` sets and `NoNewPrivs`. Not
//! modelled, shown as for a task of a default system: `Umask` 0022, `Ngid`
//! 0, `FDSize` 64, no seccomp, every CPU and memory node allowed, no context switches.
//!
//! A zombie has no `fs`, `files` or `mm` any more: no `Umask` line,
//! `FDSize` 0, and no memory lines, as on Linux.
//!
//! # Linux
//! fs/proc/array.c `proc_pid_status()`, `task_state()`, `task_sig()`,
//! `render_sigset_t()`, `task_cap()`, `task_seccomp()`,
//! `task_cpus_allowed()`, `task_context_switch_counts()`;
//! kernel/cgroup/cpuset.c `cpuset_task_status_allowed()`.

use crate::ix::TaskIx;
use crate::procfs::fs::ProcFs;
use crate::procfs::seq::SeqBuf;
use crate::procfs::state::TaskState;
use crate::procfs::system::{put_bitmap, put_bitmap_list};
use crate::task::task_struct::ExitState;

/// `max_fds` of a fresh file table (`NR_OPEN_DEFAULT` = `BITS_PER_LONG`).
const NR_OPEN_DEFAULT: u64 = 64;

impl ProcFs<'_> {
    /// Renders `proc_pid_status()` for task `t`.
    pub(crate) fn render_status(&self, t: TaskIx) -> Vec<u8> {
        let k = self.k;
        let task = &k.tasks[t];
        let g = &k.groups[task.group];
        let dead = task.exit_state() == ExitState::Zombie;
        let state: TaskState = self.task_state(t);
        let mut m = SeqBuf::new();

        m.puts("Name:\t");
        m.put_escaped_name(k.comm_of(t));
        m.putc(b'\n');

        // task_state()
        if !dead {
            m.puts("Umask:\t0022\n");
        }
        m.puts("State:\t");
        m.puts(state.describe());
        m.put_decimal_ull("\nTgid:\t", u64::from(self.tgid_nr(t)));
        m.put_decimal_ull("\nNgid:\t", 0);
        m.put_decimal_ull("\nPid:\t", u64::from(self.tid_nr(t)));
        m.put_decimal_ull("\nPPid:\t", u64::from(self.ppid_nr(t)));
        m.put_decimal_ull("\nTracerPid:\t", u64::from(self.tracer_nr(t)));
        // In the reader's user namespace (from_kuid_munged()).
        let c = &task.cred;
        let user_ns = self.reader_user_ns();
        let uid = |id| k.kuid_munged(user_ns, id);
        let gid = |id| k.kgid_munged(user_ns, id);
        for (key, ids) in [
            (
                "\nUid:",
                [uid(c.uid), uid(c.euid), uid(c.suid), uid(c.fsuid)],
            ),
            (
                "\nGid:",
                [gid(c.gid), gid(c.egid), gid(c.sgid), gid(c.fsgid)],
            ),
        ] {
            m.puts(key);
            for id in ids {
                m.put_decimal_ull("\t", u64::from(id));
            }
        }
        m.put_decimal_ull("\nFDSize:\t", if dead { 0 } else { NR_OPEN_DEFAULT });
        m.puts("\nGroups:\t");
        for (i, g) in c.groups.iter().enumerate() {
            m.put_decimal_ull(if i == 0 { "" } else { " " }, u64::from(gid(*g)));
        }
        // "Trailing space shouldn't have been added in the first place."
        m.putc(b' ');
        let own_level = k.pid_level(task.pid);
        let my_level = k.nss[self.ns].level;
        let levels = k.pid_numbers(task.pid);
        for (key, f) in [
            ("\nNStgid:", 0usize),
            ("\nNSpid:", 1),
            ("\nNSpgid:", 2),
            ("\nNSsid:", 3),
        ] {
            m.puts(key);
            for u in levels.iter().take(own_level + 1).skip(my_level) {
                let nr = match f {
                    0 => self.tgid_nr_in(t, u.ns),
                    1 => u.nr,
                    2 => self.pgrp_nr_in(t, u.ns),
                    _ => self.session_nr_in(t, u.ns),
                };
                m.put_decimal_ull("\t", u64::from(nr));
            }
        }
        m.putc(b'\n');
        m.puts("Kthread:\t0\n");

        if let Some(c) = self.task_counters(t) {
            self.render_task_mem(&mut m, &c);
            m.puts("CoreDumping:\t0\nTHP_enabled:\t1\nuntag_mask:\t0xffffffffffffffff\n");
        }

        // task_sig()
        m.put_decimal_ull("Threads:\t", u64::from(g.nr_threads));
        // SigQ: the owner's queued siginfo entries over its limit.
        m.put_decimal_ull("\nSigQ:\t", u64::from(k.sigqueue_count(task.cred.uid)));
        m.put_decimal_ull("/", g.rlim[crate::uapi::RLIMIT_SIGPENDING as usize].cur);
        let sigset = |m: &mut SeqBuf, key: &str, set: u64| {
            m.puts(key);
            m.puts(&format!("{set:016x}"));
            m.putc(b'\n');
        };
        sigset(&mut m, "\nSigPnd:\t", task.pending.signal());
        sigset(&mut m, "ShdPnd:\t", g.shared_pending.signal());
        sigset(&mut m, "SigBlk:\t", task.blocked);
        sigset(&mut m, "SigIgn:\t", g.sighand.get().ignored);
        sigset(&mut m, "SigCgt:\t", g.sighand.get().handled);

        // task_cap()
        let c = &task.cred;
        sigset(&mut m, "CapInh:\t", c.cap_inheritable.bits());
        sigset(&mut m, "CapPrm:\t", c.cap_permitted.bits());
        sigset(&mut m, "CapEff:\t", c.cap_effective.bits());
        sigset(&mut m, "CapBnd:\t", c.cap_bset.bits());
        sigset(&mut m, "CapAmb:\t", c.cap_ambient.bits());

        // task_seccomp()
        let nnp = task
            .flags
            .contains(crate::task::task_struct::PFA_NO_NEW_PRIVS);
        m.put_decimal_ull("NoNewPrivs:\t", u64::from(nnp));
        m.puts("\nSeccomp:\t0\nSeccomp_filters:\t0\n");
        m.puts("Speculation_Store_Bypass:\tthread vulnerable\n");
        m.puts("SpeculationIndirectBranch:\tconditional enabled\n");

        // task_cpus_allowed(), cpuset_task_status_allowed()
        let cpus = self.sys.cpus() as u32;
        m.puts("Cpus_allowed:\t");
        put_bitmap(&mut m, cpus, cpus);
        m.puts("\nCpus_allowed_list:\t");
        put_bitmap_list(&mut m, cpus);
        m.puts("\nMems_allowed:\t");
        put_bitmap(&mut m, self.sys.max_numnodes, 1);
        m.puts("\nMems_allowed_list:\t0\n");

        // task_context_switch_counts()
        m.puts("voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n");
        m.into_bytes()
    }
}
