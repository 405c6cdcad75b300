//! The process-API calls of a trace as the kernel sees them: pidfds,
//! namespaces, credentials, resource limits and the modelled prctl
//! options.

use taskcore::sys::{nr, Prctl, Syscall};
use taskcore::{AmbientOp, CapUserData, KernelCap, Rlimit};
use taskcore_strace::{CapData, IdKind, ProcCall, RlimitArg};

use crate::event::{Kind, Rec};

fn rlimit(a: RlimitArg) -> Rlimit {
    Rlimit {
        cur: a.cur,
        max: a.max,
    }
}

fn sys(call: Syscall) -> Kind {
    Kind::Sys {
        call,
        rec: Rec::Ret,
    }
}

fn cap_data(d: CapData) -> CapUserData {
    CapUserData {
        effective: KernelCap::new(d.effective),
        permitted: KernelCap::new(d.permitted),
        inheritable: KernelCap::new(d.inheritable),
    }
}

/// A capability prctl (`option` and `arg2`..`arg5`) as the kernel takes it.
fn cap_prctl(option: u32, a: [u64; 4]) -> Prctl {
    match u64::from(option) {
        nr::PR_CAPBSET_READ => Prctl::CapbsetRead(a[0]),
        nr::PR_CAPBSET_DROP => Prctl::CapbsetDrop(a[0]),
        nr::PR_GET_KEEPCAPS => Prctl::GetKeepcaps,
        nr::PR_SET_KEEPCAPS => Prctl::SetKeepcaps(a[0]),
        nr::PR_GET_SECUREBITS => Prctl::GetSecurebits,
        nr::PR_SET_SECUREBITS => Prctl::SetSecurebits(a[0]),
        nr::PR_SET_NO_NEW_PRIVS => Prctl::SetNoNewPrivs(a),
        nr::PR_GET_NO_NEW_PRIVS => Prctl::GetNoNewPrivs(a),
        _ => Prctl::CapAmbient(AmbientOp::from_arg(a[0]), a[1], a[2], a[3]),
    }
}

/// The call a recorded process-API call is.
pub(super) fn proc_call(c: &ProcCall) -> Kind {
    match c {
        &ProcCall::Capget {
            version,
            pid,
            with_data,
            data,
        } => Kind::Sys {
            call: Syscall::Capget {
                version,
                pid,
                data: with_data,
            },
            rec: Rec::Caps(data.map(cap_data)),
        },
        ProcCall::Getgroups { size, groups } => Kind::Sys {
            call: Syscall::Getgroups { size: *size },
            rec: Rec::Groups(groups.clone()),
        },
        &ProcCall::Capset { version, pid, data } => sys(Syscall::Capset {
            version,
            pid,
            data: data.map(cap_data),
        }),
        &ProcCall::CapPrctl { option, args } => sys(Syscall::Prctl(cap_prctl(option, args))),
        ProcCall::PidfdOpen { pid, flags } => sys(Syscall::PidfdOpen {
            pid: *pid,
            flags: *flags,
        }),
        ProcCall::PidfdSendSignal {
            pidfd,
            sig,
            info,
            flags,
        } => Kind::Raw {
            nr: nr::PIDFD_SEND_SIGNAL,
            // A siginfo strace read: a pointer the replay does not follow.
            args: [
                *pidfd as u64,
                *sig as u64,
                u64::from(info.is_some()),
                u64::from(*flags),
                0,
                0,
            ],
            info: info
                .as_ref()
                .map(|i| super::signal::given_info(*sig, Some(i))),
        },
        ProcCall::Unshare { flags } => sys(Syscall::Unshare { flags: *flags }),
        ProcCall::ProcFileWrite {
            pid,
            file,
            data,
            truncated,
            count,
            ..
        } => {
            if *truncated || *count != data.len() as u64 {
                Kind::Unchecked {
                    name: "write",
                    why: "data strace cut short",
                }
            } else {
                Kind::ProcWrite {
                    pid: *pid,
                    file: *file,
                    data: data.clone(),
                }
            }
        }
        ProcCall::Setns { fd, nstype } => Kind::Raw {
            nr: nr::SETNS,
            args: [*fd as u64, *nstype, 0, 0, 0, 0],
            info: None,
        },
        ProcCall::Setuid { uid } => sys(Syscall::Setuid { uid: *uid }),
        ProcCall::Setgid { gid } => sys(Syscall::Setgid { gid: *gid }),
        ProcCall::Setreuid { ruid, euid } => sys(Syscall::Setreuid {
            ruid: *ruid,
            euid: *euid,
        }),
        ProcCall::Setregid { rgid, egid } => sys(Syscall::Setregid {
            rgid: *rgid,
            egid: *egid,
        }),
        ProcCall::Setresuid { ids } => sys(Syscall::Setresuid {
            ruid: ids[0],
            euid: ids[1],
            suid: ids[2],
        }),
        ProcCall::Setresgid { ids } => sys(Syscall::Setresgid {
            rgid: ids[0],
            egid: ids[1],
            sgid: ids[2],
        }),
        ProcCall::Setfsuid { uid } => sys(Syscall::Setfsuid { uid: *uid }),
        ProcCall::Setfsgid { gid } => sys(Syscall::Setfsgid { gid: *gid }),
        ProcCall::Setgroups { size, groups } => match groups {
            Some(g) if usize::try_from(*size).is_ok_and(|n| n == g.len()) => {
                sys(Syscall::Setgroups { groups: g.clone() })
            }
            _ => Kind::Unchecked {
                name: "setgroups",
                why: "a group list strace did not print",
            },
        },
        ProcCall::GetId { which } => sys(match which {
            IdKind::Uid => Syscall::Getuid,
            IdKind::Euid => Syscall::Geteuid,
            IdKind::Gid => Syscall::Getgid,
            IdKind::Egid => Syscall::Getegid,
        }),
        ProcCall::Getresuid { ids } => Kind::Sys {
            call: Syscall::Getresuid,
            rec: Rec::Ids(*ids),
        },
        ProcCall::Getresgid { ids } => Kind::Sys {
            call: Syscall::Getresgid,
            rec: Rec::Ids(*ids),
        },
        ProcCall::Prlimit64 {
            pid,
            resource,
            new,
            old,
        } => Kind::Sys {
            call: Syscall::Prlimit64 {
                pid: *pid,
                resource: *resource,
                new: new.map(rlimit),
            },
            rec: Rec::Rlimit(old.map(rlimit)),
        },
        ProcCall::Setrlimit { resource, new } => match new {
            Some(n) => Kind::Sys {
                call: Syscall::Setrlimit {
                    resource: *resource,
                    new: rlimit(*n),
                },
                rec: Rec::Rlimit(None),
            },
            None => Kind::Unchecked {
                name: "setrlimit",
                why: "limits strace did not print",
            },
        },
        ProcCall::Getrlimit { resource, old } => Kind::Sys {
            call: Syscall::Getrlimit {
                resource: *resource,
            },
            rec: Rec::Rlimit(old.map(rlimit)),
        },
    }
}

/// The call a recorded prctl is, for the modelled options; `None` for the
/// others (and for an argument strace did not print).
pub(super) fn prctl(option: i32, arg2: Option<u64>, name: Option<&String>) -> Option<Kind> {
    use nr::*;
    let (call, rec) = match (option as u64, arg2, name) {
        (PR_GET_NAME, _, Some(name)) => (Prctl::GetName, Rec::Name(name.clone())),
        (PR_SET_NAME, _, Some(name)) => (Prctl::SetName(name.clone().into_bytes()), Rec::Ret),
        (PR_SET_PDEATHSIG, Some(sig), _) => (Prctl::SetPdeathsig(sig as i32), Rec::Ret),
        // strace prints the signal written (`[SIGUSR2]`, `[0]`).
        (PR_GET_PDEATHSIG, arg2, _) => (Prctl::GetPdeathsig, Rec::Written(arg2)),
        // strace names the argument (SUID_DUMP_USER...); the result of
        // PR_GET_DUMPABLE is the return value.
        (PR_SET_DUMPABLE, Some(arg), _) => (Prctl::SetDumpable(arg), Rec::Ret),
        (PR_GET_DUMPABLE, _, _) => (Prctl::GetDumpable, Rec::Ret),
        (PR_SET_CHILD_SUBREAPER, arg2, _) => {
            (Prctl::SetChildSubreaper(arg2.unwrap_or(0) != 0), Rec::Ret)
        }
        (PR_GET_CHILD_SUBREAPER, arg2, _) => (Prctl::GetChildSubreaper, Rec::Written(arg2)),
        _ => return None,
    };
    Some(Kind::Sys {
        call: Syscall::Prctl(call),
        rec,
    })
}
