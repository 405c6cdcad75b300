//! The ptrace events: a clone/fork/vfork made a child (the core creates
//! and numbers it), an exec completed (the core execs, renumbering a
//! non-leader).

use nix::sys::ptrace;
use taskcore::sys::{dispatch, SysRet, Syscall};

use super::{Newborn, Supervisor, Thread};
use crate::pidmap::in_root;
use crate::spawn::pid;
use crate::tracee::{self, clone_flags_and_tids, Memory, Regs};

impl Supervisor {
    /// `PTRACE_EVENT_FORK`/`VFORK`/`CLONE` of thread `tid`: its call made
    /// a child. The core makes the same child; its number is written where
    /// `CLONE_PARENT_SETTID` points now and where `CLONE_CHILD_SETTID`
    /// points at the child's first stop.
    pub(super) fn on_clone_event(&mut self, tid: i32) {
        // ESRCH: a SIGKILL woke the thread from this stop; its child is
        // found when its group's death is applied (supervisor/lost.rs).
        let Ok(child) = ptrace::getevent(pid(tid)) else {
            self.resume(tid, 0);
            return;
        };
        let parent_tgid = self.threads.get(&tid).map_or(0, |t| t.tgid);
        let mut vfork_child = None;
        if let Some(mut ic) = self.threads.get_mut(&tid).and_then(|t| t.in_call.take()) {
            // Numbered already when its event was thought lost.
            if ic.child.is_none() && ic.refused.is_none() {
                self.make_child(tid, parent_tgid, &mut ic, child as i32);
            }
            vfork_child = ic.vfork_child;
            if let Some(t) = self.threads.get_mut(&tid) {
                t.in_call = Some(ic);
            }
        }
        match vfork_child.filter(|c| self.vfork_children.contains(c)) {
            // A vfork parent sleeps in the kernel (`wait_for_vfork_done()`)
            // until its child's exec or exit releases its memory: it stays
            // in this stop until then (`release_vfork_parent`), instead of
            // waking only to sleep again while its child runs.
            Some(c) => {
                self.held_vfork_parents.insert(c, tid);
            }
            None => self.resume(tid, 0),
        }
    }

    /// The vfork parent held at its vfork event until its child `child`
    /// (real tid) released it — its exec event, its exit's seccomp stop,
    /// its death — is resumed, to its vfork's syscall exit (the kernel
    /// wakes it there from `wait_for_vfork_done()` natively). Called after
    /// the child's own stop was handled and the child resumed, so that the
    /// child, the one that runs on, goes first.
    pub(super) fn release_vfork_parent(&mut self, child: i32) {
        if let Some(parent) = self.held_vfork_parents.remove(&child) {
            self.resume(parent, 0);
        }
    }

    /// The core makes the child `child` (real tid) that call `ic` of
    /// thread `tid` (of real group `parent_tgid`) made, and numbers it;
    /// or refuses it, and the real child is killed.
    pub(super) fn make_child(
        &mut self,
        tid: i32,
        parent_tgid: i32,
        ic: &mut super::InCall,
        child: i32,
    ) {
        let task = self.map.task(tid);
        let (nr, args) = (ic.nr, ic.args);
        let regroup =
            task.and_then(|t| self.place_pgrp_calls_before_clone(tid, t, child, ic.entry_seq));
        let r = match (&ic.call, task) {
            (Ok(call), Some(task)) => dispatch(&mut self.k, task, call),
            (Err(e), _) => Err(*e),
            (_, None) => Err(taskcore::Errno::ESRCH),
        };
        match r {
            Ok(SysRet::Child {
                task: ct, pid: v, ..
            }) => {
                // `v` is the caller's number for it; the map pairs the
                // root namespace's numbers with the global ones, and a
                // child in a nested namespace has real numbers there too.
                ic.child = Some(v);
                if let (Some(pgid), Some(task)) = (regroup, task) {
                    // Made before the creator's setpgid or setsid: it
                    // keeps the group it inherited.
                    let r = dispatch(&mut self.k, task, &Syscall::Setpgid { pid: v, pgid });
                    if self.log.on() {
                        dline!(self, "[debug]   child {v} kept group {pgid}: {r:?}");
                    }
                }
                let v0 = self.k.pid_vnr(self.init, ct).unwrap_or(v);
                if self.log.on() {
                    dline!(self, "[debug]   child {child} of {tid} numbered {v0}");
                }
                self.map.insert_task(child, ct, v0);
                self.map.record_levels(&self.k, ct, child);
                if let (Ok(pp), Some(Ok(by))) = (self.k.getppid(ct), task.map(|t| self.k.gettid(t)))
                {
                    self.born_to.insert(v, (pp, by));
                }
                self.report.tasks_created += 1;
                if let Some(t) = &mut self.timeline {
                    let k = &self.k;
                    if k.getpid(ct).is_ok_and(|p| in_root(k, ct, p) == v0) {
                        // In the root namespace's numbers; a parent outside
                        // a nested namespace is the caller's process.
                        let ppid = match k.getppid(ct).unwrap_or(0) {
                            0 => task.map_or(0, |c| k.getpid(c).map_or(0, |p| in_root(k, c, p))),
                            p => in_root(k, ct, p),
                        };
                        let pgid = k.getpgid(self.init, v0).unwrap_or(0);
                        let sid = k.getsid(self.init, v0).unwrap_or(0);
                        t.fork(v0, ppid, pgid, sid);
                    }
                }
                let mem = Memory::new(tid);
                let (flags, parent_tid, child_tid) = clone_flags_and_tids(nr, &args, &mem);
                if nr == libc::SYS_vfork || flags & libc::CLONE_VFORK as u64 != 0 {
                    ic.vfork_child = Some(child);
                    self.vfork_children.insert(child);
                }
                if flags & libc::CLONE_PARENT_SETTID as u64 != 0 && parent_tid != 0 {
                    let _ = mem.write_i32(parent_tid, v);
                }
                let tgid = if flags & libc::CLONE_THREAD as u64 != 0 {
                    parent_tgid
                } else {
                    child
                };
                let nb = Newborn {
                    // schedule_tail(): its own number, in its namespace.
                    vtid: self.k.pid_vnr(ct, ct).unwrap_or(v),
                    tgid,
                    child_tid: (flags & libc::CLONE_CHILD_SETTID as u64 != 0 && child_tid != 0)
                        .then_some(child_tid),
                };
                if let Some(st) = self.unborn_deaths.remove(&child) {
                    // It died before it was numbered: its death now.
                    self.threads.insert(
                        child,
                        Thread {
                            tgid,
                            ..Thread::default()
                        },
                    );
                    self.on_gone(child, st);
                } else if let Some(st) = self.parked.remove(&child) {
                    self.first_stop(child, nb, st);
                } else {
                    self.newborn.insert(child, nb);
                }
            }
            other => {
                let e = other.err().unwrap_or(taskcore::Errno::EINVAL);
                ic.refused = Some(e);
                let name = ic.name;
                self.diverge(
                    tid,
                    format!("{name}()"),
                    format!("= {child}"),
                    format!("= -1 {}", e.name()),
                );
                self.kill_unnumbered(child);
            }
        }
    }

    /// Before the core makes the child `child` of thread `tid` (`task`):
    /// while another thread's setpgid or setsid is in flight, whether it
    /// took effect before the fork is told by the child's own process
    /// group and session (inherited in `copy_process()`; nobody can have
    /// changed them yet, since nobody knows its pid before this event):
    /// when they differ from the creator's in the core, the calls in
    /// flight are applied first (`supervisor/window.rs`), or calls
    /// applied in another order than the kernel's placed again
    /// (`supervisor/reorder.rs`). A setpgid or setsid applied to the
    /// creator after this clone (entered at `entry_seq`) entered may
    /// have run after its `copy_process()`: then the group the child
    /// keeps (the one it inherited, the creator's before that call) is
    /// returned, to move the core's child into it once made.
    fn place_pgrp_calls_before_clone(
        &mut self,
        tid: i32,
        task: taskcore::TaskId,
        child: i32,
        entry_seq: u64,
    ) -> Option<i32> {
        let in_flight = self.threads.iter().any(|(&t, th)| {
            t != tid
                && th.in_call.as_ref().is_some_and(|c| {
                    c.early.is_none() && matches!(c.nr, libc::SYS_setpgid | libc::SYS_setsid)
                })
        });
        let tgid = self.k.getpid(task).ok()?;
        if !in_flight
            && !self.has_overlapping_pgrp_calls(tgid)
            && !self.pgrp_call_after(tgid, entry_seq)
        {
            return None;
        }
        let [_, pgrp, sid] = super::answer::stat_ids(child)?;
        let (pgrp, sid) = (
            self.map.group_to_virtual(pgrp),
            self.map.group_to_virtual(sid),
        );
        let inherits = |k: &mut taskcore::Kernel| {
            k.getpgid(task, 0) == Ok(pgrp) && k.getsid(task, 0) == Ok(sid)
        };
        if !inherits(&mut self.k) {
            self.pull_in_flight(tid, tgid);
        }
        if !inherits(&mut self.k) {
            // Or calls already applied, in another order than the
            // kernel's (supervisor/reorder.rs).
            self.reorder_pgrp_calls(tgid, inherits);
        }
        if inherits(&mut self.k) {
            return None;
        }
        self.inherited_before_pgrp_call(tgid, entry_seq, pgrp, sid)
    }

    /// The core cannot number real task `child`: it goes (its death
    /// report is then expected, not kept for a numbering).
    pub(super) fn kill_unnumbered(&mut self, child: i32) {
        self.unnumbered.insert(child);
        self.parked.remove(&child);
        self.unborn_deaths.remove(&child);
        // SAFETY: kill of a new traced child.
        unsafe { libc::kill(child, libc::SIGKILL) };
    }

    /// A new task's first stop (wait status `st`): its tid is written
    /// where `CLONE_CHILD_SETTID` asked, and it starts — unless the stop
    /// is a group stop: a new thread of a group in a group stop takes part
    /// in it in its first trap (`task_join_group_stop()`, then
    /// do_signal_stop()'s `PTRACE_EVENT_STOP` with the stop signal), and
    /// is kept stopped as any other thread's group stop
    /// (`Supervisor::on_event_stop`); resumed, it would run while its
    /// group is stopped, which it does not natively.
    pub(super) fn first_stop(&mut self, tid: i32, nb: Newborn, st: i32) {
        if let Some(addr) = nb.child_tid {
            let _ = Memory::new(tid).write_i32(addr, nb.vtid);
        }
        self.threads.insert(
            tid,
            Thread {
                tgid: nb.tgid,
                ..Thread::default()
            },
        );
        let group_stop = matches!(
            libc::WSTOPSIG(st),
            libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
        );
        if libc::WIFSTOPPED(st) && (st >> 16) & 0xff == libc::PTRACE_EVENT_STOP && group_stop {
            self.on_event_stop(tid, libc::WSTOPSIG(st));
            return;
        }
        let _ = tracee::cont(tid, 0);
    }

    /// `PTRACE_EVENT_EXEC`: thread `tid` (after a non-leader's exec, the
    /// leader's tid, which it took) completed an execve (not trapped: its
    /// filename and argv are read from the new image, [`exec_call`]).
    pub(super) fn on_exec_event(&mut self, tid: i32) {
        // The thread that made the exec: itself when it is its group's
        // only thread (no de_thread() exchange of tids; one request saved).
        let tgid = self.threads.get(&tid).map_or(0, |t| t.tgid);
        let former = if tgid == tid && self.lone_thread(tid, tgid) {
            tid
        } else {
            ptrace::getevent(pid(tid)).map_or(tid, |f| f as i32)
        };
        self.vfork_children.remove(&former);
        if former != tid {
            // de_thread(): the old leader is gone; the exec'ing thread
            // takes its tid.
            self.map.remove_task(tid);
            let t = self.threads.remove(&former).unwrap_or_default();
            self.threads.insert(tid, t);
            self.map.retid(former, tid);
        }
        // No signal-sending call is in flight under either number: the
        // old leader's went with it, the exec'ing thread's is the execve.
        self.sending.remove(&former);
        self.sending.remove(&tid);
        if let Some(t) = self.threads.get_mut(&tid) {
            t.in_call = None;
            // A new address space, the group's only thread.
            t.tid_address = super::TidAddress {
                fresh: true,
                ..Default::default()
            };
        }
        let call = Regs::get(tid).map_err(|_| taskcore::Errno::ESRCH);
        let (name, call) = match call {
            Ok(regs) => {
                let name = crate::calls::EXECS
                    .iter()
                    .find(|e| e.0 == regs.nr())
                    .map_or("execve", |e| e.1);
                (name, exec_call(tid, &regs))
            }
            Err(e) => ("execve", Err(e)),
        };
        self.report.calls_served += 1;
        *self.report.calls.entry(name).or_default() += 1;
        let early = self
            .threads
            .get_mut(&tid)
            .is_some_and(|t| std::mem::take(&mut t.exec_applied));
        if early {
            self.name_exec(tid, call);
        } else {
            self.apply_exec(tid, call);
        }
        self.resume(tid, 0);
        self.release_vfork_parent(former);
    }

    /// The filename and argv of an exec the core applied before its event
    /// (at its vfork parent's release): `comm` and the argument area.
    fn name_exec(&mut self, tid: i32, call: Result<Syscall, taskcore::Errno>) {
        let (Some(task), Ok(Syscall::Execve { filename, argv })) = (self.map.task(tid), &call)
        else {
            return;
        };
        let base = filename.rsplit('/').next().unwrap_or(filename);
        let _ = self.k.set_comm(task, base.as_bytes());
        if let Some(argv) = argv {
            let args: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
            let _ = self.k.set_cmdline(task, &args);
        }
        if let (Some(t), Ok(p)) = (&mut self.timeline, self.k.getpid(task)) {
            t.exec(in_root(&self.k, task, p), filename, argv.as_deref());
        }
    }

    /// The core execs thread `tid` with `call`, the execve it completed.
    pub(super) fn apply_exec(&mut self, tid: i32, call: Result<Syscall, taskcore::Errno>) {
        let Some(task) = self.map.task(tid) else {
            return;
        };
        match (&call, self.alive(task)) {
            (Ok(call), true) => {
                let r = dispatch(&mut self.k, task, call);
                self.report.checked += 1;
                if let (Some(t), Ok(_), Syscall::Execve { filename, argv }) =
                    (&mut self.timeline, &r, call)
                {
                    if let Ok(p) = self.k.getpid(task) {
                        t.exec(in_root(&self.k, task, p), filename, argv.as_deref());
                    }
                }
                if let Err(e) = r {
                    self.diverge(
                        tid,
                        "execve()".into(),
                        "= 0".into(),
                        format!("= -1 {}", e.name()),
                    );
                }
            }
            (Err(_), true) => self.report.not_checked("exec image not readable"),
            (_, false) => {}
        }
        if let Ok(v) = self.k.pid_vnr(self.init, task) {
            self.map.insert_task(tid, task, v);
        }
    }

    /// Whether the death of real thread `tid` of group `tgid`, with wait
    /// status `st` and no stop before it, is an exec's: another thread's
    /// `de_thread()` killed it, a death the core's execve makes at the
    /// exec event. execve is not trapped; the kernel tells it two ways: a
    /// thread `de_thread()` kills reports an exit with code 0
    /// (`do_group_exit()` while `group_exec_task` is set), and the
    /// thread in the exec shows its call in `/proc/TID/syscall` (the
    /// number of the call a blocked or stopped thread is in) until its
    /// `exchange_tids()`.
    pub(super) fn group_in_exec(&self, tid: i32, tgid: i32, st: i32) -> bool {
        if tgid <= 0 {
            return false;
        }
        let sibling = (tid != tgid && self.threads.contains_key(&tgid))
            || self
                .threads
                .iter()
                .any(|(&t, th)| t != tid && th.tgid == tgid);
        if !sibling {
            return false;
        }
        if libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == 0 {
            return true;
        }
        // A non-leader in its exec may have taken the leader's tid
        // already (`exchange_tids()`): the group's number is asked too.
        (tid != tgid && in_exec(tgid))
            || self
                .threads
                .iter()
                .filter(|(&t, th)| t != tid && t != tgid && th.tgid == tgid)
                .any(|(&t, _)| in_exec(t))
    }
}

/// Whether real thread `tid` is inside an execve or execveat: the first
/// field of `/proc/TID/syscall` (`running` while it runs).
fn in_exec(tid: i32) -> bool {
    let Ok(text) = std::fs::read_to_string(format!("/proc/{tid}/syscall")) else {
        return false;
    };
    let nr = text
        .split_ascii_whitespace()
        .next()
        .and_then(|n| n.parse::<i64>().ok());
    nr.is_some_and(|n| crate::calls::EXECS.iter().any(|e| e.0 == n))
}

/// `AT_EXECFN` (include/uapi/linux/auxvec.h): the auxiliary vector's
/// pointer to the filename execve was given.
const AT_EXECFN: u64 = 31;

/// At most this many argv or envp pointers are followed (`MAX_ARG_STRINGS`).
const MAX_ARG_STRINGS: u64 = 0x7FFF_FFFF;

/// The execve thread `tid` completed, read from its new image stopped at
/// its exec event (registers `regs`): the stack pointer is at `argc`,
/// followed by argv, envp and the auxiliary vector
/// (`create_elf_tables()`); the filename is `AT_EXECFN`'s string, the
/// path as given (`bprm->filename`, a script's own path); argv is the new
/// image's (a script's interpreter line comes first, as `/proc/PID/cmdline`
/// shows it).
fn exec_call(tid: i32, regs: &Regs) -> Result<Syscall, taskcore::Errno> {
    let mem = Memory::new(tid);
    let sp = regs.0.rsp;
    let argc = mem.read_u64(sp)?.min(MAX_ARG_STRINGS);
    let argv = sp + 8;
    // envp starts after argv's NULL; the auxiliary vector after envp's.
    let mut p = argv + 8 * (argc + 1);
    for _ in 0..MAX_ARG_STRINGS {
        let e = mem.read_u64(p)?;
        p += 8;
        if e == 0 {
            break;
        }
    }
    let mut execfn = 0;
    loop {
        let (key, val) = (mem.read_u64(p)?, mem.read_u64(p + 8)?);
        if key == 0 {
            break;
        }
        if key == AT_EXECFN {
            execfn = val;
            break;
        }
        p += 16;
    }
    Syscall::from_raw_with(libc::SYS_execve as u64, [execfn, argv, 0, 0, 0, 0], &mem)
}
