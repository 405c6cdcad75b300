//! Decoders of the pidfd, namespace, credential and resource-limit calls
//! (see [`ProcCall`]). A child module of `decode` so that it shares its
//! argument helpers; kept in its own file to ease merges.

use super::{int_of, siginfo, Args, Res};
use crate::args::Value;
use crate::consts;
use crate::event::Call;
use crate::procapi::{IdKind, ProcCall, RlimitArg};

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
