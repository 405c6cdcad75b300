//! The names strace prints for the values of syscall arguments, looked up
//! in the core's tables ([`taskcore::sys::names`]): every value is the
//! core's, none is restated here. Tables are short and searched linearly
//! (only the few process-related syscalls consult them).
//!
//! # Linux
//! See [`taskcore::sys::names`].

pub(crate) use taskcore::sys::names::{
    AT_CONSTS, CLONE_FLAGS, ID_TYPES, MAP_FLAGS, MREMAP_FLAGS, PRCTL_OPTIONS, PROT_FLAGS,
    PTRACE_EVENTS, PTRACE_REQUESTS, SA_FLAGS, SUID_DUMP, WAIT_OPTIONS,
};
use taskcore::sys::names::{SIGNALS, SI_CODES};
use taskcore::uapi::{NSIG, SIGRTMIN};

/// `AT_FDCWD` (include/uapi/linux/fcntl.h), execveat()'s dirfd for the
/// current directory.
pub(crate) const AT_FDCWD: i32 = taskcore::uapi::AT_FDCWD;

/// Looks `name` up in `table`.
pub(crate) fn lookup(table: &[(&str, u64)], name: &str) -> Option<u64> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// The number of signal `name` as strace prints it: `SIGCHLD`, `SIGRTMIN`,
/// `SIGRT_3`, `SIGRTMAX`, or (inside signal sets, where strace drops the
/// prefix) `CHLD`, `RTMIN`, `RT_3`. A bare decimal number is accepted too.
///
/// Returns `None` for anything else, including numbers outside `0..=64`.
pub fn signal_number(name: &str) -> Option<i32> {
    if let Ok(n) = name.parse::<i32>() {
        return (0..=NSIG).contains(&n).then_some(n);
    }
    let bare = name.strip_prefix("SIG").unwrap_or(name);
    match bare {
        "RTMIN" => return Some(SIGRTMIN),
        "RTMAX" => return Some(NSIG),
        _ => {}
    }
    if let Some(k) = bare.strip_prefix("RT_") {
        let k: i32 = k.parse().ok()?;
        let n = SIGRTMIN.checked_add(k)?;
        return (n <= NSIG).then_some(n);
    }
    SIGNALS
        .iter()
        .find(|(n, _)| &n[3..] == bare)
        .map(|&(_, v)| v as i32)
}

/// The value of `si_code` name `name`.
pub(crate) fn si_code(name: &str) -> Option<i64> {
    SI_CODES.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_map_to_x86_64_numbers() {
        assert_eq!(signal_number("SIGCHLD"), Some(17));
        assert_eq!(signal_number("CHLD"), Some(17));
        assert_eq!(signal_number("SIGKILL"), Some(9));
        assert_eq!(signal_number("SIGSTOP"), Some(19));
        assert_eq!(signal_number("SIGRTMIN"), Some(32));
        assert_eq!(signal_number("RTMIN"), Some(32));
        assert_eq!(signal_number("SIGRT_1"), Some(33));
        assert_eq!(signal_number("RT_1"), Some(33));
        assert_eq!(signal_number("SIGRT_32"), Some(64));
        assert_eq!(signal_number("SIGRT_33"), None);
        assert_eq!(signal_number("SIGRTMAX"), Some(64));
        assert_eq!(signal_number("0"), Some(0));
        assert_eq!(signal_number("65"), None);
        assert_eq!(signal_number("SIGFOO"), None);
        assert_eq!(signal_number(""), None);
    }

    #[test]
    fn every_signal_name_round_trips_to_a_distinct_number_except_aliases() {
        // Aliases share numbers; everything else is unique and in 1..=31.
        let aliases = ["SIGIOT", "SIGCLD", "SIGPOLL", "SIGUNUSED"];
        let mut seen = std::collections::BTreeSet::new();
        for (name, v) in SIGNALS {
            assert!((1..=31).contains(v), "{name}");
            if !aliases.contains(name) {
                assert!(seen.insert(*v), "duplicate number for {name}");
            }
            assert_eq!(signal_number(name), Some(*v as i32));
        }
        assert_eq!(seen.len(), 31);
    }

    #[test]
    fn flag_tables_have_single_bits_except_documented_composites() {
        for table in [CLONE_FLAGS, SA_FLAGS] {
            for (name, v) in table {
                assert_eq!(v.count_ones(), 1, "{name}");
            }
        }
        assert_eq!(lookup(WAIT_OPTIONS, "__WCLONE"), Some(0x8000_0000));
        assert_eq!(si_code("CLD_CONTINUED"), Some(6));
        assert_eq!(si_code("SI_TKILL"), Some(-6));
    }
}
