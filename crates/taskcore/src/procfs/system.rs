//! The system-wide files ps, top, pstree and pgrep read: `/proc/uptime`,
//! `/proc/stat`, `/proc/loadavg`, `/proc/meminfo`, `/proc/cpuinfo` and
//! `/proc/sys/kernel/pid_max`.
//!
//! Times come from the reader's [`ProcClock`](crate::procfs::ProcClock);
//! what the process core does not model (memory, CPUs, load) comes from a
//! [`SystemInfo`] the caller may fill in, defaulting to a plausible idle
//! two-CPU machine.
//!
//! # Linux
//! fs/proc/uptime.c `uptime_proc_show()`, fs/proc/stat.c `show_stat()`,
//! fs/proc/loadavg.c `loadavg_proc_show()`, fs/proc/meminfo.c
//! `meminfo_proc_show()`, arch/x86/kernel/cpu/proc.c `show_cpuinfo()`,
//! kernel/pid.c `pid_max` sysctl.

use crate::procfs::fs::{ProcFs, USER_HZ};
use crate::procfs::seq::SeqBuf;

/// Writes the first `set` of `nbits` bits as `%*pb` does: hex in 32-bit
/// chunks separated by commas, the first chunk as wide as its bits need.
///
/// # Linux
/// `bitmap_string()` (lib/vsprintf.c).
pub(crate) fn put_bitmap(m: &mut SeqBuf, nbits: u32, set: u32) {
    let nbits = nbits.max(1);
    let mut chunksz = match nbits % 32 {
        0 => 32,
        r => r,
    };
    let mut i = nbits.div_ceil(32) * 32 - 32;
    let mut first = true;
    loop {
        // Bits i..i + chunksz that are below `set`.
        let lo = i;
        let hi = (i + chunksz).min(set.max(i));
        let val: u64 = if hi > lo { (1u64 << (hi - lo)) - 1 } else { 0 };
        if !first {
            m.putc(b',');
        }
        let width = chunksz.div_ceil(4) as usize;
        let s = format!("{val:0width$x}");
        m.puts(&s);
        first = false;
        chunksz = 32;
        if i == 0 {
            break;
        }
        i -= 32;
    }
}

/// Writes the list form (`%*pbl`) of bits `0..set`: `0`, `0-1`, ...
///
/// # Linux
/// `bitmap_list_string()` (lib/vsprintf.c).
pub(crate) fn put_bitmap_list(m: &mut SeqBuf, set: u32) {
    match set {
        0 => {}
        1 => m.puts("0"),
        n => {
            m.put_decimal_ull("0-", u64::from(n - 1));
        }
    }
}

impl ProcFs<'_> {
    /// `/proc/uptime`: seconds since boot and idle seconds summed over
    /// CPUs, two decimals each. An emulated machine is idle: idle time is
    /// uptime times the CPUs.
    ///
    /// # Linux
    /// `uptime_proc_show()`: `"%lu.%02lu %lu.%02lu\n"`.
    pub(crate) fn render_uptime(&self) -> Vec<u8> {
        let up = self.clock.uptime_ns();
        let idle = up.saturating_mul(self.sys.cpus());
        let mut m = SeqBuf::new();
        let two = |m: &mut SeqBuf, ns: u64| {
            m.put_decimal_ull("", ns / 1_000_000_000);
            let cs = (ns % 1_000_000_000) / 10_000_000;
            m.putc(b'.');
            m.putc(b'0' + (cs / 10) as u8);
            m.putc(b'0' + (cs % 10) as u8);
        };
        two(&mut m, up);
        m.putc(b' ');
        two(&mut m, idle);
        m.putc(b'\n');
        m.into_bytes()
    }

    /// `/proc/stat`: CPU times (all idle), interrupt and context-switch
    /// counts (0), `btime`, the task counts, softirqs.
    ///
    /// `processes` (forks since boot) is shown as the number of tasks
    /// alive; `procs_running` counts the reader.
    ///
    /// # Linux
    /// `show_stat()` (fs/proc/stat.c).
    pub(crate) fn render_kstat(&self) -> Vec<u8> {
        let cpus = self.sys.cpus();
        let idle_ticks = self.clock.uptime_ns() / (1_000_000_000 / USER_HZ);
        let mut m = SeqBuf::new();
        let cpu_line = |m: &mut SeqBuf, idle: u64| {
            // user nice system idle iowait irq softirq steal guest guest_nice
            for (i, v) in [0, 0, 0, idle, 0, 0, 0, 0, 0, 0].iter().enumerate() {
                m.put_decimal_ull(if i == 0 { "" } else { " " }, *v);
            }
            m.putc(b'\n');
        };
        m.puts("cpu  ");
        cpu_line(&mut m, idle_ticks * cpus);
        for i in 0..cpus {
            m.put_decimal_ull("cpu", i);
            m.putc(b' ');
            cpu_line(&mut m, idle_ticks);
        }
        m.puts("intr 0");
        m.put_decimal_ull("\nctxt ", 0);
        m.put_decimal_ull("\nbtime ", self.clock.boot_wall_s);
        m.put_decimal_ull("\nprocesses ", self.k.nr_tasks() as u64);
        m.put_decimal_ull("\nprocs_running ", 1);
        m.put_decimal_ull("\nprocs_blocked ", 0);
        m.put_decimal_ull("\nsoftirq ", 0);
        for _ in 0..10 {
            m.put_decimal_ull(" ", 0);
        }
        m.putc(b'\n');
        m.into_bytes()
    }

    /// `/proc/loadavg`: three load averages, `running/threads`, and the
    /// last pid handed out in the reader's pid namespace (the mount's
    /// when the reader is not an emulated task, see [`ProcFs::with_current`]).
    ///
    /// # Linux
    /// `loadavg_proc_show()`: `"%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d\n"`,
    /// the last pid being `idr_get_cursor(&ns->idr) - 1`.
    pub(crate) fn render_loadavg(&self) -> Vec<u8> {
        let mut m = SeqBuf::new();
        for (i, l) in self.sys.loadavg.iter().enumerate() {
            m.put_decimal_ull(if i == 0 { "" } else { " " }, l / 100);
            m.putc(b'.');
            m.putc(b'0' + ((l % 100) / 10) as u8);
            m.putc(b'0' + (l % 10) as u8);
        }
        m.put_decimal_ull(" ", 1);
        m.put_decimal_ull("/", self.k.nr_tasks() as u64);
        // The reader's namespace (task_active_pid_ns(current)), not the
        // mount's; a reader outside the table sees the mount's.
        let ns = match self.current.filter(|&c| self.k.tasks.contains(c)) {
            Some(c) => self.k.ns_of(c),
            None => self.ns,
        };
        let last = self.k.nss[ns].cursor.saturating_sub(1);
        m.put_decimal_ull(" ", u64::from(last));
        m.putc(b'\n');
        m.into_bytes()
    }

    /// `/proc/meminfo`: the usual lines, `%-16s%8lu kB` style
    /// (`show_val_kb`), from [`SystemInfo`]; what it does not give is 0 or
    /// derived.
    ///
    /// # Linux
    /// `meminfo_proc_show()` (fs/proc/meminfo.c), first 38 lines.
    pub(crate) fn render_meminfo(&self) -> Vec<u8> {
        let s = &self.sys;
        let active_file = s.cached_kb / 2;
        let inactive_file = s.cached_kb - active_file;
        let lines: [(&str, u64); 38] = [
            ("MemTotal:", s.mem_total_kb),
            ("MemFree:", s.mem_free_kb),
            ("MemAvailable:", s.mem_available_kb),
            ("Buffers:", s.buffers_kb),
            ("Cached:", s.cached_kb),
            ("SwapCached:", 0),
            ("Active:", active_file),
            ("Inactive:", inactive_file),
            ("Active(anon):", 0),
            ("Inactive(anon):", 0),
            ("Active(file):", active_file),
            ("Inactive(file):", inactive_file),
            ("Unevictable:", 0),
            ("Mlocked:", 0),
            ("SwapTotal:", 0),
            ("SwapFree:", 0),
            ("Zswap:", 0),
            ("Zswapped:", 0),
            ("Dirty:", 0),
            ("Writeback:", 0),
            ("AnonPages:", 0),
            ("Mapped:", 0),
            ("Shmem:", 0),
            ("KReclaimable:", 0),
            ("Slab:", 0),
            ("SReclaimable:", 0),
            ("SUnreclaim:", 0),
            ("KernelStack:", 0),
            ("PageTables:", 0),
            ("SecPageTables:", 0),
            ("NFS_Unstable:", 0),
            ("Bounce:", 0),
            ("WritebackTmp:", 0),
            ("CommitLimit:", s.mem_total_kb / 2),
            ("Committed_AS:", 0),
            ("VmallocTotal:", 34_359_738_367),
            ("VmallocUsed:", 0),
            ("VmallocChunk:", 0),
        ];
        let mut m = SeqBuf::new();
        for (label, kb) in lines {
            m.puts(label);
            for _ in label.len()..16 {
                m.putc(b' ');
            }
            m.put_decimal_ull_width("", kb, 8);
            m.puts(" kB\n");
        }
        m.into_bytes()
    }

    /// `/proc/cpuinfo`: one stanza per CPU with the identification lines
    /// procps and most tools read.
    ///
    /// # Linux
    /// `show_cpuinfo()` (arch/x86/kernel/cpu/proc.c), abridged.
    pub(crate) fn render_cpuinfo(&self) -> Vec<u8> {
        let s = &self.sys;
        let cpus = s.cpus();
        let mut m = SeqBuf::new();
        for i in 0..cpus {
            m.put_decimal_ull("processor\t: ", i);
            m.puts("\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 0\n");
            m.puts("model name\t: ");
            m.puts(&s.cpu_model);
            m.puts("\nstepping\t: 0\n");
            m.put_decimal_ull("cpu MHz\t\t: ", s.cpu_khz / 1000);
            m.putc(b'.');
            let frac = s.cpu_khz % 1000;
            m.putc(b'0' + (frac / 100) as u8);
            m.putc(b'0' + ((frac / 10) % 10) as u8);
            m.putc(b'0' + (frac % 10) as u8);
            m.puts("\nphysical id\t: 0\n");
            m.put_decimal_ull("siblings\t: ", cpus);
            m.put_decimal_ull("\ncore id\t\t: ", i);
            m.put_decimal_ull("\ncpu cores\t: ", cpus);
            m.puts("\nflags\t\t: fpu de pse tsc msr pae cx8 sep cmov pat clflush mmx fxsr sse sse2 syscall nx lm\n");
            m.put_decimal_ull("bogomips\t: ", s.cpu_khz / 500);
            m.puts(".00\n\n");
        }
        m.into_bytes()
    }

    /// `/proc/sys/kernel/pid_max`: the mount namespace's `pid_max`.
    ///
    /// # Linux
    /// The `pid_max` sysctl, per pid namespace since Linux 6.14.
    pub(crate) fn render_pid_max(&self) -> Vec<u8> {
        let mut m = SeqBuf::new();
        m.put_decimal_ull("", u64::from(self.k.nss[self.ns].pid_max));
        m.putc(b'\n');
        m.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bitmap(nbits: u32, set: u32) -> String {
        let mut m = SeqBuf::new();
        put_bitmap(&mut m, nbits, set);
        String::from_utf8(m.into_bytes()).unwrap()
    }

    #[test]
    fn bitmaps_print_like_vsprintf() {
        // Cpus_allowed of a 2-CPU machine, as this machine's /proc shows.
        assert_eq!(bitmap(2, 2), "3");
        assert_eq!(bitmap(64, 64), "ffffffff,ffffffff");
        assert_eq!(bitmap(36, 4), "0,0000000f");
        let mems = bitmap(1024, 1);
        assert_eq!(mems.len(), 32 * 9 - 1);
        assert!(mems.ends_with(",00000001"));
        assert!(mems.starts_with("00000000,"));
    }

    #[test]
    fn bitmap_lists() {
        let list = |n| {
            let mut m = SeqBuf::new();
            put_bitmap_list(&mut m, n);
            String::from_utf8(m.into_bytes()).unwrap()
        };
        assert_eq!(list(1), "0");
        assert_eq!(list(2), "0-1");
    }
}
