//! The syscall layer's argument validation (sigsetsize on the rt_sig*
//! calls, wait4's INT_MIN, clone3's checks in Linux's order, kernel-half
//! user pointers), decoded from raw registers with the structures in a
//! test memory and dispatched on the core, compared with Linux's answers
//! recorded by tests/oracle/validation_rules.c (re-record with
//! tests/oracle/record.sh).

use crate::common::recorded;
use std::collections::BTreeMap;
use taskcore::sys::{dispatch, nr, SysRet, Syscall, UserMemory};
use taskcore::uapi::{
    CLONE_FS, CLONE_NEWNS, CLONE_NEWUSER, CLONE_THREAD, SIGCHLD, SIGUSR1, SIGUSR2,
};
use taskcore::{Config, Errno, Kernel, SigHandler, TaskId};

const OUT: &str = include_str!("oracle/validation_rules.out");

/// User memory made of byte regions keyed by their start.
#[derive(Default)]
struct Mem(BTreeMap<u64, Vec<u8>>);

impl Mem {
    fn put(&mut self, addr: u64, bytes: Vec<u8>) {
        self.0.insert(addr, bytes);
    }
}

impl UserMemory for Mem {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        let (start, bytes) = self.0.range(..=addr).next_back().ok_or(Errno::EFAULT)?;
        let off = (addr - start) as usize;
        let src = bytes.get(off..off + buf.len()).ok_or(Errno::EFAULT)?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

const KERNEL_PTR: u64 = 0xffff_8800_0000_0000;
const ARGS: u64 = 0x10000;
const ACT: u64 = 0x20000;
const SET: u64 = 0x30000;
const TS: u64 = 0x40000;

struct World {
    k: Kernel,
    t: TaskId,
    mem: Mem,
}

impl World {
    fn new() -> World {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let t = k.fork(init).unwrap();
        let mut mem = Mem::default();
        // struct kernel_sigaction: a handler, SA_RESTORER, no mask.
        let mut act = Vec::new();
        for v in [0x401000u64, 0x0400_0000, 0x401100, 0] {
            act.extend_from_slice(&v.to_le_bytes());
        }
        mem.put(ACT, act);
        mem.put(SET, vec![0; 8]);
        mem.put(TS, vec![0; 16]);
        World { k, t, mem }
    }

    /// Decodes and dispatches; a child created exits at once and is
    /// reaped.
    fn call(&mut self, nr: u64, args: [u64; 6]) -> Result<SysRet, Errno> {
        let call = Syscall::from_raw_with(nr, args, &self.mem)?;
        let r = dispatch(&mut self.k, self.t, &call)?;
        if let SysRet::Child { task, pid, .. } = r {
            self.k.exit_group(task, 0).unwrap();
            self.k.wait4(self.t, pid, 0).unwrap();
        }
        Ok(r)
    }

    fn clone3(&mut self, flags: u64, stack: u64, stack_size: u64, ptr: Option<u64>) -> String {
        // struct clone_args (88 bytes): flags, pidfd, child_tid,
        // parent_tid, exit_signal, stack, stack_size, tls, set_tid,
        // set_tid_size, cgroup.
        let fields = [
            flags,
            0,
            0,
            0,
            SIGCHLD as u64,
            stack,
            stack_size,
            0,
            0,
            0,
            0,
        ];
        let bytes: Vec<u8> = fields.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.mem.put(ARGS, bytes);
        recorded::ans(self.call(nr::CLONE3, [ptr.unwrap_or(ARGS), 88, 0, 0, 0, 0]))
    }
}

#[test]
fn validation_answers_as_linux() {
    let mut w = World::new();
    let check = |key: &str, got: String| assert_eq!(got, recorded::want(OUT, key), "{key}");
    let nf = CLONE_NEWNS | CLONE_FS;
    check("c3_newns_fs", w.clone3(nf, 0, 0, None));
    check(
        "c3_newuser_fs",
        w.clone3(CLONE_NEWUSER | CLONE_FS, 0, 0, None),
    );
    check(
        "c3_newns_fs_thread_nosighand",
        w.clone3(nf | CLONE_THREAD, 0, 0, None),
    );
    check(
        "c3_thread_nosighand_newns",
        w.clone3(CLONE_THREAD | CLONE_NEWNS, 0, 0, None),
    );
    for (key, flags) in [
        ("cl_newns_fs", nf),
        ("cl_newuser_fs", CLONE_NEWUSER | CLONE_FS),
    ] {
        let r = w.call(nr::CLONE, [flags | SIGCHLD as u64, 0, 0, 0, 0, 0]);
        check(key, recorded::ans(r));
    }
    check("c3_stack_nosize", w.clone3(0, 0x10000, 0, None));
    check("c3_size_nostack", w.clone3(0, 0, 0x10000, None));
    let top = 0x7fff_ffff_f000u64;
    check(
        "c3_stack_end_at_task_size",
        w.clone3(0, top - 0x1000, 0x1000, None),
    );
    check(
        "c3_stack_past_task_size",
        w.clone3(0, top - 0x1000, 0x2000, None),
    );
    check("c3_stack_kernel", w.clone3(0, KERNEL_PTR, 0x1000, None));
    check(
        "c3_stack_wraps",
        w.clone3(0, 0x1000, 0xffff_ffff_ffff_f000, None),
    );
    check("c3_stack_nosize_newns_fs", w.clone3(nf, 0x10000, 0, None));
    check("c3_args_kernel_ptr", w.clone3(0, 0, 0, Some(KERNEL_PTR)));

    let int_min = 0x8000_0000u64;
    check(
        "wait4_intmin",
        recorded::ans(w.call(nr::WAIT4, [int_min, 0, 0, 0, 0, 0])),
    );
    let r = w.call(nr::WAIT4, [int_min, 0, 0x4000, 0, 0, 0]);
    check("wait4_intmin_badopts", recorded::ans(r));

    let usr1 = SIGUSR1 as u64;
    let sa = |w: &mut World, act: u64, size: u64| {
        recorded::ans(w.call(nr::RT_SIGACTION, [usr1, act, 0, size, 0, 0]))
    };
    check("rt_sigaction_size4", sa(&mut w, ACT, 4));
    check("rt_sigaction_size16", sa(&mut w, ACT, 16));
    check("rt_sigaction_size0_query", sa(&mut w, 0, 0));
    let old = match w.call(nr::RT_SIGACTION, [usr1, 0, 0, 8, 0, 0]) {
        Ok(SysRet::SigAction(a)) => a,
        other => panic!("{other:?}"),
    };
    let shown = if old.handler == SigHandler::Default {
        "SIG_DFL"
    } else {
        "changed"
    };
    check("rt_sigaction_after_bad_size", shown.into());
    check("rt_sigaction_act_kernel_ptr", sa(&mut w, KERNEL_PTR, 8));

    let mut raw = |nr: u64, args: [u64; 6]| recorded::ans(w.call(nr, args));
    check(
        "rt_sigprocmask_size4",
        raw(nr::RT_SIGPROCMASK, [0, SET, 0, 4, 0, 0]),
    );
    check(
        "rt_sigprocmask_size16_noset",
        raw(nr::RT_SIGPROCMASK, [0, 0, 0, 16, 0, 0]),
    );
    let r = raw(nr::RT_SIGPROCMASK, [0, KERNEL_PTR, 0, 8, 0, 0]);
    check("rt_sigprocmask_set_kernel_ptr", r);
    check(
        "rt_sigpending_size4",
        raw(nr::RT_SIGPENDING, [SET, 4, 0, 0, 0, 0]),
    );
    check(
        "rt_sigpending_size9",
        raw(nr::RT_SIGPENDING, [SET, 9, 0, 0, 0, 0]),
    );
    check(
        "rt_sigtimedwait_size4",
        raw(nr::RT_SIGTIMEDWAIT, [SET, 0, TS, 4, 0, 0]),
    );
    let r = raw(nr::RT_SIGTIMEDWAIT, [KERNEL_PTR, 0, TS, 8, 0, 0]);
    check("rt_sigtimedwait_set_kernel_ptr", r);
    check(
        "rt_sigsuspend_size4",
        raw(nr::RT_SIGSUSPEND, [SET, 4, 0, 0, 0, 0]),
    );
    check(
        "rt_sigsuspend_kernel_ptr",
        raw(nr::RT_SIGSUSPEND, [KERNEL_PTR, 8, 0, 0, 0, 0]),
    );
    let r = raw(
        nr::RT_SIGQUEUEINFO,
        [2, SIGUSR2 as u64, KERNEL_PTR, 0, 0, 0],
    );
    check("rt_sigqueueinfo_kernel_ptr", r);
}
