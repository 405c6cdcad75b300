//! [`Kernel::proc_read`]: one `/proc` file read by an emulated task, in one
//! call (the view, the path walk and the read that a server does with
//! [`ProcFs`] for each request).

use crate::errno::Result;
use crate::procfs::fs::{ProcClock, ProcFs};
use crate::task::kernel::{Kernel, TaskId};

/// # procfs: one `/proc` file in one call (a server uses [`crate::procfs::fs::ProcFs`]).
impl Kernel {
    /// The contents of `/proc/PATH` as task `reader` reads it: `/proc`
    /// mounted in the reader's own pid namespace (so pids are the numbers
    /// it sees, and `self`/`thread-self` are its process and thread), at the
    /// kernel's current time ([`Kernel::set_time`]) with boot at 0, and the
    /// default [`SystemInfo`](crate::procfs::sysinfo::SystemInfo). `path` is relative
    /// to the mount, a leading `/` ignored: `"1/stat"`, `"self/status"`,
    /// `"loadavg"`. Returns the file's bytes, exactly as Linux renders them.
    ///
    /// A server that answers many reads, lists directories, or mounts
    /// `/proc` in another namespace builds a [`ProcFs`] itself.
    ///
    /// # Errors
    /// - `ESRCH` if `reader` is stale.
    /// - `ENOENT` if a component does not exist (a pid not visible in the
    ///   reader's namespace, a reaped task, an unknown file).
    /// - `ENOTDIR` if a component before the last is a file.
    /// - `EISDIR` if the path names a directory; `EINVAL` if it names the
    ///   `self` or `thread-self` link itself.
    /// - `EACCES` for `PID/maps` of a task the reader may not access
    ///   ([`Kernel::ptrace_may_access`] with `PTRACE_MODE_READ_FSCREDS`).
    ///
    /// # Examples
    /// ```
    /// use taskcore::{Config, Errno, Kernel};
    ///
    /// let mut k = Kernel::new(Config::default())?;
    /// let init = k.init_task()?;
    /// let child = k.fork(init)?;
    /// let stat = k.proc_read(child, "self/stat")?;
    /// assert!(stat.starts_with(b"2 (init) S 1 1 1 0 -1 "));
    /// assert_eq!(k.proc_read(init, "3/stat"), Err(Errno::ENOENT));
    /// # Ok::<(), Errno>(())
    /// ```
    ///
    /// # Linux
    /// `open(2)` and `read(2)` of a file under a procfs mount
    /// (`proc_fill_super()` takes the mounter's `task_active_pid_ns()`),
    /// then the file's show function (fs/proc/).
    pub fn proc_read(&self, reader: TaskId, path: &str) -> Result<Vec<u8>> {
        let ns = self.task_active_pid_ns(reader)?;
        let fs = ProcFs::new(self, ns, ProcClock::from_kernel(self, 0))?.with_current(reader)?;
        fs.read(fs.resolve(path.as_bytes())?)
    }
}
