//! `/proc/PID/task/TID/children` compared with the listing recorded from
//! real Linux by tests/oracle/children.c (re-record with
//! tests/oracle/record.sh): per thread, creation order, zombies listed,
//! orphans adopted at the tail.

use crate::common::recorded;

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::uapi::SIGKILL;
use taskcore::{CloneArgs, Config, Kernel};

const CHILDREN: &str = include_str!("oracle/children.out");

fn want(key: &str) -> &'static str {
    recorded::want(CHILDREN, key)
}

fn raw(k: &Kernel, tgid: i32, tid: i32) -> String {
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let fs = ProcFs::new(k, k.root_ns(), clock).unwrap();
    let node = fs
        .resolve(format!("{tgid}/task/{tid}/children").as_bytes())
        .unwrap();
    String::from_utf8(fs.read(node).unwrap()).unwrap()
}

/// The listing with each pid replaced by its child's letter (`kids` are
/// the children's numbers in fork order).
fn named(text: &str, kids: &[i32]) -> String {
    text.split_whitespace()
        .map(|nr| {
            let i = kids.iter().position(|&t| t.to_string() == nr).unwrap();
            char::from(b'A' + i as u8).to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn children_lists_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let main = k.fork(init).unwrap();
    k.set_child_subreaper(main, true).unwrap();
    let th = k.clone(main, &CloneArgs::thread()).unwrap();
    let a = k.fork(main).unwrap();
    let b = k.fork(main).unwrap();
    let e = k.fork(b).unwrap();
    k.exit_group(b, 0).unwrap();
    let c = k.fork(main).unwrap();
    let d = k.fork(th).unwrap();
    let nr = |t| k.pid_vnr(init, t).unwrap();
    let kids = [a, b, c, d, e].map(nr);
    let (m, t) = (nr(main), nr(th));
    let show = |k: &Kernel, tid| named(&raw(k, m, tid), &kids);
    assert_eq!(show(&k, m), want("main_with_zombie"));
    assert_eq!(show(&k, t), want("thread"));
    let bn = k.pid_vnr(main, b).unwrap();
    k.wait4(main, bn, 0).unwrap();
    let cn = k.pid_vnr(main, c).unwrap();
    k.kill(main, cn, SIGKILL).unwrap();
    assert_eq!(show(&k, m), want("main_after_reap"));
    let text = raw(&k, m, t);
    let ok = text.ends_with(' ') && !text.contains('\n');
    let format = if ok {
        "trailing-space-no-newline"
    } else {
        "other"
    };
    assert_eq!(format, want("format"));
}
