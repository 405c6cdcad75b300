//! EFAULT from the task's address space: pointer arguments read through
//! [`TaskMemory`] are refused in a page no VMA covers, in a `PROT_NONE`
//! page and across the end of a mapping, and read in a read-only page, as
//! Linux's `copy_from_user()` does (recorded by tests/oracle/uaccess_rules.c;
//! re-record with tests/oracle/record.sh). The embedder's memory holds
//! bytes everywhere: every EFAULT comes from the VMAs.

use std::collections::BTreeMap;
use taskcore::mm::flags::{
    MAP_ANONYMOUS, MAP_FIXED, MAP_PRIVATE, PROT_NONE, PROT_READ, PROT_WRITE,
};
use taskcore::sys::{dispatch, nr, AddressSpace, SysRet, Syscall, TaskMemory, UserMemory};
use taskcore::task::capability::LINUX_CAPABILITY_VERSION_3;
use taskcore::uapi::{CLONE_FS, CLONE_NEWNS, SIGUSR1, SIG_BLOCK};
use taskcore::{Config, Errno, Kernel, TaskId};

const OUT: &str = include_str!("oracle/uaccess_rules.out");
const PAGE: u64 = 4096;
const RW: u64 = 0x1000_0000;
const RO: u64 = RW + PAGE;
const NONE: u64 = RW + 2 * PAGE;
const HOLE_BELOW: u64 = 0x2000_0000;
const HOLE: u64 = HOLE_BELOW + PAGE;
const RLIMIT_CORE: u64 = 4;

/// Bytes everywhere the test looks (zeros unless put).
#[derive(Default)]
struct Mem(BTreeMap<u64, Vec<u8>>);

impl UserMemory for Mem {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        let (start, bytes) = self.0.range(..=addr).next_back().ok_or(Errno::EFAULT)?;
        let off = (addr - start) as usize;
        let src = bytes.get(off..off + buf.len()).ok_or(Errno::EFAULT)?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

impl Mem {
    fn put(&mut self, addr: u64, bytes: &[u8]) {
        let (start, region) = self.0.range_mut(..=addr).next_back().unwrap();
        let off = (addr - start) as usize;
        region[off..off + bytes.len()].copy_from_slice(bytes);
    }
}

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
        let fixed = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
        k.mmap(t, RW, 3 * PAGE, PROT_READ | PROT_WRITE, fixed, None, 0)
            .unwrap();
        k.mprotect(t, RO, PAGE, PROT_READ).unwrap();
        k.mprotect(t, NONE, PAGE, PROT_NONE).unwrap();
        k.mmap(t, HOLE_BELOW, PAGE, PROT_READ | PROT_WRITE, fixed, None, 0)
            .unwrap();
        let mut mem = Mem::default();
        mem.0.insert(RW, vec![0; 3 * PAGE as usize]);
        mem.0.insert(HOLE_BELOW, vec![0; 2 * PAGE as usize]);
        // struct clone_args asking CLONE_NEWNS|CLONE_FS at ro+1024.
        mem.put(RO + 1024, &(CLONE_NEWNS | CLONE_FS).to_le_bytes());
        // A capset header at rw+512: version 3, pid 0.
        mem.put(RW + 512, &LINUX_CAPABILITY_VERSION_3.to_le_bytes());
        World { k, t, mem }
    }

    fn call(&mut self, nr: u64, args: [u64; 6]) -> String {
        let m = TaskMemory::new(&self.k, self.t, &self.mem, AddressSpace::Modelled).unwrap();
        let r =
            Syscall::from_raw_with(nr, args, &m).and_then(|c| dispatch(&mut self.k, self.t, &c));
        match r {
            Ok(SysRet::Child { .. }) => panic!("a child"),
            Ok(_) => "ok".into(),
            Err(e) => format!("{e:?}"),
        }
    }

    fn case(&mut self, name: &str) -> String {
        let (call, at) = name.rsplit_once('_').unwrap();
        let p = match at {
            "rw" => RW,
            "ro" => RO,
            "none" => NONE,
            "hole" => HOLE,
            "straddle" => HOLE - 4,
            other => panic!("place {other}"),
        };
        match call {
            "rt_sigprocmask" => self.call(nr::RT_SIGPROCMASK, [SIG_BLOCK as u64, p, 0, 8, 0, 0]),
            "rt_sigaction" => self.call(nr::RT_SIGACTION, [SIGUSR1 as u64, p, 0, 8, 0, 0]),
            "rt_sigtimedwait" => self.call(nr::RT_SIGTIMEDWAIT, [p, 0, RW + 256, 8, 0, 0]),
            "prlimit64_core" => self.call(nr::PRLIMIT64, [0, RLIMIT_CORE, p, 0, 0, 0]),
            "clone3" => {
                let p = match at {
                    "ro" => RO + 1024,
                    "straddle" => HOLE - 64,
                    _ => p,
                };
                self.call(nr::CLONE3, [p, 88, 0, 0, 0, 0])
            }
            "capset" => self.call(nr::CAPSET, [RW + 512, p, 0, 0, 0, 0]),
            "capset_header" => self.call(nr::CAPSET, [p, RW, 0, 0, 0, 0]),
            other => panic!("call {other}"),
        }
    }
}

#[test]
fn user_pointers_fault_where_linux_faults() {
    let mut w = World::new();
    let mut n = 0;
    for line in OUT.lines() {
        let (name, want) = line.split_once(" -> ").unwrap();
        assert_eq!(w.case(name), want, "{line}");
        n += 1;
    }
    assert!(n >= 25, "{n} cases");
}

/// Without a modelled address space only the kernel half faults: the
/// embedder's memory answers the rest.
#[test]
fn unmodelled_address_space_reads_the_embedders_memory() {
    let w = World::new();
    let m = TaskMemory::new(&w.k, w.t, &w.mem, AddressSpace::Unmodelled).unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(m.read(NONE, &mut buf), Ok(()));
    assert_eq!(m.read(HOLE, &mut buf), Ok(()));
    assert_eq!(m.read(0xffff_8800_0000_0000, &mut buf), Err(Errno::EFAULT));
    assert_eq!(m.check_write(RO, 8), Ok(()));
    let m = TaskMemory::new(&w.k, w.t, &w.mem, AddressSpace::Modelled).unwrap();
    assert_eq!(m.read(NONE, &mut buf), Err(Errno::EFAULT));
    assert_eq!(m.check_write(RO, 8), Err(Errno::EFAULT));
    assert_eq!(m.check_write(RW, PAGE), Ok(()));
    assert_eq!(m.check_write(RW + PAGE - 4, 8), Err(Errno::EFAULT));
    assert_eq!(m.check_write(HOLE_BELOW, 0), Ok(()));
}
