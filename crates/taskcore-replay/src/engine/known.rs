//! What the trace has set or shown of state from before it, per task:
//! the attributes ([`Attr`]) and which of them are known ([`Known`],
//! [`Learned`]). How the engine learns them at their first read is
//! [`learned`](super::learned).

use rustc_hash::FxHashMap as HashMap;

use taskcore::TaskId;

use crate::sigbit::bit;

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
    pub(super) fn per_thread(self) -> bool {
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
    pub(super) fn has(&self, a: Attr) -> bool {
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

    pub(super) fn set(&mut self, a: Attr, on: bool) {
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
    pub(super) fn process_part(self) -> Known {
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
    pub(super) by_task: HashMap<TaskId, Known>,
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
