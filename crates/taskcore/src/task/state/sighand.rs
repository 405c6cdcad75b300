//! A signal's action ([`SigAction`], [`SigHandler`]), a thread group's
//! handler kinds as bit masks ([`SigHand`], read on every send and exit),
//! and the per-process table of the actions' details (`sighand->action[]`).
//!
//! # Linux
//! include/linux/signal_types.h `struct k_sigaction`; kernel/signal.c
//! `sig_handler_ignored()`.

use std::sync::Arc;

use crate::uapi::{sig_kernel_ignore, NSIG, SA_NOCLDSTOP, SA_NOCLDWAIT};

/// A signal's handler as `rt_sigaction` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigHandler {
    /// `SIG_DFL`: the default action.
    Default,
    /// `SIG_IGN`: discard the signal.
    Ignore,
    /// A user handler, at [`SigAction::addr`].
    Handler,
}

/// A signal action (`struct sigaction`, x86_64 `rt_sigaction` layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigAction {
    /// The handler.
    pub handler: SigHandler,
    /// `SA_*` flags. `rt_sigaction` keeps only Linux's `UAPI_SA_FLAGS`
    /// ([`crate::uapi::UAPI_SA_FLAGS`]) and clears the others.
    pub flags: u64,
    /// Signals blocked while the handler runs (`sa_mask`, bit `sig - 1`);
    /// SIGKILL and SIGSTOP are removed when it is set.
    pub mask: u64,
    /// The handler's address in the emulated program (`sa_handler`), kept
    /// and returned as given; 0 for `SIG_DFL`/`SIG_IGN`.
    pub addr: u64,
    /// `sa_restorer`, kept and returned as given.
    pub restorer: u64,
}

impl SigAction {
    /// `SIG_DFL` with no flags.
    pub const DEFAULT: SigAction = SigAction {
        handler: SigHandler::Default,
        flags: 0,
        mask: 0,
        addr: 0,
        restorer: 0,
    };

    /// An action with `handler` and `flags`, no mask, no addresses.
    pub const fn new(handler: SigHandler, flags: u64) -> SigAction {
        SigAction {
            handler,
            flags,
            mask: 0,
            addr: 0,
            restorer: 0,
        }
    }
}

impl Default for SigAction {
    fn default() -> Self {
        SigAction::DEFAULT
    }
}

/// The parts of an action beyond its handler kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ActionDetail {
    pub(crate) flags: u64,
    pub(crate) mask: u64,
    pub(crate) addr: u64,
    pub(crate) restorer: u64,
}

/// The 64 actions' details, index `sig - 1`.
pub(crate) type SigActions = Arc<[ActionDetail; 64]>;

/// Signal dispositions of a thread group, as far as the lifecycle needs them.
///
/// Bit `sig - 1` of each mask describes signal `sig`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SigHand {
    /// Signals set to `SIG_IGN`.
    pub(crate) ignored: u64,
    /// Signals with a handler.
    pub(crate) handled: u64,
    /// Handled signals whose handler is reset on delivery (`SA_RESETHAND`).
    pub(crate) resethand: u64,
    /// `SA_NOCLDSTOP | SA_NOCLDWAIT` bits of SIGCHLD's action.
    pub(crate) chld_flags: u64,
}

/// A thread group's dispositions as [`SharedSigHand`] stores them: the
/// masks, and the actions' details while one is not zero.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Dispositions {
    hand: SigHand,
    actions: Option<SigActions>,
}

/// A thread group's [`SigHand`] and the details of its actions
/// (Linux's `sighand_struct`), shared copy-on-write between the groups
/// that have the same (a fork copies a pointer, not 32 bytes of masks and
/// another pointer); `None` while every mask and detail is zero, as almost
/// every process's are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SharedSigHand(Option<Arc<Dispositions>>);

impl SharedSigHand {
    /// The masks (all zero when none are stored).
    #[inline(always)]
    pub(crate) fn get(&self) -> SigHand {
        match &self.0 {
            Some(d) => d.hand,
            None => SigHand::default(),
        }
    }

    /// The 64 actions' details (index `sig - 1`), `None` while all are
    /// zero.
    #[inline]
    pub(crate) fn actions(&self) -> Option<&[ActionDetail; 64]> {
        self.0.as_deref().and_then(|d| d.actions.as_deref())
    }

    fn make_mut_all(&mut self) -> &mut Dispositions {
        Arc::make_mut(self.0.get_or_insert_with(Default::default))
    }

    /// The masks to change: made (zero) if none are stored, copied first
    /// if another group shares them.
    #[inline]
    pub(crate) fn make_mut(&mut self) -> &mut SigHand {
        &mut self.make_mut_all().hand
    }

    /// The details to change, as [`Self::make_mut`]; `None` while all are
    /// zero (store a table to change one).
    #[inline]
    pub(crate) fn actions_mut(&mut self) -> &mut Option<SigActions> {
        &mut self.make_mut_all().actions
    }

    /// Drops what is stored if it is all zero again.
    #[inline]
    pub(crate) fn shrink(&mut self) {
        if self
            .0
            .as_deref()
            .is_some_and(|d| d.hand == SigHand::default() && d.actions.is_none())
        {
            self.0 = None;
        }
    }
}

impl SigHand {
    pub(crate) fn bit(sig: i32) -> u64 {
        debug_assert!((1..=NSIG).contains(&sig));
        1u64 << (sig - 1)
    }

    pub(crate) fn is_ignored(&self, sig: i32) -> bool {
        self.ignored & Self::bit(sig) != 0
    }

    pub(crate) fn is_handled(&self, sig: i32) -> bool {
        self.handled & Self::bit(sig) != 0
    }

    /// The parent does not want zombies (`SIG_IGN` or `SA_NOCLDWAIT`).
    pub(crate) fn ignoring_children(&self) -> bool {
        self.is_ignored(crate::uapi::SIGCHLD) || self.chld_flags & SA_NOCLDWAIT != 0
    }

    pub(crate) fn nocldstop(&self) -> bool {
        self.chld_flags & SA_NOCLDSTOP != 0
    }
}

impl SigHand {
    /// `sig_handler_ignored()`: the action discards `sig` (`SIG_IGN`, or
    /// `SIG_DFL` of a signal whose default is to ignore).
    pub(crate) fn handler_ignored(&self, sig: i32) -> bool {
        self.is_ignored(sig) || (!self.is_handled(sig) && sig_kernel_ignore(sig))
    }
}
