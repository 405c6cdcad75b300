//! User namespaces' id maps and `setgroups`, which a program writes
//! through `/proc/PID/uid_map`, `gid_map` and `setgroups` with `write(2)`,
//! a call the filter lets run natively (file I/O is not trapped). The
//! core learns them from the files themselves: at each seccomp stop of a
//! thread whose user namespace (in the core) is not the initial one and
//! lacks a map, the thread's three files are read (the supervisor reads
//! them from the core's initial namespace: the lower ids are kernel
//! ids, as the core renders them) and what changed is handed to the core
//! (`Kernel::proc_setgroups_seen`, `proc_id_map_seen`) before the call is
//! applied, so a `setuid`, `setgid`, `unshare` or `clone` that depends
//! on a map is checked against the map Linux has. The writes themselves
//! are not checked (the supervisor does not see them); a map the core
//! refuses is a divergence.

use taskcore::{IdMapFile, TaskId};

use super::Supervisor;

impl Supervisor {
    /// Brings the core's maps of `task`'s (thread `tid`'s) user
    /// namespace up to the real ones, when a map is still unset in the
    /// core.
    pub(super) fn sync_userns(&mut self, tid: i32, task: TaskId) {
        let Ok(ns) = self.k.task_user_ns(task) else {
            return;
        };
        if !matches!(self.k.user_ns_parent(ns), Ok(Some(_))) {
            return;
        }
        let init = self.init;
        let unset = |k: &taskcore::Kernel, which| {
            k.proc_id_map_read(init, task, which)
                .is_ok_and(|m| m.is_empty())
        };
        if !unset(&self.k, IdMapFile::Uid) && !unset(&self.k, IdMapFile::Gid) {
            return;
        }
        let read = |file: &str| std::fs::read(format!("/proc/{tid}/{file}")).ok();
        if let Some(text) = read("setgroups") {
            let allowed = text.starts_with(b"allow");
            if let Err(e) = self.k.proc_setgroups_seen(task, allowed) {
                self.diverge_userns(tid, "setgroups", &text, e);
            }
        }
        for (file, which) in [("uid_map", IdMapFile::Uid), ("gid_map", IdMapFile::Gid)] {
            match read(file) {
                Some(text) if !text.is_empty() => {
                    if let Err(e) = self.k.proc_id_map_seen(task, which, &text) {
                        self.diverge_userns(tid, file, &text, e);
                    }
                }
                _ => {}
            }
        }
    }

    /// The core refused `/proc/TID/FILE`'s real content `text`.
    fn diverge_userns(&mut self, tid: i32, file: &str, text: &[u8], e: taskcore::Errno) {
        let v = self.map.to_virtual(tid);
        self.diverge(
            tid,
            format!("/proc/{v}/{file} as Linux has it"),
            format!("\"{}\"", String::from_utf8_lossy(text).escape_default()),
            format!("-1 {} (refused)", e.name()),
        );
    }
}
