//! clone and clone3 in the property test, with and without `CLONE_PIDFD`,
//! each as a [`Syscall`] through the one [`dispatch_api`].

use super::*;

/// The child, its pid and its pidfd of a clone-family call's
/// [`dispatch_api`] result.
fn child<T, F>(r: taskcore::Result<ApiRet<T, F>>) -> taskcore::Result<(T, i32, Option<F>)> {
    match r? {
        ApiRet::Child { task, pid, pidfd } => Ok((task, pid, pidfd)),
        ApiRet::Ret(other) => panic!("a clone returned {other:?}, not a child"),
        _ => panic!("a clone returned no child"),
    }
}

impl Pair {
    /// A clone or clone3 on both sides: the results, the child's pid as
    /// the caller sees it and the flags of the pidfds `CLONE_PIDFD` made
    /// are compared; the new task and both pidfds are kept.
    pub(crate) fn clone_op(&mut self, c: Tid, args: CloneCall, what: String) -> Check {
        let call = match args {
            CloneCall::Legacy(a) => Syscall::Clone(a),
            CloneCall::V3(a) => Syscall::Clone3(a),
        };
        let (rk, rm) = self.both(c, &call);
        let (rk, rm) = (child(rk), child(rm));
        let ck = rk
            .as_ref()
            .map(|&(_, pid, f)| (pid, f.map(|f| self.k.pidfd_flags(f))));
        let cm = rm
            .as_ref()
            .map(|&(_, pid, f)| (pid, f.map(|f| self.m.pidfd_flags(f))));
        let handle = rm.as_ref().map(|&(t, ..)| t.0);
        self.log.push(format!("{what} -> {handle:?} {cm:?}"));
        match (rk, rm) {
            (Ok((kt, _, kf)), Ok((mt, _, mf))) if ck.as_ref().ok() == cm.as_ref().ok() => {
                if mt.0 != self.h.len() {
                    return Err(self.fail(format!("model handle {mt:?} out of order")));
                }
                self.h.push(kt);
                let nr = self.m.pid_vnr(self.root(), mt).unwrap_or(0);
                self.root_nr.push(nr);
                if let (Some(kf), Some(mf)) = (kf, mf) {
                    self.fds.push((kf, mf));
                }
                Ok(())
            }
            (Err(a), Err(b)) if a == b => Ok(()),
            _ => Err(self.fail(format!(
                "MISMATCH at {what}\n  core:  {ck:?}\n  model: {cm:?}"
            ))),
        }
    }

    /// A clone with `CLONE_PIDFD` (and the combinations Linux refuses),
    /// through [`Pair::clone_op`].
    pub(crate) fn clone_pidfd_op(&mut self, c: Tid, how: &PidfdClone, what: String) -> Check {
        let args = match how {
            PidfdClone::Legacy(flags, sig) => CloneCall::Legacy(CloneArgs {
                flags: *flags,
                exit_signal: *sig,
                set_tid: vec![],
            }),
            PidfdClone::V3(a) => CloneCall::V3(a.clone()),
        };
        self.clone_op(c, args, what)
    }
}
