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
                let call = match *call {
                    IdCall::Setuid(uid) => Syscall::Setuid { uid },
                    IdCall::Setreuid(ruid, euid) => Syscall::Setreuid { ruid, euid },
                    IdCall::Setresuid(ruid, euid, suid) => Syscall::Setresuid { ruid, euid, suid },
                    IdCall::Setgid(gid) => Syscall::Setgid { gid },
                    IdCall::Setregid(rgid, egid) => Syscall::Setregid { rgid, egid },
                    IdCall::Setresgid(rgid, egid, sgid) => Syscall::Setresgid { rgid, egid, sgid },
                    IdCall::Setfsuid(uid) => Syscall::Setfsuid { uid },
                    IdCall::Setfsgid(gid) => Syscall::Setfsgid { gid },
                    IdCall::Setgroups(ref g) => Syscall::Setgroups { groups: g.clone() },
                };
                self.sys(c, who.clone(), call)?;
                let (ck, cm) = (self.k.cred(kc), self.m.cred(c));
                self.cmp(who, ck, cm)
            }
            Op::SetNproc(_, n) => {
                let l = taskcore::Rlimit { cur: *n, max: *n };
                let call = Syscall::Prlimit64 {
                    pid: 0,
                    resource: taskcore::uapi::RLIMIT_NPROC,
                    new: Some(l),
                };
                self.sys(c, who, call)
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
            Op::Unshare(_, flags) => self.sys(c, who, Syscall::Unshare { flags: *flags }),
            Op::Sigprocmask(_, how, set) => self.sys(
                c,
                who,
                Syscall::RtSigprocmask {
                    how: *how,
                    set: *set,
                },
            ),
            Op::Sigpending(_) => self.sys(c, who, Syscall::RtSigpending),
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
                    let call = Syscall::Prctl(Prctl::SetName(n.clone()));
                    self.sys(c, format!("{who} = prctl(PR_SET_NAME)"), call)?;
                }
                let call = Syscall::Prctl(Prctl::GetName);
                self.sys(c, format!("{who} = prctl(PR_GET_NAME)"), call)
            }
            Op::Dumpable(_, arg) => {
                let call = Syscall::Prctl(Prctl::SetDumpable(*arg));
                self.sys(c, format!("{who} = prctl(PR_SET_DUMPABLE, {arg})"), call)?;
                let call = Syscall::Prctl(Prctl::GetDumpable);
                self.sys(c, format!("{who} = prctl(PR_GET_DUMPABLE)"), call)
            }
            Op::Pdeathsig(_, sig) => {
                if let Some(sig) = *sig {
                    let call = Syscall::Prctl(Prctl::SetPdeathsig(sig));
                    self.sys(c, format!("{who} = prctl(PR_SET_PDEATHSIG, {sig})"), call)?;
                }
                let call = Syscall::Prctl(Prctl::GetPdeathsig);
                self.sys(c, format!("{who} = prctl(PR_GET_PDEATHSIG)"), call)
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
                    let pid = self.m.pid_vnr(c, child).unwrap_or(0);
                    let exit = Syscall::ExitGroup { code: 0 };
                    self.sys(child, format!("{who} #{i} exit_group"), exit)?;
                    if !self.m.is_runnable(c) {
                        break;
                    }
                    let wait = Syscall::Wait4 { pid, options: 0 };
                    self.sys(c, format!("{who} #{i} wait4({pid})"), wait)?;
                }
                Ok(())
            }
        }
    }
}
