//! ptrace in the property test: requests by tracers on their own tracees,
//! and the case kept out (the global init's death).

use super::*;

impl Pair {
    pub(crate) fn in_root_init_group(&self, t: Tid) -> bool {
        self.m.tgid_vnr(self.root(), t) == Ok(1)
    }

    /// The global init's threads that are neither exiting nor in their
    /// `PTRACE_EVENT_EXIT` stop (which leads to their exit, at the latest
    /// when their tracer goes): when the last one exits, Linux panics.
    pub(crate) fn init_threads_left(&self) -> usize {
        self.m
            .task_ids()
            .into_iter()
            .filter(|&u| {
                self.m.is_alive(u) && !self.m.in_exit_stop(u) && self.in_root_init_group(u)
            })
            .count()
    }

    /// Whether resuming tracee `t` with `sig` would kill a thread of the
    /// global init (Linux panics): SIGKILL passed on, or out of its
    /// `PTRACE_EVENT_EXIT` stop.
    pub(crate) fn init_dies_of(&self, t: Tid, sig: i32) -> bool {
        self.in_root_init_group(t) && (sig == SIGKILL || self.m.in_exit_stop(t))
    }

    /// Options as given to a tracee: `PTRACE_O_EXITKILL` is left out for
    /// the global init (its tracer's exit would kill it: Linux panics).
    pub(crate) fn options_for(&self, t: Option<Tid>, o: u32) -> u32 {
        use taskcore_model::ptrace_event::PTRACE_O_EXITKILL;
        if t.is_some_and(|t| self.in_root_init_group(t)) {
            o & !PTRACE_O_EXITKILL
        } else {
            o
        }
    }

    /// [`Op::Tracer`]: the caller is picked among the runnable tracers.
    pub(crate) fn tracer_op(&mut self, op: &Op, s: usize) -> Check {
        let Op::Tracer(_, n, req) = op else {
            unreachable!("only Op::Tracer")
        };
        let tracers: Vec<Tid> = self
            .runnable()
            .into_iter()
            .filter(|&t| !self.m.tracees(t).is_empty())
            .collect();
        let (c, pid, tracee) = if tracers.is_empty() {
            let Some(c) = self.caller(s) else {
                return Ok(());
            };
            (c, self.nr_of(c, *n), None)
        } else {
            let c = tracers[s % tracers.len()];
            let list = self.m.tracees(c);
            let t = list[n % list.len()];
            (c, self.nr_of(c, t.0), Some(t))
        };
        let who = format!("[{}] {:?} (pid {pid})", c.0, req);
        match *req {
            TraceReq::Setoptions(o) => {
                let o = self.options_for(tracee, o);
                let call = Syscall::Ptrace(Ptrace::Setoptions { pid, options: o });
                self.sys(c, format!("{who} = setoptions({o:#x})"), call)
            }
            TraceReq::Geteventmsg => {
                let call = Syscall::Ptrace(Ptrace::Geteventmsg { pid });
                self.sys(c, format!("{who} = geteventmsg"), call)
            }
            TraceReq::Cont(sig) | TraceReq::Detach(sig) | TraceReq::Syscall(sig)
                if tracee.is_some_and(|t| self.init_dies_of(t, sig)) =>
            {
                Ok(())
            }
            TraceReq::Cont(sig) => {
                let call = Syscall::Ptrace(Ptrace::Cont { pid, sig });
                self.sys(c, format!("{who} = cont"), call)
            }
            TraceReq::Detach(sig) => {
                let call = Syscall::Ptrace(Ptrace::Detach { pid, sig });
                self.sys(c, format!("{who} = detach"), call)
            }
            TraceReq::Interrupt => {
                let call = Syscall::Ptrace(Ptrace::Interrupt { pid });
                self.sys(c, format!("{who} = interrupt"), call)
            }
            TraceReq::Syscall(sig) => {
                let call = Syscall::Ptrace(Ptrace::Syscall { pid, sig });
                self.sys(c, format!("{who} = syscall"), call)
            }
            TraceReq::Listen => {
                let call = Syscall::Ptrace(Ptrace::Listen { pid });
                self.sys(c, format!("{who} = listen"), call)
            }
            TraceReq::Wait(options) => {
                let call = Syscall::Wait4 { pid, options };
                self.sys(c, format!("{who} = wait4({options:#x})"), call)
            }
        }
    }

    /// A ptrace call by the tracee-to-be or by a tracer ([`Op::Attach`], [`Op::Seize`], [`Op::Traceme`], [`Op::Cont`], [`Op::Detach`]), or a syscall-stop report by a tracee.
    pub(crate) fn ptrace_op(&mut self, c: Tid, who: String, op: &Op) -> Check {
        let kc = self.kt(c);
        match op {
            Op::Attach(_, p, seize) => {
                let p = self.pid_arg(c, p);
                let call = Syscall::Ptrace(Ptrace::Attach {
                    pid: p,
                    seize: *seize,
                });
                self.sys(c, format!("{who} = attach({p})"), call)
            }
            Op::Traceme(_) => self.sys(c, who, Syscall::Ptrace(Ptrace::Traceme)),
            Op::SyscallReport(_, exit) => {
                let (a, b) = if *exit {
                    (
                        self.k.ptrace_syscall_exit(kc),
                        self.m.ptrace_syscall_exit(c),
                    )
                } else {
                    (
                        self.k.ptrace_syscall_enter(kc, 39),
                        self.m.ptrace_syscall_enter(c),
                    )
                };
                self.cmp(who, a, b)
            }
            Op::Seize(_, p, o) => {
                let p = self.kill_arg(c, p);
                let t = self.m.find_task_by_vpid(c, p).ok();
                let o = self.options_for(t, *o);
                let call = Syscall::Ptrace(Ptrace::Seize { pid: p, options: o });
                self.sys(c, format!("{who} = seize({p}, {o:#x})"), call)
            }
            Op::Cont(_, p, s) | Op::Detach(_, p, s)
                if {
                    let p = self.pid_arg(c, p);
                    self.m
                        .find_task_by_vpid(c, p)
                        .is_ok_and(|t| self.init_dies_of(t, *s))
                } =>
            {
                // Linux panics when the global init dies of the SIGKILL
                // its tracer passes on.
                Ok(())
            }
            Op::Cont(_, p, s) => {
                let p = self.pid_arg(c, p);
                let call = Syscall::Ptrace(Ptrace::Cont { pid: p, sig: *s });
                self.sys(c, format!("{who} = cont({p}, {s})"), call)
            }
            Op::Detach(_, p, s) => {
                let p = self.pid_arg(c, p);
                let call = Syscall::Ptrace(Ptrace::Detach { pid: p, sig: *s });
                self.sys(c, format!("{who} = detach({p}, {s})"), call)
            }
            _ => unreachable!("not a ptrace_op op"),
        }
    }
}
