//! The `/proc` files whose writes the replay applies: a user namespace's
//! `uid_map`, `gid_map` and `setgroups` (known by strace's `-y` fd
//! annotation, `3</proc/1234/uid_map>`).
//!
//! # Linux
//! fs/proc/base.c (`proc_uid_map_operations`, `proc_setgroups_operations`).

/// A user-namespace file of `/proc/PID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcFile {
    /// `uid_map`.
    UidMap,
    /// `gid_map`.
    GidMap,
    /// `setgroups`.
    Setgroups,
}

impl ProcFile {
    /// The file of `path` `/proc/PID/NAME` (or `/proc/PID/task/TID/NAME`):
    /// the pid and the file, `None` for another path.
    pub fn parse_path(path: &str) -> Option<(i32, ProcFile)> {
        let rest = path.strip_prefix("/proc/")?;
        let (pid, rest) = rest.split_once('/')?;
        let pid: i32 = pid.parse().ok()?;
        let name = match rest.strip_prefix("task/") {
            Some(t) => t.split_once('/')?.1,
            None => rest,
        };
        let file = match name {
            "uid_map" => ProcFile::UidMap,
            "gid_map" => ProcFile::GidMap,
            "setgroups" => ProcFile::Setgroups,
            _ => return None,
        };
        Some((pid, file))
    }
}
