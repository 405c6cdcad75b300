//! The core API under arbitrary calls.

use taskcore::mm::flags::{
    MAP_ANONYMOUS, MAP_FIXED, MAP_FIXED_NOREPLACE, MAP_PRIVATE, MAP_SHARED, MREMAP_DONTUNMAP,
    MREMAP_FIXED, MREMAP_MAYMOVE,
};
use taskcore::uapi::{self, PID_MAX_LIMIT};
use taskcore::{CloneArgs, Config, Kernel, SigAction, SigHandler, TaskId};

use crate::bytes::Bytes;

/// Calls per input, at most.
const MAX_CALLS: usize = 400;

/// Clone flags worth combining.
const CLONE_BITS: [u64; 12] = [
    uapi::CLONE_VM,
    uapi::CLONE_SIGHAND,
    uapi::CLONE_THREAD,
    uapi::CLONE_VFORK,
    uapi::CLONE_PARENT,
    uapi::CLONE_NEWPID,
    uapi::CLONE_PTRACE,
    uapi::CLONE_PIDFD,
    uapi::CLONE_FS,
    uapi::CLONE_FILES,
    uapi::CLONE_CLEAR_SIGHAND,
    uapi::CLONE_INTO_CGROUP,
];

/// Wait option bits worth combining.
const WAIT_BITS: [i32; 9] = [
    uapi::WNOHANG,
    uapi::WUNTRACED,
    uapi::WEXITED,
    uapi::WCONTINUED,
    uapi::WNOWAIT,
    uapi::__WNOTHREAD,
    uapi::__WALL,
    uapi::__WCLONE,
    0x10,
];

fn pick_bits<T: Copy + std::ops::BitOr<Output = T> + Default>(b: &mut Bytes<'_>, bits: &[T]) -> T {
    let mask = b.u32();
    bits.iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .fold(T::default(), |a, (_, &x)| a | x)
}

/// The state compared around a failed call: everything observable about
/// every task the fuzzer has a handle to, through the public API (internal
/// caches, such as the lazily built per-group parts of the wait index, may
/// change).
fn dump(k: &mut Kernel, ids: &[TaskId]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let init = k.init_task().ok();
    let _ = write!(s, "{} {} {:?};", k.nr_tasks(), k.nr_processes(), init);
    let mut nrs: Vec<i32> = (1..64).collect();
    for &t in ids {
        let _ = write!(
            s,
            "[{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            k.getpid(t),
            k.gettid(t),
            k.getppid(t),
            k.getpgid(t, 0),
            k.getsid(t, 0),
            init.map(|i| k.pid_vnr(i, t)),
            k.comm(t),
            k.cmdline(t),
            k.child_subreaper(t),
            k.child_event_seq(t),
            k.task_active_pid_ns(t),
        );
        if let Some(Ok(nr)) = init.map(|i| k.pid_vnr(i, t)) {
            nrs.push(nr);
        }
        for sig in 1..=64 {
            let _ = write!(s, " {:?}", k.rt_sigaction(t, sig, None));
        }
        let _ = write!(s, " {:?} {:?}", k.cred(t), k.pdeathsig(t));
        for r in 0..16 {
            let _ = write!(s, " {:?}", k.getrlimit(t, r));
        }
        let all = uapi::WEXITED | uapi::WUNTRACED | uapi::WCONTINUED | uapi::__WALL;
        let _ = write!(s, " {:?}", k.wait_candidates(t, uapi::P_ALL, 0, all));
        if let Ok(Some(mm)) = k.mm(t) {
            let _ = mm.render_maps(&mut s);
            let _ = write!(s, " {:?}", mm.layout());
        }
        s.push(']');
    }
    if let Some(i) = init {
        for nr in nrs {
            let _ = write!(s, " {:?}", k.pid_in_use(i, nr));
        }
    }
    s
}

/// A kernel and the handles the fuzzer has seen.
struct World {
    k: Kernel,
    /// Every TaskId returned so far (live, dead and reaped), plus foreign
    /// ones from another kernel.
    ids: Vec<TaskId>,
}

impl World {
    fn new(b: &mut Bytes<'_>) -> Option<World> {
        let pid_max = match b.u8() % 4 {
            0 => uapi::PID_MAX_MIN,
            1 => uapi::PID_MAX_DEFAULT,
            2 => PID_MAX_LIMIT,
            _ => b.u32(),
        };
        let k = Kernel::new(Config {
            pid_max,
            core_dumps: b.u8() & 1 == 0,
            ..Config::default()
        })
        .ok()?;
        let mut ids = vec![k.init_task().ok()?];
        // Foreign handles: another kernel's tasks.
        let mut other = Kernel::new(Config::default()).ok()?;
        let oi = other.init_task().ok()?;
        for _ in 0..(b.u8() % 4) {
            if let Ok(t) = other.fork(oi) {
                ids.push(t);
            }
        }
        Some(World { k, ids })
    }

    fn any(&mut self, b: &mut Bytes<'_>) -> TaskId {
        self.ids[b.below(self.ids.len())]
    }

    /// A pid argument near some task's number as `viewer` sees it.
    fn pid(&mut self, b: &mut Bytes<'_>, viewer: TaskId) -> i32 {
        let t = self.any(b);
        let near = self.k.pid_vnr(viewer, t).unwrap_or(2);
        b.pid(near)
    }
}

/// One call. Returns whether it failed and may not change state (Linux's
/// partial-failure calls are exempt: mprotect over a hole).
fn call(w: &mut World, b: &mut Bytes<'_>) -> (bool, bool) {
    let cur = w.any(b);
    let op = b.u8() % 46;
    let r: Result<(), taskcore::Errno> = match op {
        0 => w.k.fork(cur).map(|t| w.ids.push(t)),
        1 => w.k.vfork(cur).map(|t| w.ids.push(t)),
        2 | 3 => {
            let flags = pick_bits(b, &CLONE_BITS) | if b.u8() == 0 { b.u64() } else { 0 };
            let exit_signal = b.sig();
            let n = b.u8() % 4;
            let set_tid = (0..n).map(|_| w.pid(b, cur)).collect();
            let args = CloneArgs {
                flags,
                exit_signal,
                set_tid,
            };
            w.k.clone(cur, &args).map(|t| w.ids.push(t))
        }
        4 => w.k.exit(cur, b.u32() as i32),
        5 => w.k.exit_group(cur, b.u32() as i32),
        6 => w.k.execve(cur, "/bin/x"),
        7 | 8 => {
            let pid = w.pid(b, cur);
            let o = pick_bits(b, &WAIT_BITS);
            w.k.wait4(cur, pid, o).map(drop)
        }
        9 | 10 => {
            let idtype = i32::from(b.u8() % 5) - 1;
            let id = w.pid(b, cur);
            let o = pick_bits(b, &WAIT_BITS);
            w.k.waitid(cur, idtype, id, o).map(drop)
        }
        11 | 12 => {
            let pid = w.pid(b, cur);
            w.k.kill(cur, pid, b.sig())
        }
        13 => {
            let (a, c) = (w.pid(b, cur), w.pid(b, cur));
            w.k.tgkill(cur, a, c, b.sig())
        }
        14 => {
            let a = w.pid(b, cur);
            w.k.tkill(cur, a, b.sig())
        }
        15 | 16 => {
            let (a, c) = (w.pid(b, cur), w.pid(b, cur));
            w.k.setpgid(cur, a, c)
        }
        17 => w.k.setsid(cur).map(drop),
        18 => {
            let a = w.pid(b, cur);
            w.k.getpgid(cur, a).map(drop)
        }
        19 => {
            let a = w.pid(b, cur);
            w.k.getsid(cur, a).map(drop)
        }
        20 => w.k.getppid(cur).map(drop),
        21 => {
            let act = match b.u8() % 4 {
                0 => None,
                1 => Some(SigAction::DEFAULT),
                2 => Some(SigAction::new(SigHandler::Ignore, b.u64())),
                _ => Some(SigAction::new(SigHandler::Handler, b.u64())),
            };
            w.k.rt_sigaction(cur, b.sig(), act).map(drop)
        }
        22 => {
            let a = w.pid(b, cur);
            w.k.ptrace_attach(cur, a, b.u8() & 1 == 0)
        }
        23 => {
            let a = w.pid(b, cur);
            w.k.ptrace_cont(cur, a, b.sig())
        }
        24 => {
            let a = w.pid(b, cur);
            w.k.ptrace_detach(cur, a, b.sig())
        }
        25 => w.k.ptrace_traceme(cur),
        26 => w.k.set_child_subreaper(cur, b.u8() & 1 == 0),
        27 => {
            let t = w.any(b);
            w.k.pid_vnr(cur, t).map(drop)
        }
        28 => {
            let a = w.pid(b, cur);
            w.k.find_task_by_vpid(cur, a).map(drop)
        }
        29 => w.k.set_comm(cur, &[b.u8(); 20][..usize::from(b.u8() % 20)]),
        30 => {
            let argv: Vec<Vec<u8>> = (0..b.u8() % 4).map(|i| vec![b'a' + i; 3]).collect();
            let argv: Vec<&[u8]> = argv.iter().map(|a| &a[..]).collect();
            w.k.execve_argv(cur, "/bin/y", &argv)
        }
        31 => {
            let t = w.any(b);
            w.k.send_signal(t, b.sig())
        }
        32 => {
            let t = w.any(b);
            w.k.force_fatal_signal(t, b.sig(), b.u8() & 1 == 0)
        }
        33 => {
            let t = w.any(b);
            w.k.set_cmdline(t, &[b"x", b"yz"])
        }
        34 => {
            let t = w.any(b);
            w.k.set_running(t, b.u8() & 1 == 0)
        }
        35 => {
            w.k.set_time(b.u64());
            Ok(())
        }
        36 => {
            let mm = taskcore::mm::MmStruct::new(taskcore::mm::MmLayout::default());
            w.k.set_mm(cur, mm)
        }
        37 => {
            let flags = pick_bits(b, &CLONE_BITS) | if b.u8() == 0 { b.u64() } else { 0 };
            let exit_signal = if b.u8() == 0 {
                b.u64()
            } else {
                u64::from(b.u8())
            };
            let n = b.u8() % 4;
            let set_tid: Vec<i32> = (0..n).map(|_| w.pid(b, cur)).collect();
            let size = if b.u8() == 0 {
                u64::from(b.u8())
            } else {
                set_tid.len() as u64
            };
            let args = taskcore::Clone3Args {
                flags,
                exit_signal,
                set_tid: (b.u8() & 1 == 0).then_some(set_tid),
                set_tid_size: size,
                cgroup: u64::from(b.u8()),
                stack: if b.u8() == 0 { b.u64() } else { 0 },
                stack_size: if b.u8() == 0 { b.u64() } else { 0 },
                pidfd_fault: false,
            };
            w.k.clone3(cur, &args).map(|t| w.ids.push(t))
        }
        38 => {
            let id = |b: &mut Bytes<'_>| match b.u8() % 4 {
                0 => 0,
                1 => 1000,
                2 => u32::MAX,
                _ => b.u32(),
            };
            let (a, c, d) = (id(b), id(b), id(b));
            match b.u8() % 8 {
                0 => w.k.setuid(cur, a),
                1 => w.k.setgid(cur, a),
                2 => w.k.setreuid(cur, a, c),
                3 => w.k.setregid(cur, a, c),
                4 => w.k.setresuid(cur, a, c, d),
                5 => w.k.setresgid(cur, a, c, d),
                6 => w.k.setfsuid(cur, a).map(drop),
                _ => w.k.setfsgid(cur, a).map(drop),
            }
        }
        39 => {
            let n = usize::from(b.u8() % 4);
            let groups: Vec<u32> = (0..n).map(|_| b.u32() % 2000).collect();
            w.k.setgroups(cur, &groups)
        }
        40 => {
            let lim = taskcore::Rlimit {
                cur: if b.u8() == 0 {
                    u64::MAX
                } else {
                    u64::from(b.u32())
                },
                max: if b.u8() == 0 {
                    u64::MAX
                } else {
                    u64::from(b.u32())
                },
            };
            w.k.setrlimit(cur, u32::from(b.u8() % 20), lim)
        }
        41 => {
            let pid = w.pid(b, cur);
            let new = (b.u8() & 1 == 0).then(|| taskcore::Rlimit {
                cur: u64::from(b.u32()),
                max: u64::from(b.u32()),
            });
            w.k.prlimit64(cur, pid, u32::from(b.u8() % 20), new)
                .map(drop)
        }
        42 => {
            w.k.pr_set_name(cur, &[b.u8(); 24][..usize::from(b.u8() % 24)])
        }
        43 => w.k.set_pdeathsig(cur, b.sig()),
        44 => w.k.getrlimit(cur, u32::from(b.u8())).map(drop),
        _ => return mm_call(w, b, cur),
    };
    (r.is_err(), true)
}

/// One memory call by `cur`.
fn mm_call(w: &mut World, b: &mut Bytes<'_>, cur: TaskId) -> (bool, bool) {
    let (addr, len) = (b.addr(), b.addr());
    match b.u8() % 5 {
        0 => {
            let flags = pick_bits(
                b,
                &[
                    MAP_PRIVATE,
                    MAP_SHARED,
                    MAP_ANONYMOUS,
                    MAP_FIXED,
                    MAP_FIXED_NOREPLACE,
                    0x40,
                    0x100,
                ],
            );
            let prot = u32::from(b.u8() % 16);
            let pgoff = b.addr();
            (
                w.k.mmap(cur, addr, len, prot, flags, None, pgoff).is_err(),
                true,
            )
        }
        1 => (w.k.munmap(cur, addr, len).is_err(), true),
        // Linux applies mprotect up to a hole before it fails (ENOMEM).
        2 => (
            w.k.mprotect(cur, addr, len, u32::from(b.u8() % 16))
                .is_err(),
            false,
        ),
        3 => {
            let flags = pick_bits(b, &[MREMAP_MAYMOVE, MREMAP_FIXED, MREMAP_DONTUNMAP, 8]);
            let (new_len, new) = (b.addr(), b.addr());
            // A fixed move keeping the size may span VMAs and, as Linux's,
            // keeps what moved before a failure.
            let page = |x: u64| x.wrapping_add(4095) & !4095;
            let atomic = !(flags & MREMAP_FIXED != 0 && page(len) == page(new_len));
            (
                w.k.mremap(cur, addr, len, new_len, flags, new).is_err(),
                atomic,
            )
        }
        _ => {
            // brk never fails: it returns the old break.
            let _ = w.k.brk(cur, addr);
            (false, true)
        }
    }
}

/// Runs a sequence of core calls decoded from `data`.
pub fn core_api(data: &[u8]) {
    run(data, false);
}

/// Runs a sequence weighted to the memory calls.
pub fn mm(data: &[u8]) {
    run(data, true);
}

fn run(data: &[u8], mm_only: bool) {
    let mut b = Bytes::new(data);
    let Some(mut w) = World::new(&mut b) else {
        return;
    };
    if mm_only {
        // A few processes to call from.
        let init = w.ids[0];
        for _ in 0..3 {
            if let Ok(t) = w.k.fork(init) {
                w.ids.push(t);
            }
        }
    }
    for _ in 0..MAX_CALLS {
        if b.is_empty() {
            break;
        }
        let mut before = w.k.snapshot();
        let (failed, atomic) = if mm_only {
            let cur = w.any(&mut b);
            mm_call(&mut w, &mut b, cur)
        } else {
            call(&mut w, &mut b)
        };
        if failed && atomic {
            assert!(
                w.k.take_notifications().is_empty(),
                "a failed call raised notifications"
            );
            let (before, after) = (dump(&mut before, &w.ids), dump(&mut w.k, &w.ids));
            if before != after {
                let at = before
                    .bytes()
                    .zip(after.bytes())
                    .position(|(x, y)| x != y)
                    .unwrap_or(before.len().min(after.len()));
                let lo = at.saturating_sub(200);
                panic!(
                    "a failed call changed the state:\nbefore ...{}\nafter  ...{}",
                    &before[lo..(at + 200).min(before.len())],
                    &after[lo..(at + 200).min(after.len())]
                );
            }
        }
        w.k.take_notifications();
        w.k.check_invariants();
    }
}
