//! `/proc` of the emulated process table, against Linux's formats.
//!
//! - Golden files: a small constructed state rendered and compared byte for
//!   byte with text derived from the kernel's formats (fs/proc/array.c
//!   `do_task_stat`, `proc_pid_status`; fs/proc/task_mmu.c `task_mem`;
//!   proc(5) for the field meanings).
//! - This machine's real `/proc`: a real `sleep` process mirrored in the
//!   emulator (same numbers, start time, dispositions) must render the
//!   same modelled fields, the same number of `stat` fields and the same
//!   `status` keys in the same order.
//! - Root listing: Linux's positions and `d_off`s; resumption while tasks
//!   come and go (property test against the every-pid walk and a model);
//!   per-namespace views.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use taskcore::mm::{parse_maps, MmLayout, MmStruct};
use taskcore::procfs::{
    parse_dirents64, DirCursor, DirEntries, Node, PidEntry, ProcClock, ProcFs, RootWalk,
    SystemInfo, ROOT_END_POS, TGID_OFFSET,
};
use taskcore::uapi::{CLONE_NEWPID, SIGINT, SIGQUIT, SIGSTOP};
use taskcore::{CloneArgs, Config, Errno, Kernel, SigAction, SigHandler, TaskId};

const MAPS: &str = "\
55d0c2a00000-55d0c2a02000 r--p 00000000 08:01 1234                       /usr/bin/worker
55d0c2a02000-55d0c2a07000 r-xp 00002000 08:01 1234                       /usr/bin/worker
55d0c2a07000-55d0c2a09000 r--p 00007000 08:01 1234                       /usr/bin/worker
55d0c2a0a000-55d0c2a0b000 rw-p 00009000 08:01 1234                       /usr/bin/worker
55d0c3000000-55d0c3021000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000026000 r--p 00000000 08:01 99                         /usr/lib/libc.so.6
7f0000026000-7f000017b000 r-xp 00026000 08:01 99                         /usr/lib/libc.so.6
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
";

/// The constructed state of the golden tests.
struct Scene {
    k: Kernel,
    init: TaskId,
    sh: TaskId,
    worker: TaskId,
    thread: TaskId,
}

fn handler(h: SigHandler) -> Option<SigAction> {
    Some(SigAction::new(h, 0))
}

/// pid 1 init; pid 2 `sh` (session leader, running, SIGINT caught, SIGQUIT
/// ignored); pid 3 `worker` with an address space and a second thread,
/// tid 4 `worker-io`; pid 5 a zombie `sh` child (exit 3); pid 6 stopped by
/// SIGSTOP; pid 7 traced by init (attach stop).
fn scene() -> Scene {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    k.set_cmdline(init, &[b"/sbin/init"]).unwrap();
    k.set_time(1_500_000_000);
    let sh = k.fork(init).unwrap();
    k.setsid(sh).unwrap();
    k.execve_argv(sh, "/bin/sh", &[b"sh", b"-c", b"worker --jobs 2"])
        .unwrap();
    k.rt_sigaction(sh, SIGINT, handler(SigHandler::Handler))
        .unwrap();
    k.rt_sigaction(sh, SIGQUIT, handler(SigHandler::Ignore))
        .unwrap();
    k.set_running(sh, true).unwrap();
    k.set_time(2_000_000_000);
    let worker = k.fork(sh).unwrap();
    k.execve_argv(worker, "/usr/bin/worker", &[b"worker", b"--jobs", b"2"])
        .unwrap();
    let mm = MmStruct::from_vmas(parse_maps(MAPS).unwrap(), MmLayout::default()).unwrap();
    k.set_mm(worker, mm).unwrap();
    k.set_time(2_500_000_000);
    let thread = k.clone(worker, &CloneArgs::thread()).unwrap();
    k.set_comm(thread, b"worker-io").unwrap();
    let zombie = k.fork(sh).unwrap();
    k.exit_group(zombie, 3).unwrap();
    let stopped = k.fork(sh).unwrap();
    let spid = k.pid_vnr(sh, stopped).unwrap();
    k.kill(sh, spid, SIGSTOP).unwrap();
    let traced = k.fork(init).unwrap();
    let tpid = k.pid_vnr(init, traced).unwrap();
    k.ptrace_attach(init, tpid, false).unwrap();
    k.set_time(3_500_000_000);
    Scene {
        k,
        init,
        sh,
        worker,
        thread,
    }
}

fn clock() -> ProcClock {
    ProcClock {
        now_ns: 3_500_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    }
}

fn fs(k: &Kernel) -> ProcFs<'_> {
    ProcFs::new(k, k.root_ns(), clock()).unwrap()
}

fn read(fs: &ProcFs<'_>, path: &str) -> String {
    let node = fs.resolve(path.as_bytes()).unwrap();
    String::from_utf8(fs.read(node).unwrap()).unwrap()
}

/// Compares two renderings field by field, naming the first difference.
fn assert_fields(got: &str, want: &str, sep: char) {
    let g: Vec<&str> = got.trim_end_matches('\n').split(sep).collect();
    let w: Vec<&str> = want.trim_end_matches('\n').split(sep).collect();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert_eq!(a, b, "field {} differs\n got: {got}\nwant: {want}", i + 1);
    }
    assert_eq!(g.len(), w.len(), "field count\n got: {got}\nwant: {want}");
    assert_eq!(got, want);
}

// ------------------------------------------------------------------ stat

/// proc(5) numbers the stat fields from 1; the golden lines below list
/// them in that order: pid comm state ppid pgrp session tty_nr tpgid flags
/// minflt cminflt majflt cmajflt utime stime cutime cstime priority nice
/// num_threads itrealvalue starttime vsize rss rsslim startcode endcode
/// startstack kstkesp kstkeip signal blocked sigignore sigcatch wchan
/// nswap cnswap exit_signal processor rt_priority policy
/// delayacct_blkio_ticks guest_time cguest_time start_data end_data
/// start_brk arg_start arg_end env_start env_end exit_code.
#[test]
fn stat_of_a_multithreaded_process() {
    let s = scene();
    let fs = fs(&s.k);
    // flags 4194304 = PF_RANDOMIZE (exec'd); 2 threads; started 2.0 s
    // after boot = 200 ticks; vsize 455 pages; text 0x55d0c2a02000..;
    // startstack = [stack] end - 8; SIGQUIT (3) ignored -> 4; whole with 2
    // threads -> wchan 0; exit_signal 17; start_brk = [heap] start.
    let want = "3 (worker) S 2 2 2 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 2 0 200 \
                1863680 0 18446744073709551615 94355106832384 94355106852864 \
                140724603588600 0 0 0 0 4 0 0 0 0 17 0 0 0 0 0 0 0 0 \
                94355113115648 0 0 0 0 0\n";
    assert_fields(&read(&fs, "3/stat"), want, ' ');
    assert_eq!(read(&fs, "3/stat").split(' ').count(), 52);
}

#[test]
fn stat_of_one_thread() {
    let s = scene();
    let fs = fs(&s.k);
    // A thread has not exec'd (PF_FORKNOEXEC 0x40), has exit_signal -1,
    // started at 2.5 s, and shows wchan 1 (sleeping, per-thread view).
    let want = "4 (worker-io) S 2 2 2 0 -1 4194368 0 0 0 0 0 0 0 0 20 0 2 0 250 \
                1863680 0 18446744073709551615 94355106832384 94355106852864 \
                140724603588600 0 0 0 0 4 0 1 0 0 -1 0 0 0 0 0 0 0 0 \
                94355113115648 0 0 0 0 0\n";
    assert_fields(&read(&fs, "3/task/4/stat"), want, ' ');
    // The thread can be looked up at the root (not listed): a whole view.
    let whole = read(&fs, "4/stat");
    assert!(whole.starts_with("4 (worker-io) S 2 2 2 0 -1 4194368 "));
    assert_eq!(
        whole.split(' ').nth(34),
        Some("0"),
        "wchan of a 2-thread whole view"
    );
}

#[test]
fn stat_of_running_zombie_stopped_traced() {
    let s = scene();
    let fs = fs(&s.k);
    // sh: running (R), SIGINT caught (bit 1 -> 2), SIGQUIT ignored (4),
    // an address space without mappings.
    let sh = "2 (sh) R 1 2 2 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 150 \
              0 0 18446744073709551615 0 0 0 0 0 0 0 4 2 0 0 0 17 0 0 0 0 0 0 0 0 \
              0 0 0 0 0 0\n";
    assert_fields(&read(&fs, "2/stat"), sh, ' ');
    // Zombie: PF_EXITING | PF_FORKNOEXEC | PF_RANDOMIZE = 0x400044, no
    // address space (" 0 0 0 0 0 0 0"), exit code 3 << 8.
    let z = "5 (sh) Z 2 2 2 0 -1 4194372 0 0 0 0 0 0 0 0 20 0 1 0 250 \
             0 0 18446744073709551615 0 0 0 0 0 0 0 4 2 1 0 0 17 0 0 0 0 0 0 0 0 \
             0 0 0 0 0 768\n";
    assert_fields(&read(&fs, "5/stat"), z, ' ');
    // Stopped group: T, exit_code = group_exit_code = SIGSTOP.
    let t = read(&fs, "6/stat");
    assert_eq!(t.split(' ').nth(2), Some("T"));
    assert_eq!(t.trim_end().rsplit(' ').next(), Some("19"));
    // Traced, in the attach stop: t, exit_code = the stop signal.
    let tr = read(&fs, "7/stat");
    assert!(tr.starts_with("7 (init) t 1 1 1 0 -1 4194368 "), "{tr}");
    assert_eq!(tr.trim_end().rsplit(' ').next(), Some("19"));
}

// ------------------------------------------------------------------ status

fn mems_allowed() -> String {
    let mut s = "00000000,".repeat(31);
    s.push_str("00000001");
    s
}

#[test]
fn status_of_a_multithreaded_process() {
    let s = scene();
    let fs = fs(&s.k);
    // task_mem(): 455 pages = 1820 kB; data_vm 34 pages = 136 kB; stack
    // 33 pages = 132 kB; text 5 pages = 20 kB; exec_vm 346 pages = 1384 kB
    // of which lib 1364 kB; page tables: 1 page.
    let want = format!(
        "Name:\tworker\n\
         Umask:\t0022\n\
         State:\tS (sleeping)\n\
         Tgid:\t3\n\
         Ngid:\t0\n\
         Pid:\t3\n\
         PPid:\t2\n\
         TracerPid:\t0\n\
         Uid:\t0\t0\t0\t0\n\
         Gid:\t0\t0\t0\t0\n\
         FDSize:\t64\n\
         Groups:\t \n\
         NStgid:\t3\n\
         NSpid:\t3\n\
         NSpgid:\t2\n\
         NSsid:\t2\n\
         Kthread:\t0\n\
         VmPeak:\t    1820 kB\n\
         VmSize:\t    1820 kB\n\
         VmLck:\t       0 kB\n\
         VmPin:\t       0 kB\n\
         VmHWM:\t       0 kB\n\
         VmRSS:\t       0 kB\n\
         RssAnon:\t       0 kB\n\
         RssFile:\t       0 kB\n\
         RssShmem:\t       0 kB\n\
         VmData:\t     136 kB\n\
         VmStk:\t     132 kB\n\
         VmExe:\t      20 kB\n\
         VmLib:\t    1364 kB\n\
         VmPTE:\t       4 kB\n\
         VmSwap:\t       0 kB\n\
         HugetlbPages:\t       0 kB\n\
         CoreDumping:\t0\n\
         THP_enabled:\t1\n\
         untag_mask:\t0xffffffffffffffff\n\
         Threads:\t2\n\
         SigQ:\t0/96365\n\
         SigPnd:\t0000000000000000\n\
         ShdPnd:\t0000000000000000\n\
         SigBlk:\t0000000000000000\n\
         SigIgn:\t0000000000000004\n\
         SigCgt:\t0000000000000000\n\
         CapInh:\t0000000000000000\n\
         CapPrm:\t000001ffffffffff\n\
         CapEff:\t000001ffffffffff\n\
         CapBnd:\t000001ffffffffff\n\
         CapAmb:\t0000000000000000\n\
         NoNewPrivs:\t0\n\
         Seccomp:\t0\n\
         Seccomp_filters:\t0\n\
         Speculation_Store_Bypass:\tthread vulnerable\n\
         SpeculationIndirectBranch:\tconditional enabled\n\
         Cpus_allowed:\t3\n\
         Cpus_allowed_list:\t0-1\n\
         Mems_allowed:\t{}\n\
         Mems_allowed_list:\t0\n\
         voluntary_ctxt_switches:\t0\n\
         nonvoluntary_ctxt_switches:\t0\n",
        mems_allowed()
    );
    assert_fields(&read(&fs, "3/status"), &want, '\n');
    // The thread's own status: its name and pid, the group's tgid.
    let th = read(&fs, "3/task/4/status");
    assert!(th.starts_with("Name:\tworker-io\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t3\nNgid:\t0\nPid:\t4\nPPid:\t2\n"));
}

#[test]
fn status_of_zombie_and_traced() {
    let s = scene();
    let fs = fs(&s.k);
    // A zombie lost fs (no Umask), files (FDSize 0) and mm (no Vm lines).
    let z = read(&fs, "5/status");
    let want_head = "Name:\tsh\nState:\tZ (zombie)\nTgid:\t5\nNgid:\t0\nPid:\t5\nPPid:\t2\n\
                     TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t0\n\
                     Groups:\t \nNStgid:\t5\nNSpid:\t5\nNSpgid:\t2\nNSsid:\t2\nKthread:\t0\n\
                     Threads:\t1\nSigQ:\t0/96365\n";
    assert!(z.starts_with(want_head), "{z}");
    assert!(z.contains("\nSigIgn:\t0000000000000004\nSigCgt:\t0000000000000002\n"));
    assert!(!z.contains("Vm"));
    let t = read(&fs, "7/status");
    assert!(t.contains("\nState:\tt (tracing stop)\n"), "{t}");
    assert!(t.contains("\nTracerPid:\t1\n"), "{t}");
    let r = read(&fs, "2/status");
    assert!(r.contains("\nState:\tR (running)\n"));
    assert!(read(&fs, "6/status").contains("\nState:\tT (stopped)\n"));
}

/// A vfork caller waits in `D (disk sleep)` until its child execs or
/// exits (this machine's kernel shows `D` for `wait_for_vfork_done()`'s
/// `TASK_KILLABLE` sleep), then sleeps as usual.
#[test]
fn a_vfork_waiter_is_in_disk_sleep() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    let c = k.vfork(p).unwrap();
    let pid = k.pid_vnr(init, p).unwrap();
    let state = |k: &Kernel| {
        let f = fs(k);
        let stat = read(&f, &format!("{pid}/stat"));
        let status = read(&f, &format!("{pid}/status"));
        let line = status
            .lines()
            .find(|l| l.starts_with("State:"))
            .unwrap()
            .to_string();
        (stat.split(' ').nth(2).unwrap().to_string(), line)
    };
    assert_eq!(state(&k), ("D".into(), "State:\tD (disk sleep)".into()));
    k.exit(c, 0).unwrap();
    assert_eq!(state(&k), ("S".into(), "State:\tS (sleeping)".into()));
}

// ------------------------------------------------------------------ others

#[test]
fn cmdline_comm_statm_maps() {
    let s = scene();
    let fs = fs(&s.k);
    assert_eq!(read(&fs, "3/cmdline"), "worker\0--jobs\x002\0");
    assert_eq!(read(&fs, "3/task/4/cmdline"), "worker\0--jobs\x002\0");
    assert_eq!(read(&fs, "1/cmdline"), "/sbin/init\0");
    assert_eq!(read(&fs, "5/cmdline"), "", "a zombie has no argument area");
    assert_eq!(read(&fs, "3/comm"), "worker\n");
    assert_eq!(read(&fs, "3/task/4/comm"), "worker-io\n");
    // statm: size resident shared text lib data dt, pages.
    assert_eq!(read(&fs, "3/statm"), "455 0 0 5 0 67 0\n");
    assert_eq!(read(&fs, "5/statm"), "0 0 0 0 0 0 0\n");
    assert_eq!(read(&fs, "2/statm"), "0 0 0 0 0 0 0\n");
    assert_eq!(read(&fs, "3/maps"), MAPS);
    assert_eq!(read(&fs, "2/maps"), "");
}

#[test]
fn system_files() {
    let s = scene();
    let fs = fs(&s.k);
    // uptime 3.5 s, idle 2 CPUs x 3.5 s.
    assert_eq!(read(&fs, "uptime"), "3.50 7.00\n");
    // 7 tasks (pids 1-7, tid 4 included); last pid handed out: 7.
    assert_eq!(read(&fs, "loadavg"), "0.00 0.00 0.00 1/7 7\n");
    assert_eq!(read(&fs, "sys/kernel/pid_max"), "32768\n");
    let stat = read(&fs, "stat");
    let lines: Vec<&str> = stat.lines().collect();
    assert_eq!(lines[0], "cpu  0 0 0 700 0 0 0 0 0 0");
    assert_eq!(lines[1], "cpu0 0 0 0 350 0 0 0 0 0 0");
    assert_eq!(lines[2], "cpu1 0 0 0 350 0 0 0 0 0 0");
    assert!(stat.contains("\nbtime 1700000000\nprocesses 7\nprocs_running 1\nprocs_blocked 0\n"));
    let mem = read(&fs, "meminfo");
    assert!(mem.starts_with("MemTotal:        4194304 kB\nMemFree:         3670016 kB\n"));
    let cpu = read(&fs, "cpuinfo");
    assert_eq!(cpu.matches("processor\t: ").count(), 2);
    let custom = fs.clone().with_system(SystemInfo {
        nr_cpus: 4,
        loadavg: [125, 50, 7],
        ..SystemInfo::default()
    });
    assert_eq!(read(&custom, "loadavg"), "1.25 0.50 0.07 1/7 7\n");
    assert!(read(&custom, "3/status").contains("\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n"));
}

#[test]
fn self_and_thread_self() {
    let s = scene();
    let anon = fs(&s.k);
    assert_eq!(anon.readlink(Node::SelfLink), Err(Errno::ENOENT));
    let fs = fs(&s.k).with_current(s.thread).unwrap();
    assert_eq!(fs.readlink(Node::SelfLink).unwrap(), b"3");
    assert_eq!(fs.readlink(Node::ThreadSelfLink).unwrap(), b"3/task/4");
    assert_eq!(read(&fs, "self/comm"), "worker\n");
    assert_eq!(read(&fs, "thread-self/comm"), "worker-io\n");
    assert_eq!(
        fs.resolve(b"self/../2/comm").map(|n| fs.read(n).unwrap()),
        Ok(b"sh\n".to_vec())
    );
}

#[test]
fn lookups_and_errors() {
    let s = scene();
    let fs = fs(&s.k);
    assert_eq!(fs.resolve(b"42"), Err(Errno::ENOENT));
    assert_eq!(
        fs.resolve(b"03"),
        Err(Errno::ENOENT),
        "name_to_int refuses leading zeros"
    );
    assert_eq!(fs.resolve(b"3/nonesuch"), Err(Errno::ENOENT));
    assert_eq!(fs.resolve(b"3/stat/x"), Err(Errno::ENOTDIR));
    // task/TID only for a thread of that group.
    assert_eq!(fs.resolve(b"2/task/4"), Err(Errno::ENOENT));
    assert!(fs.resolve(b"3/task/4/status").is_ok());
    assert_eq!(fs.read(Node::Root), Err(Errno::EISDIR));
    assert_eq!(fs.readlink(Node::Root), Err(Errno::EINVAL));
    let a = fs.getattr(fs.resolve(b"3/comm").unwrap()).unwrap();
    assert_eq!((a.mode, a.nlink, a.size), (0o100644, 1, 0));
    let d = fs.getattr(fs.resolve(b"3/task").unwrap()).unwrap();
    assert_eq!((d.mode, d.nlink), (0o040555, 4));
    // Nodes name numbers: once reaped, the file is gone (ESRCH on read,
    // ENOENT on attributes).
    let mut k = s.k;
    let stat5 = Node::Pid {
        nr: 5,
        entry: Some(PidEntry::Stat),
    };
    k.wait4(s.sh, 5, 0).unwrap();
    let fs = ProcFs::new(&k, k.root_ns(), clock()).unwrap();
    assert_eq!(fs.read(stat5), Err(Errno::ESRCH));
    assert_eq!(fs.getattr(stat5).err(), Some(Errno::ENOENT));
    let _ = (s.init, s.worker);
}

// ------------------------------------------------------------------ listings

fn names(fs: &ProcFs<'_>, node: Node) -> Vec<String> {
    let mut c = DirCursor::default();
    let mut d = DirEntries::unlimited();
    fs.readdir(node, &mut c, &mut d).unwrap();
    d.entries
        .iter()
        .map(|e| String::from_utf8(e.name.clone()).unwrap())
        .collect()
}

#[test]
fn root_and_task_listings() {
    let s = scene();
    let fs = fs(&s.k);
    assert_eq!(
        names(&fs, Node::Root),
        [
            ".",
            "..",
            "sys",
            "stat",
            "uptime",
            "cpuinfo",
            "loadavg",
            "meminfo",
            "self",
            "thread-self",
            "1",
            "2",
            "3",
            "5",
            "6",
            "7"
        ]
    );
    assert_eq!(
        names(&fs, fs.resolve(b"3/task").unwrap()),
        [".", "..", "3", "4"]
    );
    assert_eq!(
        names(&fs, fs.resolve(b"3").unwrap()),
        [
            ".",
            "..",
            "task",
            "status",
            "limits",
            "comm",
            "cmdline",
            "stat",
            "statm",
            "maps",
            "uid_map",
            "gid_map",
            "setgroups"
        ]
    );
    assert_eq!(
        names(&fs, fs.resolve(b"3/task/4").unwrap()),
        [
            ".",
            "..",
            "status",
            "limits",
            "comm",
            "cmdline",
            "stat",
            "statm",
            "maps",
            "children",
            "uid_map",
            "gid_map",
            "setgroups"
        ]
    );
    assert_eq!(
        names(&fs, fs.resolve(b"sys/kernel").unwrap()),
        [".", "..", "pid_max"]
    );
}

/// Lists `node` with getdents64 calls of `bufsize` bytes; returns the
/// records and checks that each `d_off` resumes right after its record.
fn getdents_all(fs: &ProcFs<'_>, node: Node, bufsize: usize) -> Vec<(String, u64)> {
    let mut c = DirCursor::default();
    let mut buf = vec![0u8; bufsize];
    let mut out = Vec::new();
    loop {
        let n = fs.getdents64(node, &mut c, &mut buf).unwrap();
        if n == 0 {
            break;
        }
        let recs = parse_dirents64(&buf[..n]);
        assert_eq!(
            recs.last().unwrap().off,
            c.pos,
            "last d_off is the file position"
        );
        out.extend(
            recs.into_iter()
                .map(|r| (String::from_utf8(r.name).unwrap(), r.off)),
        );
    }
    out
}

#[test]
fn root_positions_are_linuxs() {
    let s = scene();
    let fs = fs(&s.k);
    let all = getdents_all(&fs, Node::Root, 32 * 1024);
    let offs: BTreeMap<&str, u64> = all.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    // d_off = position of the next entry: ".." -> 2, the last fixed entry
    // -> 256 (self), self -> 257, thread-self -> 259 (process 1 at 1+258),
    // process 7 -> the end marker.
    assert_eq!(offs["."], 1);
    assert_eq!(offs[".."], 2);
    assert_eq!(offs["meminfo"], 256);
    assert_eq!(offs["self"], 257);
    assert_eq!(offs["thread-self"], 1 + TGID_OFFSET);
    assert_eq!(offs["3"], 5 + TGID_OFFSET, "tid 4 is skipped");
    assert_eq!(offs["7"], ROOT_END_POS);
    // Any buffer size gives the same listing; too small is EINVAL.
    for size in [32, 40, 64, 100, 4096] {
        assert_eq!(getdents_all(&fs, Node::Root, size), all, "bufsize {size}");
    }
    let mut c = DirCursor::default();
    assert_eq!(
        fs.getdents64(Node::Root, &mut c, &mut [0u8; 23]),
        Err(Errno::EINVAL)
    );
    // Resuming from a d_off starts right after that entry.
    let mut c = DirCursor::at(offs["2"]);
    let mut d = DirEntries::with_limit(1);
    fs.readdir(Node::Root, &mut c, &mut d).unwrap();
    assert_eq!(d.entries[0].name, b"3");
}

#[test]
fn task_listing_resumes_from_the_hint() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    let threads: Vec<TaskId> = (0..5)
        .map(|_| k.clone(p, &CloneArgs::thread()).unwrap())
        .collect();
    let fs = ProcFs::new(&k, k.root_ns(), clock()).unwrap();
    let task = fs.resolve(b"2/task").unwrap();
    let mut c = DirCursor::default();
    let mut got = Vec::new();
    loop {
        let mut d = DirEntries::with_limit(2);
        fs.readdir(task, &mut c, &mut d).unwrap();
        if d.entries.is_empty() {
            break;
        }
        assert!(c.tid_hint != 0 || c.pos == 8, "a full buffer leaves a hint");
        got.extend(
            d.entries
                .into_iter()
                .map(|e| String::from_utf8(e.name).unwrap()),
        );
    }
    assert_eq!(got, [".", "..", "2", "3", "4", "5", "6", "7"]);
    let _ = threads;
}

#[test]
fn nested_namespace_views() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let nsinit = k
        .clone(
            init,
            &CloneArgs {
                flags: CLONE_NEWPID,
                ..CloneArgs::fork()
            },
        )
        .unwrap();
    let child = k.fork(nsinit).unwrap();
    let ns = k.task_active_pid_ns(nsinit).unwrap();
    let inner = ProcFs::new(&k, ns, clock()).unwrap();
    let outer = ProcFs::new(&k, k.root_ns(), clock()).unwrap();
    let pids = |fs: &ProcFs<'_>| -> Vec<String> {
        names(fs, Node::Root)
            .into_iter()
            .filter(|n| n.as_bytes()[0].is_ascii_digit())
            .collect()
    };
    assert_eq!(pids(&inner), ["1", "2"]);
    assert_eq!(pids(&outer), ["1", "2", "3"]);
    // Inside: the namespace init's parent, group and session lie outside.
    assert!(read(&inner, "1/stat").starts_with("1 (init) S 0 0 0 0 -1 "));
    assert!(read(&inner, "2/stat").starts_with("2 (init) S 1 0 0 0 -1 "));
    let st = read(&inner, "2/status");
    assert!(
        st.contains("\nNStgid:\t2\nNSpid:\t2\nNSpgid:\t0\nNSsid:\t0\n"),
        "{st}"
    );
    // Outside: both levels, outermost first.
    let st = read(&outer, "3/status");
    assert!(
        st.contains("\nNStgid:\t3\t2\nNSpid:\t3\t2\nNSpgid:\t1\t0\nNSsid:\t1\t0\n"),
        "{st}"
    );
    assert_eq!(
        inner.resolve(b"3"),
        Err(Errno::ENOENT),
        "root pid 3 is 2 inside"
    );
    let _ = child;
}

// ------------------------------------------------------------------ real /proc

/// Reads this machine's real `/proc/PID/stat` fields (comm may hold
/// spaces: split around the parentheses).
fn real_stat_fields(stat: &str) -> Vec<String> {
    let open = stat.find('(').unwrap();
    let close = stat.rfind(')').unwrap();
    let mut v = vec![
        stat[..open].trim().to_string(),
        stat[open..=close].to_string(),
    ];
    v.extend(stat[close + 1..].split_whitespace().map(str::to_string));
    v
}

fn status_map(status: &str) -> Vec<(String, String)> {
    status
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.trim_start_matches('\t').to_string()))
        .collect()
}

/// Keys of a real status file that the emulation may omit (architecture
/// or configuration dependent).
const OPTIONAL_STATUS_KEYS: &[&str] = &["x86_Thread_features", "x86_Thread_features_locked"];

#[test]
fn matches_this_machines_proc_for_a_real_sleep() {
    let Ok(mut child) = std::process::Command::new("sleep").arg("5").spawn() else {
        eprintln!("skipped: cannot run sleep");
        return;
    };
    let pid = child.id();
    // Wait for the exec to complete and sleep to block (comm turns from
    // the test's to "sleep", then the state from R to S).
    let mut real_stat = String::new();
    for _ in 0..400 {
        real_stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if real_stat.contains("(sleep) S ") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let real_status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    if !real_stat.contains("(sleep) S ") || !real_status.contains("\nNSpid:") {
        eprintln!("skipped: /proc/{pid} not readable as expected");
        return;
    }
    let rf = real_stat_fields(&real_stat);
    let rs = status_map(&real_status);
    let get = |k: &str| {
        rs.iter()
            .find(|(x, _)| x == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let num = |i: usize| rf[i].parse::<i32>().unwrap();
    let (ppid, pgrp, sid) = (num(3), num(4), num(5));
    let starttime: u64 = rf[21].parse().unwrap();
    let sigign = u64::from_str_radix(&get("SigIgn"), 16).unwrap();
    if [ppid, pgrp, sid].contains(&(pid as i32)) || ppid <= 1 || pgrp <= 1 || sid <= 1 {
        eprintln!("skipped: unusual real ids {ppid} {pgrp} {sid}");
        return;
    }

    // Mirror it: session leader `sid`, group leader `pgrp`, parent `ppid`,
    // then the sleep itself, each at its real number (clone3 set_tid).
    let mut k = Kernel::new(Config {
        pid_max: 4_194_304,
        ..Config::default()
    })
    .unwrap();
    let init = k.init_task().unwrap();
    let at = |k: &mut Kernel, parent: TaskId, nr: i32| {
        k.clone(
            parent,
            &CloneArgs {
                set_tid: vec![nr],
                ..CloneArgs::fork()
            },
        )
        .unwrap()
    };
    let sess = at(&mut k, init, sid);
    k.setsid(sess).unwrap();
    let mut top = sess;
    if pgrp != sid {
        top = at(&mut k, sess, pgrp);
        k.setpgid(top, 0, 0).unwrap();
    }
    let parent = if ppid == pgrp || ppid == sid {
        // The parent leads the group or session: find it.
        k.find_task_by_vpid(init, ppid).unwrap()
    } else {
        at(&mut k, top, ppid)
    };
    if k.getpgid(parent, 0).unwrap() != pgrp {
        eprintln!("skipped: parent {ppid} is not in group {pgrp}");
        return;
    }
    for sig in 1..=64 {
        if sigign & (1 << (sig - 1)) != 0 && sig != 9 && sig != 19 {
            k.rt_sigaction(parent, sig, handler(SigHandler::Ignore))
                .unwrap();
        }
    }
    k.set_time(starttime * 10_000_000);
    let sleep = at(&mut k, parent, pid as i32);
    k.execve_argv(sleep, "/usr/bin/sleep", &[b"sleep", b"5"])
        .unwrap();
    let fs = ProcFs::new(&k, k.root_ns(), clock()).unwrap();
    let emu_stat = read(&fs, &format!("{pid}/stat"));
    let ef = real_stat_fields(&emu_stat);
    assert_eq!(
        ef.len(),
        rf.len(),
        "stat field count\nemu: {emu_stat}real: {real_stat}"
    );
    assert_eq!(ef.len(), 52);
    // proc(5): 1 pid, 2 comm, 3 state, 4 ppid, 5 pgrp, 6 session,
    // 9 flags, 20 num_threads, 22 starttime, 33 sigignore, 38 exit_signal.
    for field in [1, 2, 3, 4, 5, 6, 9, 20, 22, 33, 38] {
        assert_eq!(
            ef[field - 1],
            rf[field - 1],
            "stat field {field}\nemu: {emu_stat}real: {real_stat}"
        );
    }
    let emu_status = read(&fs, &format!("{pid}/status"));
    let es = status_map(&emu_status);
    for key in [
        "Name",
        "State",
        "Tgid",
        "Pid",
        "PPid",
        "TracerPid",
        "NStgid",
        "NSpid",
        "NSpgid",
        "NSsid",
        "Threads",
        "SigIgn",
        "SigCgt",
        "SigPnd",
        "ShdPnd",
        "Kthread",
    ] {
        let e = es.iter().find(|(x, _)| x == key).map(|(_, v)| v.clone());
        assert_eq!(
            e,
            Some(get(key)),
            "status {key}\nemu:\n{emu_status}real:\n{real_status}"
        );
    }
    // Same keys in the same order (real-only keys must be optional ones).
    let ekeys: Vec<&str> = es.iter().map(|(k, _)| k.as_str()).collect();
    let rkeys: Vec<&str> = rs
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !OPTIONAL_STATUS_KEYS.contains(k))
        .collect();
    assert_eq!(ekeys, rkeys, "status keys");
}

// ------------------------------------------------------------------ property

#[derive(Clone, Debug)]
enum Op {
    /// Fork a new process from init.
    Fork,
    /// Add a thread to the process at index `.0 % live`.
    Thread(usize),
    /// A non-leader thread of a process exits.
    ExitThread(usize),
    /// The leader of a process exits alone (it stays listed as a zombie
    /// while threads remain).
    ExitLeader(usize),
    /// A process exits and init reaps it.
    Kill(usize),
    /// Take one more step of the ongoing listing, of `.0 % 5 + 1` entries.
    List(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Fork),
        3 => any::<usize>().prop_map(Op::Thread),
        1 => any::<usize>().prop_map(Op::ExitThread),
        1 => any::<usize>().prop_map(Op::ExitLeader),
        2 => any::<usize>().prop_map(Op::Kill),
        4 => any::<usize>().prop_map(Op::List),
    ]
}

/// A process of the model: its tgid and live threads (leader first when
/// alive).
#[derive(Clone, Debug)]
struct ModelProc {
    tgid: i32,
    leader: TaskId,
    leader_alive: bool,
    threads: Vec<TaskId>,
}

fn listed_pids(fs: &ProcFs<'_>, walk: RootWalk) -> Vec<u32> {
    let mut c = DirCursor::default();
    let mut d = DirEntries::unlimited();
    fs.readdir_root(&mut c, &mut d, walk);
    d.entries
        .iter()
        .filter_map(|e| std::str::from_utf8(&e.name).ok()?.parse().ok())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// While tasks come and go, a listing resumed call after call returns
    /// every process that existed throughout exactly once, in increasing
    /// order, never a thread; full listings equal the every-pid walk and
    /// the model.
    #[test]
    fn listing_survives_churn(ops in proptest::collection::vec(op(), 1..120)) {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let mut procs: Vec<ModelProc> = Vec::new();
        let mut cursor = DirCursor::at(TGID_OFFSET);
        let mut listed: Vec<u32> = Vec::new();
        // Processes present since the current listing started.
        let mut throughout: BTreeSet<i32> = BTreeSet::from([1]);
        let mut thread_ids: BTreeSet<u32> = BTreeSet::new();
        for op in ops {
            match op {
                Op::Fork => {
                    let p = k.fork(init).unwrap();
                    let tgid = k.pid_vnr(init, p).unwrap();
                    procs.push(ModelProc { tgid, leader: p, leader_alive: true, threads: vec![] });
                }
                Op::Thread(i) if !procs.is_empty() => {
                    let n = procs.len();
                    let p = &mut procs[i % n];
                    let caller = if p.leader_alive { p.leader } else { p.threads[0] };
                    let t = k.clone(caller, &CloneArgs::thread()).unwrap();
                    thread_ids.insert(k.pid_vnr(init, t).unwrap() as u32);
                    p.threads.push(t);
                }
                Op::ExitThread(i) if !procs.is_empty() => {
                    let n = procs.len();
                    let p = &mut procs[i % n];
                    if p.threads.len() > usize::from(!p.leader_alive) {
                        let t = p.threads.pop().unwrap();
                        k.exit(t, 0).unwrap();
                    }
                }
                Op::ExitLeader(i) if !procs.is_empty() => {
                    let n = procs.len();
                    let p = &mut procs[i % n];
                    if p.leader_alive && !p.threads.is_empty() {
                        k.exit(p.leader, 0).unwrap();
                        p.leader_alive = false;
                    }
                }
                Op::Kill(i) if !procs.is_empty() => {
                    let n = procs.len();
                    let p = procs.remove(i % n);
                    let caller = if p.leader_alive { p.leader } else { p.threads[0] };
                    k.exit_group(caller, 0).unwrap();
                    k.wait4(init, p.tgid, 0).unwrap();
                    throughout.remove(&p.tgid);
                }
                Op::List(n) => {
                    let fs = ProcFs::new(&k, k.root_ns(), clock()).unwrap();
                    let mut d = DirEntries::with_limit(n % 5 + 1);
                    fs.readdir(Node::Root, &mut cursor, &mut d).unwrap();
                    listed.extend(d.entries.iter().filter_map(|e| {
                        std::str::from_utf8(&e.name).ok()?.parse::<u32>().ok()
                    }));
                    if cursor.pos >= ROOT_END_POS {
                        // The listing ended: check it, start another.
                        prop_assert!(listed.windows(2).all(|w| w[0] < w[1]), "{listed:?}");
                        for t in &throughout {
                            prop_assert!(listed.contains(&(*t as u32)), "{t} missing from {listed:?}");
                        }
                        for l in &listed {
                            prop_assert!(!thread_ids.contains(l), "thread {l} listed");
                        }
                        listed.clear();
                        cursor = DirCursor::at(TGID_OFFSET);
                        throughout = procs.iter().map(|p| p.tgid).chain([1]).collect();
                    }
                }
                _ => {}
            }
            // A full listing equals the every-pid walk and the model.
            let fs = ProcFs::new(&k, k.root_ns(), clock()).unwrap();
            let tagged = listed_pids(&fs, RootWalk::Tagged);
            prop_assert_eq!(&tagged, &listed_pids(&fs, RootWalk::EveryPid));
            let mut model: Vec<u32> = procs.iter().map(|p| p.tgid as u32).chain([1]).collect();
            model.sort_unstable();
            prop_assert_eq!(tagged, model);
        }
    }
}

/// /proc/loadavg's last pid is the reader's namespace's, not the mount's
/// (`loadavg_proc_show`: `task_active_pid_ns(current)`).
#[test]
fn loadavg_last_pid_is_the_readers_namespace() {
    use taskcore::procfs::{ProcClock, ProcFs};
    use taskcore::uapi::CLONE_NEWPID;
    use taskcore::{CloneArgs, Config, Kernel};
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let _a = k.fork(init).unwrap(); // root ns: 2
    let nsinit = k
        .clone(
            init,
            &CloneArgs {
                flags: CLONE_NEWPID,
                exit_signal: 17,
                set_tid: vec![],
            },
        )
        .unwrap(); // root ns: 3, its own ns: 1
    let inner = k.fork(nsinit).unwrap(); // root ns: 4, inner ns: 2
    let _b = k.fork(init).unwrap(); // root ns: 5
    let last = |reader| {
        let fs = ProcFs::new(&k, k.root_ns(), ProcClock::default())
            .unwrap()
            .with_current(reader)
            .unwrap();
        let node = fs.resolve(b"loadavg").unwrap();
        let text = String::from_utf8(fs.read(node).unwrap()).unwrap();
        text.trim_end()
            .rsplit(' ')
            .next()
            .unwrap()
            .parse::<i32>()
            .unwrap()
    };
    assert_eq!(last(init), 5);
    assert_eq!(last(inner), 2);
}

/// `/proc/PID/task/TID/children` against the kernel here:
/// `tests/oracle/children_thread_exit.c` recorded its `.out` (labels for
/// pids). The same scene is built in the core and must read the same.
#[test]
fn task_children_files_match_linux() {
    use std::collections::HashMap;
    use taskcore::procfs::{ProcClock, ProcFs};
    use taskcore::{CloneArgs, Config, Kernel, TaskId};
    let recorded = include_str!("oracle/children_thread_exit.out");
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let main = k.fork(init).unwrap();
    let c1 = k.fork(main).unwrap();
    let c2 = k.fork(main).unwrap();
    let c3 = k.fork(main).unwrap();
    let p2 = k.pid_vnr(main, c2).unwrap();
    k.kill(main, p2, 9).unwrap();
    k.wait4(main, p2, 0).unwrap();
    k.set_child_subreaper(main, true).unwrap();
    let c4 = k.fork(main).unwrap();
    let g = k.fork(c4).unwrap();
    k.exit_group(c4, 0).unwrap();
    let thread = k.clone(main, &CloneArgs::thread()).unwrap();
    let t1 = k.fork(thread).unwrap();
    let labels: HashMap<i32, &str> = [(c1, "c1"), (c3, "c3"), (c4, "c4"), (g, "g"), (t1, "t1")]
        .into_iter()
        .map(|(t, n): (TaskId, &str)| (k.pid_vnr(init, t).unwrap(), n))
        .collect();
    let read = |k: &Kernel, t: TaskId| -> String {
        let fs = ProcFs::new(k, k.root_ns(), ProcClock::default()).unwrap();
        let (tgid, tid) = (k.getpid(t).unwrap(), k.gettid(t).unwrap());
        let node = fs
            .resolve(format!("{tgid}/task/{tid}/children").as_bytes())
            .unwrap();
        let text = String::from_utf8(fs.read(node).unwrap()).unwrap();
        assert!(text.is_empty() || text.ends_with(' '), "{text:?}");
        let names: Vec<&str> = text
            .split_whitespace()
            .map(|p| labels[&p.parse::<i32>().unwrap()])
            .collect();
        format!(
            "[{}]",
            names.iter().map(|n| format!("{n} ")).collect::<String>()
        )
    };
    let mut got = vec![
        format!("main {}", read(&k, main)),
        format!("thread {}", read(&k, thread)),
    ];
    k.exit(thread, 0).unwrap();
    got.push(format!("main_after_thread_exit {}", read(&k, main)));
    let want: Vec<&str> = recorded.lines().collect();
    assert_eq!(got, want);
    // Only thread directories have it.
    let fs = ProcFs::new(&k, k.root_ns(), ProcClock::default()).unwrap();
    let tgid = k.getpid(main).unwrap();
    assert!(fs.resolve(format!("{tgid}/children").as_bytes()).is_err());
}

/// `Kernel::proc_read`: the reader's own view (its pid namespace, its
/// `self`), byte for byte what a `ProcFs` over that mount reads, and the
/// errno of each kind of bad path.
#[test]
fn proc_read_is_one_file_as_the_reader_sees_it() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let nsinit = k
        .clone(
            init,
            &CloneArgs {
                flags: CLONE_NEWPID,
                ..CloneArgs::fork()
            },
        )
        .unwrap();
    let child = k.fork(nsinit).unwrap();
    k.set_time(5_000_000_000);
    let ns = k.task_active_pid_ns(nsinit).unwrap();
    let clock = ProcClock::from_kernel(&k, 0);
    let inner = ProcFs::new(&k, ns, clock)
        .unwrap()
        .with_current(child)
        .unwrap();
    let outer = ProcFs::new(&k, k.root_ns(), clock).unwrap();
    // Inside the namespace, the child is pid 2 and `self`.
    let own = k.proc_read(child, "self/status").unwrap();
    assert_eq!(
        own,
        inner.read(inner.resolve(b"2/status").unwrap()).unwrap()
    );
    assert!(String::from_utf8_lossy(&own).contains("\nPid:\t2\n"));
    assert_eq!(
        k.proc_read(child, "/2/stat").unwrap(),
        k.proc_read(child, "self/stat").unwrap()
    );
    // From the root namespace the same task is pid 3.
    assert_eq!(
        k.proc_read(init, "3/stat").unwrap(),
        outer.read(outer.resolve(b"3/stat").unwrap()).unwrap()
    );
    assert!(k
        .proc_read(init, "3/stat")
        .unwrap()
        .starts_with(b"3 (init) S 2 "));
    assert_eq!(
        k.proc_read(init, "uptime").unwrap(),
        outer
            .read(Node::Fixed(taskcore::procfs::Fixed::Uptime))
            .unwrap()
    );
    // Errors: a pid outside the reader's namespace, a directory, the link
    // itself, a file used as a directory, a stale reader.
    assert_eq!(k.proc_read(child, "3/stat"), Err(Errno::ENOENT));
    assert_eq!(k.proc_read(init, "1"), Err(Errno::EISDIR));
    assert_eq!(k.proc_read(init, "self"), Err(Errno::EINVAL));
    assert_eq!(k.proc_read(init, "1/stat/x"), Err(Errno::ENOTDIR));
    k.exit_group(child, 0).unwrap();
    k.wait4(nsinit, -1, 0).unwrap();
    assert_eq!(k.proc_read(child, "self/stat"), Err(Errno::ESRCH));
}
