//! `vm.max_map_count` at the limit: Linux's answers recorded by
//! tests/oracle/map_count.c (re-record with tests/oracle/record.sh),
//! reproduced on the core with `Config::max_map_count` set from the
//! recording. The address space is filled with one-page mappings of
//! alternating protections until mmap fails; then munmap and mprotect
//! that would add a VMA fail with ENOMEM, those that do not succeed.

use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_NONE, PROT_READ, PROT_WRITE};
use taskcore::{Config, Errno, Kernel, TaskId};

const MAP_COUNT: &str = include_str!("oracle/map_count.out");
const PAGE: u64 = 4096;

fn res(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

struct Space {
    k: Kernel,
    t: TaskId,
    big: u64,
    fill: u64,
}

impl Space {
    fn mmap(&mut self, prot: u32) -> Result<u64, Errno> {
        self.k
            .mmap(self.t, 0, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, None, 0)
    }

    /// `big+N` or `fill+N`: the page's address.
    fn addr(&self, name: &str) -> u64 {
        let (base, n) = name.split_once('+').unwrap_or((name, "0"));
        let base = if base == "big" { self.big } else { self.fill };
        base + n.parse::<u64>().unwrap() * PAGE
    }

    fn op(&mut self, text: &str) -> String {
        let w: Vec<&str> = text.split(' ').collect();
        match w[0] {
            "fill" => {
                // Alternating protections: no two neighbours merge.
                let mut read = false;
                loop {
                    read = !read;
                    match self.mmap(if read { PROT_READ } else { PROT_NONE }) {
                        Ok(p) => self.fill = p,
                        Err(e) => break format!("{e:?}"),
                    }
                }
            }
            "munmap" => {
                let len = w[2].parse::<u64>().unwrap() * PAGE;
                res(self.k.munmap(self.t, self.addr(w[1]), len))
            }
            "mprotect" => {
                let len = w[2].parse::<u64>().unwrap() * PAGE;
                res(self.k.mprotect(self.t, self.addr(w[1]), len, PROT_READ))
            }
            "mmap" => res(self.mmap(PROT_READ | PROT_WRITE).map(drop)),
            other => panic!("op {other}"),
        }
    }
}

#[test]
fn max_map_count_at_the_limit() {
    let mut lines = MAP_COUNT.lines();
    let max: usize = lines
        .next()
        .and_then(|l| l.strip_prefix("max_map_count "))
        .unwrap()
        .parse()
        .unwrap();
    let mut k = Kernel::new(Config {
        max_map_count: max,
        ..Config::default()
    })
    .unwrap();
    let t = k.init_task().unwrap();
    let big = k
        .mmap(
            t,
            0,
            4 * PAGE,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS,
            None,
            0,
        )
        .unwrap();
    let mut s = Space { k, t, big, fill: 0 };
    let mut n = 0;
    for line in lines {
        let (op, want) = line.split_once(" -> ").unwrap();
        assert_eq!(s.op(op), want, "{line}");
        n += 1;
    }
    assert!(n >= 10, "{n} ops");
    let mm = s.k.mm(t).unwrap().unwrap();
    assert!(mm.map_count() <= max + 1, "{} VMAs", mm.map_count());
}

/// The sysctl applies to the calls made after it is set.
#[test]
fn max_map_count_sysctl_applies_to_later_calls() {
    let mut k = Kernel::new(Config {
        max_map_count: 3,
        ..Config::default()
    })
    .unwrap();
    let t = k.init_task().unwrap();
    let map = |k: &mut Kernel, prot| k.mmap(t, 0, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, None, 0);
    for prot in [PROT_READ, PROT_NONE, PROT_READ, PROT_NONE] {
        map(&mut k, prot).unwrap();
    }
    assert_eq!(map(&mut k, PROT_READ), Err(Errno::ENOMEM));
    k.set_max_map_count(10).unwrap();
    map(&mut k, PROT_READ).unwrap();
    assert_eq!(k.set_max_map_count(usize::MAX), Err(Errno::EINVAL));
    assert_eq!(k.config().max_map_count, 10);
}
