//! Ordering where the supervisor cannot see it: a wait is answered by the
//! real kernel at some moment between its entry and exit stops (its
//! window), and other threads' calls may be in flight (entered, not yet
//! exited) at that moment. The core's answer is taken at a point of the
//! window that matches the real one, instead of at the exit stop alone.

use taskcore::sys::{dispatch, SysRet};
use taskcore::WaitOutcome;

use super::{InCall, Supervisor};
use crate::tracee::{Memory, SI_PID_OFFSET};

impl Supervisor {
    /// A wait is placed within its window: the real kernel answered at some
    /// moment between its entry and its exit, and the core's answer at the
    /// entry (`ic.entry_peek`) or now may be that moment's. When the real
    /// answer is one of the two, the core applies that one (reaping the
    /// child the real kernel reported, if any); otherwise `None` (applied as
    /// it is now, and compared).
    pub(super) fn wait_in_window(
        &mut self,
        task: taskcore::TaskId,
        call: &taskcore::sys::Syscall,
        ic: &InCall,
        shown: i64,
    ) -> Option<taskcore::sys::SysResult> {
        use taskcore::sys::Syscall;
        let entry = ic.entry_peek?;
        let now = self.peek_wait(task, call)?;
        let real_child = match (call, shown) {
            (Syscall::Wait4 { .. }, v) if v > 0 => Some(v as i32),
            (Syscall::Waitid { .. }, 0) if ic.args[2] != 0 => {
                let p = Memory::new(self.map.tid_of_task(task)?)
                    .read_i32(ic.args[2] + SI_PID_OFFSET)
                    .ok()?;
                (p > 0).then_some(p)
            }
            (_, 0) => None,
            _ => return None,
        };
        if entry == now || (real_child != entry && real_child != now) {
            return None;
        }
        Some(match (real_child, call) {
            (None, Syscall::Wait4 { .. }) => Ok(SysRet::Wait(WaitOutcome::NothingYet)),
            (None, _) => Ok(SysRet::Waitid(WaitOutcome::NothingYet)),
            (Some(c), Syscall::Wait4 { options, .. }) => dispatch(
                &mut self.k,
                task,
                &Syscall::Wait4 {
                    pid: c,
                    options: *options,
                },
            ),
            (Some(c), Syscall::Waitid { options, .. }) => dispatch(
                &mut self.k,
                task,
                &Syscall::Waitid {
                    idtype: taskcore::uapi::P_PID,
                    id: c,
                    options: *options,
                },
            ),
            _ => return None,
        })
    }

    /// Applies, now, the calls in flight of other threads that change what
    /// the id queries answer (setpgid, setsid), inside their windows; their
    /// answers are kept for their syscall exits. `Some(n)`: `n` applied.
    pub(super) fn pull_in_flight(&mut self, tid: i32) -> Option<usize> {
        let pending: Vec<i32> = self
            .threads
            .iter()
            .filter(|(&t, th)| {
                t != tid
                    && th.in_call.as_ref().is_some_and(|c| {
                        c.early.is_none()
                            && c.call.is_ok()
                            && matches!(c.nr, libc::SYS_setpgid | libc::SYS_setsid)
                    })
            })
            .map(|(&t, _)| t)
            .collect();
        let mut n = 0;
        for t in pending {
            let Some(task) = self.map.task(t).filter(|&x| self.alive(x)) else {
                continue;
            };
            let Some(ic) = self.threads.get_mut(&t).and_then(|th| th.in_call.as_mut()) else {
                continue;
            };
            if let Ok(call) = &ic.call {
                ic.early = Some(dispatch(&mut self.k, task, call));
                n += 1;
            }
        }
        (n > 0).then_some(n)
    }
}
