//! The two implementations side by side: handles, argument mapping, and
//! the compare-and-log step every call goes through.

use super::*;

/// Both implementations, their task handles by creation order, and a log
/// of what was applied.
pub(crate) struct Pair {
    pub(crate) k: Kernel,
    pub(crate) m: Model,
    /// Core handle of the `i`-th created task (the model's is `Tid(i)`).
    pub(crate) h: Vec<TaskId>,
    /// Last known root-namespace pid of each created task (for stale
    /// numbers once it is gone).
    pub(crate) root_nr: Vec<i32>,
    pub(crate) log: Vec<String>,
    pub(crate) pid_scan: i32,
    /// Pidfds opened on both sides, in opening order (closed ones stay).
    pub(crate) fds: Vec<(taskcore::PidFd, taskcore_model::PidFd)>,
    /// Namespace files opened on both sides, in opening order.
    pub(crate) nsfiles: Vec<(taskcore::NsRef, taskcore_model::NsFile)>,
}

pub(crate) type Check = std::result::Result<(), String>;

impl Pair {
    pub(crate) fn new(config: Config, opts: ModelOptions) -> Pair {
        let k = Kernel::new(config).unwrap();
        let m = Model::with_options(config, opts).unwrap();
        let h = vec![k.init_task().unwrap()];
        Pair {
            k,
            m,
            h,
            root_nr: vec![1],
            log: Vec::new(),
            pid_scan: config.pid_max.min(1024) as i32,
            fds: Vec::new(),
            nsfiles: Vec::new(),
        }
    }

    pub(crate) fn fail(&self, what: String) -> String {
        let tail: Vec<&String> = self
            .log
            .iter()
            .rev()
            .take(
                std::env::var("MODEL_LOG_TAIL")
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(60),
            )
            .rev()
            .collect();
        format!(
            "{what}\n--- last {} steps of {} ---\n{}",
            tail.len(),
            self.log.len(),
            tail.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        )
    }

    pub(crate) fn cmp<T: PartialEq + std::fmt::Debug>(
        &mut self,
        what: String,
        core: T,
        model: T,
    ) -> Check {
        self.log.push(format!("{what} -> {model:?}"));
        if std::env::var_os("MODEL_TRACE").is_some() {
            // Every step, for coverage counts (run with --nocapture).
            eprintln!("STEP {}", self.log.last().expect("just pushed"));
        }
        if core == model {
            Ok(())
        } else {
            Err(self.fail(format!(
                "MISMATCH at {what}\n  core:  {core:?}\n  model: {model:?}"
            )))
        }
    }

    pub(crate) fn n(&self) -> usize {
        self.h.len()
    }

    pub(crate) fn root(&self) -> Tid {
        self.m.root_init().expect("the root pid 1 never goes")
    }

    pub(crate) fn runnable(&self) -> Vec<Tid> {
        self.m.runnable_tasks()
    }

    pub(crate) fn caller(&self, s: usize) -> Option<Tid> {
        let r = self.runnable();
        (!r.is_empty()).then(|| r[s % r.len()])
    }

    /// A task's number as `viewer` sees it, or its stale root number.
    pub(crate) fn nr_of(&self, viewer: Tid, s: usize) -> i32 {
        let t = s % self.n();
        self.m
            .pid_vnr(viewer, Tid(t))
            .ok()
            .filter(|&n| n != 0)
            .unwrap_or(self.root_nr[t])
    }

    pub(crate) fn pid_arg(&self, viewer: Tid, a: &PidArg) -> i32 {
        match *a {
            PidArg::Task(s) => self.nr_of(viewer, s),
            PidArg::Tgid(s) => {
                let t = s % self.n();
                self.m
                    .tgid_vnr(viewer, Tid(t))
                    .ok()
                    .filter(|&n| n != 0)
                    .unwrap_or(self.root_nr[t])
            }
            PidArg::Zero => 0,
            PidArg::Raw(n) => n,
        }
    }

    pub(crate) fn kill_arg(&self, viewer: Tid, a: &KillArg) -> i32 {
        match a {
            KillArg::Pid(p) => self.pid_arg(viewer, p),
            KillArg::MinusOne => -1,
            KillArg::Child(s) => {
                let kids = self.m.child_processes(viewer);
                if kids.is_empty() {
                    -1
                } else {
                    self.m.pid_vnr(viewer, kids[s % kids.len()]).unwrap_or(-1)
                }
            }
            KillArg::ChildPgrp(s) => {
                let kids = self.m.child_processes(viewer);
                if kids.is_empty() {
                    return -1;
                }
                let nr = self.m.pid_vnr(viewer, kids[s % kids.len()]).unwrap_or(0);
                match self.m.getpgid(viewer, nr) {
                    Ok(pg) if pg > 0 => -pg,
                    _ => -1,
                }
            }
            KillArg::Min => i32::MIN,
            KillArg::NegPgid(s) => {
                let nr = self.nr_of(viewer, *s);
                match self.m.getpgid(viewer, nr) {
                    Ok(pg) if pg > 0 => -pg,
                    _ => -99999,
                }
            }
        }
    }

    pub(crate) fn kt(&self, t: Tid) -> TaskId {
        self.h[t.0]
    }

    /// A kept pidfd pair (modulo), if any was opened.
    pub(crate) fn fd(&self, s: usize) -> Option<&(taskcore::PidFd, taskcore_model::PidFd)> {
        (!self.fds.is_empty()).then(|| &self.fds[s % self.fds.len()])
    }

    /// `call` by `c` on both sides, through the one [`Syscall`] type and
    /// [`dispatch_api`]: the model's pidfds are those paired with the
    /// core's the call names.
    pub(crate) fn both(
        &mut self,
        c: Tid,
        call: &Syscall,
    ) -> (
        taskcore::Result<ApiRet<TaskId>>,
        taskcore::Result<ApiRet<Tid, taskcore_model::PidFd>>,
    ) {
        let kc = self.kt(c);
        let a = dispatch_api(&mut self.k, kc, call, &KernelPidFds);
        let b = dispatch_api(&mut self.m, c, call, &Paired(&self.fds));
        (a, b)
    }

    /// `call` by `c` on both sides ([`Pair::both`]), compared: a new
    /// task by its pid, a new pidfd by its being made (its number is the
    /// embedder's).
    pub(crate) fn sys(&mut self, c: Tid, who: String, call: Syscall) -> Check {
        fn ret<T, F>(r: ApiRet<T, F>) -> SysRet {
            match r {
                ApiRet::Ret(r) => r,
                ApiRet::Child { pid, .. } => SysRet::Value(pid.into()),
                ApiRet::PidFd(_) => SysRet::Value(0),
                _ => unreachable!("no other ApiRet"),
            }
        }
        let (a, b) = self.both(c, &call);
        self.cmp(who, a.map(ret), b.map(ret))
    }
}

/// The model's pidfd paired with each of the core's ([`Pair::fds`]).
struct Paired<'a>(&'a [(taskcore::PidFd, taskcore_model::PidFd)]);

impl PidFdMap<taskcore_model::PidFd> for Paired<'_> {
    fn pidfd(&self, fd: taskcore::PidFd) -> taskcore::Result<taskcore_model::PidFd> {
        let pair = self.0.iter().find(|(k, _)| *k == fd);
        pair.map(|&(_, m)| m).ok_or(taskcore::Errno::EBADF)
    }
}
