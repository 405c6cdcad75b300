//! The replay's form of the process-API calls: pidfds, namespaces,
//! credentials, resource limits and `prctl(PR_GET_NAME)`, applied and
//! checked by `engine/procapi.rs`.

use taskcore_strace::{IdKind, ProcCall};

/// One recorded process-API call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ProcOp {
    /// A call decoded by the strace reader ([`ProcCall`]).
    Call(ProcCall),
    /// `prctl(PR_GET_NAME, "name")`: the comm the kernel wrote.
    GetName { name: String },
}

impl ProcOp {
    /// The syscall name, for counters and messages.
    pub(crate) fn name(&self) -> &'static str {
        let ProcOp::Call(c) = self else {
            return "prctl";
        };
        match c {
            ProcCall::PidfdOpen { .. } => "pidfd_open",
            ProcCall::PidfdSendSignal { .. } => "pidfd_send_signal",
            ProcCall::Unshare { .. } => "unshare",
            ProcCall::Setns { .. } => "setns",
            ProcCall::Setuid { .. } => "setuid",
            ProcCall::Setgid { .. } => "setgid",
            ProcCall::Setreuid { .. } => "setreuid",
            ProcCall::Setregid { .. } => "setregid",
            ProcCall::Setresuid { .. } => "setresuid",
            ProcCall::Setresgid { .. } => "setresgid",
            ProcCall::Setfsuid { .. } => "setfsuid",
            ProcCall::Setfsgid { .. } => "setfsgid",
            ProcCall::Setgroups { .. } => "setgroups",
            ProcCall::GetId { which } => match which {
                IdKind::Uid => "getuid",
                IdKind::Euid => "geteuid",
                IdKind::Gid => "getgid",
                IdKind::Egid => "getegid",
            },
            ProcCall::Getresuid { .. } => "getresuid",
            ProcCall::Getresgid { .. } => "getresgid",
            ProcCall::Prlimit64 { .. } => "prlimit64",
            ProcCall::Setrlimit { .. } => "setrlimit",
            ProcCall::Getrlimit { .. } => "getrlimit",
        }
    }
}
