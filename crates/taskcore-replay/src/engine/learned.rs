//! State from before the trace, learned at its first read.
//!
//! A traced process starts with per-task state the recording never shows
//! being set: it was set by strace's shell, by `nohup`, by a login, by
//! the container. The emulation starts every process of the world with
//! its own defaults (SIG_DFL, an empty mask, init's limits, capability
//! sets, groups). One mechanism handles every such attribute
//! ([`Attr`]): an attribute is *unknown* until the trace sets it or shows
//! it; the first call that shows its old value while it is unknown is a
//! *read of state from before the trace*: the emulation takes the shown
//! value (counted under `learned` when it differed), the value is not
//! compared, and the attribute is known from then on; every later read
//! is compared. A read whose value strace did not print leaves it
//! unknown. What is known is inherited at clone (a new process knows what
//! its creator's process knew, a new thread what its creator thread knew
//! of its own mask) and kept across exec (the calls that change an
//! attribute at exec say so: handlers become SIG_DFL, which the core
//! does; the capability sets stay known only when exec computes them
//! from known state, see [`caps`](super::caps)).
//!
//! The attribute and the kernel call that shows it:
//! - a signal's disposition: `rt_sigaction`'s old action (process-wide,
//!   `sighand`);
//! - the signal mask: `rt_sigprocmask`'s old mask (per thread,
//!   `blocked`);
//! - a resource limit: `prlimit64`/`getrlimit`/`setrlimit`'s old limits
//!   (process-wide, `signal->rlim`);
//! - the effective, permitted and inheritable capability sets: `capget`,
//!   or a successful `capset` (which the emulation cannot check against
//!   unknown permitted sets); a bounding-set bit: `PR_CAPBSET_READ`; an
//!   ambient bit: `PR_CAP_AMBIENT_IS_SET`; the securebits:
//!   `PR_GET_SECUREBITS` (`PR_GET_KEEPCAPS` shows one of them); the
//!   no_new_privs flag: `PR_GET_NO_NEW_PRIVS`;
//! - the supplementary groups: `getgroups`;
//! - the program break, which exec places at random: the image's first
//!   `brk` (unknown again after each exec; see [`memory`](super::memory)).
//!
//! The credentials' ids are not among them: the emulated world runs as
//! root, as the recordings were made, and `get*id` is checked. A trace
//! that shows no id at all (no `get*id`, no `set*id` call) may have been
//! made under another uid (`qq/nproc`, made as uid 1000 for
//! `RLIMIT_NPROC`): there a siginfo's `si_uid`, the sender's uid, is not
//! compared (see [`Learned::ids_shown`](super::known::Learned::ids_shown)).
//!
//! Each attribute's calls keep the rest of their checks (an
//! `rt_sigaction` that also sets an action is checked as a set; a read
//! that shows nothing else is counted as not checkable, with the reason
//! [`Attr::why`]).

use taskcore::TaskId;

use super::known::{Attr, Known, Read};
use super::Engine;

impl Engine {
    /// The task whose entry holds `a` for `t`.
    fn learned_key(&self, t: TaskId, a: Attr) -> TaskId {
        if a.per_thread() {
            t
        } else {
            self.leader_of(t).unwrap_or(t)
        }
    }

    /// Whether the trace has set or shown `a` of task `t`.
    pub(super) fn attr_known(&self, t: TaskId, a: Attr) -> bool {
        let key = self.learned_key(t, a);
        self.learned.by_task.get(&key).is_some_and(|k| k.has(a))
    }

    /// The trace set `a` of `t` (or, `on` false, made it depend on state
    /// it does not show again).
    pub(super) fn set_known(&mut self, t: TaskId, a: Attr, on: bool) {
        let key = self.learned_key(t, a);
        self.learned.by_task.entry(key).or_default().set(a, on);
    }

    /// A call of `t` showed the old value of `a` (`shown`: strace printed
    /// a value the emulation can take). Known: [`Read::Known`]. Unknown
    /// and shown: `take` writes the value into the emulation and says
    /// whether it changed anything (then counted under `learned`), and the
    /// attribute is known from now on: [`Read::Learned`]. Otherwise
    /// [`Read::Unknown`].
    pub(super) fn first_read(
        &mut self,
        t: TaskId,
        a: Attr,
        shown: bool,
        take: impl FnOnce(&mut Engine) -> bool,
    ) -> Read {
        if self.attr_known(t, a) {
            return Read::Known;
        }
        if !shown {
            return Read::Unknown;
        }
        self.set_known(t, a, true);
        if take(self) {
            *self.stats.learned.entry(a.what().into()).or_default() += 1;
        }
        Read::Learned
    }

    /// A new task `child` created by `parent` (`thread`: in its process):
    /// a new process knows what its creator's process knew; the new task
    /// knows its mask when its creator knew its own (the mask is copied).
    pub(super) fn learned_after_clone(&mut self, parent: TaskId, child: TaskId, thread: bool) {
        let mut k = if thread {
            Known::default()
        } else {
            let pl = self.leader_of(parent).unwrap_or(parent);
            self.learned
                .by_task
                .get(&pl)
                .copied()
                .unwrap_or_default()
                .process_part()
        };
        k.set(Attr::Mask, self.attr_known(parent, Attr::Mask));
        // Nothing known takes no entry (a trace that shows none of this
        // state costs nothing per task).
        if k == Known::default() {
            self.learned.by_task.remove(&child);
        } else {
            self.learned.by_task.insert(child, k);
        }
    }

    /// Forgets tasks that are gone.
    pub(super) fn sweep_learned(&mut self) {
        let k = &self.k;
        self.learned.by_task.retain(|t, _| k.getpid(*t).is_ok());
    }
}
