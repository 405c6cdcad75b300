//! The parent-death signal (`PR_SET_PDEATHSIG`) in the property test: a
//! parent thread with children that asked for one exits.

use super::*;

impl Pair {
    /// A clone by `c` through [`Pair::clone_op`]; the new task, if both
    /// sides made it.
    fn spawn(&mut self, c: Tid, args: CloneArgs, who: String) -> Result<Option<Tid>, String> {
        let before = self.n();
        self.clone_op(c, CloneCall::Legacy(args), who)?;
        Ok((self.n() > before).then(|| Tid(before)))
    }

    /// `prctl(PR_SET_PDEATHSIG, sig)` by `t` if it can run, compared.
    fn set_pdeath(&mut self, t: Tid, sig: i32, who: &str) -> Check {
        if !self.m.is_runnable(t) {
            return Ok(());
        }
        let (a, b) = (
            self.k.set_pdeathsig(self.kt(t), sig),
            self.m.set_pdeathsig(t, sig),
        );
        self.cmp(
            format!("{who} [{}] prctl(PR_SET_PDEATHSIG, {sig})", t.0),
            a,
            b,
        )
    }

    /// `exit(0)` (or `exit_group(0)`) by `t` if it can run, unless that
    /// would end the global init.
    fn exit_parent(&mut self, t: Tid, group: bool, who: &str) -> Check {
        if !self.m.is_runnable(t) {
            return Ok(());
        }
        if self.in_root_init_group(t) {
            let live = self
                .m
                .task_ids()
                .into_iter()
                .filter(|&u| self.m.is_alive(u) && self.in_root_init_group(u))
                .count();
            if group || live <= 1 {
                return Ok(());
            }
        }
        let call = if group {
            Syscall::ExitGroup { code: 0 }
        } else {
            Syscall::Exit { code: 0 }
        };
        self.sys(t, format!("{who} [{}] {call:?}", t.0), call)
    }

    /// [`Op::PdeathExit`] by `c`.
    pub(crate) fn pdeath_exit(
        &mut self,
        c: Tid,
        sig: i32,
        thread: bool,
        grandchild: bool,
        group: bool,
        who: String,
    ) -> Check {
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
        self.set_pdeath(child, sig, &who)?;
        let mut kids = vec![child];
        if grandchild && self.m.is_runnable(child) {
            if let Some(g) = self.spawn(child, CloneArgs::fork(), format!("{who} fork2"))? {
                self.set_pdeath(g, sig, &who)?;
                kids.push(g);
                // The middle child exits first: the grandchild's parent.
                self.exit_parent(child, false, &who)?;
            }
        }
        self.exit_parent(parent, group, &who)?;
        for t in kids {
            let (a, b) = (self.k.rt_sigpending(self.kt(t)), self.m.rt_sigpending(t));
            self.cmp(format!("{who} [{}] rt_sigpending", t.0), a, b)?;
            let (a, b) = (self.k.pdeathsig(self.kt(t)), self.m.pdeathsig(t));
            self.cmp(format!("{who} [{}] prctl(PR_GET_PDEATHSIG)", t.0), a, b)?;
        }
        Ok(())
    }
}
