//! State the process table keeps only so that `/proc` can show it: the
//! argument area (`cmdline`), the run state (`R` or `S`), `comm` changes
//! and the clock.
//!
//! None of it affects the lifecycle; the [`crate::procfs`] renderers read it.
//!
//! # Linux
//! fs/exec.c (`copy_strings` of argv into the new stack, recorded as
//! `mm->arg_start..arg_end`), kernel/sys.c `prctl(PR_SET_NAME)`
//! (`__set_task_comm`), `task_struct::__state`.

use crate::ix::TaskIx;
use std::sync::Arc;

use crate::errno::{Errno, Result};
use crate::pid::NsId;
use crate::slab::NONE;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::task_struct::TS_RUNNING;
use crate::uapi::TASK_COMM_LEN;

/// Longest argument area accepted, in bytes: `ARG_MAX` as Linux computes it
/// from the default 8 MiB stack rlimit (a quarter of it, 2 MiB).
pub const ARG_MAX: usize = 2 << 20;

/// # Lifecycle: what a task shows of itself: comm, cmdline, running state, its pid namespace.
impl Kernel {
    /// Sets the argument area of `task`'s address space to `argv`, each
    /// string NUL-terminated, as `/proc/PID/cmdline` shows it. Threads
    /// sharing the address space see it; later forks copy it.
    ///
    /// # Errors
    /// - `ESRCH`: `task` is stale or has exited (no address space).
    /// - `E2BIG`: the strings with their NULs exceed [`ARG_MAX`] bytes (as
    ///   `execve` refuses such an argv).
    ///
    /// # Linux
    /// What `execve` leaves between `mm->arg_start` and `mm->arg_end`
    /// (fs/exec.c `copy_strings`); no analogue for changing it afterwards
    /// except `prctl(PR_SET_MM_ARG_START/END)`.
    pub fn set_cmdline(&mut self, task: TaskId, argv: &[&[u8]]) -> Result<()> {
        let t = self.task_idx(task)?;
        let mm = self.tasks[t].mm;
        if mm == NONE {
            return Err(Errno::ESRCH);
        }
        let len: usize = argv.iter().map(|a| a.len() + 1).sum();
        if len > ARG_MAX {
            return Err(Errno::E2BIG);
        }
        let mut area = Vec::with_capacity(len);
        for a in argv {
            area.extend_from_slice(a);
            area.push(0);
        }
        self.mms[mm].cmdline = Some(Arc::from(area));
        Ok(())
    }

    /// The argument area of `task` (NUL-terminated strings), empty for a
    /// task without an address space (a zombie) or whose argv was never set.
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    ///
    /// # Linux
    /// `get_mm_cmdline()` (fs/proc/base.c) without the `setproctitle`
    /// heuristics.
    pub fn cmdline(&self, task: TaskId) -> Result<&[u8]> {
        let t = self.task_idx(task)?;
        Ok(self.cmdline_of(t))
    }

    pub(crate) fn cmdline_of(&self, t: TaskIx) -> &[u8] {
        let mm = self.tasks[t].mm;
        if mm == NONE {
            return &[];
        }
        self.mms[mm].cmdline.as_deref().unwrap_or(&[])
    }

    /// A successful `execve(filename, argv)`: [`Kernel::execve`], then the
    /// new image's argument area is `argv`.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `E2BIG`: `argv` exceeds [`ARG_MAX`] (checked first: nothing
    ///   changes).
    ///
    /// # Linux
    /// `do_execveat_common()` (fs/exec.c): argv is copied before the point
    /// of no return, so an oversized argv fails the exec cleanly.
    pub fn execve_argv(&mut self, current: TaskId, filename: &str, argv: &[&[u8]]) -> Result<()> {
        self.current(current)?;
        let len: usize = argv.iter().map(|a| a.len() + 1).sum();
        if len > ARG_MAX {
            return Err(Errno::E2BIG);
        }
        self.execve(current, filename)?;
        // The handle survives de_thread (the caller takes the leader's pid).
        self.set_cmdline(current, argv)
    }

    /// Records whether `task` is runnable (`R` in `/proc`) or sleeping
    /// (`S`, the default). A stopped, traced or zombie task shows `T`, `t`
    /// or `Z` whatever this says.
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    ///
    /// # Linux
    /// The scheduler's `__state`: `TASK_RUNNING` versus
    /// `TASK_INTERRUPTIBLE`. The library does no scheduling; the caller
    /// knows which of its tasks run.
    pub fn set_running(&mut self, task: TaskId, running: bool) -> Result<()> {
        let t = self.task_idx(task)?;
        if running {
            self.tasks[t].flags |= TS_RUNNING;
        } else {
            self.tasks[t].flags &= !TS_RUNNING;
        }
        Ok(())
    }

    /// `prctl(PR_SET_NAME, name)`: sets the calling thread's `comm`,
    /// truncated to 15 bytes (stopping at a NUL).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    ///
    /// # Linux
    /// `__set_task_comm()` (fs/exec.c) via `prctl()` (kernel/sys.c).
    pub fn set_comm(&mut self, current: TaskId, name: &[u8]) -> Result<()> {
        let t = self.task_idx(current)?;
        let name = name.split(|&b| b == 0).next().unwrap_or(&[]);
        let mut comm = [0u8; TASK_COMM_LEN];
        let n = name.len().min(TASK_COMM_LEN - 1);
        comm[..n].copy_from_slice(&name[..n]);
        self.tasks[t].comm = comm;
        Ok(())
    }

    /// `task`'s `comm` without its NUL padding.
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    ///
    /// # Linux
    /// `get_task_comm()`.
    pub fn comm(&self, task: TaskId) -> Result<&[u8]> {
        let t = self.task_idx(task)?;
        Ok(self.comm_of(t))
    }

    pub(crate) fn comm_of(&self, t: TaskIx) -> &[u8] {
        let c = &self.tasks[t].comm;
        let n = c.iter().position(|&b| b == 0).unwrap_or(c.len());
        &c[..n]
    }

    /// The current time last given to [`Kernel::set_time`], in nanoseconds.
    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// The pid namespace `task` belongs to (where its own pid was
    /// allocated).
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    ///
    /// # Linux
    /// `task_active_pid_ns()` (kernel/pid.c).
    pub fn task_active_pid_ns(&self, task: TaskId) -> Result<NsId> {
        let t = self.task_idx(task)?;
        Ok(NsId(self.ns_of(t)))
    }
}

#[cfg(test)]
mod tests {
    use crate::errno::Errno;
    use crate::task::kernel::{Config, Kernel};

    #[test]
    fn cmdline_follows_the_address_space() {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        assert_eq!(k.cmdline(init).unwrap(), b"");
        k.set_cmdline(init, &[b"/sbin/init", b"splash"]).unwrap();
        assert_eq!(k.cmdline(init).unwrap(), b"/sbin/init\0splash\0");
        // fork copies, a thread shares, exec replaces.
        let child = k.fork(init).unwrap();
        assert_eq!(k.cmdline(child).unwrap(), b"/sbin/init\0splash\0");
        let th = k
            .clone(child, &crate::task::lifecycle::clone::CloneArgs::thread())
            .unwrap();
        k.execve_argv(child, "/bin/sleep", &[b"sleep", b"5"])
            .unwrap();
        assert_eq!(k.cmdline(child).unwrap(), b"sleep\x005\0");
        assert_eq!(k.cmdline(init).unwrap(), b"/sbin/init\0splash\0");
        // The exec killed the other thread; its handle is gone or zombie.
        assert!(k.cmdline(th).map_or(true, |c| c.is_empty()));
        assert_eq!(k.comm(child).unwrap(), b"sleep");
        k.exit_group(child, 0).unwrap();
        assert_eq!(k.cmdline(child).unwrap(), b"");
    }

    #[test]
    fn oversized_argv_is_e2big_and_changes_nothing() {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let big = vec![b'x'; super::ARG_MAX];
        assert_eq!(k.execve_argv(init, "/bin/x", &[&big]), Err(Errno::E2BIG));
        assert_eq!(k.comm(init).unwrap(), b"init");
    }

    #[test]
    fn set_comm_truncates() {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        k.set_comm(init, b"a-very-long-thread-name").unwrap();
        assert_eq!(k.comm(init).unwrap(), b"a-very-long-thr");
        k.set_comm(init, b"ab\0cd").unwrap();
        assert_eq!(k.comm(init).unwrap(), b"ab");
    }
}
