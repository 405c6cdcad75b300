//! The probed operations: [`Op`], one per public mutating operation of
//! [`Kernel`](crate::Kernel), and [`OpSet`], a bit set of them.

use core::fmt;

/// A probed operation of [`Kernel`](crate::Kernel): the function a return
/// probe attaches to.
///
/// The discriminant is the operation's bit number in an [`OpSet`] (and in
/// a [`ProbeSet`](super::ProbeSet)'s armed mask). Each public call fires
/// the probes of exactly one `Op`: [`Kernel::fork`](crate::Kernel::fork)
/// fires `Fork`, not `Clone` as well, and
/// [`Kernel::execve_argv`](crate::Kernel::execve_argv) fires `Execve`.
///
/// # Linux
/// The probed symbol of a kretprobe (`kp.symbol_name`), here the syscall
/// entry points (`__x64_sys_clone`, `__x64_sys_wait4`...) plus the two
/// signal entry points an emulator's own kernel uses
/// (`group_send_sig_info`, `force_sig_fault`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[non_exhaustive]
pub enum Op {
    /// [`Kernel::clone`](crate::Kernel::clone) (`clone`, `clone3`).
    Clone = 0,
    /// [`Kernel::fork`](crate::Kernel::fork).
    Fork,
    /// [`Kernel::vfork`](crate::Kernel::vfork).
    Vfork,
    /// [`Kernel::execve`](crate::Kernel::execve) and
    /// [`Kernel::execve_argv`](crate::Kernel::execve_argv).
    Execve,
    /// [`Kernel::exit`](crate::Kernel::exit).
    Exit,
    /// [`Kernel::exit_group`](crate::Kernel::exit_group).
    ExitGroup,
    /// [`Kernel::wait4`](crate::Kernel::wait4).
    Wait4,
    /// [`Kernel::waitid`](crate::Kernel::waitid).
    Waitid,
    /// [`Kernel::setpgid`](crate::Kernel::setpgid).
    Setpgid,
    /// [`Kernel::setsid`](crate::Kernel::setsid).
    Setsid,
    /// [`Kernel::kill`](crate::Kernel::kill).
    Kill,
    /// [`Kernel::tgkill`](crate::Kernel::tgkill).
    Tgkill,
    /// [`Kernel::tkill`](crate::Kernel::tkill).
    Tkill,
    /// [`Kernel::rt_sigaction`](crate::Kernel::rt_sigaction).
    RtSigaction,
    /// [`Kernel::send_signal`](crate::Kernel::send_signal) (a signal from
    /// outside the emulated system).
    SendSignal,
    /// [`Kernel::force_fatal_signal`](crate::Kernel::force_fatal_signal) (a
    /// fatal fault).
    ForceFatalSignal,
    /// [`Kernel::ptrace_attach`](crate::Kernel::ptrace_attach)
    /// (`PTRACE_ATTACH`, `PTRACE_SEIZE`).
    PtraceAttach,
    /// [`Kernel::ptrace_traceme`](crate::Kernel::ptrace_traceme).
    PtraceTraceme,
    /// [`Kernel::ptrace_cont`](crate::Kernel::ptrace_cont).
    PtraceCont,
    /// [`Kernel::ptrace_detach`](crate::Kernel::ptrace_detach).
    PtraceDetach,
    /// [`Kernel::mmap`](crate::Kernel::mmap).
    Mmap,
    /// [`Kernel::munmap`](crate::Kernel::munmap).
    Munmap,
    /// [`Kernel::mprotect`](crate::Kernel::mprotect).
    Mprotect,
    /// [`Kernel::mremap`](crate::Kernel::mremap).
    Mremap,
    /// [`Kernel::brk`](crate::Kernel::brk).
    Brk,
    /// [`Kernel::get_signal`](crate::Kernel::get_signal) (the return to
    /// user space).
    GetSignal,
    /// [`Kernel::rt_sigprocmask`](crate::Kernel::rt_sigprocmask).
    RtSigprocmask,
    /// [`Kernel::rt_sigqueueinfo`](crate::Kernel::rt_sigqueueinfo) and
    /// [`Kernel::rt_tgsigqueueinfo`](crate::Kernel::rt_tgsigqueueinfo).
    RtSigqueueinfo,
    /// [`Kernel::rt_sigtimedwait`](crate::Kernel::rt_sigtimedwait).
    RtSigtimedwait,
    /// [`Kernel::rt_sigsuspend`](crate::Kernel::rt_sigsuspend) and
    /// [`Kernel::pause`](crate::Kernel::pause).
    RtSigsuspend,
    /// [`Kernel::rt_sigreturn`](crate::Kernel::rt_sigreturn).
    RtSigreturn,
    /// The other ptrace requests and stops:
    /// [`Kernel::ptrace_setoptions`](crate::Kernel::ptrace_setoptions),
    /// [`Kernel::ptrace_interrupt`](crate::Kernel::ptrace_interrupt),
    /// [`Kernel::ptrace_listen`](crate::Kernel::ptrace_listen),
    /// [`Kernel::ptrace_syscall_enter`](crate::Kernel::ptrace_syscall_enter)
    /// and [`Kernel::ptrace_syscall_exit`](crate::Kernel::ptrace_syscall_exit)
    /// (`PTRACE_SYSCALL` fires [`Op::PtraceCont`], `PTRACE_SEIZE`
    /// [`Op::PtraceAttach`]).
    Ptrace,
}

/// Number of [`Op`]s; they are numbered `0..NR_OPS`.
pub const NR_OPS: usize = 32;

// The armed mask shares a word with a generation number and holds one bit
// per op in its low half.
const _: () = assert!(NR_OPS <= 32);

impl Op {
    /// Every op, in discriminant order (`Op::ALL[i] as usize == i`).
    pub const ALL: [Op; NR_OPS] = [
        Op::Clone,
        Op::Fork,
        Op::Vfork,
        Op::Execve,
        Op::Exit,
        Op::ExitGroup,
        Op::Wait4,
        Op::Waitid,
        Op::Setpgid,
        Op::Setsid,
        Op::Kill,
        Op::Tgkill,
        Op::Tkill,
        Op::RtSigaction,
        Op::SendSignal,
        Op::ForceFatalSignal,
        Op::PtraceAttach,
        Op::PtraceTraceme,
        Op::PtraceCont,
        Op::PtraceDetach,
        Op::Mmap,
        Op::Munmap,
        Op::Mprotect,
        Op::Mremap,
        Op::Brk,
        Op::GetSignal,
        Op::RtSigprocmask,
        Op::RtSigqueueinfo,
        Op::RtSigtimedwait,
        Op::RtSigsuspend,
        Op::RtSigreturn,
        Op::Ptrace,
    ];

    /// The op's bit in an [`OpSet`]: `1 << (self as u32)`.
    ///
    /// # Linux
    /// No Linux analogue.
    #[inline(always)]
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }

    /// The syscall-style name (`"clone"`, `"exit_group"`, `"wait4"`...).
    ///
    /// # Linux
    /// The syscall's name, as in `/sys/kernel/tracing/events/syscalls`.
    ///
    /// # Examples
    /// ```
    /// use taskcore::probe::Op;
    /// assert_eq!(Op::ExitGroup.name(), "exit_group");
    /// assert_eq!(Op::from_name("exit_group"), Some(Op::ExitGroup));
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Op::Clone => "clone",
            Op::Fork => "fork",
            Op::Vfork => "vfork",
            Op::Execve => "execve",
            Op::Exit => "exit",
            Op::ExitGroup => "exit_group",
            Op::Wait4 => "wait4",
            Op::Waitid => "waitid",
            Op::Setpgid => "setpgid",
            Op::Setsid => "setsid",
            Op::Kill => "kill",
            Op::Tgkill => "tgkill",
            Op::Tkill => "tkill",
            Op::RtSigaction => "rt_sigaction",
            Op::SendSignal => "send_signal",
            Op::ForceFatalSignal => "force_fatal_signal",
            Op::PtraceAttach => "ptrace_attach",
            Op::PtraceTraceme => "ptrace_traceme",
            Op::PtraceCont => "ptrace_cont",
            Op::PtraceDetach => "ptrace_detach",
            Op::Mmap => "mmap",
            Op::Munmap => "munmap",
            Op::Mprotect => "mprotect",
            Op::Mremap => "mremap",
            Op::Brk => "brk",
            Op::GetSignal => "get_signal",
            Op::RtSigprocmask => "rt_sigprocmask",
            Op::RtSigqueueinfo => "rt_sigqueueinfo",
            Op::RtSigtimedwait => "rt_sigtimedwait",
            Op::RtSigsuspend => "rt_sigsuspend",
            Op::RtSigreturn => "rt_sigreturn",
            Op::Ptrace => "ptrace",
        }
    }

    /// The op named `name` (as [`Op::name`] spells it), if any.
    ///
    /// # Linux
    /// The probed symbol's name (`kp.symbol_name`), without the
    /// `__x64_sys_` prefix.
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Op`]s, as a bit mask (bit `op as u32` for each member).
///
/// # Examples
/// ```
/// use taskcore::probe::{Op, OpSet};
/// let s = OpSet::EMPTY.with(Op::Fork).with(Op::Wait4);
/// assert!(s.contains(Op::Fork) && !s.contains(Op::Clone));
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Op::Fork, Op::Wait4]);
/// assert_eq!(OpSet::ALL.len(), taskcore::probe::NR_OPS);
/// ```
///
/// # Linux
/// No Linux analogue (a kretprobe probes one symbol; registering one probe
/// on many ops here is `register_kretprobes()` of copies sharing a pool).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct OpSet(u32);

impl OpSet {
    /// No op.
    pub const EMPTY: OpSet = OpSet(0);
    /// Every op.
    pub const ALL: OpSet = OpSet(((1u64 << NR_OPS) - 1) as u32);

    /// The set holding only `op`.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn of(op: Op) -> OpSet {
        OpSet(op.bit())
    }

    /// This set plus `op`.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn with(self, op: Op) -> OpSet {
        OpSet(self.0 | op.bit())
    }

    /// Whether `op` is in the set.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn contains(self, op: Op) -> bool {
        self.0 & op.bit() != 0
    }

    /// Whether the set is empty.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of ops in the set.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The mask: bit `op as u32` set for each member.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set with mask `bits`; bits at or above [`NR_OPS`] are dropped.
    ///
    /// # Linux
    /// No Linux analogue.
    pub const fn from_bits_truncate(bits: u32) -> OpSet {
        OpSet(bits & OpSet::ALL.0)
    }

    /// The members, in discriminant order.
    ///
    /// # Linux
    /// No Linux analogue.
    pub fn iter(self) -> impl Iterator<Item = Op> {
        Op::ALL.into_iter().filter(move |op| self.contains(*op))
    }
}

impl FromIterator<Op> for OpSet {
    fn from_iter<I: IntoIterator<Item = Op>>(iter: I) -> Self {
        iter.into_iter().fold(OpSet::EMPTY, OpSet::with)
    }
}

impl fmt::Debug for OpSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_are_numbered_in_order_and_named_uniquely() {
        for (i, op) in Op::ALL.into_iter().enumerate() {
            assert_eq!(op as usize, i);
            assert_eq!(Op::from_name(op.name()), Some(op));
        }
        assert_eq!(Op::from_name("no_such_op"), None);
        assert_eq!(OpSet::ALL.iter().count(), NR_OPS);
        assert_eq!(OpSet::from_bits_truncate(u32::MAX), OpSet::ALL);
        let s: OpSet = [Op::Brk, Op::Clone].into_iter().collect();
        assert_eq!(s.bits(), Op::Brk.bit() | Op::Clone.bit());
        assert_eq!(format!("{s:?}"), "{Clone, Brk}");
    }
}
