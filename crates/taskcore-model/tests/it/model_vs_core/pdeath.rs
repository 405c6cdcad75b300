//! The parent-death signal (`PR_SET_PDEATHSIG`) in the property test: a
//! parent thread with children that asked for one exits; and
//! `PTRACE_LISTEN` set up on a seized, stopped child.

use super::*;

impl Pair {
    /// A clone by `c` through [`Pair::clone_op`]; the new task, if both
    /// sides made it.
    fn spawn(&mut self, c: Tid, args: CloneArgs, who: String) -> Result<Option<Tid>, String> {
        let before = self.n();
        self.clone_op(c, CloneCall::Legacy(args), who)?;
        Ok((self.n() > before).then_some(Tid(before)))
    }

    /// `prctl(PR_SET_PDEATHSIG, sig)` by `t` if it can run, compared;
    /// with `block`, `t` then blocks `sig` (if valid).
    fn set_pdeath(&mut self, t: Tid, sig: i32, block: bool, who: &str) -> Check {
        if !self.m.is_runnable(t) {
            return Ok(());
        }
        let call = Syscall::Prctl(Prctl::SetPdeathsig(sig));
        self.sys(
            t,
            format!("{who} [{}] prctl(PR_SET_PDEATHSIG, {sig})", t.0),
            call,
        )?;
        if block && (1..=64).contains(&sig) {
            let call = Syscall::RtSigprocmask {
                how: SIG_BLOCK,
                set: Some(1u64 << (sig - 1)),
            };
            self.sys(
                t,
                format!("{who} [{}] rt_sigprocmask(SIG_BLOCK, {sig})", t.0),
                call,
            )?;
        }
        Ok(())
    }

    /// `exit(0)` (or `exit_group(0)`) by `t` if it can run, unless that
    /// would end the global init.
    fn exit_parent(&mut self, t: Tid, group: bool, who: &str) -> Check {
        if !self.m.is_runnable(t) {
            return Ok(());
        }
        if self.in_root_init_group(t) && (group || self.init_threads_left() <= 1) {
            return Ok(());
        }
        let call = if group {
            Syscall::ExitGroup { code: 0 }
        } else {
            Syscall::Exit { code: 0 }
        };
        self.sys(t, format!("{who} [{}] {call:?}", t.0), call)
    }

    /// [`Op::PdeathExit`] by `c`.
    pub(crate) fn pdeath_exit(&mut self, c: Tid, op: &Op, who: String) -> Check {
        let Op::PdeathExit {
            sig,
            thread,
            grandchild,
            group,
            block,
            drop_ids,
            ..
        } = *op
        else {
            unreachable!("only Op::PdeathExit")
        };
        let parent = if thread {
            match self.spawn(c, CloneArgs::thread(), format!("{who} thread"))? {
                Some(t) if self.m.is_runnable(t) => t,
                _ => return Ok(()),
            }
        } else {
            c
        };
        let Some(child) = self.spawn(parent, CloneArgs::fork(), format!("{who} fork"))? else {
            return Ok(());
        };
        self.set_pdeath(child, sig, block, &who)?;
        let mut kids = vec![child];
        if grandchild && self.m.is_runnable(child) {
            if let Some(g) = self.spawn(child, CloneArgs::fork(), format!("{who} fork2"))? {
                self.set_pdeath(g, sig, block, &who)?;
                kids.push(g);
                // The middle child exits first: the grandchild's parent.
                self.exit_parent(child, false, &who)?;
            }
        }
        if drop_ids && self.m.is_runnable(parent) {
            let id = 1000;
            let call = Syscall::Setresuid {
                ruid: id,
                euid: id,
                suid: id,
            };
            self.sys(
                parent,
                format!("{who} [{}] setresuid({id})", parent.0),
                call,
            )?;
        }
        self.exit_parent(parent, group, &who)?;
        for t in kids {
            let who_t = format!("{who} [{}]", t.0);
            self.sys(t, format!("{who_t} rt_sigpending"), Syscall::RtSigpending)?;
            let call = Syscall::Prctl(Prctl::GetPdeathsig);
            self.sys(t, format!("{who_t} prctl(PR_GET_PDEATHSIG)"), call)?;
        }
        Ok(())
    }

    /// [`Op::SeizeListen`] by `c`.
    pub(crate) fn seize_listen(&mut self, c: Tid, n: usize, interrupt: bool, who: String) -> Check {
        let kids = self.m.child_processes(c);
        let t = if kids.is_empty() {
            match self.spawn(c, CloneArgs::fork(), format!("{who} fork"))? {
                Some(t) => t,
                None => return Ok(()),
            }
        } else {
            kids[n % kids.len()]
        };
        if !self.m.is_runnable(c) {
            return Ok(());
        }
        let Ok(pid) = self.m.pid_vnr(c, t) else {
            return Ok(());
        };
        if !self.m.is_traced(t) {
            let call = Syscall::Ptrace(Ptrace::Seize { pid, options: 0 });
            self.sys(c, format!("{who} seize({pid})"), call)?;
        }
        if interrupt {
            let call = Syscall::Ptrace(Ptrace::Interrupt { pid });
            self.sys(c, format!("{who} interrupt({pid})"), call)?;
        } else {
            let call = Syscall::Kill { pid, sig: SIGSTOP };
            self.sys(c, format!("{who} kill({pid}, SIGSTOP)"), call)?;
        }
        let wait = Syscall::Wait4 {
            pid,
            options: WNOHANG | __WALL,
        };
        if !self.m.is_runnable(c) {
            return Ok(());
        }
        self.sys(
            c,
            format!("{who} wait4({pid}, WNOHANG|__WALL)"),
            wait.clone(),
        )?;
        if !interrupt && self.m.is_runnable(c) && !self.init_dies_of(t, SIGSTOP) {
            // A SIGSTOP signal-delivery-stop: the SIGSTOP passed on stops
            // the group.
            let call = Syscall::Ptrace(Ptrace::Cont { pid, sig: SIGSTOP });
            self.sys(c, format!("{who} cont({pid}, SIGSTOP)"), call)?;
            if self.m.is_runnable(c) {
                self.sys(c, format!("{who} wait4({pid}, WNOHANG|__WALL)"), wait)?;
            }
        }
        if !self.m.is_runnable(c) {
            return Ok(());
        }
        let call = Syscall::Ptrace(Ptrace::Listen { pid });
        self.sys(c, format!("{who} listen({pid})"), call)
    }
}
