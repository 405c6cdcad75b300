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

/// Compiles the filter for x86_64.
///
/// # Errors
/// [`RunError::Seccomp`] if seccompiler refuses the rules.
pub(crate) fn compile() -> Result<BpfProgram, RunError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        TRAPPED.iter().map(|c| (c.nr, Vec::new())).collect();
    // prlimit64(0, resource, NULL, old): a read of the caller's own limits
    // runs natively; any other (a pid, or a new limit) is trapped.
    let pid_or_new = |arg: u8| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| RunError::Seccomp(e.to_string()))
    };
    rules.insert(libc::SYS_prlimit64, vec![pid_or_new(0)?, pid_or_new(2)?]);
    for &(nr, _, arg) in MASKED_WAITS {
        let non_null =
            SeccompCondition::new(arg as u8, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0)
                .and_then(|c| SeccompRule::new(vec![c]))
                .map_err(|e| RunError::Seccomp(e.to_string()))?;
        rules.insert(nr, vec![non_null]);
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
