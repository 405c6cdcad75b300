//! pidfds and namespace files in the property test: opened on both sides,
//! kept in pairs, used by later steps, closed.

use super::*;

impl Pair {
    /// A pidfd or namespace-file call: open, signal, waitid with `P_PIDFD`, setns, close.
    pub(crate) fn fd_op(&mut self, c: Tid, who: String, op: &Op) -> Check {
        let kc = self.kt(c);
        match op {
            Op::PidfdOpen(_, p, flags) => {
                let p = self.pid_arg(c, p);
                let call = Syscall::PidfdOpen {
                    pid: p,
                    flags: *flags,
                };
                let (a, b) = self.both(c, &call);
                let (a, b) = (opened(a), opened(b));
                let (ra, rb) = (a.map(|_| ()), b.map(|_| ()));
                self.cmp(format!("{who} = pidfd_open({p}, {flags:#o})"), ra, rb)?;
                if let (Ok(Some(a)), Ok(Some(b))) = (a, b) {
                    self.fds.push((a, b));
                }
                Ok(())
            }
            Op::PidfdSignal(_, f, sig, flags) => {
                let Some(&(kf, mf)) = self.fd(*f) else {
                    return Ok(());
                };
                let call = Syscall::PidfdSendSignal {
                    fd: kf,
                    sig: *sig,
                    info: None,
                    flags: *flags,
                };
                let who = format!("{who} = pidfd_send_signal(#{}, {sig}, {flags})", mf.0);
                self.sys(c, who, call)
            }
            Op::WaitidPidfd(_, f, o) => {
                let Some(&(kf, mf)) = self.fd(*f) else {
                    return Ok(());
                };
                let call = Syscall::WaitidPidfd {
                    fd: kf,
                    options: *o,
                };
                self.sys(
                    c,
                    format!("{who} = waitid(P_PIDFD, #{}, {o:#x})", mf.0),
                    call,
                )
            }
            Op::SetnsPidfd(_, f, nstype) => {
                let Some(&(kf, mf)) = self.fd(*f) else {
                    return Ok(());
                };
                let a = self.k.setns(kc, taskcore::SetnsFd::PidFd(kf), *nstype);
                let b = self.m.setns_pidfd(c, mf, *nstype);
                self.cmp(format!("{who} = setns(#{}, {nstype:#x})", mf.0), a, b)
            }
            Op::NsOpen(t, for_children) => {
                let t = Tid(t % self.n());
                let kind = if *for_children {
                    taskcore::NsKind::PidForChildren
                } else {
                    taskcore::NsKind::Pid
                };
                let (a, b) = (self.k.ns_open(self.kt(t), kind), self.m.ns_open(t, kind));
                let (ra, rb) = (a.map(|_| ()), b.map(|_| ()));
                self.cmp(format!("ns_open(task {}, {kind:?})", t.0), ra, rb)?;
                if let (Ok(a), Ok(b)) = (a, b) {
                    self.nsfiles.push((a, b));
                }
                Ok(())
            }
            Op::SetnsFile(_, f, nstype) => {
                if self.nsfiles.is_empty() {
                    return Ok(());
                }
                let (kf, mf) = self.nsfiles[f % self.nsfiles.len()];
                let a = self.k.setns(kc, taskcore::SetnsFd::Ns(kf), *nstype);
                let b = self.m.setns_file(c, mf, *nstype);
                self.cmp(format!("{who} = setns(ns#{}, {nstype:#x})", mf.0), a, b)
            }
            Op::NsClose(f) => {
                if self.nsfiles.is_empty() {
                    return Ok(());
                }
                let (kf, mf) = self.nsfiles[f % self.nsfiles.len()];
                let (a, b) = (self.k.ns_close(kf), self.m.ns_close(mf));
                self.cmp(format!("ns_close(ns#{})", mf.0), a, b)
            }
            Op::PidfdClose(f) => {
                let Some(&(kf, mf)) = self.fd(*f) else {
                    return Ok(());
                };
                let (a, b) = (self.k.pidfd_close(kf), self.m.pidfd_close(mf));
                self.cmp(format!("close(#{})", mf.0), a, b)
            }
            _ => unreachable!("not a fd_op op"),
        }
    }
}

/// The pidfd a pidfd_open's [`dispatch_api`] result made.
fn opened<T, F>(r: taskcore::Result<ApiRet<T, F>>) -> taskcore::Result<Option<F>> {
    match r? {
        ApiRet::PidFd(fd) => Ok(Some(fd)),
        _ => Ok(None),
    }
}
