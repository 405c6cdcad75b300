//! The credentials and limits the run starts from: the supervisor's own,
//! which the command inherits across its fork, given to the core's init
//! and command so that the core's permission, capability and limit checks
//! start where the real kernel's do (uids, gids, groups, the five
//! capability sets, securebits, every `RLIMIT_*`), and whether the
//! command runs with `no_new_privs`.

use taskcore::{Cred, KernelCap, Rlimit};

/// The supervisor's own resource limits (`getrlimit(2)` of each of
/// Linux's 16 resources; one it cannot read is left out), in the core's
/// form (`RLIM_INFINITY` is `u64::MAX` in both).
pub(crate) fn own_rlimits() -> Vec<(u32, Rlimit)> {
    (0..16u32)
        .filter_map(|r| {
            let mut l = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit writes one struct rlimit to a local.
            let ok = unsafe { libc::getrlimit(r as _, &mut l) } == 0;
            ok.then_some((
                r,
                Rlimit {
                    cur: l.rlim_cur,
                    max: l.rlim_max,
                },
            ))
        })
        .collect()
}

/// `CAP_SYS_ADMIN`'s bit, which lets a process install a seccomp filter
/// without `no_new_privs` (`seccomp_prepare_filter()`).
const CAP_SYS_ADMIN_BIT: u64 = 1 << 21;

/// What `/proc/self/status` says of a process's credentials.
#[derive(Debug, Clone)]
pub(crate) struct Own {
    /// Its credentials, as the core holds them.
    pub(crate) cred: Cred,
    /// Its effective capabilities, as a bit set.
    cap_eff: u64,
    /// Its `NoNewPrivs:` flag.
    pub(crate) no_new_privs: bool,
}

impl Own {
    /// The supervisor's own credentials (`None` if `/proc/self/status`
    /// cannot be read or parsed: then the core keeps its defaults).
    pub(crate) fn read() -> Option<Own> {
        let text = std::fs::read_to_string("/proc/self/status").ok()?;
        // SAFETY: prctl(PR_GET_SECUREBITS) reads this process's flags.
        let sb = unsafe { libc::prctl(libc::PR_GET_SECUREBITS, 0, 0, 0, 0) };
        parse(&text, u32::try_from(sb).ok()?)
    }

    /// Whether the command's seccomp filter leaves `no_new_privs` unset:
    /// the supervisor has `CAP_SYS_ADMIN` and no `no_new_privs` of its own
    /// (the rule `seccomp_prepare_filter()` applies; otherwise the filter
    /// needs the flag, and `seccompiler::apply_filter` sets it).
    pub(crate) fn filter_keeps_privs(&self) -> bool {
        !self.no_new_privs && self.cap_eff & CAP_SYS_ADMIN_BIT != 0
    }
}

/// Parses the `Uid:`, `Gid:`, `Groups:`, `Cap*:` and `NoNewPrivs:` lines
/// of a `/proc/PID/status` text (fs/proc/array.c's `task_cred` and
/// `task_cap` formats), with securebits `sb`.
fn parse(text: &str, sb: u32) -> Option<Own> {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
    };
    let ids = |key: &str| -> Option<[u32; 4]> {
        let v: Vec<u32> = field(key)?
            .split_ascii_whitespace()
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?;
        v.try_into().ok()
    };
    let cap = |key: &str| u64::from_str_radix(field(key)?, 16).ok();
    let [uid, euid, suid, fsuid] = ids("Uid:")?;
    let [gid, egid, sgid, fsgid] = ids("Gid:")?;
    let mut groups: Vec<u32> = field("Groups:")?
        .split_ascii_whitespace()
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    groups.sort_unstable();
    let cap_eff = cap("CapEff:")?;
    let cred = Cred {
        uid,
        euid,
        suid,
        fsuid,
        gid,
        egid,
        sgid,
        fsgid,
        groups: groups.into(),
        cap_inheritable: KernelCap::new(cap("CapInh:")?),
        cap_permitted: KernelCap::new(cap("CapPrm:")?),
        cap_effective: KernelCap::new(cap_eff),
        cap_bset: KernelCap::new(cap("CapBnd:")?),
        cap_ambient: KernelCap::new(cap("CapAmb:")?),
        securebits: sb,
        ..Cred::default()
    };
    Some(Own {
        cred,
        cap_eff,
        no_new_privs: field("NoNewPrivs:") == Some("1"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATUS: &str = "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t5\t100\n\
        Groups:\t27 4 \nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\n\
        CapEff:\t0000000000200000\nCapBnd:\t000001fffeffffff\nCapAmb:\t0000000000000000\n\
        NoNewPrivs:\t0\n";

    #[test]
    fn status_lines_become_credentials() {
        let o = parse(STATUS, 16).unwrap();
        assert_eq!((o.cred.uid, o.cred.fsuid, o.cred.sgid), (1000, 1000, 5));
        assert_eq!(&*o.cred.groups, &[4, 27]);
        assert_eq!(o.cred.cap_bset, KernelCap::new(0x1fffeffffff));
        assert_eq!(o.cred.securebits, 16);
        assert!(!o.no_new_privs);
        // CAP_SYS_ADMIN, no no_new_privs: the filter keeps privileges.
        assert!(o.filter_keeps_privs());
        let nnp = parse(&STATUS.replace("NoNewPrivs:\t0", "NoNewPrivs:\t1"), 0).unwrap();
        assert!(nnp.no_new_privs && !nnp.filter_keeps_privs());
        let plain = parse(&STATUS.replace("0000000000200000", "0000000000000000"), 0).unwrap();
        assert!(!plain.filter_keeps_privs());
        assert!(parse("Uid:\t1 2\n", 0).is_none());
    }
}
