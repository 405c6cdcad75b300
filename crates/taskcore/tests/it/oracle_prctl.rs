//! prctl's name, parent-death signal and child-subreaper answers, and the
//! name in `/proc`, compared with answers recorded from real Linux by
//! tests/oracle/prctl_rules.c (re-record with tests/oracle/record.sh).

use crate::common::recorded;

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::{Config, Errno, Kernel};

const PRCTL_RULES: &str = include_str!("oracle/prctl_rules.out");

fn want(key: &str) -> &'static str {
    recorded::want(PRCTL_RULES, key)
}

fn read(k: &Kernel, path: &str) -> String {
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let fs = ProcFs::new(k, k.root_ns(), clock).unwrap();
    String::from_utf8(fs.read(fs.resolve(path.as_bytes()).unwrap()).unwrap()).unwrap()
}

#[test]
fn prctl_answers_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    k.pr_set_name(p, b"a-very-long-thread-name").unwrap();
    let name = k.pr_get_name(p).unwrap();
    let n = name.iter().position(|&b| b == 0).unwrap();
    assert_eq!(std::str::from_utf8(&name[..n]).unwrap(), want("get_name"));
    assert_eq!(name[15].to_string(), want("get_name_byte15"));
    let nr = k.pid_vnr(init, p).unwrap();
    assert_eq!(
        read(&k, &format!("{nr}/comm")).trim_end(),
        want("proc_comm")
    );
    let status = read(&k, &format!("{nr}/status"));
    assert_eq!(status.lines().next().unwrap(), want("proc_status"));
    let stat = read(&k, &format!("{nr}/stat"));
    let (a, b) = (stat.find('(').unwrap(), stat.rfind(')').unwrap());
    assert_eq!(&stat[a..=b], want("proc_stat_comm"));

    let r = k.set_pdeathsig(p, 65);
    assert_eq!(format!("{:?}", r.unwrap_err()), want("pdeathsig_65"));
    assert_eq!(
        k.pdeathsig(p).unwrap().to_string(),
        want("pdeathsig_default")
    );
    k.set_pdeathsig(p, 10).unwrap();
    assert_eq!(k.pdeathsig(p).unwrap().to_string(), want("pdeathsig_set"));
    let c = k.fork(p).unwrap();
    assert_eq!(k.pdeathsig(c).unwrap().to_string(), want("pdeathsig_child"));
    k.setresuid(p, 0, 1000, 0).unwrap();
    let got = k.pdeathsig(p).unwrap().to_string();
    assert_eq!(got, want("pdeathsig_after_euid_change"));
    k.setresuid(p, 0, 0, 0).unwrap();
    k.set_pdeathsig(p, 10).unwrap();
    k.setresuid(p, 1000, 0, 0).unwrap();
    let got = k.pdeathsig(p).unwrap().to_string();
    assert_eq!(got, want("pdeathsig_after_ruid_change"));

    let sr = |k: &Kernel| u8::from(k.child_subreaper(p).unwrap()).to_string();
    assert_eq!(sr(&k), want("subreaper_default"));
    k.set_child_subreaper(p, true).unwrap();
    assert_eq!(sr(&k), want("subreaper_set"));
    assert_eq!(k.set_pdeathsig(p, -1), Err(Errno::EINVAL));
}
