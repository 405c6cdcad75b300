//! Capabilities: the [`Cap`] numbers, the [`KernelCap`] set of a
//! credential's five sets, and the securebits.
//!
//! # Linux
//! include/uapi/linux/capability.h (the numbers, `CAP_LAST_CAP`, the
//! `capget`/`capset` versions), include/linux/capability.h
//! (`kernel_cap_t`, `CAP_FS_MASK`, `cap_raise_fs_set()`),
//! include/uapi/linux/securebits.h.

use core::fmt;

/// One capability number (`CAP_CHOWN` = 0 ... [`CAP_LAST_CAP`]).
///
/// # Linux
/// The `CAP_*` numbers of include/uapi/linux/capability.h.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cap(pub u8);

/// `CAP_CHOWN`.
pub const CAP_CHOWN: Cap = Cap(0);
/// `CAP_DAC_OVERRIDE`.
pub const CAP_DAC_OVERRIDE: Cap = Cap(1);
/// `CAP_DAC_READ_SEARCH`.
pub const CAP_DAC_READ_SEARCH: Cap = Cap(2);
/// `CAP_FOWNER`.
pub const CAP_FOWNER: Cap = Cap(3);
/// `CAP_FSETID`.
pub const CAP_FSETID: Cap = Cap(4);
/// `CAP_KILL`: signal any process ([`crate::Kernel::kill`]).
pub const CAP_KILL: Cap = Cap(5);
/// `CAP_SETGID`: the set*gid family and `setgroups`.
pub const CAP_SETGID: Cap = Cap(6);
/// `CAP_SETUID`: the set*uid family.
pub const CAP_SETUID: Cap = Cap(7);
/// `CAP_SETPCAP`: inheritable beyond the permitted set, bounding-set
/// drops, securebits.
pub const CAP_SETPCAP: Cap = Cap(8);
/// `CAP_LINUX_IMMUTABLE`.
pub const CAP_LINUX_IMMUTABLE: Cap = Cap(9);
/// `CAP_SYS_PTRACE`: `ptrace_may_access()` of any task.
pub const CAP_SYS_PTRACE: Cap = Cap(19);
/// `CAP_SYS_ADMIN`: new namespaces, `setns`, past `RLIMIT_NPROC`.
pub const CAP_SYS_ADMIN: Cap = Cap(21);
/// `CAP_SYS_NICE`.
pub const CAP_SYS_NICE: Cap = Cap(23);
/// `CAP_SYS_RESOURCE`: raise hard limits, past `RLIMIT_NPROC`.
pub const CAP_SYS_RESOURCE: Cap = Cap(24);
/// `CAP_MKNOD`.
pub const CAP_MKNOD: Cap = Cap(27);
/// `CAP_SETFCAP`: set file capabilities; mapping the parent's uid 0
/// into a user namespace.
pub const CAP_SETFCAP: Cap = Cap(31);
/// `CAP_MAC_OVERRIDE`.
pub const CAP_MAC_OVERRIDE: Cap = Cap(32);
/// `CAP_CHECKPOINT_RESTORE`: clone3's `set_tid` (with `CAP_SYS_ADMIN`
/// as the alternative).
pub const CAP_CHECKPOINT_RESTORE: Cap = Cap(40);
/// The highest capability of Linux 6.x (`CAP_CHECKPOINT_RESTORE`, 40).
pub const CAP_LAST_CAP: Cap = Cap(40);

impl Cap {
    /// `cap_valid()`: a number from 0 to [`CAP_LAST_CAP`] (as the `long`
    /// prctl(2) passes it), else `None`.
    pub fn from_arg(arg: u64) -> Option<Cap> {
        (arg <= u64::from(CAP_LAST_CAP.0)).then_some(Cap(arg as u8))
    }
}

/// A capability set (`kernel_cap_t`): bit `n` is capability `n`; only
/// bits 0 to [`CAP_LAST_CAP`] are ever set ([`KernelCap::new`] masks).
///
/// Shown as `/proc/PID/status` shows it: 16 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KernelCap(u64);

impl KernelCap {
    /// The empty set (`CAP_EMPTY_SET`).
    pub const EMPTY: KernelCap = KernelCap(0);
    /// Every capability of [`CAP_LAST_CAP`] (`CAP_FULL_SET`,
    /// `CAP_VALID_MASK`): root's sets on Linux 6.x.
    pub const FULL: KernelCap = KernelCap((1 << (CAP_LAST_CAP.0 as u64 + 1)) - 1);
    /// The capabilities a change of fs uid from or to 0 drops or raises
    /// (`CAP_FS_MASK`).
    pub const FS_MASK: KernelCap = KernelCap(
        1 << CAP_CHOWN.0
            | 1 << CAP_MKNOD.0
            | 1 << CAP_DAC_OVERRIDE.0
            | 1 << CAP_DAC_READ_SEARCH.0
            | 1 << CAP_FOWNER.0
            | 1 << CAP_FSETID.0
            | 1 << CAP_LINUX_IMMUTABLE.0
            | 1 << CAP_MAC_OVERRIDE.0,
    );

    /// The set of the bits of `raw` that are capabilities (others
    /// dropped, as `capset` masks with `CAP_VALID_MASK`).
    pub const fn new(raw: u64) -> KernelCap {
        KernelCap(raw & Self::FULL.0)
    }

    /// The 64-bit mask.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// `cap_raised()`.
    pub fn has(self, cap: Cap) -> bool {
        self.0 >> cap.0 & 1 != 0
    }

    /// `cap_raise()`: the set with `cap`.
    #[must_use]
    pub fn with(self, cap: Cap) -> KernelCap {
        KernelCap::new(self.0 | 1 << cap.0)
    }

    /// `cap_lower()`: the set without `cap`.
    #[must_use]
    pub fn without(self, cap: Cap) -> KernelCap {
        KernelCap(self.0 & !(1 << cap.0))
    }

    /// `cap_combine()`: the union.
    #[must_use]
    pub fn union(self, o: KernelCap) -> KernelCap {
        KernelCap(self.0 | o.0)
    }

    /// `cap_intersect()`.
    #[must_use]
    pub fn intersect(self, o: KernelCap) -> KernelCap {
        KernelCap(self.0 & o.0)
    }

    /// `cap_issubset()`: every capability of `self` is in `o`.
    pub fn is_subset(self, o: KernelCap) -> bool {
        self.0 & !o.0 == 0
    }

    /// `cap_isclear()`.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The low and high 32 bits (`struct __user_cap_data_struct`'s two
    /// entries).
    pub fn halves(self) -> [u32; 2] {
        [self.0 as u32, (self.0 >> 32) as u32]
    }
}

impl fmt::Debug for KernelCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl fmt::Display for KernelCap {
    /// `/proc/PID/status`'s rendering (`render_cap_t()`): 16 hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// `SECURE_NOROOT`: uid 0 gets no capabilities at exec.
pub const SECBIT_NOROOT: u32 = 1 << 0;
/// `SECURE_NOROOT_LOCKED`.
pub const SECBIT_NOROOT_LOCKED: u32 = 1 << 1;
/// `SECURE_NO_SETUID_FIXUP`: uid changes leave the capabilities alone.
pub const SECBIT_NO_SETUID_FIXUP: u32 = 1 << 2;
/// `SECURE_NO_SETUID_FIXUP_LOCKED`.
pub const SECBIT_NO_SETUID_FIXUP_LOCKED: u32 = 1 << 3;
/// `SECURE_KEEP_CAPS` (`PR_SET_KEEPCAPS`): the permitted set survives
/// leaving uid 0; cleared at exec.
pub const SECBIT_KEEP_CAPS: u32 = 1 << 4;
/// `SECURE_KEEP_CAPS_LOCKED`.
pub const SECBIT_KEEP_CAPS_LOCKED: u32 = 1 << 5;
/// `SECURE_NO_CAP_AMBIENT_RAISE`.
pub const SECBIT_NO_CAP_AMBIENT_RAISE: u32 = 1 << 6;
/// `SECURE_NO_CAP_AMBIENT_RAISE_LOCKED`.
pub const SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED: u32 = 1 << 7;
/// `SECURE_EXEC_RESTRICT_FILE` (Linux 6.14).
pub const SECBIT_EXEC_RESTRICT_FILE: u32 = 1 << 8;
/// `SECURE_EXEC_RESTRICT_FILE_LOCKED`.
pub const SECBIT_EXEC_RESTRICT_FILE_LOCKED: u32 = 1 << 9;
/// `SECURE_EXEC_DENY_INTERACTIVE` (Linux 6.14).
pub const SECBIT_EXEC_DENY_INTERACTIVE: u32 = 1 << 10;
/// `SECURE_EXEC_DENY_INTERACTIVE_LOCKED`.
pub const SECBIT_EXEC_DENY_INTERACTIVE_LOCKED: u32 = 1 << 11;
/// `SECURE_ALL_BITS`: the settable bits.
pub const SECURE_ALL_BITS: u32 = SECBIT_NOROOT
    | SECBIT_NO_SETUID_FIXUP
    | SECBIT_KEEP_CAPS
    | SECBIT_NO_CAP_AMBIENT_RAISE
    | SECBIT_EXEC_RESTRICT_FILE
    | SECBIT_EXEC_DENY_INTERACTIVE;
/// `SECURE_ALL_LOCKS`: each bit's lock, one above it.
pub const SECURE_ALL_LOCKS: u32 = SECURE_ALL_BITS << 1;

/// `_LINUX_CAPABILITY_VERSION_1`: one 32-bit data entry.
pub const LINUX_CAPABILITY_VERSION_1: u32 = 0x1998_0330;
/// `_LINUX_CAPABILITY_VERSION_2` (deprecated): two entries.
pub const LINUX_CAPABILITY_VERSION_2: u32 = 0x2007_1026;
/// `_LINUX_CAPABILITY_VERSION_3`: two entries; what an unknown version is
/// answered with (`_KERNEL_CAPABILITY_VERSION`).
pub const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// The number of `struct __user_cap_data_struct` entries `version` copies
/// (`cap_validate_magic()`): 1 or 2, `None` for an unknown version.
pub fn cap_data_entries(version: u32) -> Option<usize> {
    match version {
        LINUX_CAPABILITY_VERSION_1 => Some(1),
        LINUX_CAPABILITY_VERSION_2 | LINUX_CAPABILITY_VERSION_3 => Some(2),
        _ => None,
    }
}

/// The three sets `capget` reports and `capset` takes
/// (`struct __user_cap_data_struct`, both entries joined).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CapUserData {
    /// `effective`.
    pub effective: KernelCap,
    /// `permitted`.
    pub permitted: KernelCap,
    /// `inheritable`.
    pub inheritable: KernelCap,
}

impl CapUserData {
    /// Joins `entries` (`[effective, permitted, inheritable]` per 32-bit
    /// entry, as user memory holds them; one or two entries), masking bits
    /// beyond [`CAP_LAST_CAP`] (`mk_kernel_cap()`, `CAP_VALID_MASK`).
    pub fn from_entries(entries: &[[u32; 3]]) -> CapUserData {
        let join = |f: usize| {
            let lo = entries.first().map_or(0, |e| e[f]);
            let hi = entries.get(1).map_or(0, |e| e[f]);
            KernelCap::new(u64::from(lo) | u64::from(hi) << 32)
        };
        CapUserData {
            effective: join(0),
            permitted: join(1),
            inheritable: join(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_set_is_41_bits_and_masks() {
        assert_eq!(KernelCap::FULL.bits(), 0x1ff_ffff_ffff);
        assert_eq!(KernelCap::new(u64::MAX), KernelCap::FULL);
        assert_eq!(KernelCap::FULL.to_string(), "000001ffffffffff");
        assert!(KernelCap::EMPTY.with(CAP_KILL).has(CAP_KILL));
        assert!(!KernelCap::FULL.without(CAP_KILL).has(CAP_KILL));
        assert_eq!(Cap::from_arg(41), None);
        assert_eq!(Cap::from_arg(40), Some(CAP_LAST_CAP));
    }

    #[test]
    fn user_entries_join_low_and_high() {
        let d = CapUserData::from_entries(&[[1, 2, 0], [1, 0xffff_ffff, 0]]);
        assert_eq!(d.effective.bits(), 1 << 32 | 1);
        assert_eq!(d.permitted.bits(), 0x1ff_0000_0002);
        let v1 = CapUserData::from_entries(&[[1, 1, 1]]);
        assert_eq!(v1.inheritable.bits(), 1);
    }
}
