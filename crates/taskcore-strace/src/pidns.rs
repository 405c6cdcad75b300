//! strace's `--decode-pids=pidns` annotations.
//!
//! When a tracee lives in another pid namespace than strace, strace prints
//! the numbers the tracee saw and, with `--decode-pids=pidns`, the number in
//! its own namespace in a comment: `clone(...) = 2 /* 30657 in strace's PID
//! NS */`. Lines are labelled with strace's numbers, so the comment on a
//! clone's result is what links a child's namespace pid to the pid its
//! lines carry. strace 6.1 annotates clone/fork/vfork results and pid
//! fields of siginfo, not wait4's result.

/// The number in strace's namespace of a result annotated
/// `N /* M in strace's PID NS */`: `Some(M)`; `None` without such a
/// comment.
pub fn host_pid_comment(result: &str) -> Option<i32> {
    if !result.contains('/') {
        return None; // the usual result, found without a substring search
    }
    let start = result.find("/*")?;
    let inner = result[start + 2..].split("*/").next()?.trim();
    let num = inner.strip_suffix("in strace's PID NS")?.trim();
    num.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::host_pid_comment;

    #[test]
    fn reads_the_number_in_strace_s_namespace() {
        assert_eq!(
            host_pid_comment("2 /* 30113 in strace's PID NS */"),
            Some(30113)
        );
        assert_eq!(host_pid_comment("30112"), None);
        assert_eq!(host_pid_comment("4 /* 0.04 s */"), None);
        assert_eq!(host_pid_comment("2 /* x in strace's PID NS */"), None);
    }

    /// Lines recorded with `unshare --pid --fork` and `--decode-pids=pidns`
    /// (data/traces/extra/unshare-pidns): the vfork split across two lines
    /// and the one-line clone both carry the host pid; wait4's result has
    /// no comment.
    #[test]
    fn parsed_events_carry_the_host_pid() {
        let text = "30112 1.0 vfork( <unfinished ...>\n\
30113 1.1 rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0\n\
30112 1.2 <... vfork resumed>) = 2 /* 30113 in strace's PID NS */\n\
30112 1.3 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f9d0b43aa10) = 3 /* 30114 in strace's PID NS */\n\
30112 1.4 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 3\n";
        let t = crate::parse_str("t", text);
        assert!(t.errors.is_empty(), "{:?}", t.errors);
        let got: Vec<(i64, Option<i32>)> = t
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                crate::EventKind::Syscall(s) => match s.ret {
                    crate::Ret::Val(v) => Some((v, s.ret_host_pid)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![(0, None), (2, Some(30113)), (3, Some(30114)), (3, None)]
        );
    }
}
