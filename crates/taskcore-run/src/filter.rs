//! The seccomp-bpf filter: `SECCOMP_RET_TRACE` for every call in
//! [`TRAPPED`], `SECCOMP_RET_ALLOW` for the rest.
//!
//! Built with `seccompiler` (rust-vmm, Firecracker's filter compiler)
//! rather than `libseccomp`: it is pure Rust, so the tool needs no C
//! library or headers on the machine, and it compiles the program in the
//! supervisor before `fork`, leaving the child only the `prctl` and
//! `seccomp` calls of [`seccompiler::apply_filter`] (which also sets
//! `PR_SET_NO_NEW_PRIVS`, required without `CAP_SYS_ADMIN`).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::calls::{MASKED_WAITS, TRAPPED};
use crate::options::RunError;

/// Calls trapped only when their argument 1 (the new action or mask) is
/// not NULL: with NULL they only read the caller's own signal state.
pub(crate) const QUERY_UNTRAPPED: [i64; 2] = [libc::SYS_rt_sigaction, libc::SYS_rt_sigprocmask];

/// Compiles the filter for x86_64.
///
/// # Errors
/// [`RunError::Seccomp`] if seccompiler refuses the rules.
pub(crate) fn compile() -> Result<BpfProgram, RunError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        TRAPPED.iter().map(|c| (c.nr, Vec::new())).collect();
    // A rule: argument `arg` is not 0 (a pid, or a pointer not NULL).
    let non_null = |arg: u8| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| RunError::Seccomp(e.to_string()))
    };
    // prlimit64(0, resource, NULL, old): a read of the caller's own limits
    // runs natively; any other (a pid, or a new limit) is trapped.
    rules.insert(libc::SYS_prlimit64, vec![non_null(0)?, non_null(2)?]);
    // rt_sigaction(sig, NULL, old) and rt_sigprocmask(how, NULL, old) only
    // read the caller's own state (no pid, no change): they run natively,
    // and only the forms that change a disposition or the mask are
    // trapped (posix_spawn's child queries every signal's action).
    for nr in QUERY_UNTRAPPED {
        rules.insert(nr, vec![non_null(1)?]);
    }
    for &(nr, _, arg) in MASKED_WAITS {
        rules.insert(nr, vec![non_null(arg as u8)?]);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Trace(0),
        TargetArch::x86_64,
    )
    .map_err(|e| RunError::Seccomp(e.to_string()))?;
    BpfProgram::try_from(filter).map_err(|e| RunError::Seccomp(e.to_string()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn compiles() {
        let p = super::compile().unwrap();
        assert!(p.len() > super::TRAPPED.len());
    }
}
