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
        if self.tasks[t].mm.is_gone() {
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
        if let Some(mm) = self.mm_own(t).entry() {
            self.mms[mm].cmdline = Some(Arc::from(area));
        }
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
        self.mm_cmdline(self.tasks[t].mm).map_or(&[], |c| &c[..])
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

    /// Whether `task`'s exit has begun: it is exiting, or a zombie not yet
    /// reaped (what a tracer cannot tell from its own `waitpid` before the
    /// death report).
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale (released).
    ///
    /// # Linux
    /// `task->flags & PF_EXITING`, set by `exit_signals()` at the start of
    /// `do_exit()`.
    pub fn is_exiting(&self, task: TaskId) -> Result<bool> {
        let (_, t) = self.task_entry(task)?;
        Ok(t.flags.contains(crate::task::task_struct::PF_EXITING))
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

    /// The parent of pid namespace `ns` (`None` for the root namespace).
    ///
    /// # Errors
    /// `EINVAL` if `ns` names no namespace (freed).
    ///
    /// # Linux
    /// `pid_namespace::parent`, as `ioctl(NS_GET_PARENT)` gives it.
    pub fn pid_ns_parent(&self, ns: NsId) -> Result<Option<NsId>> {
        Ok(self.nss.get(ns.0).ok_or(Errno::EINVAL)?.parent.map(NsId))
    }

    /// The depth of pid namespace `ns`: 0 for the root namespace, its
    /// parent's plus one otherwise.
    ///
    /// # Errors
    /// `EINVAL` if `ns` names no namespace (freed).
    ///
    /// # Linux
    /// `pid_namespace::level`.
    pub fn pid_ns_level(&self, ns: NsId) -> Result<usize> {
        Ok(self.nss.get(ns.0).ok_or(Errno::EINVAL)?.level)
    }

    /// The number that the `struct pid` numbered `nr` in namespace `from`
    /// has in namespace `to`: 0 when it has none there (`to` is not
    /// `from`'s or one of the pid's ancestors' namespaces, as Linux shows
    /// a pid from outside a namespace). Any use counts: a process group or
    /// session id whose leader is gone too.
    ///
    /// # Errors
    /// - `EINVAL`: `from` or `to` names no namespace.
    /// - `ESRCH`: no pid is numbered `nr` in `from` (`nr <= 0` included).
    ///
    /// # Linux
    /// `pid_nr_ns(find_pid_ns(nr, from), to)` (kernel/pid.c).
    pub fn pid_nr_in_ns(&self, from: NsId, nr: i32, to: NsId) -> Result<i32> {
        self.nss.get(from.0).ok_or(Errno::EINVAL)?;
        self.nss.get(to.0).ok_or(Errno::EINVAL)?;
        let pid = self.find_pid(from.0, nr).ok_or(Errno::ESRCH)?;
        Ok(self.pid_nr_ns(pid, to.0))
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
    fn is_exiting_from_the_exit_to_the_reap() {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let child = k.fork(init).unwrap();
        assert_eq!(k.is_exiting(child), Ok(false));
        k.exit_group(child, 3).unwrap();
        // A zombie: its handle still answers getpid(), and it is exiting.
        assert!(k.getpid(child).is_ok());
        assert_eq!(k.is_exiting(child), Ok(true));
        k.wait4(init, -1, 0).unwrap();
        assert_eq!(k.is_exiting(child), Err(Errno::ESRCH));
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
    fn numbers_translate_between_nested_namespaces() {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let a = k.fork(init).unwrap();
        k.unshare(a, crate::uapi::CLONE_NEWPID).unwrap();
        let b = k.fork(a).unwrap();
        let c = k.fork(b).unwrap();
        let root = k.root_ns();
        let ns = k.task_active_pid_ns(b).unwrap();
        assert_eq!(k.pid_ns_parent(ns), Ok(Some(root)));
        assert_eq!(k.pid_ns_parent(root), Ok(None));
        assert_eq!((k.pid_ns_level(root), k.pid_ns_level(ns)), (Ok(0), Ok(1)));
        let (vb, vc) = (k.pid_vnr(init, b).unwrap(), k.pid_vnr(init, c).unwrap());
        // b is the nested init, c its child: 1 and 2 inside.
        assert_eq!(k.pid_nr_in_ns(root, vb, ns), Ok(1));
        assert_eq!(k.pid_nr_in_ns(root, vc, ns), Ok(2));
        assert_eq!(k.pid_nr_in_ns(ns, 2, root), Ok(vc));
        // a (and init) have no number inside.
        let va = k.pid_vnr(init, a).unwrap();
        assert_eq!(k.pid_nr_in_ns(root, va, ns), Ok(0));
        assert_eq!(k.pid_nr_in_ns(root, 1, ns), Ok(0));
        // b's group is a's (outside): in use in the root namespace only.
        assert_eq!(k.getpgid(b, 0), Ok(0));
        assert_eq!(k.pid_nr_in_ns(ns, 3, root), Err(Errno::ESRCH));
        assert_eq!(k.pid_nr_in_ns(ns, 0, root), Err(Errno::ESRCH));
        // A freed namespace is no namespace.
        k.exit_group(c, 0).unwrap();
        k.exit_group(b, 0).unwrap();
        k.wait4(b, -1, crate::uapi::__WALL).ok();
        k.wait4(a, -1, crate::uapi::__WALL).unwrap();
        k.exit_group(a, 0).unwrap();
        k.wait4(init, -1, crate::uapi::__WALL).unwrap();
        assert_eq!(k.pid_ns_level(ns), Err(Errno::EINVAL));
        assert_eq!(k.pid_nr_in_ns(ns, 1, root), Err(Errno::EINVAL));
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
