//! The per-call record of a return probe, [`KretprobeInstance`], and the
//! summary of an operation's result that its return handler sees,
//! [`RetVal`].

use crate::errno::{Errno, Result};
use crate::ix::TaskId;
use crate::probe::op::Op;

/// Number of `u64` words of per-call scratch in a [`KretprobeInstance`].
pub const PROBE_DATA_WORDS: usize = 4;

/// What an operation returned, as its syscall would.
///
/// # Linux
/// `regs_return_value(regs)` in a kretprobe handler: the value or `-errno`
/// in the return register. [`RetVal::WouldBlock`] has no Linux analogue:
/// there the syscall sleeps and returns later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetVal {
    /// The operation succeeded and returned this value: the child's pid in
    /// the caller's namespace for `clone`/`fork`/`vfork`; the reported pid
    /// (0 for `WNOHANG` with nothing to report) for `wait4`/`waitid`; the
    /// session id for `setsid`; the address for `mmap`/`mremap`; the new
    /// break for `brk` (addresses as the register holds them, so above
    /// `i64::MAX` they read negative); 0 otherwise.
    Value(i64),
    /// The operation failed with this errno and changed nothing.
    Err(Errno),
    /// A `wait4`/`waitid` without `WNOHANG` found nothing to report: the
    /// caller must sleep and retry (`WaitOutcome::WouldBlock`).
    WouldBlock,
}

impl RetVal {
    /// The value as a syscall result: `Some(Ok(v))` for `Value(v)`,
    /// `Some(Err(e))` for `Err(e)`, and `None` for `WouldBlock`, a call
    /// that has not returned in Linux's sense.
    ///
    /// # Linux
    /// `regs_return_value()` read as a signed `long`: `-errno` on failure.
    ///
    /// # Examples
    /// ```
    /// use taskcore::{probe::RetVal, Errno};
    /// assert_eq!(RetVal::Value(3).as_result(), Some(Ok(3)));
    /// assert_eq!(RetVal::Err(Errno::ECHILD).as_result(), Some(Err(Errno::ECHILD)));
    /// assert_eq!(RetVal::WouldBlock.as_result(), None);
    /// ```
    pub fn as_result(self) -> Option<Result<i64>> {
        match self {
            RetVal::Value(v) => Some(Ok(v)),
            RetVal::Err(e) => Some(Err(e)),
            RetVal::WouldBlock => None,
        }
    }

    /// Whether the operation failed.
    ///
    /// # Linux
    /// No Linux analogue.
    pub fn is_err(self) -> bool {
        matches!(self, RetVal::Err(_))
    }
}

/// The per-call record of a return probe: taken from the probe's pool when
/// a probed operation enters, handed to the entry handler, then to the
/// return handler once the operation returns, and given back.
///
/// The handlers may use [`data`](Self::data) freely; it is zeroed at
/// entry, so nothing leaks from one call to the next.
///
/// # Linux
/// `struct kretprobe_instance` (include/linux/kprobes.h): `task` is
/// [`current`](Self::current), `data[]` is [`data`](Self::data) with a
/// fixed `data_size` of `8 * PROBE_DATA_WORDS` bytes.
#[derive(Clone, Debug)]
pub struct KretprobeInstance {
    /// The probed operation.
    pub(crate) op: Op,
    /// The task the operation runs for.
    pub(crate) current: TaskId,
    /// `None` in the entry handler; the result in the return handler.
    pub(crate) ret: Option<RetVal>,
    /// Per-call scratch, zeroed at entry: what the entry handler stores for
    /// the return handler (a timestamp, an argument...).
    pub data: [u64; PROBE_DATA_WORDS],
}

impl KretprobeInstance {
    /// A blank instance (what a probe's pool is filled with).
    pub(crate) fn blank() -> KretprobeInstance {
        KretprobeInstance {
            op: Op::Clone,
            current: TaskId { idx: 0, gen: 0 },
            ret: None,
            data: [0; PROBE_DATA_WORDS],
        }
    }

    /// Prepares the instance for a call of `op` by `current`.
    #[inline]
    pub(crate) fn reset(&mut self, op: Op, current: TaskId) {
        self.op = op;
        self.current = current;
        self.ret = None;
        self.data = [0; PROBE_DATA_WORDS];
    }

    /// The probed operation of this call.
    ///
    /// # Linux
    /// The probed function (`get_kretprobe(ri)->kp.addr`).
    pub fn op(&self) -> Op {
        self.op
    }

    /// The task the call runs for: the caller (`current`) of a syscall, the
    /// target of `Kernel::send_signal` and `Kernel::force_fatal_signal`.
    /// The handle may be stale in the return handler (the call may have
    /// reaped it, or it may have been stale to begin with).
    ///
    /// # Linux
    /// `kretprobe_instance.task`.
    pub fn current(&self) -> TaskId {
        self.current
    }

    /// What the call returned: `None` in the entry handler, `Some` in the
    /// return handler.
    ///
    /// # Linux
    /// `regs_return_value()` of the handler's `pt_regs`.
    pub fn retval(&self) -> Option<RetVal> {
        self.ret
    }
}
