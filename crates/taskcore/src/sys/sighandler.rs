//! The one conversion between a raw `sa_handler` value and
//! [`SigHandler`] (with [`SigAction::addr`]), for every decoder: the raw
//! decoder here, and `taskcore-strace`'s decoding of rt_sigaction lines.

use crate::task::state::sighand::{SigAction, SigHandler};

/// `SIG_DFL`'s `sa_handler` value.
pub const SIG_DFL: u64 = 0;
/// `SIG_IGN`'s `sa_handler` value.
pub const SIG_IGN: u64 = 1;

impl SigHandler {
    /// The handler a `sa_handler` value names: [`SIG_DFL`] (0) is
    /// [`SigHandler::Default`], [`SIG_IGN`] (1) [`SigHandler::Ignore`],
    /// any other value a function ([`SigHandler::Handler`]; Linux checks
    /// no address, `SIG_ERR` included).
    ///
    /// # Examples
    /// ```
    /// use taskcore::SigHandler;
    /// assert_eq!(SigHandler::from_sa_handler(1), SigHandler::Ignore);
    /// assert_eq!(SigHandler::from_sa_handler(0x401000), SigHandler::Handler);
    /// ```
    ///
    /// # Linux
    /// include/uapi/asm-generic/signal-defs.h; `sig_handler_ignored()`.
    pub const fn from_sa_handler(sa_handler: u64) -> SigHandler {
        match sa_handler {
            SIG_DFL => SigHandler::Default,
            SIG_IGN => SigHandler::Ignore,
            _ => SigHandler::Handler,
        }
    }
}

impl SigAction {
    /// The action a `struct kernel_sigaction` holds: the handler from
    /// `sa_handler` ([`SigHandler::from_sa_handler`]), whose value is kept
    /// in [`SigAction::addr`] for a function (0 otherwise), and the other
    /// fields as given (`rt_sigaction` filters the flags and mask).
    ///
    /// # Examples
    /// ```
    /// use taskcore::{SigAction, SigHandler};
    /// let a = SigAction::from_raw(0x401000, 0x0400_0000, 0, 0x402000);
    /// assert_eq!((a.handler, a.addr), (SigHandler::Handler, 0x401000));
    /// assert_eq!(SigAction::from_raw(1, 0, 0, 0).addr, 0);
    /// ```
    ///
    /// # Linux
    /// `struct kernel_sigaction` (x86_64: `sa_handler`, `sa_flags`,
    /// `sa_restorer`, `sa_mask`).
    pub const fn from_raw(sa_handler: u64, flags: u64, mask: u64, restorer: u64) -> SigAction {
        let handler = SigHandler::from_sa_handler(sa_handler);
        SigAction {
            handler,
            flags,
            mask,
            addr: match handler {
                SigHandler::Handler => sa_handler,
                _ => 0,
            },
            restorer,
        }
    }
}
