//! One step: picks the caller and applies an [`Op`] to both sides.

use super::*;

impl Pair {
    pub(crate) fn apply(&mut self, op: &Op) -> Check {
        let caller = match op {
            Op::Nop => return Ok(()),
            Op::Clone(c, _)
            | Op::SetIds(c, _)
            | Op::SetNproc(c, _)
            | Op::Exit(c, _)
            | Op::ExitGroup(c, _)
            | Op::Exec(c)
            | Op::Setpgid(c, ..)
            | Op::Setsid(c)
            | Op::Getpgid(c, _)
            | Op::Getsid(c, _)
            | Op::Getppid(c)
            | Op::Kill(c, ..)
            | Op::Tgkill(c, ..)
            | Op::Tkill(c, ..)
            | Op::Sigaction(c, ..)
            | Op::Subreaper(c, _)
            | Op::Attach(c, ..)
            | Op::Traceme(c)
            | Op::Cont(c, ..)
            | Op::Detach(c, ..)
            | Op::Wait4(c, ..)
            | Op::Waitid(c, ..)
            | Op::Churn(c, _)
            | Op::Fill(c, _)
            | Op::Unshare(c, _)
            | Op::Sigprocmask(c, ..)
            | Op::Sigpending(c)
            | Op::Sigtimedwait(c, _)
            | Op::PidfdOpen(c, ..)
            | Op::PidfdSignal(c, ..)
            | Op::WaitidPidfd(c, ..)
            | Op::SetnsPidfd(c, ..)
            | Op::PidfdClose(c)
            | Op::Dumpable(c, _)
            | Op::Pdeathsig(c, _)
            | Op::PdeathExit { caller: c, .. }
            | Op::SeizeListen(c, ..)
            | Op::Name(c, _)
            | Op::NsOpen(c, _)
            | Op::SetnsFile(c, ..)
            | Op::NsClose(c)
            | Op::ClonePidfd(c, _)
            | Op::Seize(c, ..)
            | Op::SyscallReport(c, _) => *c,
            Op::Tracer(c, ..) => return self.tracer_op(op, *c),
            Op::ByTracee(n, inner) => {
                let traced: Vec<Tid> = self
                    .runnable()
                    .into_iter()
                    .filter(|&t| self.m.is_traced(t))
                    .collect();
                // The inner op's selector picks among the runnable tasks:
                // aim it at the chosen tracee.
                let Some(&t) = traced.get(n % traced.len().max(1)) else {
                    return self.apply(inner);
                };
                let r = self.runnable();
                let at = r.iter().position(|&u| u == t).expect("runnable");
                let mut inner = (**inner).clone();
                match &mut inner {
                    Op::Clone(c, _)
                    | Op::Exec(c)
                    | Op::Exit(c, _)
                    | Op::ExitGroup(c, _)
                    | Op::SyscallReport(c, _) => *c = at,
                    _ => unreachable!("ByTracee holds only these"),
                }
                return self.apply(&inner);
            }
        };
        let Some(c) = self.caller(caller) else {
            return Ok(());
        };
        let kc = self.kt(c);
        let who = format!("[{}] {:?}", c.0, op);
        match op {
            Op::Nop => Ok(()),
            Op::Tracer(..) | Op::ByTracee(..) => unreachable!("handled above"),
            Op::Clone(_, kind) => {
                let args = match kind {
                    CloneKind::Fork => CloneArgs::fork(),
                    CloneKind::Vfork => CloneArgs::vfork(),
                    CloneKind::Thread => CloneArgs::thread(),
                    CloneKind::Parent => CloneArgs {
                        flags: CLONE_PARENT,
                        exit_signal: SIGCHLD,
                        set_tid: vec![],
                    },
                    CloneKind::ExitSig(s) => CloneArgs {
                        flags: 0,
                        exit_signal: *s,
                        set_tid: vec![],
                    },
                    CloneKind::NewPid => CloneArgs {
                        flags: CLONE_NEWPID,
                        exit_signal: SIGCHLD,
                        set_tid: vec![],
                    },
                    CloneKind::SetTid(v) => CloneArgs {
                        flags: 0,
                        exit_signal: SIGCHLD,
                        set_tid: v.clone(),
                    },
                    CloneKind::Ptrace => CloneArgs {
                        flags: CLONE_PTRACE,
                        exit_signal: SIGCHLD,
                        set_tid: vec![],
                    },
                    CloneKind::Raw(f, s) => CloneArgs {
                        flags: *f,
                        exit_signal: *s,
                        set_tid: vec![],
                    },
                    CloneKind::Clone3(a) => {
                        return self.clone_op(c, CloneCall::V3(a.clone()), who);
                    }
                };
                let args = CloneCall::Legacy(args);
                self.clone_op(c, args, who)
            }
            Op::SetIds(_, call) => {
                let (a, b) = match *call {
                    IdCall::Setuid(u) => (self.k.setuid(kc, u), self.m.setuid(c, u)),
                    IdCall::Setreuid(r, e) => (self.k.setreuid(kc, r, e), self.m.setreuid(c, r, e)),
                    IdCall::Setresuid(r, e, s) => {
                        (self.k.setresuid(kc, r, e, s), self.m.setresuid(c, r, e, s))
                    }
                    IdCall::Setgid(g) => (self.k.setgid(kc, g), self.m.setgid(c, g)),
                    IdCall::Setregid(r, e) => (self.k.setregid(kc, r, e), self.m.setregid(c, r, e)),
                    IdCall::Setresgid(r, e, s) => {
                        (self.k.setresgid(kc, r, e, s), self.m.setresgid(c, r, e, s))
                    }
                    IdCall::Setfsuid(u) => {
                        let (a, b) = (self.k.setfsuid(kc, u), self.m.setfsuid(c, u));
                        self.cmp(who.clone(), a, b)?;
                        (Ok(()), Ok(()))
                    }
                    IdCall::Setfsgid(g) => {
                        let (a, b) = (self.k.setfsgid(kc, g), self.m.setfsgid(c, g));
                        self.cmp(who.clone(), a, b)?;
                        (Ok(()), Ok(()))
                    }
                    IdCall::Setgroups(ref g) => (self.k.setgroups(kc, g), self.m.setgroups(c, g)),
                };
                self.cmp(who.clone(), a, b)?;
                let (ck, cm) = (self.k.cred(kc), self.m.cred(c));
                self.cmp(who, ck, cm)
            }
            Op::SetNproc(_, n) => {
                let l = taskcore::Rlimit { cur: *n, max: *n };
                let nproc = taskcore::uapi::RLIMIT_NPROC;
                let a = self.k.prlimit64(kc, 0, nproc, Some(l));
                let b = self.m.prlimit64(c, 0, nproc, Some(l));
                self.cmp(who, a, b)
            }
            Op::Exit(_, code) => {
                if self.in_root_init_group(c) && self.init_threads_left() <= 1 {
                    // Linux panics when the global init's last thread exits.
                    return Ok(());
                }
                self.sys(c, who, Syscall::Exit { code: *code })
            }
            Op::ExitGroup(_, code) => {
                if self.in_root_init_group(c) {
                    return Ok(());
                }
                self.sys(c, who, Syscall::ExitGroup { code: *code })
            }
            Op::Exec(_) => {
                let filename = "/bin/x".into();
                self.sys(
                    c,
                    who,
                    Syscall::Execve {
                        filename,
                        argv: None,
                    },
                )
            }
            Op::Setpgid(_, p, g) => {
                let (p, g) = (self.pid_arg(c, p), self.pid_arg(c, g));
                let who = format!("{who} = setpgid({p}, {g})");
                self.sys(c, who, Syscall::Setpgid { pid: p, pgid: g })
            }
            Op::Setsid(_) => self.sys(c, who, Syscall::Setsid),
            Op::Getpgid(_, p) => {
                let p = self.pid_arg(c, p);
                self.sys(
                    c,
                    format!("{who} = getpgid({p})"),
                    Syscall::Getpgid { pid: p },
                )
            }
            Op::Getsid(_, p) => {
                let p = self.pid_arg(c, p);
                self.sys(
                    c,
                    format!("{who} = getsid({p})"),
                    Syscall::Getsid { pid: p },
                )
            }
            Op::Getppid(_) => self.sys(c, who, Syscall::Getppid),
            Op::Unshare(_, flags) => {
                let (a, b) = (self.k.unshare(kc, *flags), self.m.unshare(c, *flags));
                self.cmp(who, a, b)
            }
            Op::Sigprocmask(_, how, set) => {
                let a = self.k.rt_sigprocmask(kc, *how, *set);
                let b = self.m.rt_sigprocmask(c, *how, *set);
                self.cmp(who, a, b)
            }
            Op::Sigpending(_) => {
                let (a, b) = (self.k.rt_sigpending(kc), self.m.rt_sigpending(c));
                self.cmp(who, a, b)
            }
            Op::Sigtimedwait(_, set) => {
                let a = match self.k.rt_sigtimedwait(kc, *set, true) {
                    Ok(taskcore::SigWait::Signal(i)) => Ok(i.signo),
                    Ok(other) => panic!("a zero timeout never sleeps: {other:?}"),
                    Err(e) => Err(e),
                };
                let b = self.m.rt_sigtimedwait_now(c, *set);
                self.cmp(who, a, b)
            }
            Op::Kill(_, p, s) => {
                let p = self.kill_arg(c, p);
                let call = Syscall::Kill { pid: p, sig: *s };
                self.sys(c, format!("{who} = kill({p}, {s})"), call)
            }
            Op::Tgkill(_, g, t, s) => {
                let (g, t) = (self.pid_arg(c, g), self.pid_arg(c, t));
                let call = Syscall::Tgkill {
                    tgid: g,
                    tid: t,
                    sig: *s,
                };
                self.sys(c, format!("{who} = tgkill({g}, {t}, {s})"), call)
            }
            Op::Tkill(_, t, s) => {
                let t = self.pid_arg(c, t);
                let call = Syscall::Tkill { tid: t, sig: *s };
                self.sys(c, format!("{who} = tkill({t}, {s})"), call)
            }
            Op::Sigaction(_, s, act) => {
                let act = act.map(|(handler, flags)| SigAction::new(handler, flags));
                self.sys(c, who, Syscall::RtSigaction { sig: *s, act })
            }
            Op::Subreaper(_, on) => {
                let call = Syscall::Prctl(Prctl::SetChildSubreaper(*on));
                self.sys(c, who, call)
            }
            Op::Attach(..)
            | Op::Traceme(_)
            | Op::SyscallReport(..)
            | Op::Seize(..)
            | Op::Cont(..)
            | Op::Detach(..) => self.ptrace_op(c, who, op),
            Op::Wait4(_, p, o) => {
                let p = self.kill_arg(c, p);
                let call = Syscall::Wait4 {
                    pid: p,
                    options: *o,
                };
                self.sys(c, format!("{who} = wait4({p}, {o:#x})"), call)
            }
            Op::Waitid(_, idtype, id, o) => {
                let id = match (*idtype, id) {
                    (P_PGID, PidArg::Task(s)) => {
                        let nr = self.nr_of(c, *s);
                        self.m.getpgid(c, nr).unwrap_or(99999)
                    }
                    (_, id) => self.pid_arg(c, id),
                };
                let call = Syscall::Waitid {
                    idtype: *idtype,
                    id,
                    options: *o,
                };
                self.sys(c, format!("{who} = waitid({idtype}, {id}, {o:#x})"), call)
            }
            Op::PidfdOpen(..)
            | Op::PidfdSignal(..)
            | Op::WaitidPidfd(..)
            | Op::SetnsPidfd(..)
            | Op::NsOpen(..)
            | Op::SetnsFile(..)
            | Op::NsClose(_)
            | Op::PidfdClose(_) => self.fd_op(c, who, op),
            Op::Name(_, name) => {
                if let Some(n) = name {
                    let (a, b) = (self.k.pr_set_name(kc, n), self.m.pr_set_name(c, n));
                    self.cmp(format!("{who} = prctl(PR_SET_NAME)"), a, b)?;
                }
                let (a, b) = (self.k.pr_get_name(kc), self.m.pr_get_name(c));
                self.cmp(format!("{who} = prctl(PR_GET_NAME)"), a, b)
            }
            Op::Dumpable(_, arg) => {
                let (a, b) = (
                    self.k.pr_set_dumpable(kc, *arg),
                    self.m.pr_set_dumpable(c, *arg),
                );
                self.cmp(format!("{who} = prctl(PR_SET_DUMPABLE, {arg})"), a, b)?;
                let (a, b) = (self.k.pr_get_dumpable(kc), self.m.pr_get_dumpable(c));
                self.cmp(format!("{who} = prctl(PR_GET_DUMPABLE)"), a, b)
            }
            Op::Pdeathsig(_, sig) => {
                if let Some(sig) = *sig {
                    let (a, b) = (self.k.set_pdeathsig(kc, sig), self.m.set_pdeathsig(c, sig));
                    self.cmp(format!("{who} = prctl(PR_SET_PDEATHSIG, {sig})"), a, b)?;
                }
                let (a, b) = (self.k.pdeathsig(kc), self.m.pdeathsig(c));
                self.cmp(format!("{who} = prctl(PR_GET_PDEATHSIG)"), a, b)
            }
            Op::PdeathExit { .. } => self.pdeath_exit(c, op, who),
            Op::SeizeListen(_, n, interrupt) => self.seize_listen(c, *n, *interrupt, who),
            Op::ClonePidfd(_, how) => self.clone_pidfd_op(c, how, who),
            Op::Fill(_, n) => {
                if self.pid_scan > 1000 {
                    // Only worth it with a small pid_max.
                    return Ok(());
                }
                for i in 0..*n {
                    let before = self.n();
                    self.clone_op(
                        c,
                        CloneCall::Legacy(CloneArgs::fork()),
                        format!("{who} #{i} fork"),
                    )?;
                    if self.n() == before || !self.m.is_runnable(c) {
                        break;
                    }
                }
                Ok(())
            }
            Op::Churn(_, n) => {
                for i in 0..*n {
                    if !self.m.is_runnable(c) {
                        break;
                    }
                    let before = self.n();
                    self.clone_op(
                        c,
                        CloneCall::Legacy(CloneArgs::fork()),
                        format!("{who} #{i} fork"),
                    )?;
                    if self.n() == before {
                        break;
                    }
                    let child = Tid(before);
                    let kchild = self.h[before];
                    let pid = self.m.pid_vnr(c, child).unwrap_or(0);
                    let (a, b) = (self.k.exit_group(kchild, 0), self.m.exit_group(child, 0));
                    self.cmp(format!("{who} #{i} exit_group"), a, b)?;
                    if !self.m.is_runnable(c) {
                        break;
                    }
                    let (a, b) = (self.k.wait4(kc, pid, 0), self.m.wait4(c, pid, 0));
                    self.cmp(format!("{who} #{i} wait4({pid})"), a, b)?;
                }
                Ok(())
            }
        }
    }
}
