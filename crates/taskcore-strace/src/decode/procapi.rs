//! Decoders of the pidfd, namespace, credential and resource-limit calls
//! (pidfd_open, pidfd_send_signal, unshare, setns, the set*id/get*id
//! family, setgroups/getgroups, prlimit64/setrlimit/getrlimit,
//! capget/capset and the capability prctls, writes to a user namespace's
//! `/proc` files). A child module of `decode` so that it shares its
//! argument helpers; kept in its own file to ease merges.

use taskcore::sys::{nr, Prctl, Syscall};
use taskcore::{AmbientOp, CapUserData, KernelCap, Rlimit};

use super::{int_of, siginfo, Args, Res};
use crate::args::Value;
use crate::call::{Call, Recorded};
use crate::consts;
use crate::procfile::ProcFile;
use taskcore::sys::names::{CAP_SYMBOLS, PIDFD_FLAGS, PIDFD_SIGNAL_FLAGS, RLIMITS};

/// The capability names (include/uapi/linux/capability.h), by number.
const CAP_NAMES: [&str; 41] = [
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
];

/// A capability, capability-set, version, securebits or
/// `PR_CAP_AMBIENT_*` name.
fn cap_symbol(s: &str) -> Option<u64> {
    CAP_NAMES
        .iter()
        .position(|n| *n == s)
        .map(|i| i as u64)
        .or_else(|| lookup(CAP_SYMBOLS, s))
}

fn lookup(table: &[(&str, u64)], s: &str) -> Option<u64> {
    table.iter().find(|(n, _)| *n == s).map(|(_, v)| *v)
}

/// A capability set: `1<<CAP_KILL|1<<CAP_SETUID`, `0`, or strace's
/// complement form `~(1<<CAP_X|...)` (within the 64 bits).
fn cap_set(v: &Value) -> Option<u64> {
    if let Value::Raw(s) = v {
        let inner = s.strip_prefix("~(")?.strip_suffix(')')?;
        return cap_set(&crate::args::parse_value(inner)).map(|x| !x);
    }
    v.eval_bits(&cap_symbol).ok()
}

/// capget/capset's `{effective=..., permitted=..., inheritable=...}`.
fn cap_data(v: Option<&Value>) -> Option<CapUserData> {
    let v = v?;
    Some(CapUserData {
        effective: KernelCap::new(cap_set(v.field("effective")?)?),
        permitted: KernelCap::new(cap_set(v.field("permitted")?)?),
        inheritable: KernelCap::new(cap_set(v.field("inheritable")?)?),
    })
}

/// capget/capset's header `{version=..., pid=N}`.
fn cap_header(a: &Args<'_>) -> Res<(u32, i32)> {
    let h = a.get(0)?.ok_or("no header")?;
    let version = h
        .field("version")
        .and_then(|v| v.eval_bits(&cap_symbol).ok())
        .ok_or_else(|| format!("bad capability header `{h}`"))? as u32;
    let pid = h.field("pid").and_then(Value::as_i32).unwrap_or(0);
    Ok((version, pid))
}

/// prctl(option, ...) when `option` (its number) is a capability option:
/// its arguments by name or number.
pub(super) fn cap_prctl(option: u64, a: &Args<'_>) -> Option<Res<Call>> {
    if ![
        nr::PR_GET_KEEPCAPS,
        nr::PR_SET_KEEPCAPS,
        nr::PR_CAPBSET_READ,
        nr::PR_CAPBSET_DROP,
        nr::PR_GET_SECUREBITS,
        nr::PR_SET_SECUREBITS,
        nr::PR_SET_NO_NEW_PRIVS,
        nr::PR_GET_NO_NEW_PRIVS,
        nr::PR_CAP_AMBIENT,
    ]
    .contains(&option)
    {
        return None;
    }
    let mut args = [0u64; 4];
    for (i, slot) in args.iter_mut().enumerate() {
        if let Some(v) = a.vals.get(i + 1) {
            match v.eval_bits(&cap_symbol) {
                Ok(n) => *slot = n,
                Err(e) => return Some(Err(e)),
            }
        }
    }
    let a = args;
    let call = match option {
        nr::PR_CAPBSET_READ => Prctl::CapbsetRead(a[0]),
        nr::PR_CAPBSET_DROP => Prctl::CapbsetDrop(a[0]),
        nr::PR_GET_KEEPCAPS => Prctl::GetKeepcaps,
        nr::PR_SET_KEEPCAPS => Prctl::SetKeepcaps(a[0]),
        nr::PR_GET_SECUREBITS => Prctl::GetSecurebits,
        nr::PR_SET_SECUREBITS => Prctl::SetSecurebits(a[0]),
        nr::PR_SET_NO_NEW_PRIVS => Prctl::SetNoNewPrivs(a),
        nr::PR_GET_NO_NEW_PRIVS => Prctl::GetNoNewPrivs(a),
        _ => Prctl::CapAmbient(AmbientOp::from_arg(a[0]), a[1], a[2], a[3]),
    };
    Some(Ok(sys(Syscall::Prctl(call))))
}

/// A call with nothing recorded beyond its result.
fn sys(call: Syscall) -> Call {
    Call::Sys {
        call,
        out: Recorded::Ret,
    }
}

/// Decodes `name` if it is one of this module's calls; `None` otherwise.
pub(super) fn decode(name: &str, a: &Args<'_>) -> Option<Res<Call>> {
    let with = |call, out| Call::Sys { call, out };
    let call = match name {
        "pidfd_open" => (|| {
            Ok(sys(Syscall::PidfdOpen {
                pid: a.int(0)?,
                flags: a.bits(1, PIDFD_FLAGS)? as u32,
            }))
        })(),
        // Kept as registers: the fd is resolved through the caller's fd
        // table where the call is applied; a siginfo strace read is a
        // pointer (1) and goes beside the call.
        "pidfd_send_signal" => (|| {
            let pidfd = a.int(0)?;
            let sig = a.sig(1)?;
            let info = match a.get(2)? {
                Some(v @ Value::Struct { .. }) => Some(siginfo(v)?),
                _ => None,
            };
            let flags = a.bits(3, PIDFD_SIGNAL_FLAGS)?;
            Ok(Call::Raw {
                nr: nr::PIDFD_SEND_SIGNAL,
                args: [
                    pidfd as u64,
                    sig as u64,
                    u64::from(info.is_some()),
                    u64::from(flags as u32),
                    0,
                    0,
                ],
                info: info
                    .as_ref()
                    .map(|i| super::signal::given_info(sig, Some(i))),
            })
        })(),
        "unshare" => a
            .bits(0, consts::CLONE_FLAGS)
            .map(|flags| sys(Syscall::Unshare { flags })),
        "setns" => (|| {
            let fd = a.int(0)?;
            let nstype = a.bits(1, consts::CLONE_FLAGS)?;
            Ok(Call::Raw {
                nr: nr::SETNS,
                args: [fd as u64, nstype, 0, 0, 0, 0],
                info: None,
            })
        })(),
        // Only a write whose fd strace annotated with a user-namespace
        // file of /proc (-y); any other write is not decoded.
        "write" => {
            let raw = a.raw.first()?;
            let (fd, path) = raw.split_once('<')?;
            let (pid, file) = ProcFile::parse_path(path.strip_suffix('>')?)?;
            let _: i32 = fd.trim().parse().ok()?;
            (|| {
                let (data, truncated) = match a.get(1)? {
                    Some(Value::Str { text, truncated }) => (text.clone().into_bytes(), *truncated),
                    _ => return Err("write: data not printed as a string".to_string()),
                };
                let count = a.addr(2)?;
                Ok(if truncated || count != data.len() as u64 {
                    Call::Unchecked {
                        name: "write",
                        why: "data strace cut short",
                    }
                } else {
                    Call::ProcWrite { pid, file, data }
                })
            })()
        }
        "setuid" => id(a, 0).map(|uid| sys(Syscall::Setuid { uid })),
        "setgid" => id(a, 0).map(|gid| sys(Syscall::Setgid { gid })),
        "setfsuid" => id(a, 0).map(|uid| sys(Syscall::Setfsuid { uid })),
        "setfsgid" => id(a, 0).map(|gid| sys(Syscall::Setfsgid { gid })),
        "setreuid" => (|| {
            Ok(sys(Syscall::Setreuid {
                ruid: id(a, 0)?,
                euid: id(a, 1)?,
            }))
        })(),
        "setregid" => (|| {
            Ok(sys(Syscall::Setregid {
                rgid: id(a, 0)?,
                egid: id(a, 1)?,
            }))
        })(),
        "setresuid" => {
            ids3(a).map(|[ruid, euid, suid]| sys(Syscall::Setresuid { ruid, euid, suid }))
        }
        "setresgid" => {
            ids3(a).map(|[rgid, egid, sgid]| sys(Syscall::Setresgid { rgid, egid, sgid }))
        }
        "setgroups" => (|| {
            let size = a.int(0)?;
            Ok(match (a.get(1)?, size) {
                (Some(v), size) => match groups(v) {
                    Some(g) if usize::try_from(size).is_ok_and(|n| n == g.len()) => {
                        sys(Syscall::Setgroups { groups: g })
                    }
                    _ => unprinted_groups(),
                },
                (None, _) => unprinted_groups(),
            })
        })(),
        "getuid" => Ok(sys(Syscall::Getuid)),
        "geteuid" => Ok(sys(Syscall::Geteuid)),
        "getgid" => Ok(sys(Syscall::Getgid)),
        "getegid" => Ok(sys(Syscall::Getegid)),
        "getresuid" => Ok(with(Syscall::Getresuid, Recorded::Ids(out_ids(a)))),
        "getresgid" => Ok(with(Syscall::Getresgid, Recorded::Ids(out_ids(a)))),
        "prlimit64" => (|| {
            let pid = a.int(0)?;
            let resource = a.bits(1, RLIMITS)? as u32;
            let new = rlimit(a.get(2)?);
            let old = rlimit(a.get(3)?);
            Ok(with(
                Syscall::Prlimit64 { pid, resource, new },
                Recorded::Rlimit(old),
            ))
        })(),
        "setrlimit" => (|| {
            let resource = a.bits(0, RLIMITS)? as u32;
            Ok(match rlimit(a.get(1)?) {
                Some(new) => with(Syscall::Setrlimit { resource, new }, Recorded::Rlimit(None)),
                None => Call::Unchecked {
                    name: "setrlimit",
                    why: "limits strace did not print",
                },
            })
        })(),
        "getrlimit" => (|| {
            let resource = a.bits(0, RLIMITS)? as u32;
            let old = rlimit(a.get(1)?);
            Ok(with(Syscall::Getrlimit { resource }, Recorded::Rlimit(old)))
        })(),
        "getgroups" => (|| {
            let size = a.int(0)?;
            let groups = a.get(1)?.and_then(groups);
            Ok(with(Syscall::Getgroups { size }, Recorded::Groups(groups)))
        })(),
        "capget" => (|| {
            let (version, pid) = cap_header(a)?;
            let d = a.get(1)?;
            Ok(with(
                Syscall::Capget {
                    version,
                    pid,
                    data: d.is_some_and(|v| !v.is_null()),
                },
                Recorded::Caps(cap_data(d)),
            ))
        })(),
        "capset" => (|| {
            let (version, pid) = cap_header(a)?;
            Ok(sys(Syscall::Capset {
                version,
                pid,
                data: cap_data(a.get(1)?),
            }))
        })(),
        _ => return None,
    };
    Some(call)
}

/// A group list strace printed in full (`[0, 1000]`); `None` for one it
/// elided (`...`), an address or NULL.
fn groups(v: &Value) -> Option<Vec<u32>> {
    match v {
        Value::Array { items, more: false } => {
            items.iter().map(|v| v.as_u64().map(|g| g as u32)).collect()
        }
        _ => None,
    }
}

/// setgroups(2) whose list strace did not print (or printed with another
/// length than `size`).
fn unprinted_groups() -> Call {
    Call::Unchecked {
        name: "setgroups",
        why: "a group list strace did not print",
    }
}

/// An id argument: `1000`, `-1` (as `u32::MAX`).
fn id(a: &Args<'_>, i: usize) -> Res<u32> {
    match a.get(i)? {
        None => Ok(0),
        Some(v) => int_of(v).map(|n| n as u32),
    }
}

fn ids3(a: &Args<'_>) -> Res<[u32; 3]> {
    Ok([id(a, 0)?, id(a, 1)?, id(a, 2)?])
}

/// getresuid's three `[N]` outputs.
fn out_ids(a: &Args<'_>) -> Option<[u32; 3]> {
    let one = |i: usize| match a.vals.get(i)? {
        Value::Array { items, .. } if items.len() == 1 => items[0].as_i32().map(|n| n as u32),
        _ => None,
    };
    Some([one(0)?, one(1)?, one(2)?])
}

/// `{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}`; `None` for `NULL`, an
/// address, or a field this decoder cannot read.
fn rlimit(v: Option<&Value>) -> Option<Rlimit> {
    let v = v?;
    if !matches!(v, Value::Struct { .. }) {
        return None;
    }
    Some(Rlimit {
        cur: limit_value(v.field("rlim_cur")?)?,
        max: limit_value(v.field("rlim_max")?)?,
    })
}

/// One limit: a number, `RLIM64_INFINITY`/`RLIM_INFINITY`, or strace's
/// `8192*1024` (a multiple of 1024 it prints as a product).
fn limit_value(v: &Value) -> Option<u64> {
    match v {
        Value::Sym(s) if s == "RLIM64_INFINITY" || s == "RLIM_INFINITY" => Some(u64::MAX),
        Value::Int(n) => u64::try_from(*n).ok(),
        Value::Raw(s) => s.split('*').try_fold(1u64, |acc, f| {
            acc.checked_mul(f.trim().parse::<u64>().ok()?)
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{decode, Args};
    use crate::call::{Call, Recorded};
    use crate::event::Ret;
    use crate::procfile::ProcFile;
    use taskcore::sys::{nr, Prctl, Syscall};
    use taskcore::{AmbientOp, CapUserData, KernelCap, Rlimit};

    fn call(name: &str, args: &str) -> Call {
        super::super::decode(name, args, &Ret::Val(0)).0
    }

    /// The core call of `name(args)` and what strace printed beside it.
    fn sys(name: &str, args: &str) -> (Syscall, Recorded) {
        match call(name, args) {
            Call::Sys { call, out } => (call, out),
            other => panic!("{name}({args}) decoded as {other:?}"),
        }
    }

    fn raw(name: &str, args: &str) -> ([u64; 6], Option<taskcore::SigInfo>) {
        match call(name, args) {
            Call::Raw { args, info, .. } => (args, info),
            other => panic!("{name}({args}) decoded as {other:?}"),
        }
    }

    #[test]
    fn pidfd_calls_as_recorded() {
        assert_eq!(
            sys("pidfd_open", "31057, 0").0,
            Syscall::PidfdOpen {
                pid: 31057,
                flags: 0
            }
        );
        assert_eq!(
            sys("pidfd_open", "31057, 0x3039 /* PIDFD_??? */").0,
            Syscall::PidfdOpen {
                pid: 31057,
                flags: 0x3039
            }
        );
        assert_eq!(
            sys("pidfd_open", "7, PIDFD_NONBLOCK|PIDFD_THREAD").0,
            Syscall::PidfdOpen {
                pid: 7,
                flags: 0o4200
            }
        );
        assert!(matches!(
            call("pidfd_send_signal", "3, 0, NULL, 0"),
            Call::Raw { nr: n, args: [3, 0, 0, 0, 0, 0], info: None } if n == nr::PIDFD_SEND_SIGNAL
        ));
        assert_eq!(
            raw("pidfd_send_signal", "5, SIGKILL, NULL, PIDFD_SIGNAL_THREAD").0,
            [5, 9, 0, 1, 0, 0]
        );
        // A siginfo strace printed goes with the call, as given.
        let (args, info) = raw(
            "pidfd_send_signal",
            "3, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=100, si_uid=0, \
             si_int=42, si_ptr=0x2a}, 0",
        );
        assert_eq!(args[2], 1);
        let i = info.expect("the siginfo");
        assert_eq!((i.signo, i.code, i.pid, i.value), (10, -1, 100, 0x2a));
    }

    #[test]
    fn namespace_calls() {
        assert_eq!(
            sys("unshare", "CLONE_NEWPID").0,
            Syscall::Unshare { flags: 0x20000000 }
        );
        let (args, _) = raw("setns", "3, CLONE_NEWPID");
        assert_eq!(args, [3, 0x20000000, 0, 0, 0, 0]);
    }

    #[test]
    fn user_namespace_file_writes() {
        assert_eq!(
            call("write", r#"3</proc/22955/uid_map>, "0 1000 1", 8"#),
            Call::ProcWrite {
                pid: 22955,
                file: ProcFile::UidMap,
                data: b"0 1000 1".to_vec(),
            }
        );
        assert_eq!(
            call("write", r#"4</proc/7/task/9/setgroups>, "deny\n", 5"#),
            Call::ProcWrite {
                pid: 7,
                file: ProcFile::Setgroups,
                data: b"deny\n".to_vec(),
            }
        );
        // Cut short by strace: not applied.
        assert_eq!(
            call("write", r#"3</proc/22955/uid_map>, "0 1000 1", 9"#),
            Call::Unchecked {
                name: "write",
                why: "data strace cut short"
            }
        );
        // Other writes are not decoded.
        let a = Args::new(r#"1</dev/pts/0>, "hi\n", 3"#, false);
        assert!(decode("write", &a).is_none());
        let a = Args::new(r#"1, "0 0 1", 5"#, false);
        assert!(decode("write", &a).is_none());
    }

    #[test]
    fn credential_calls() {
        assert_eq!(
            sys("setresuid", "65534, 65534, 65534").0,
            Syscall::Setresuid {
                ruid: 65534,
                euid: 65534,
                suid: 65534
            }
        );
        assert_eq!(
            sys("setreuid", "-1, 1000").0,
            Syscall::Setreuid {
                ruid: u32::MAX,
                euid: 1000
            }
        );
        assert_eq!(
            sys("setgroups", "0, []").0,
            Syscall::Setgroups { groups: vec![] }
        );
        assert_eq!(
            sys("setgroups", "2, [10, 20]").0,
            Syscall::Setgroups {
                groups: vec![10, 20]
            }
        );
        assert!(matches!(
            call("setgroups", "3, [10, 20]"),
            Call::Unchecked {
                name: "setgroups",
                ..
            }
        ));
        assert_eq!(
            sys("getresuid", "[0], [0], [0]"),
            (Syscall::Getresuid, Recorded::Ids(Some([0; 3])))
        );
        assert_eq!(sys("geteuid", "").0, Syscall::Geteuid);
    }

    #[test]
    fn limit_calls() {
        assert_eq!(
            sys(
                "prlimit64",
                "0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}"
            ),
            (
                Syscall::Prlimit64 {
                    pid: 0,
                    resource: 3,
                    new: None,
                },
                Recorded::Rlimit(Some(Rlimit {
                    cur: 8192 * 1024,
                    max: u64::MAX
                }))
            )
        );
        assert_eq!(
            sys(
                "prlimit64",
                "0, RLIMIT_NPROC, {rlim_cur=3, rlim_max=3}, NULL"
            ),
            (
                Syscall::Prlimit64 {
                    pid: 0,
                    resource: 6,
                    new: Some(Rlimit { cur: 3, max: 3 }),
                },
                Recorded::Rlimit(None)
            )
        );
        assert_eq!(
            sys(
                "setrlimit",
                "RLIMIT_CORE, {rlim_cur=0, rlim_max=RLIM_INFINITY}"
            )
            .0,
            Syscall::Setrlimit {
                resource: 4,
                new: Rlimit {
                    cur: 0,
                    max: u64::MAX
                }
            }
        );
        assert!(matches!(
            call("setrlimit", "RLIMIT_CORE, 0x7ffd"),
            Call::Unchecked {
                name: "setrlimit",
                ..
            }
        ));
    }

    #[test]
    fn capget_and_capset_as_recorded() {
        assert_eq!(
            sys(
                "capget",
                "{version=0 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}, NULL"
            ),
            (
                Syscall::Capget {
                    version: 0,
                    pid: 0,
                    data: false,
                },
                Recorded::Caps(None)
            )
        );
        assert_eq!(
            sys(
                "capset",
                "{version=_LINUX_CAPABILITY_VERSION_3, pid=17582}, {effective=1<<CAP_SETGID, \
                 permitted=1<<CAP_SETGID|1<<CAP_CHECKPOINT_RESTORE, inheritable=0}"
            )
            .0,
            Syscall::Capset {
                version: 0x2008_0522,
                pid: 17582,
                data: Some(CapUserData {
                    effective: KernelCap::new(0x40),
                    permitted: KernelCap::new(0x40 | 1 << 40),
                    inheritable: KernelCap::new(0),
                })
            }
        );
        match sys(
            "capget",
            "{version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=~(1<<CAP_KILL), \
             permitted=0, inheritable=0}",
        ) {
            (_, Recorded::Caps(Some(d))) => assert_eq!(d.effective, KernelCap::new(!0x20)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn getgroups_as_recorded() {
        assert_eq!(
            sys("getgroups", "0, NULL"),
            (Syscall::Getgroups { size: 0 }, Recorded::Groups(None))
        );
        assert_eq!(
            sys("getgroups", "2, [27, 1000]"),
            (
                Syscall::Getgroups { size: 2 },
                Recorded::Groups(Some(vec![27, 1000]))
            )
        );
    }

    #[test]
    fn capability_prctls_as_recorded() {
        let p = |args: &str| match sys("prctl", args).0 {
            Syscall::Prctl(p) => p,
            other => panic!("prctl({args}) decoded as {other:?}"),
        };
        assert_eq!(
            p("PR_CAPBSET_READ, CAP_MAC_OVERRIDE"),
            Prctl::CapbsetRead(32)
        );
        assert_eq!(
            p("PR_CAPBSET_READ, 0x30 /* CAP_??? */"),
            Prctl::CapbsetRead(0x30)
        );
        assert_eq!(
            p("PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0"),
            Prctl::CapAmbient(Some(AmbientOp::IsSet), 0, 0, 0)
        );
        assert_eq!(p("PR_SET_KEEPCAPS, 1"), Prctl::SetKeepcaps(1));
        assert_eq!(
            p("PR_SET_SECUREBITS, SECBIT_KEEP_CAPS|SECBIT_KEEP_CAPS_LOCKED"),
            Prctl::SetSecurebits(0x30)
        );
        assert_eq!(
            p("PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0"),
            Prctl::GetNoNewPrivs([0; 4])
        );
    }
}
