//! User namespaces: the writes of `/proc/PID/uid_map`, `gid_map` and
//! `setgroups` a trace recorded with strace's `-y` (the fd's path names
//! the file and the process), applied to the emulated process and their
//! results (the byte count or the errno) checked. The process named by
//! the path is a recorded one (strace's `/proc` numbers are the trace's).

use taskcore::{IdMapFile, TaskId};
use taskcore_strace::ProcFile;

use super::Engine;
use crate::event::Event;

impl Engine {
    /// write(fd, data, len) by `cur` to the user-namespace file `file` of
    /// recorded process `pid`.
    pub(super) fn apply_proc_write(
        &mut self,
        e: &Event,
        cur: TaskId,
        pid: i32,
        file: ProcFile,
        data: &[u8],
    ) {
        let before = self.stats.checked;
        let Some(t) = self.pids.task(pid).filter(|t| !t.dead) else {
            return self.unchecked_because(e, "a process outside the trace");
        };
        let r = match file {
            ProcFile::UidMap => self
                .k
                .proc_id_map_write(cur, t.task, IdMapFile::Uid, 0, data),
            ProcFile::GidMap => self
                .k
                .proc_id_map_write(cur, t.task, IdMapFile::Gid, 0, data),
            ProcFile::Setgroups => self.k.proc_setgroups_write(cur, t.task, 0, data),
        };
        self.check_value(e, r.map(|n| n as i64));
        self.count_procapi(e, before);
    }
}
