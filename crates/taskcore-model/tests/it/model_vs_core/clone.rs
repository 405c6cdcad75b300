//! clone and clone3 in the property test, with and without `CLONE_PIDFD`.

use super::*;

impl Pair {
    pub(crate) fn clone_op(&mut self, c: Tid, args: CloneCall, what: String) -> Check {
        let kc = self.kt(c);
        let (rk, rm) = match &args {
            CloneCall::Legacy(a) => (self.k.clone(kc, a), self.m.clone(c, a)),
            CloneCall::V3(a) => (self.k.clone3(kc, a), self.m.clone3(c, a)),
        };
        let (ck, cm) = (rk.map(|_| ()), rm.map(|t| t.0));
        self.log.push(format!("{what} -> {cm:?}"));
        match (rk, rm) {
            (Ok(kt), Ok(mt)) => {
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
