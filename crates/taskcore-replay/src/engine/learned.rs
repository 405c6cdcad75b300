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
//! compared (see [`Learned::ids_shown`]).
//!
//! Each attribute's calls keep the rest of their checks (an
//! `rt_sigaction` that also sets an action is checked as a set; a read
//! that shows nothing else is counted as not checkable, with the reason
//! [`Attr::why`]).

use rustc_hash::FxHashMap as HashMap;

use taskcore::TaskId;

use super::sigbit::bit;
use super::Engine;

/// A per-task attribute whose value may come from before the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attr {
    /// The disposition of a signal (`1..=64`), per process.
    Action(i32),
    /// The thread's signal mask.
    Mask,
    /// A resource limit (`RLIMIT_*`), per process.
    Limit(u32),
    /// The effective, permitted and inheritable capability sets.
    CapSets,
    /// One bounding-set capability (`0..64`).
    Bset(u64),
    /// One ambient-set capability (`0..64`).
    Ambient(u64),
    /// The securebits.
    Securebits,
    /// `SECBIT_KEEP_CAPS` alone (known with the securebits too).
    Keepcaps,
    /// The no_new_privs flag.
    NoNewPrivs,
    /// The supplementary groups.
    Groups,
    /// The program break exec placed at random (unknown again after each
    /// exec).
    Brk,
}

bitflags::bitflags! {
    /// The attributes [`Known`] holds as one bit each.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Flags: u8 {
        const MASK = 1;
        const CAP_SETS = 2;
        const SECUREBITS = 4;
        const KEEPCAPS = 8;
        const NO_NEW_PRIVS = 16;
        const GROUPS = 32;
        const BRK = 64;
    }
}

impl Attr {
    /// The bit of a one-bit attribute in [`Known`]'s flags (`None` for
    /// those known per signal, limit or capability).
    fn flag(self) -> Option<Flags> {
        Some(match self {
            Attr::Mask => Flags::MASK,
            Attr::CapSets => Flags::CAP_SETS,
            Attr::Securebits => Flags::SECUREBITS,
            Attr::Keepcaps => Flags::KEEPCAPS,
            Attr::NoNewPrivs => Flags::NO_NEW_PRIVS,
            Attr::Groups => Flags::GROUPS,
            Attr::Brk => Flags::BRK,
            Attr::Action(_) | Attr::Limit(_) | Attr::Bset(_) | Attr::Ambient(_) => return None,
        })
    }

    /// What `learned` counts a first read that changed the emulation as.
    pub(super) fn what(self) -> &'static str {
        match self {
            Attr::Action(_) => "rt_sigaction old action",
            Attr::Mask => "rt_sigprocmask old mask",
            Attr::Limit(_) => "resource limits",
            Attr::CapSets => "capability sets",
            Attr::Bset(_) => "bounding set",
            Attr::Ambient(_) => "ambient set",
            Attr::Securebits => "securebits",
            Attr::Keepcaps => "keepcaps",
            Attr::NoNewPrivs => "no_new_privs",
            Attr::Groups => "supplementary groups",
            Attr::Brk => "program break",
        }
    }

    /// Why a call that only read the attribute at its first read is not
    /// checkable.
    pub(super) fn why(self) -> String {
        format!("{}, learned at the first read", self.what())
    }

    /// Whether the attribute is one thread's (the mask) rather than its
    /// process's.
    fn per_thread(self) -> bool {
        self == Attr::Mask
    }
}

/// What the trace has set or shown of one task's attributes: for a
/// leader, its process's and its own mask; for another thread, its mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Known {
    /// Signals (bit `sig - 1`) whose disposition is known.
    actions: u64,
    /// `RLIMIT_*` (bit `resource`) known.
    limits: u32,
    /// Bounding-set capabilities known.
    bset: u64,
    /// Ambient-set capabilities known.
    ambient: u64,
    /// The one-bit attributes known.
    flags: Flags,
}

impl Known {
    fn has(&self, a: Attr) -> bool {
        let b64 = |set: u64, c: u64| cap_bit(c) & set != 0;
        match a {
            Attr::Action(sig) => self.actions & bit(sig) != 0,
            Attr::Limit(r) => 1u32.checked_shl(r).is_some_and(|b| self.limits & b != 0),
            Attr::Bset(c) => b64(self.bset, c),
            Attr::Ambient(c) => b64(self.ambient, c),
            // Known with the securebits too.
            Attr::Keepcaps => self.flags.intersects(Flags::SECUREBITS | Flags::KEEPCAPS),
            _ => a.flag().is_some_and(|f| self.flags.contains(f)),
        }
    }

    fn set(&mut self, a: Attr, on: bool) {
        fn put<T>(v: &mut T, b: T, on: bool)
        where
            T: Copy
                + std::ops::BitOr<Output = T>
                + std::ops::BitAnd<Output = T>
                + std::ops::Not<Output = T>,
        {
            *v = if on { *v | b } else { *v & !b };
        }
        match a {
            Attr::Action(sig) => put(&mut self.actions, bit(sig), on),
            Attr::Limit(r) => put(&mut self.limits, 1u32.checked_shl(r).unwrap_or(0), on),
            Attr::Bset(c) => put(&mut self.bset, cap_bit(c), on),
            Attr::Ambient(c) => put(&mut self.ambient, cap_bit(c), on),
            _ => {
                if let Some(f) = a.flag() {
                    self.flags.set(f, on);
                }
            }
        }
    }

    /// The process-wide part (all but the mask).
    fn process_part(self) -> Known {
        Known {
            flags: self.flags - Flags::MASK,
            ..self
        }
    }
}

/// Capability `c`'s bit (none past 63).
fn cap_bit(c: u64) -> u64 {
    u32::try_from(c)
        .ok()
        .and_then(|c| 1u64.checked_shl(c))
        .unwrap_or(0)
}

/// Per task (a leader for process attributes, any thread for its mask),
/// what is known.
#[derive(Clone, Debug, Default)]
pub(crate) struct Learned {
    by_task: HashMap<TaskId, Known>,
    /// The trace has shown or set a credential id (a `get*id` or
    /// `set*id` call): from then on a siginfo's `si_uid` is compared.
    pub(super) ids_shown: bool,
}

/// What a first read found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// The attribute was known: the caller compares the shown value.
    Known,
    /// It was not: the emulation took the shown value, not compared.
    Learned,
    /// It was not, and the call showed no usable value: still unknown.
    Unknown,
}

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
