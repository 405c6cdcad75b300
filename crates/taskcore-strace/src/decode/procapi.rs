//! Decoders of the pidfd, namespace, credential and resource-limit calls
//! (see [`ProcCall`]). A child module of `decode` so that it shares its
//! argument helpers; kept in its own file to ease merges.

use super::{int_of, siginfo, Args, Res};
use crate::args::Value;
use crate::consts;
use crate::event::Call;
use crate::procapi::{CapData, IdKind, ProcCall, RlimitArg};

/// `pidfd_open` flags (include/uapi/linux/pidfd.h).
const PIDFD_FLAGS: &[(&str, u64)] = &[("PIDFD_NONBLOCK", 0o4000), ("PIDFD_THREAD", 0o200)];
/// `pidfd_send_signal` flags.
const PIDFD_SIGNAL_FLAGS: &[(&str, u64)] = &[
    ("PIDFD_SIGNAL_THREAD", 1),
    ("PIDFD_SIGNAL_THREAD_GROUP", 2),
    ("PIDFD_SIGNAL_PROCESS_GROUP", 4),
];
/// `RLIMIT_*` (include/uapi/asm-generic/resource.h).
const RLIMITS: &[(&str, u64)] = &[
    ("RLIMIT_CPU", 0),
    ("RLIMIT_FSIZE", 1),
    ("RLIMIT_DATA", 2),
    ("RLIMIT_STACK", 3),
    ("RLIMIT_CORE", 4),
    ("RLIMIT_RSS", 5),
    ("RLIMIT_NPROC", 6),
    ("RLIMIT_NOFILE", 7),
    ("RLIMIT_MEMLOCK", 8),
    ("RLIMIT_AS", 9),
    ("RLIMIT_LOCKS", 10),
    ("RLIMIT_SIGPENDING", 11),
    ("RLIMIT_MSGQUEUE", 12),
    ("RLIMIT_NICE", 13),
    ("RLIMIT_RTPRIO", 14),
    ("RLIMIT_RTTIME", 15),
];

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

/// The other names of capget/capset and the capability prctls: versions,
/// `SECBIT_*` (include/uapi/linux/securebits.h), `PR_CAP_AMBIENT_*`.
const CAP_SYMBOLS: &[(&str, u64)] = &[
    ("_LINUX_CAPABILITY_VERSION_1", 0x1998_0330),
    ("_LINUX_CAPABILITY_VERSION_2", 0x2007_1026),
    ("_LINUX_CAPABILITY_VERSION_3", 0x2008_0522),
    ("SECBIT_NOROOT", 1),
    ("SECBIT_NOROOT_LOCKED", 2),
    ("SECBIT_NO_SETUID_FIXUP", 4),
    ("SECBIT_NO_SETUID_FIXUP_LOCKED", 8),
    ("SECBIT_KEEP_CAPS", 0x10),
    ("SECBIT_KEEP_CAPS_LOCKED", 0x20),
    ("SECBIT_NO_CAP_AMBIENT_RAISE", 0x40),
    ("SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED", 0x80),
    ("SECBIT_EXEC_RESTRICT_FILE", 0x100),
    ("SECBIT_EXEC_RESTRICT_FILE_LOCKED", 0x200),
    ("SECBIT_EXEC_DENY_INTERACTIVE", 0x400),
    ("SECBIT_EXEC_DENY_INTERACTIVE_LOCKED", 0x800),
    ("PR_CAP_AMBIENT_IS_SET", 1),
    ("PR_CAP_AMBIENT_RAISE", 2),
    ("PR_CAP_AMBIENT_LOWER", 3),
    ("PR_CAP_AMBIENT_CLEAR_ALL", 4),
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
fn cap_data(v: Option<&Value>) -> Option<CapData> {
    let v = v?;
    Some(CapData {
        effective: cap_set(v.field("effective")?)?,
        permitted: cap_set(v.field("permitted")?)?,
        inheritable: cap_set(v.field("inheritable")?)?,
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
    if ![7, 8, 23, 24, 27, 28, 38, 39, 47].contains(&option) {
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
    Some(Ok(Call::ProcApi(ProcCall::CapPrctl {
        option: option as u32,
        args,
    })))
}

/// Decodes `name` if it is one of the calls of [`ProcCall`]; `None`
/// otherwise.
pub(super) fn decode(name: &str, a: &Args<'_>) -> Option<Res<Call>> {
    let call = match name {
        "pidfd_open" => (|| {
            Ok(ProcCall::PidfdOpen {
                pid: a.int(0)?,
                flags: a.bits(1, PIDFD_FLAGS)? as u32,
            })
        })(),
        "pidfd_send_signal" => (|| {
            Ok(ProcCall::PidfdSendSignal {
                pidfd: a.int(0)?,
                sig: a.sig(1)?,
                info: match a.get(2)? {
                    Some(v @ Value::Struct { .. }) => Some(siginfo(v)?),
                    _ => None,
                },
                flags: a.bits(3, PIDFD_SIGNAL_FLAGS)? as u32,
            })
        })(),
        "unshare" => a
            .bits(0, consts::CLONE_FLAGS)
            .map(|flags| ProcCall::Unshare { flags }),
        "setns" => (|| {
            Ok(ProcCall::Setns {
                fd: a.int(0)?,
                nstype: a.bits(1, consts::CLONE_FLAGS)?,
            })
        })(),
        "setuid" => id(a, 0).map(|uid| ProcCall::Setuid { uid }),
        "setgid" => id(a, 0).map(|gid| ProcCall::Setgid { gid }),
        "setfsuid" => id(a, 0).map(|uid| ProcCall::Setfsuid { uid }),
        "setfsgid" => id(a, 0).map(|gid| ProcCall::Setfsgid { gid }),
        "setreuid" => (|| {
            Ok(ProcCall::Setreuid {
                ruid: id(a, 0)?,
                euid: id(a, 1)?,
            })
        })(),
        "setregid" => (|| {
            Ok(ProcCall::Setregid {
                rgid: id(a, 0)?,
                egid: id(a, 1)?,
            })
        })(),
        "setresuid" => ids3(a).map(|ids| ProcCall::Setresuid { ids }),
        "setresgid" => ids3(a).map(|ids| ProcCall::Setresgid { ids }),
        "setgroups" => (|| {
            Ok(ProcCall::Setgroups {
                size: a.int(0)?,
                groups: match a.get(1)? {
                    Some(Value::Array { items, more: false }) => {
                        items.iter().map(|v| v.as_u64().map(|g| g as u32)).collect()
                    }
                    _ => None,
                },
            })
        })(),
        "getuid" => Ok(ProcCall::GetId { which: IdKind::Uid }),
        "geteuid" => Ok(ProcCall::GetId {
            which: IdKind::Euid,
        }),
        "getgid" => Ok(ProcCall::GetId { which: IdKind::Gid }),
        "getegid" => Ok(ProcCall::GetId {
            which: IdKind::Egid,
        }),
        "getresuid" => Ok(ProcCall::Getresuid { ids: out_ids(a) }),
        "getresgid" => Ok(ProcCall::Getresgid { ids: out_ids(a) }),
        "prlimit64" => (|| {
            Ok(ProcCall::Prlimit64 {
                pid: a.int(0)?,
                resource: a.bits(1, RLIMITS)? as u32,
                new: rlimit(a.get(2)?),
                old: rlimit(a.get(3)?),
            })
        })(),
        "setrlimit" => (|| {
            Ok(ProcCall::Setrlimit {
                resource: a.bits(0, RLIMITS)? as u32,
                new: rlimit(a.get(1)?),
            })
        })(),
        "getrlimit" => (|| {
            Ok(ProcCall::Getrlimit {
                resource: a.bits(0, RLIMITS)? as u32,
                old: rlimit(a.get(1)?),
            })
        })(),
        "getgroups" => (|| {
            Ok(ProcCall::Getgroups {
                size: a.int(0)?,
                groups: match a.get(1)? {
                    Some(Value::Array { items, more: false }) => {
                        items.iter().map(|v| v.as_u64().map(|g| g as u32)).collect()
                    }
                    _ => None,
                },
            })
        })(),
        "capget" => (|| {
            let (version, pid) = cap_header(a)?;
            let d = a.get(1)?;
            Ok(ProcCall::Capget {
                version,
                pid,
                with_data: d.is_some_and(|v| !v.is_null()),
                data: cap_data(d),
            })
        })(),
        "capset" => (|| {
            let (version, pid) = cap_header(a)?;
            Ok(ProcCall::Capset {
                version,
                pid,
                data: cap_data(a.get(1)?),
            })
        })(),
        _ => return None,
    };
    Some(call.map(Call::ProcApi))
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
fn rlimit(v: Option<&Value>) -> Option<RlimitArg> {
    let v = v?;
    if !matches!(v, Value::Struct { .. }) {
        return None;
    }
    Some(RlimitArg {
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
    use crate::event::{Call, Ret};
    use crate::procapi::{IdKind, ProcCall, RlimitArg};

    fn call(name: &str, args: &str) -> ProcCall {
        match super::super::decode(name, args, &Ret::Val(0)).0 {
            Call::ProcApi(p) => p,
            other => panic!("{name}({args}) decoded as {other:?}"),
        }
    }

    #[test]
    fn pidfd_calls_as_recorded() {
        assert_eq!(
            call("pidfd_open", "31057, 0"),
            ProcCall::PidfdOpen {
                pid: 31057,
                flags: 0
            }
        );
        assert_eq!(
            call("pidfd_open", "31057, 0x3039 /* PIDFD_??? */"),
            ProcCall::PidfdOpen {
                pid: 31057,
                flags: 0x3039
            }
        );
        assert_eq!(
            call("pidfd_open", "7, PIDFD_NONBLOCK|PIDFD_THREAD"),
            ProcCall::PidfdOpen {
                pid: 7,
                flags: 0o4200
            }
        );
        assert_eq!(
            call("pidfd_send_signal", "3, 0, NULL, 0"),
            ProcCall::PidfdSendSignal {
                pidfd: 3,
                sig: 0,
                info: None,
                flags: 0
            }
        );
        assert_eq!(
            call("pidfd_send_signal", "5, SIGKILL, NULL, PIDFD_SIGNAL_THREAD"),
            ProcCall::PidfdSendSignal {
                pidfd: 5,
                sig: 9,
                info: None,
                flags: 1
            }
        );
    }

    #[test]
    fn namespace_calls() {
        assert_eq!(
            call("unshare", "CLONE_NEWPID"),
            ProcCall::Unshare { flags: 0x20000000 }
        );
        assert_eq!(
            call("setns", "3, CLONE_NEWPID"),
            ProcCall::Setns {
                fd: 3,
                nstype: 0x20000000
            }
        );
    }

    #[test]
    fn credential_calls() {
        assert_eq!(
            call("setresuid", "65534, 65534, 65534"),
            ProcCall::Setresuid {
                ids: [65534, 65534, 65534]
            }
        );
        assert_eq!(
            call("setreuid", "-1, 1000"),
            ProcCall::Setreuid {
                ruid: u32::MAX,
                euid: 1000
            }
        );
        assert_eq!(
            call("setgroups", "0, []"),
            ProcCall::Setgroups {
                size: 0,
                groups: Some(vec![])
            }
        );
        assert_eq!(
            call("setgroups", "2, [10, 20]"),
            ProcCall::Setgroups {
                size: 2,
                groups: Some(vec![10, 20])
            }
        );
        assert_eq!(
            call("getresuid", "[0], [0], [0]"),
            ProcCall::Getresuid { ids: Some([0; 3]) }
        );
        assert_eq!(
            call("geteuid", ""),
            ProcCall::GetId {
                which: IdKind::Euid
            }
        );
    }

    #[test]
    fn limit_calls() {
        assert_eq!(
            call(
                "prlimit64",
                "0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}"
            ),
            ProcCall::Prlimit64 {
                pid: 0,
                resource: 3,
                new: None,
                old: Some(RlimitArg {
                    cur: 8192 * 1024,
                    max: u64::MAX
                })
            }
        );
        assert_eq!(
            call(
                "prlimit64",
                "0, RLIMIT_NPROC, {rlim_cur=3, rlim_max=3}, NULL"
            ),
            ProcCall::Prlimit64 {
                pid: 0,
                resource: 6,
                new: Some(RlimitArg { cur: 3, max: 3 }),
                old: None
            }
        );
        assert_eq!(
            call(
                "setrlimit",
                "RLIMIT_CORE, {rlim_cur=0, rlim_max=RLIM_INFINITY}"
            ),
            ProcCall::Setrlimit {
                resource: 4,
                new: Some(RlimitArg {
                    cur: 0,
                    max: u64::MAX
                })
            }
        );
    }
}

#[cfg(test)]
mod cap_tests {
    use crate::event::{Call, Ret};
    use crate::procapi::{CapData, ProcCall};

    fn call(name: &str, args: &str) -> ProcCall {
        match super::super::decode(name, args, &Ret::Val(0)).0 {
            Call::ProcApi(p) => p,
            other => panic!("{name}({args}) decoded as {other:?}"),
        }
    }

    #[test]
    fn capget_and_capset_as_recorded() {
        assert_eq!(
            call(
                "capget",
                "{version=0 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}, NULL"
            ),
            ProcCall::Capget {
                version: 0,
                pid: 0,
                with_data: false,
                data: None
            }
        );
        assert_eq!(
            call(
                "capset",
                "{version=_LINUX_CAPABILITY_VERSION_3, pid=17582}, {effective=1<<CAP_SETGID, \
                 permitted=1<<CAP_SETGID|1<<CAP_CHECKPOINT_RESTORE, inheritable=0}"
            ),
            ProcCall::Capset {
                version: 0x2008_0522,
                pid: 17582,
                data: Some(CapData {
                    effective: 0x40,
                    permitted: 0x40 | 1 << 40,
                    inheritable: 0
                })
            }
        );
        match call(
            "capget",
            "{version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=~(1<<CAP_KILL), \
             permitted=0, inheritable=0}",
        ) {
            ProcCall::Capget { data: Some(d), .. } => assert_eq!(d.effective, !0x20),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn getgroups_as_recorded() {
        assert_eq!(
            call("getgroups", "0, NULL"),
            ProcCall::Getgroups {
                size: 0,
                groups: None
            }
        );
        assert_eq!(
            call("getgroups", "2, [27, 1000]"),
            ProcCall::Getgroups {
                size: 2,
                groups: Some(vec![27, 1000])
            }
        );
    }

    #[test]
    fn capability_prctls_as_recorded() {
        let p = |args: &str| match super::super::decode("prctl", args, &Ret::Val(0)).0 {
            Call::ProcApi(ProcCall::CapPrctl { option, args }) => (option, args),
            other => panic!("prctl({args}) decoded as {other:?}"),
        };
        assert_eq!(p("PR_CAPBSET_READ, CAP_MAC_OVERRIDE"), (23, [32, 0, 0, 0]));
        assert_eq!(
            p("PR_CAPBSET_READ, 0x30 /* CAP_??? */"),
            (23, [0x30, 0, 0, 0])
        );
        assert_eq!(
            p("PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0"),
            (47, [1, 0, 0, 0])
        );
        assert_eq!(p("PR_SET_KEEPCAPS, 1"), (8, [1, 0, 0, 0]));
        assert_eq!(
            p("PR_SET_SECUREBITS, SECBIT_KEEP_CAPS|SECBIT_KEEP_CAPS_LOCKED"),
            (28, [0x30, 0, 0, 0])
        );
        assert_eq!(p("PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0"), (39, [0; 4]));
    }
}
