//! The core API under arbitrary calls.

use taskcore::mm::flags::{
    MAP_ANONYMOUS, MAP_FIXED, MAP_FIXED_NOREPLACE, MAP_PRIVATE, MAP_SHARED, MREMAP_DONTUNMAP,
    MREMAP_FIXED, MREMAP_MAYMOVE,
};
use taskcore::mm::TASK_SIZE_X86_64;
use taskcore::sys::{dispatch, names, nr, SysRet, Syscall, UserMemory};
use taskcore::uapi::{self, PID_MAX_LIMIT};
use taskcore::{Config, Errno, Kernel, TaskId};

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
    /// What the calls' pointers read.
    mem: InputMemory,
    /// The names of the calls that succeeded at least once.
    succeeded: std::collections::BTreeSet<&'static str>,
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
        let mem = InputMemory((0..64).map(|_| b.u8()).collect());
        Some(World {
            k,
            ids,
            mem,
            succeeded: Default::default(),
        })
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

/// User memory as the decoder reads it: the input's bytes, cyclically,
/// at any address that is not NULL and below `TASK_SIZE`, so that the
/// structures a call reads through a pointer (clone3's `clone_args`, a
/// `struct sigaction`, a group list, a `struct rlimit`, a path) come from
/// the input.
struct InputMemory(Vec<u8>);

impl UserMemory for InputMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        let end = addr.checked_add(buf.len() as u64);
        if addr == 0 || self.0.is_empty() || end.is_none_or(|e| e > TASK_SIZE_X86_64) {
            return Err(Errno::EFAULT);
        }
        let start = (addr % self.0.len() as u64) as usize;
        for (i, byte) in buf.iter_mut().enumerate() {
            *byte = self.0[(start + i) % self.0.len()];
        }
        Ok(())
    }
}

/// One argument register for a call by `cur`: 0, a pid near a task's, a
/// signal, clone or wait bits, or any value (a pointer into
/// [`InputMemory`]).
fn register(w: &mut World, b: &mut Bytes<'_>, cur: TaskId) -> u64 {
    match b.u8() % 6 {
        0 => 0,
        1 => w.pid(b, cur) as i64 as u64,
        2 => b.sig() as i64 as u64,
        3 => pick_bits(b, &CLONE_BITS) | u64::from(b.sig() as u8),
        4 => u64::from(pick_bits(b, &WAIT_BITS) as u32),
        _ => b.u64(),
    }
}

/// The registers of a memory call: addresses and lengths near the edges
/// (see [`Bytes::addr`]), `PROT_*` and `MAP_*`/`MREMAP_*` bits; mmap's fd
/// is -1 (the core has no files).
fn mm_registers(b: &mut Bytes<'_>, nr: u64) -> [u64; 6] {
    let (addr, len) = (b.addr(), b.addr());
    match nr {
        nr::MMAP => {
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
            let prot = u64::from(b.u8() % 16);
            let off = b.addr();
            [addr, len, prot, u64::from(flags), -1i64 as u64, off]
        }
        nr::MPROTECT => [addr, len, u64::from(b.u8() % 16), 0, 0, 0],
        nr::MREMAP => {
            let flags = pick_bits(b, &[MREMAP_MAYMOVE, MREMAP_FIXED, MREMAP_DONTUNMAP, 8]);
            let (new_len, new) = (b.addr(), b.addr());
            [addr, len, new_len, u64::from(flags), new, 0]
        }
        _ => [addr, len, 0, 0, 0, 0],
    }
}

/// The memory calls.
const MM_CALLS: [u64; 5] = [nr::MMAP, nr::MUNMAP, nr::MPROTECT, nr::MREMAP, nr::BRK];

/// One system call by `cur`: a number of [`nr::ALL`] (or, for `mm_only`,
/// of [`MM_CALLS`]) with registers from the input, decoded by
/// [`Syscall::from_raw_with`] and applied by the one [`dispatch`].
/// Returns whether it failed and whether a failure must leave the state
/// as it was (Linux's partial-failure calls are exempt: mprotect over a
/// hole, a fixed mremap of the same size across VMAs).
fn syscall(w: &mut World, b: &mut Bytes<'_>, cur: TaskId, mm_only: bool) -> (bool, bool) {
    let n = if mm_only {
        MM_CALLS[b.below(MM_CALLS.len())]
    } else {
        nr::ALL[b.below(nr::ALL.len())]
    };
    let regs = if MM_CALLS.contains(&n) {
        mm_registers(b, n)
    } else {
        let mut r = [0; 6];
        for x in &mut r {
            *x = register(w, b, cur);
        }
        // prctl's option and ptrace's request: one Linux names.
        let table = match n {
            nr::PRCTL => Some(names::PRCTL_OPTIONS),
            nr::PTRACE => Some(names::PTRACE_REQUESTS),
            _ => None,
        };
        if let Some(t) = table.filter(|_| b.u8() != 0) {
            r[0] = t[b.below(t.len())].1;
        }
        r
    };
    let call = match n {
        // Its mask is in the signal frame, which the embedder reads.
        nr::RT_SIGRETURN => Ok(Syscall::RtSigreturn { mask: b.u64() }),
        _ => Syscall::from_raw_with(n, regs, &w.mem),
    };
    let Ok(call) = call else {
        // Refused by the decoder: the kernel saw nothing.
        return (true, true);
    };
    let atomic = match &call {
        Syscall::Mprotect { .. } => false,
        Syscall::Mremap {
            old_len,
            new_len,
            flags,
            ..
        } => {
            let page = |x: u64| x.wrapping_add(4095) & !4095;
            !(flags & MREMAP_FIXED != 0 && page(*old_len) == page(*new_len))
        }
        _ => true,
    };
    let r = dispatch(&mut w.k, cur, &call);
    if r.is_ok() {
        w.succeeded.insert(call.name());
    }
    match r {
        Ok(SysRet::Child { task, .. }) => {
            w.ids.push(task);
            (false, atomic)
        }
        // brk never fails: it returns the old break.
        Ok(_) => (false, atomic),
        Err(_) => (true, atomic),
    }
}

/// One operation of the embedder's API, which no syscall reaches: handles
/// and numbers, comm and cmdline, signals from the outside world, the
/// scheduler's flags, the clock, address spaces.
fn host_op(w: &mut World, b: &mut Bytes<'_>, cur: TaskId) -> (bool, bool) {
    let r: Result<(), Errno> = match b.u8() % 9 {
        0 => {
            let t = w.any(b);
            w.k.pid_vnr(cur, t).map(drop)
        }
        1 => {
            let a = w.pid(b, cur);
            w.k.find_task_by_vpid(cur, a).map(drop)
        }
        2 => w.k.set_comm(cur, &[b.u8(); 20][..usize::from(b.u8() % 20)]),
        3 => {
            let t = w.any(b);
            w.k.send_signal(t, b.sig())
        }
        4 => {
            let t = w.any(b);
            w.k.force_fatal_signal(t, b.sig(), b.u8() & 1 == 0)
        }
        5 => {
            let t = w.any(b);
            w.k.set_cmdline(t, &[b"x", b"yz"])
        }
        6 => {
            let t = w.any(b);
            w.k.set_running(t, b.u8() & 1 == 0)
        }
        7 => {
            w.k.set_time(b.u64());
            Ok(())
        }
        _ => {
            let mm = taskcore::mm::MmStruct::new(taskcore::mm::MmLayout::default());
            w.k.set_mm(cur, mm)
        }
    };
    (r.is_err(), true)
}

/// One step: a system call (seven in eight), or an operation of the
/// embedder's API.
fn call(w: &mut World, b: &mut Bytes<'_>, mm_only: bool) -> (bool, bool) {
    let cur = w.any(b);
    if !mm_only && b.u8().is_multiple_of(8) {
        host_op(w, b, cur)
    } else {
        syscall(w, b, cur, mm_only)
    }
}

/// Runs a sequence of core calls decoded from `data`.
pub fn core_api(data: &[u8]) {
    let _ = run(data, false);
}

/// Runs a sequence weighted to the memory calls.
pub fn mm(data: &[u8]) {
    let _ = run(data, true);
}

/// Runs the calls of `data`; returns the names of the calls that
/// succeeded.
fn run(data: &[u8], mm_only: bool) -> std::collections::BTreeSet<&'static str> {
    let mut b = Bytes::new(data);
    let Some(mut w) = World::new(&mut b) else {
        return Default::default();
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
        let (failed, atomic) = call(&mut w, &mut b, mm_only);
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
    w.succeeded
}

#[cfg(test)]
mod tests {
    /// The input drives the core through many different calls, not only
    /// into decoder refusals: over a few pseudo-random inputs,
    /// clones, kills, set*id, limits and memory calls succeed.
    #[test]
    fn random_inputs_reach_many_calls() {
        let mut seen = std::collections::BTreeSet::new();
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..8 {
            let data: Vec<u8> = (0..3000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            seen.extend(super::run(&data, false));
            seen.extend(super::run(&data, true));
        }
        for name in [
            "clone",
            "vfork",
            "kill",
            "setsid",
            "setgroups",
            "setrlimit",
            "mmap",
            "munmap",
        ] {
            assert!(seen.contains(name), "{name} never succeeded: {seen:?}");
        }
        assert!(seen.len() >= 25, "{} calls succeeded: {seen:?}", seen.len());
    }
}
