//! State a traced process had from before the trace: signal dispositions
//! (a `nohup` shell starts with SIGHUP ignored; a background job of a
//! non-interactive shell with SIGINT and SIGQUIT ignored) and signal masks.
//! The emulation starts every process of the world with SIG_DFL and an
//! empty mask; the recording shows the truth at the first call that prints
//! it. The first `rt_sigaction` old action of a signal in a process, and
//! the first `rt_sigprocmask` old mask of a thread, are therefore learned
//! (the emulation takes them, counted under "learned", not checked) while
//! nothing in the trace has set or shown them; from then on they are
//! checked. What is known is inherited at fork (a child's dispositions and
//! mask are its creator's) and kept across exec (handlers become SIG_DFL,
//! known).

use std::collections::{HashMap, HashSet};

use taskcore::sys::SysRet;
use taskcore::sys::Syscall;
use taskcore::uapi::SIG_SETMASK;
use taskcore::{SigAction, SigHandler, TaskId};

use super::sigbit::bit;
use super::Engine;

/// What the trace has shown or set of each process's dispositions and each
/// thread's mask.
#[derive(Clone, Debug, Default)]
pub(crate) struct Inherited {
    /// Per process (its leader), the signals (bit `sig - 1`) whose
    /// disposition is known.
    actions: HashMap<TaskId, u64>,
    /// Threads whose mask is known.
    masks: HashSet<TaskId>,
}

impl Engine {
    /// A new task `child` created by `parent`: it knows what its creator
    /// knew (a thread shares its process's dispositions).
    pub(super) fn inherit_known(&mut self, parent: TaskId, child: TaskId, thread: bool) {
        if !thread {
            if let (Ok(pl), Ok(cl)) = (self.leader_of(parent), self.leader_of(child)) {
                let known = self.inherited.actions.get(&pl).copied().unwrap_or(0);
                self.inherited.actions.insert(cl, known);
                if self.sig.signalfd.contains(&pl) {
                    self.sig.signalfd.insert(cl);
                }
            }
        }
        if self.inherited.masks.contains(&parent) {
            self.inherited.masks.insert(child);
        } else {
            self.inherited.masks.remove(&child);
        }
    }

    /// Before `cur`'s rt_sigaction of `sig` whose old action strace printed
    /// as `old`: takes `old` as the process's disposition if the trace has
    /// neither set nor shown it yet. A handler is never inherited through
    /// exec, so only SIG_DFL and SIG_IGN are learned.
    pub(super) fn learn_action(&mut self, cur: TaskId, sig: i32, old: Option<SigHandler>) {
        let Ok(leader) = self.leader_of(cur) else {
            return;
        };
        let known = self.inherited.actions.entry(leader).or_insert(0);
        if *known & bit(sig) != 0 {
            return;
        }
        *known |= bit(sig);
        let Some(o @ (SigHandler::Default | SigHandler::Ignore)) = old else {
            return;
        };
        let now = self.sys(cur, &Syscall::RtSigaction { sig, act: None });
        if let Ok(SysRet::SigAction(prev)) = now {
            if prev.handler != o {
                let act = SigAction {
                    handler: o,
                    ..SigAction::DEFAULT
                };
                if self
                    .sys(
                        cur,
                        &Syscall::RtSigaction {
                            sig,
                            act: Some(act),
                        },
                    )
                    .is_ok()
                {
                    *self
                        .stats
                        .learned
                        .entry("rt_sigaction old action".into())
                        .or_default() += 1;
                }
            }
        }
    }

    /// Marks `sig`'s disposition in `cur`'s process as known (set by the
    /// trace).
    pub(super) fn known_action(&mut self, cur: TaskId, sig: i32) {
        if let Ok(leader) = self.leader_of(cur) {
            *self.inherited.actions.entry(leader).or_insert(0) |= bit(sig);
        }
    }

    /// Before `cur`'s rt_sigprocmask whose old mask strace printed as
    /// `old`: takes it as the thread's mask if the trace has neither set
    /// nor shown it yet. `how` is the call's: SIG_SETMASK makes it known.
    pub(super) fn learn_mask(&mut self, cur: TaskId, how: i32, set: bool, old: Option<u64>) {
        if !self.inherited.masks.insert(cur) {
            return;
        }
        let Some(o) = old else {
            if !(set && how == SIG_SETMASK) {
                // Still unknown: only part of it was set.
                self.inherited.masks.remove(&cur);
            }
            return;
        };
        let now = self.sys_sigset(cur, &Syscall::RtSigprocmask { how, set: None });
        if now.is_ok_and(|m| m != o)
            && self
                .sys_sigset(
                    cur,
                    &Syscall::RtSigprocmask {
                        how: SIG_SETMASK,
                        set: Some(o),
                    },
                )
                .is_ok()
        {
            *self
                .stats
                .learned
                .entry("rt_sigprocmask old mask".into())
                .or_default() += 1;
        }
    }

    /// Forgets tasks that are gone.
    pub(super) fn sweep_inherited(&mut self) {
        let k = &self.k;
        self.inherited.actions.retain(|t, _| k.getpid(*t).is_ok());
        self.inherited.masks.retain(|t| k.getpid(*t).is_ok());
        self.sig.signalfd.retain(|t| k.getpid(*t).is_ok());
    }
}
