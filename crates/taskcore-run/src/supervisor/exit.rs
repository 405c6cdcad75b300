//! The syscall-exit stop: the real result is known. It is renumbered for
//! the program (the return value, and what the kernel wrote: waitid's
//! siginfo), and the core applies the call and answers; the two answers
//! are compared.

use taskcore::sys::{dispatch, SysRet, Syscall};
use taskcore::WaitOutcome;

use super::notation::{describe_core, show_args};
use super::{InCall, Supervisor};
use crate::calls::{reads_only, returns_group, returns_pid, sends_signal};
use crate::check::{agrees, is_restart, show_core, show_ret};
use crate::pidmap::in_root;
use crate::tracee::{has_pid, Memory, Regs, SI_PID_OFFSET};

fn is_clone(nr: i64) -> bool {
    matches!(
        nr,
        libc::SYS_clone | libc::SYS_clone3 | libc::SYS_fork | libc::SYS_vfork
    )
}

impl Supervisor {
    /// The syscall-exit stop of thread `tid`.
    pub(super) fn on_syscall_exit(&mut self, tid: i32) {
        if self.tid_address_made(tid) {
            return;
        }
        let ic = self.threads.get_mut(&tid).and_then(|t| t.in_call.take());
        let Some(ic) = ic else {
            self.resume(tid, 0);
            return;
        };
        let Ok(mut regs) = Regs::get(tid) else {
            // A SIGKILL woke it from this stop: its result cannot be read.
            // The call stays in flight for its death (a wait's reap is
            // then told by /proc, supervisor/window.rs).
            if let Some(t) = self.threads.get_mut(&tid) {
                t.in_call = Some(ic);
            }
            return;
        };
        let real = regs.ret();
        let mut shown = real;
        if sends_signal(ic.nr) {
            // Its send is over: no longer in flight.
            self.sending.remove(&tid);
            let seq = self.stops_seen;
            if let Some(k) = self.recent_kills.iter_mut().rev().find(|k| k.0 == tid) {
                k.3.get_or_insert(seq);
            }
            for k in self.taken_by_kill.values_mut().filter(|k| k.1 == tid) {
                k.3.get_or_insert(seq);
            }
        }
        // The program's own arguments come back: a call the kernel
        // restarts (-ERESTART*) re-enters with them, to be translated again.
        let restore = regs.args() != ic.args;
        if restore {
            for (i, &a) in ic.args.iter().enumerate() {
                regs.set_arg(i, a);
            }
        }
        if let Some(child) = ic.vfork_child {
            // The vfork parent runs again: its child passed mm_release(),
            // in an exec or an exit, whatever order the stops came in.
            self.wait_vfork_release(child);
        }
        if is_clone(ic.nr) {
            shown = self.clone_result(tid, &ic, real);
        } else if returns_pid(ic.nr) && real > 0 {
            shown = match self.map.task(tid) {
                Some(t) => self.map.to_virtual_for(&self.k, t, real as i32),
                None => self.map.to_virtual(real as i32),
            }
            .into();
        } else if returns_group(ic.nr) && real == 0 {
            shown = match self.map.task(tid) {
                Some(t) => self.map.outside_group_for(&self.k, t),
                None => self.map.group_to_virtual(0),
            }
            .into();
        }
        if let Some((at, v)) = ic.restore_pid {
            let _ = Memory::new(tid).write_i32(at, v);
        }
        if ic.nr == libc::SYS_waitid && real == 0 && ic.args[2] != 0 {
            self.renumber_si_pid(tid, ic.args[2]);
        }
        if ic.nr == libc::SYS_rt_sigtimedwait && real > 0 && ic.args[1] != 0 {
            // The siginfo of the signal taken: its sender renumbered (a
            // sender's own siginfo was made real at its entry).
            let mem = Memory::new(tid);
            let code = mem.read_i32(ic.args[1] + 8).unwrap_or(1);
            if has_pid(real as i32, code) {
                self.renumber_si_pid(tid, ic.args[1]);
            }
        }
        if self.timeline.is_some() {
            self.note_reap(tid, &ic, shown);
        }
        if shown != real || restore {
            regs.set_ret(shown);
            let _ = regs.set(tid);
        }
        let sent = sends_signal(ic.nr);
        if self.opts.check && !is_clone(ic.nr) {
            self.check(tid, ic, shown);
        }
        if sent {
            // A SIGCONT it sent after a stop the core took again
            // (supervisor/signals.rs).
            self.send_cont_proven_after_stop(None);
        }
        self.resume(tid, 0);
    }

    /// For the timeline: the wait `ic` of thread `tid`, which returned
    /// `shown`, reaped a child (a death reported without `WNOWAIT`).
    fn note_reap(&mut self, tid: i32, ic: &InCall, shown: i64) {
        const CLD_EXITED: i32 = 1;
        const CLD_DUMPED: i32 = 3;
        let mem = Memory::new(tid);
        let child = match ic.nr {
            libc::SYS_wait4 if shown > 0 && ic.args[2] as i32 & libc::WNOWAIT == 0 => {
                // The status word, when the program asked for it.
                let st = if ic.args[1] != 0 {
                    mem.read_i32(ic.args[1]).unwrap_or(0)
                } else {
                    0
                };
                let death = st & 0x7f != 0x7f && st != 0xffff;
                death.then_some(shown as i32)
            }
            libc::SYS_waitid
                if shown == 0 && ic.args[2] != 0 && ic.args[3] as i32 & libc::WNOWAIT == 0 =>
            {
                // si_code lies at offset 8 of the siginfo.
                let code = mem.read_i32(ic.args[2] + 8).unwrap_or(0);
                let pid = mem.read_i32(ic.args[2] + SI_PID_OFFSET).unwrap_or(0);
                ((CLD_EXITED..=CLD_DUMPED).contains(&code) && pid > 0).then_some(pid)
            }
            _ => None,
        };
        // In the root namespace's numbers.
        let task = self.map.task(tid);
        let k = &self.k;
        let reaper = task
            .and_then(|t| k.getpid(t).ok().map(|p| in_root(k, t, p)))
            .unwrap_or_else(|| self.map.to_virtual(tid));
        let child = match task {
            Some(t) => child.map(|c| in_root(k, t, c)),
            None => child,
        };
        if let (Some(c), Some(t)) = (child, &mut self.timeline) {
            t.reap(reaper, c);
        }
    }

    /// The clone family's return value for the program: the child's
    /// virtual pid, or the core's refusal (the real child is killed: the
    /// core could not number it).
    fn clone_result(&mut self, tid: i32, ic: &InCall, real: i64) -> i64 {
        if let Some(e) = ic.refused {
            return -(e.as_i32() as i64);
        }
        if real >= 0 {
            return ic.child.map_or(0, i64::from);
        }
        // No child: the core must refuse as well.
        if let (Some(task), Ok(call)) = (self.map.task(tid), &ic.call) {
            if self.opts.check && !is_restart(real) && self.alive(task) {
                let r = dispatch(&mut self.k, task, call);
                self.report.checked += 1;
                if let Ok(SysRet::Child {
                    task: phantom, pid, ..
                }) = r
                {
                    self.diverge(
                        tid,
                        ic.name.to_string() + "()",
                        show_ret(real),
                        format!("= {pid}"),
                    );
                    // Undo: the child Linux did not make dies and is reaped.
                    let _ = self.k.force_fatal_signal(phantom, libc::SIGKILL, false);
                    let _ = self.k.wait4(task, pid, libc::__WALL);
                } else if agrees(&r, real) == Some(false) {
                    self.diverge(
                        tid,
                        ic.name.to_string() + "()",
                        show_ret(real),
                        show_core(&r),
                    );
                }
            }
        }
        real
    }

    /// The vfork parent of `child` is released: the child's exec
    /// (`exec_mm_release()`) or exit (`exit_mm_release()`) completed its
    /// vfork, whatever order the stops came in. The core must have the
    /// exec before the parent runs on (it may signal the child, whose
    /// handlers the exec reset). Stops of the child already waiting (its
    /// exec event, its death) are taken first; if none is, and the child
    /// is not dying, it is in its exec, past its point of no return: the
    /// core applies the exec now (its filename and argv, not known before
    /// the exec event, are set there: `comm` and the argument area are in
    /// flux in the real task too until its image is loaded). Waiting for
    /// the exec event instead would hold the parent while the child loads
    /// its program, which the two do at once natively.
    fn wait_vfork_release(&mut self, child: i32) {
        loop {
            if !self.vfork_children.contains(&child) {
                return;
            }
            let Some(task) = self.map.task(child).filter(|&t| self.alive(t)) else {
                // Its exit was applied at its seccomp stop.
                self.vfork_children.remove(&child);
                return;
            };
            let mut st: libc::c_int = 0;
            // SAFETY: waitpid writes the status to a local.
            let r = unsafe { libc::waitpid(child, &mut st, libc::__WALL | libc::WNOHANG) };
            if r == child {
                self.on_status(child, st);
                continue;
            }
            if r < 0 && nix::errno::Errno::last() != nix::errno::Errno::EINTR {
                self.vfork_children.remove(&child);
                return;
            }
            if r < 0 {
                continue;
            }
            // Its exit applied by the core (at its seccomp stop, or a fatal
            // signal's delivery), or released there.
            let exiting = self
                .map
                .task(child)
                .is_some_and(|t| self.k.is_exiting(t) != Ok(false));
            if exiting || super::lost::is_zombie(child) {
                // Dying (its exit applied at its seccomp stop, or a SIGKILL
                // from outside): its death report comes.
                return;
            }
            self.vfork_children.remove(&child);
            let comm = self.k.comm(task).map(|c| c.to_vec()).unwrap_or_default();
            let call = taskcore::sys::Syscall::Execve {
                filename: String::from_utf8_lossy(&comm).into_owned(),
                argv: None,
            };
            // The timeline gets the exec at its event, with its name.
            let timeline = self.timeline.take();
            self.apply_exec(child, Ok(call));
            self.timeline = timeline;
            if let Some(t) = self.threads.get_mut(&child) {
                t.exec_applied = true;
            }
            return;
        }
    }

    /// Rewrites the `si_pid` the kernel wrote at `infop` (waitid's,
    /// rt_sigtimedwait's) to the virtual pid.
    fn renumber_si_pid(&mut self, tid: i32, infop: u64) {
        let mem = Memory::new(tid);
        if let Ok(p) = mem.read_i32(infop + SI_PID_OFFSET) {
            if p > 0 {
                // In the receiver's namespace, as the kernel wrote it.
                let v = match self.map.task(tid) {
                    Some(t) => self.map.to_virtual_for(&self.k, t, p),
                    None => self.map.to_virtual(p),
                };
                let _ = mem.write_i32(infop + SI_PID_OFFSET, v);
            }
        }
    }

    /// Applies the call to the core (unless it was at the entry) and
    /// compares the answers; `shown` is the real result, renumbered.
    pub(super) fn check(&mut self, tid: i32, ic: InCall, shown: i64) {
        let Some(task) = self.map.task(tid) else {
            return;
        };
        if let Some(&(_, _, arg)) = crate::calls::MASKED_WAITS.iter().find(|w| w.0 == ic.nr) {
            // Interrupted, its mask stays until the signal is delivered:
            // the core gets it as rt_sigsuspend's.
            if is_restart(shown) && self.alive(task) {
                let mem = Memory::new(tid);
                let ptr = if ic.nr == libc::SYS_pselect6 {
                    mem.read_u64(ic.args[arg]).unwrap_or(0)
                } else {
                    ic.args[arg]
                };
                if let (true, Ok(mask)) = (ptr != 0, mem.read_u64(ptr)) {
                    let _ = self.k.rt_sigsuspend(task, mask);
                }
            }
            self.report
                .not_checked("wait with a signal mask (not modelled)");
            return;
        }
        if ic.nr == libc::SYS_rt_sigsuspend {
            // It only ends when a signal interrupts it: the core's sleep
            // ends now, or at the delivery stop if the signal comes from
            // outside (not yet sent to the core).
            if let (Ok(call), true) = (&ic.call, self.alive(task)) {
                let r = dispatch(&mut self.k, task, call);
                if matches!(r, Ok(SysRet::SigWait(taskcore::SigWait::WouldBlock))) {
                    if let Some(t) = self.threads.get_mut(&tid) {
                        t.suspended = Some(call.clone());
                    }
                }
            }
            self.report
                .not_checked("rt_sigsuspend (ends with a signal)");
            return;
        }
        if is_restart(shown) {
            self.report.not_checked("interrupted by a signal");
            return;
        }
        // A setpgid or setsid: the process it changes, as it was.
        let pgrp_before = match ic.early {
            None => self.pgrp_target(task, ic.nr, &ic.args),
            Some(_) => None,
        };
        let r = match ic.early.clone() {
            Some(r) => r,
            None => {
                let Ok(call) = &ic.call else {
                    self.report.not_checked("call not modelled by the core");
                    return;
                };
                if !self.alive(task) {
                    self.report
                        .not_checked("caller already exiting in the core");
                    return;
                }
                if shown < 0 && matches!(ic.nr, libc::SYS_setsid | libc::SYS_setpgid) {
                    // Refused for real: another thread's setpgid or setsid
                    // in flight that names this process (it made it a
                    // group leader, say) may have come first; it is placed
                    // now, inside its window (supervisor/window.rs).
                    let own = self.k.getpid(task).unwrap_or(0);
                    let target = match ic.nr {
                        libc::SYS_setpgid if ic.args[0] as i32 != 0 => ic.args[0] as i32,
                        _ => own,
                    };
                    self.pull_in_flight(tid, target);
                }
                // Or it ran before another's call the core applied since
                // its entry (that setpgid made the group it joins, say): the
                // core's refusal at the entry, which changes nothing, is
                // that moment's.
                let refused_at_entry = shown < 0
                    && matches!(ic.nr, libc::SYS_setsid | libc::SYS_setpgid)
                    && ic
                        .entry_read
                        .as_ref()
                        .is_some_and(|e| agrees(e, shown) == Some(true));
                if refused_at_entry {
                    ic.entry_read.clone().unwrap_or(Err(taskcore::Errno::EPERM))
                } else {
                    match self.wait_in_window(task, call, &ic, shown) {
                        Some(r) => r,
                        None => dispatch(&mut self.k, task, call),
                    }
                }
            }
        };
        if r == Err(taskcore::Errno::ESRCH) && shown != -(libc::ESRCH as i64) {
            let tgid = self.threads.get(&tid).map_or(0, |t| t.tgid);
            if self.dying.contains_key(&tgid) {
                // Its group's death was applied to the core at another
                // thread's stop, before the kernel's group exit reached
                // this thread: when this call ran is not known.
                self.report.not_checked(
                    "caller's group already exiting in the core (applied before the kernel)",
                );
                return;
            }
        }
        self.report.checked += 1;
        let mut ok = agrees(&r, shown);
        if ok == Some(false)
            && shown == -(libc::ESRCH as i64)
            && sends_signal(ic.nr)
            && self.target_gone_in_window(task, &ic)
        {
            // Applied at the entry to a zombie that was reaped before the
            // kernel ran the call (supervisor/window.rs).
            ok = Some(true);
        }
        if ok == Some(false) && ic.nr == libc::SYS_getppid && self.ran_before_hand_on(task, shown) {
            // The parent the kernel still gave, before an exit in flight
            // handed this process on (supervisor/handon.rs).
            ok = Some(true);
        }
        if let (Some(true), Ok(_), Ok(call), Some((target, before))) =
            (ok, &r, &ic.call, pgrp_before)
        {
            // Kept with the calls its window overlaps (supervisor/reorder.rs).
            let call = call.clone();
            self.note_pgrp_call(task, target, before, &call, ic.entry_seq);
        }
        // wait4's status word.
        if let (Some(true), Ok(SysRet::Wait(WaitOutcome::Reported(w)))) = (ok, &r) {
            if ic.args[1] != 0 {
                if let Ok(st) = Memory::new(tid).read_i32(ic.args[1]) {
                    if st != w.status {
                        ok = Some(false);
                    }
                }
            }
        }
        // waitid's si_pid (already renumbered).
        if let (Some(true), Ok(SysRet::Waitid(out))) = (ok, &r) {
            if ic.args[2] != 0 {
                let got = Memory::new(tid)
                    .read_i32(ic.args[2] + SI_PID_OFFSET)
                    .unwrap_or(0);
                let want = match out {
                    WaitOutcome::Reported(w) => w.pid,
                    _ => 0,
                };
                if got != want {
                    ok = Some(false);
                }
            }
        }
        if let (Some(false), Ok(call)) = (ok, &ic.call) {
            // A wait for a process group that reaped nothing: a setpgid
            // or setsid in flight that moves the caller or one of its
            // children may have run first for real (it changes which
            // children the wait selects); placed now, inside its window,
            // and the answer taken again.
            let by_group = matches!(
                *call,
                Syscall::Wait4 { pid, .. } if pid == 0 || (pid < -1 && pid != i32::MIN)
            ) || matches!(
                *call,
                Syscall::Waitid {
                    idtype: taskcore::uapi::P_PGID,
                    ..
                }
            );
            let reaped_none = matches!(
                r,
                Err(_)
                    | Ok(SysRet::Wait(WaitOutcome::NothingYet)
                        | SysRet::Waitid(WaitOutcome::NothingYet))
            );
            if by_group && reaped_none {
                let own = self.k.getpid(task).unwrap_or(0);
                let tgid = self.threads.get(&tid).map_or(0, |t| t.tgid);
                let own0 = in_root(&self.k, task, own);
                let mut targets = vec![own];
                targets.extend(
                    self.core_children_of(tgid, own0)
                        .into_iter()
                        .map(|c| crate::pidmap::in_ns_of(&self.k, task, c)),
                );
                let pulled: usize = targets
                    .into_iter()
                    .filter_map(|t| self.pull_in_flight(tid, t))
                    .sum();
                if pulled > 0 {
                    let call = call.clone();
                    let again = dispatch(&mut self.k, task, &call);
                    if agrees(&again, shown) == Some(true) {
                        return;
                    }
                }
            }
        }
        if ok == Some(false) && reads_only(ic.nr) {
            // The kernel's answer at the start of its window: a call
            // applied since (at its exit stop) ran after it.
            if ic
                .entry_read
                .as_ref()
                .is_some_and(|e| agrees(e, shown) == Some(true))
            {
                return;
            }
            // Another thread's call in flight (entered, not yet exited) may
            // have taken effect first for real: each one's effect is placed
            // now, inside its window, and the answer taken again.
            let own = self.k.getpid(task).unwrap_or(0);
            let target = match ic.nr {
                libc::SYS_getpgid | libc::SYS_getsid if ic.args[0] as i32 != 0 => ic.args[0] as i32,
                libc::SYS_getppid => 0,
                _ => own,
            };
            if let (Some(_), Ok(call)) = (self.pull_in_flight(tid, target), &ic.call) {
                let again = dispatch(&mut self.k, task, call);
                if agrees(&again, shown) == Some(true) {
                    return;
                }
            }
            // Or calls already applied, in another order than the
            // kernel's (supervisor/reorder.rs).
            if let (true, Ok(call)) = (target > 0, ic.call.clone()) {
                let same = |k: &mut taskcore::Kernel| {
                    agrees(&dispatch(k, task, &call), shown) == Some(true)
                };
                if self.reorder_pgrp_calls(target, same) {
                    return;
                }
            }
        }
        dline!(
            self,
            "[debug]   exit {} = {shown}, core {r:?}: {ok:?}",
            ic.name
        );
        match ok {
            None => self.report.not_checked("result not comparable"),
            Some(true) => {}
            Some(false) => {
                let call = format!("{}({})", ic.name, show_args(ic.nr, &ic.args));
                let real = self.describe_real(tid, &ic, shown);
                self.diverge(tid, call, real, describe_core(&r));
            }
        }
    }
}
