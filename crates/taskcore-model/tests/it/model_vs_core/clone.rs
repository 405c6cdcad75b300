//! clone and clone3 in the property test, with and without `CLONE_PIDFD`.

use super::*;

/// The child and pid of a clone-family call's [`dispatch_api`] result.
fn child<T>(r: taskcore::Result<ApiRet<T>>) -> taskcore::Result<(T, i32)> {
    match r? {
        ApiRet::Child { task, pid } => Ok((task, pid)),
        ApiRet::Ret(other) => panic!("a clone returned {other:?}, not a child"),
        _ => panic!("a clone returned no child"),
    }
}

impl Pair {
    /// A clone or clone3 on both sides, as a [`Syscall`] through the one
    /// [`dispatch_api`]: the results and the child's pid as the caller
    /// sees it are compared, and the new task is kept.
    pub(crate) fn clone_op(&mut self, c: Tid, args: CloneCall, what: String) -> Check {
        let kc = self.kt(c);
        let call = match args {
            CloneCall::Legacy(a) => Syscall::Clone(a),
            CloneCall::V3(a) => Syscall::Clone3(a),
        };
        let rk = child(dispatch_api(&mut self.k, kc, &call));
        let rm = child(dispatch_api(&mut self.m, c, &call));
        let (ck, cm) = (
            rk.as_ref().map(|&(_, pid)| pid),
            rm.as_ref().map(|&(t, pid)| (t.0, pid)),
        );
        self.log.push(format!("{what} -> {cm:?}"));
        match (rk, rm) {
            (Ok((kt, kpid)), Ok((mt, mpid))) if kpid == mpid => {
                if mt.0 != self.h.len() {
                    return Err(self.fail(format!("model handle {mt:?} out of order")));
                }
                self.h.push(kt);
                let nr = self.m.pid_vnr(self.root(), mt).unwrap_or(0);
                self.root_nr.push(nr);
                Ok(())
            }
            (Err(a), Err(b)) if a == b => Ok(()),
            _ => Err(self.fail(format!(
                "MISMATCH at {what}\n  core:  {ck:?}\n  model: {cm:?}"
            ))),
        }
    }

    /// A clone through the `CLONE_PIDFD` entries of both sides: the
    /// results, the pidfds' flags, then both pidfds are kept.
    pub(crate) fn clone_pidfd_op(&mut self, c: Tid, how: &PidfdClone, what: String) -> Check {
        let kc = self.kt(c);
        let (rk, rm) = match how {
            PidfdClone::Legacy(flags, sig) => {
                let args = CloneArgs {
                    flags: *flags,
                    exit_signal: *sig,
                    set_tid: vec![],
                };
                (
                    self.k.clone_with_pidfd(kc, &args),
                    self.m.clone_with_pidfd(c, &args),
                )
            }
            PidfdClone::V3(a) => (
                self.k.clone3_with_pidfd(kc, a),
                self.m.clone3_with_pidfd(c, a),
            ),
        };
        let ck = rk.as_ref().map(|(_, f)| f.map(|f| self.k.pidfd_flags(f)));
        let cm = rm
            .as_ref()
            .map(|(t, f)| (t.0, f.map(|f| self.m.pidfd_flags(f))));
        self.log.push(format!("{what} -> {cm:?}"));
        match (rk, rm) {
            (Ok((kt, kf)), Ok((mt, mf))) if ck.as_ref().ok() == cm.as_ref().ok().map(|x| &x.1) => {
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
}
