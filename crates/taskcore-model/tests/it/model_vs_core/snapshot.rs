//! After every step: everything observable about every task, compared.

use super::*;

impl Pair {
    /// Compares everything observable about every task ever created.
    pub(crate) fn snapshot(&mut self) -> Check {
        let root = self.root();
        let kroot = self.kt(root);
        for i in 0..self.n() {
            let (kt, mt) = (self.h[i], Tid(i));
            let core = (
                self.k.getpid(kt),
                self.k.gettid(kt),
                self.k.getppid(kt),
                self.k.getpgid(kt, 0),
                self.k.getsid(kt, 0),
                self.k.pid_vnr(kroot, kt),
                self.k.rt_sigaction(kt, SIGKILL, None).map(|_| ()),
                self.k.pdeathsig(kt),
            );
            let model = (
                self.m.getpid(mt),
                self.m.gettid(mt),
                self.m.getppid(mt),
                self.m.getpgid(mt, 0),
                self.m.getsid(mt, 0),
                self.m.pid_vnr(root, mt),
                self.m.rt_sigaction(mt, SIGKILL, None).map(|_| ()),
                self.m.pdeathsig(mt),
            );
            if core != model {
                return Err(self.fail(format!(
                    "SNAPSHOT MISMATCH for task #{i} (pid, tid, ppid, pgid, sid, root pid, alive, pdeath signal)\n  core:  {core:?}\n  model: {model:?}"
                )));
            }
            if let Ok(nr) = model.5 {
                self.root_nr[i] = nr;
            }
        }
        for i in 0..self.fds.len() {
            let (kf, mf) = self.fds[i];
            let (a, b) = (self.k.pidfd_poll(kf), self.m.pidfd_poll(mf));
            if a != b {
                return Err(self.fail(format!(
                    "PIDFD POLL MISMATCH for #{i}: core {a:?} model {b:?}"
                )));
            }
        }
        let counts = (
            (self.k.nr_tasks(), self.k.nr_processes()),
            (self.m.nr_tasks(), self.m.nr_processes()),
        );
        if counts.0 != counts.1 {
            return Err(self.fail(format!(
                "COUNT MISMATCH (tasks, processes): core {:?} model {:?}",
                counts.0, counts.1
            )));
        }
        for nr in 1..=self.pid_scan {
            let (a, b) = (self.k.pid_in_use(kroot, nr), self.m.pid_in_use(root, nr));
            if a != b {
                return Err(self.fail(format!(
                    "PID IN USE MISMATCH for {nr}: core {a:?} model {b:?}"
                )));
            }
        }
        Ok(())
    }
}
