//! [`TaskApi`]: the process calls (lifecycle, credentials, signal masks,
//! the process prctls, unshare) shared by the [`Kernel`] and
//! other process tables (the reference model `taskcore-model`), so one
//! scenario, written once against the trait, drives each of them.

use crate::errno::Result;
use crate::ix::TaskId;
use crate::task::kernel::Config;
use crate::task::kernel::Kernel;
use crate::task::lifecycle::clone::CloneArgs;
use crate::task::lifecycle::clone3::Clone3Args;
use crate::task::state::sighand::SigAction;
use crate::wait::WaitOutcome;

/// The syscall-shaped process-lifecycle API: a process table with handles
/// of type [`TaskApi::Task`]. Each method has the meaning, errors and
/// Linux function of the [`Kernel`] method of the same name, which
/// implements it; an implementation must give the same results for the
/// same sequence of calls.
///
/// # Examples
/// ```
/// use taskcore::sys::TaskApi;
/// use taskcore::{Config, Kernel};
///
/// /// One scenario for any implementation.
/// fn fork_exit_reap<K: TaskApi>() -> i32 {
///     let mut k = K::new(Config::default()).unwrap();
///     let init = k.init_task().unwrap();
///     let c = k.fork(init).unwrap();
///     let pid = k.pid_vnr(init, c).unwrap();
///     k.exit_group(c, 0).unwrap();
///     k.wait4(init, pid, 0).unwrap();
///     pid
/// }
/// assert_eq!(fork_exit_reap::<Kernel>(), 2);
/// ```
///
/// # Linux
/// The syscalls of kernel/fork.c, exit.c, signal.c, sys.c and ptrace.c
/// (see each [`Kernel`] method).
pub trait TaskApi: Sized {
    /// The task handle.
    type Task: Copy + Eq + core::fmt::Debug;
    /// The open-pidfd handle (the open file description; the embedder
    /// numbers fds).
    type PidFd: Copy + Eq + core::fmt::Debug;

    /// A table holding only init (pid 1). [`Kernel::new`].
    ///
    /// # Errors
    /// As [`Kernel::new`].
    fn new(config: Config) -> Result<Self>;
    /// Init's handle. [`Kernel::init_task`].
    ///
    /// # Errors
    /// As [`Kernel::init_task`].
    fn init_task(&self) -> Result<Self::Task>;
    /// Tasks alive or zombie. [`Kernel::nr_tasks`].
    fn nr_tasks(&self) -> usize;
    /// clone(2). [`Kernel::clone`].
    ///
    /// # Errors
    /// As [`Kernel::clone`].
    fn clone(&mut self, current: Self::Task, args: &CloneArgs) -> Result<Self::Task>;
    /// clone3(2). [`Kernel::clone3`].
    ///
    /// # Errors
    /// As [`Kernel::clone3`].
    fn clone3(&mut self, current: Self::Task, args: &Clone3Args) -> Result<Self::Task>;
    /// clone(2) with the pidfd `CLONE_PIDFD` asks for.
    /// [`Kernel::clone_with_pidfd`].
    ///
    /// # Errors
    /// As [`Kernel::clone_with_pidfd`].
    fn clone_with_pidfd(
        &mut self,
        current: Self::Task,
        args: &CloneArgs,
    ) -> Result<(Self::Task, Option<Self::PidFd>)>;
    /// clone3(2) with the pidfd `CLONE_PIDFD` asks for.
    /// [`Kernel::clone3_with_pidfd`].
    ///
    /// # Errors
    /// As [`Kernel::clone3_with_pidfd`].
    fn clone3_with_pidfd(
        &mut self,
        current: Self::Task,
        args: &Clone3Args,
    ) -> Result<(Self::Task, Option<Self::PidFd>)>;
    /// pidfd_open(2). [`Kernel::pidfd_open`].
    ///
    /// # Errors
    /// As [`Kernel::pidfd_open`].
    fn pidfd_open(&mut self, current: Self::Task, pid: i32, flags: u32) -> Result<Self::PidFd>;
    /// pidfd_send_signal(2). [`Kernel::pidfd_send_signal`].
    ///
    /// # Errors
    /// As [`Kernel::pidfd_send_signal`].
    fn pidfd_send_signal(
        &mut self,
        current: Self::Task,
        fd: Self::PidFd,
        sig: i32,
        info: Option<crate::SigInfo>,
        flags: u32,
    ) -> Result<()>;
    /// waitid(2) with `P_PIDFD`. [`Kernel::waitid_pidfd`].
    ///
    /// # Errors
    /// As [`Kernel::waitid_pidfd`].
    fn waitid_pidfd(
        &mut self,
        current: Self::Task,
        fd: Self::PidFd,
        options: i32,
    ) -> Result<WaitOutcome>;
    /// The last close of a pidfd. [`Kernel::pidfd_close`].
    ///
    /// # Errors
    /// As [`Kernel::pidfd_close`].
    fn pidfd_close(&mut self, fd: Self::PidFd) -> Result<()>;
    /// fork(2). [`Kernel::fork`].
    ///
    /// # Errors
    /// As [`Kernel::fork`].
    fn fork(&mut self, current: Self::Task) -> Result<Self::Task>;
    /// vfork(2). [`Kernel::vfork`].
    ///
    /// # Errors
    /// As [`Kernel::vfork`].
    fn vfork(&mut self, current: Self::Task) -> Result<Self::Task>;
    /// execve(2). [`Kernel::execve`].
    ///
    /// # Errors
    /// As [`Kernel::execve`].
    fn execve(&mut self, current: Self::Task, filename: &str) -> Result<()>;
    /// exit(2). [`Kernel::exit`].
    ///
    /// # Errors
    /// As [`Kernel::exit`].
    fn exit(&mut self, current: Self::Task, code: i32) -> Result<()>;
    /// exit_group(2). [`Kernel::exit_group`].
    ///
    /// # Errors
    /// As [`Kernel::exit_group`].
    fn exit_group(&mut self, current: Self::Task, code: i32) -> Result<()>;
    /// wait4(2). [`Kernel::wait4`].
    ///
    /// # Errors
    /// As [`Kernel::wait4`].
    fn wait4(&mut self, current: Self::Task, pid: i32, options: i32) -> Result<WaitOutcome>;
    /// waitid(2). [`Kernel::waitid`].
    ///
    /// # Errors
    /// As [`Kernel::waitid`].
    fn waitid(
        &mut self,
        current: Self::Task,
        idtype: i32,
        id: i32,
        options: i32,
    ) -> Result<WaitOutcome>;
    /// setpgid(2). [`Kernel::setpgid`].
    ///
    /// # Errors
    /// As [`Kernel::setpgid`].
    fn setpgid(&mut self, current: Self::Task, pid: i32, pgid: i32) -> Result<()>;
    /// setsid(2). [`Kernel::setsid`].
    ///
    /// # Errors
    /// As [`Kernel::setsid`].
    fn setsid(&mut self, current: Self::Task) -> Result<i32>;
    /// getpgid(2). [`Kernel::getpgid`].
    ///
    /// # Errors
    /// As [`Kernel::getpgid`].
    fn getpgid(&self, current: Self::Task, pid: i32) -> Result<i32>;
    /// getsid(2). [`Kernel::getsid`].
    ///
    /// # Errors
    /// As [`Kernel::getsid`].
    fn getsid(&self, current: Self::Task, pid: i32) -> Result<i32>;
    /// getppid(2). [`Kernel::getppid`].
    ///
    /// # Errors
    /// As [`Kernel::getppid`].
    fn getppid(&self, current: Self::Task) -> Result<i32>;
    /// getpid(2). [`Kernel::getpid`].
    ///
    /// # Errors
    /// As [`Kernel::getpid`].
    fn getpid(&self, current: Self::Task) -> Result<i32>;
    /// gettid(2). [`Kernel::gettid`].
    ///
    /// # Errors
    /// As [`Kernel::gettid`].
    fn gettid(&self, current: Self::Task) -> Result<i32>;
    /// kill(2). [`Kernel::kill`].
    ///
    /// # Errors
    /// As [`Kernel::kill`].
    fn kill(&mut self, current: Self::Task, pid: i32, sig: i32) -> Result<()>;
    /// tgkill(2). [`Kernel::tgkill`].
    ///
    /// # Errors
    /// As [`Kernel::tgkill`].
    fn tgkill(&mut self, current: Self::Task, tgid: i32, tid: i32, sig: i32) -> Result<()>;
    /// tkill(2). [`Kernel::tkill`].
    ///
    /// # Errors
    /// As [`Kernel::tkill`].
    fn tkill(&mut self, current: Self::Task, tid: i32, sig: i32) -> Result<()>;
    /// rt_sigaction(2). [`Kernel::rt_sigaction`].
    ///
    /// # Errors
    /// As [`Kernel::rt_sigaction`].
    fn rt_sigaction(
        &mut self,
        current: Self::Task,
        sig: i32,
        act: Option<SigAction>,
    ) -> Result<SigAction>;
    /// `prctl(PR_SET_CHILD_SUBREAPER)`. [`Kernel::set_child_subreaper`].
    ///
    /// # Errors
    /// As [`Kernel::set_child_subreaper`].
    fn set_child_subreaper(&mut self, current: Self::Task, on: bool) -> Result<()>;
    /// `PTRACE_ATTACH`/`PTRACE_SEIZE`. [`Kernel::ptrace_attach`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_attach`].
    fn ptrace_attach(&mut self, current: Self::Task, pid: i32, seize: bool) -> Result<()>;
    /// `PTRACE_TRACEME`. [`Kernel::ptrace_traceme`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_traceme`].
    fn ptrace_traceme(&mut self, current: Self::Task) -> Result<()>;
    /// `PTRACE_CONT`. [`Kernel::ptrace_cont`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_cont`].
    fn ptrace_cont(&mut self, current: Self::Task, pid: i32, sig: i32) -> Result<()>;
    /// `PTRACE_DETACH`. [`Kernel::ptrace_detach`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_detach`].
    fn ptrace_detach(&mut self, current: Self::Task, pid: i32, sig: i32) -> Result<()>;
    /// `PTRACE_SEIZE` with options. [`Kernel::ptrace_seize`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_seize`].
    fn ptrace_seize(&mut self, current: Self::Task, pid: i32, options: u32) -> Result<()>;
    /// `PTRACE_SETOPTIONS`. [`Kernel::ptrace_setoptions`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_setoptions`].
    fn ptrace_setoptions(&mut self, current: Self::Task, pid: i32, options: u32) -> Result<()>;
    /// `PTRACE_GETEVENTMSG`: the last event's message. [`Kernel::ptrace_geteventmsg`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_geteventmsg`].
    fn ptrace_geteventmsg(&self, current: Self::Task, pid: i32) -> Result<u64>;
    /// `PTRACE_INTERRUPT`. [`Kernel::ptrace_interrupt`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_interrupt`].
    fn ptrace_interrupt(&mut self, current: Self::Task, pid: i32) -> Result<()>;
    /// `PTRACE_LISTEN`. [`Kernel::ptrace_listen`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_listen`].
    fn ptrace_listen(&mut self, current: Self::Task, pid: i32) -> Result<()>;
    /// `PTRACE_SYSCALL`. [`Kernel::ptrace_syscall`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_syscall`].
    fn ptrace_syscall(&mut self, current: Self::Task, pid: i32, sig: i32) -> Result<()>;
    /// setuid(2). [`Kernel::setuid`].
    ///
    /// # Errors
    /// As [`Kernel::setuid`].
    fn setuid(&mut self, current: Self::Task, uid: u32) -> Result<()>;
    /// setgid(2). [`Kernel::setgid`].
    ///
    /// # Errors
    /// As [`Kernel::setgid`].
    fn setgid(&mut self, current: Self::Task, gid: u32) -> Result<()>;
    /// setreuid(2). [`Kernel::setreuid`].
    ///
    /// # Errors
    /// As [`Kernel::setreuid`].
    fn setreuid(&mut self, current: Self::Task, ruid: u32, euid: u32) -> Result<()>;
    /// setregid(2). [`Kernel::setregid`].
    ///
    /// # Errors
    /// As [`Kernel::setregid`].
    fn setregid(&mut self, current: Self::Task, rgid: u32, egid: u32) -> Result<()>;
    /// setresuid(2). [`Kernel::setresuid`].
    ///
    /// # Errors
    /// As [`Kernel::setresuid`].
    fn setresuid(&mut self, current: Self::Task, ruid: u32, euid: u32, suid: u32) -> Result<()>;
    /// setresgid(2). [`Kernel::setresgid`].
    ///
    /// # Errors
    /// As [`Kernel::setresgid`].
    fn setresgid(&mut self, current: Self::Task, rgid: u32, egid: u32, sgid: u32) -> Result<()>;
    /// setfsuid(2): the old fs uid. [`Kernel::setfsuid`].
    ///
    /// # Errors
    /// As [`Kernel::setfsuid`].
    fn setfsuid(&mut self, current: Self::Task, uid: u32) -> Result<u32>;
    /// setfsgid(2): the old fs gid. [`Kernel::setfsgid`].
    ///
    /// # Errors
    /// As [`Kernel::setfsgid`].
    fn setfsgid(&mut self, current: Self::Task, gid: u32) -> Result<u32>;
    /// setgroups(2). [`Kernel::setgroups`].
    ///
    /// # Errors
    /// As [`Kernel::setgroups`].
    fn setgroups(&mut self, current: Self::Task, groups: &[u32]) -> Result<()>;
    /// unshare(2). [`Kernel::unshare`].
    ///
    /// # Errors
    /// As [`Kernel::unshare`].
    fn unshare(&mut self, current: Self::Task, flags: u64) -> Result<()>;
    /// rt_sigprocmask(2): the old mask. [`Kernel::rt_sigprocmask`].
    ///
    /// # Errors
    /// As [`Kernel::rt_sigprocmask`].
    fn rt_sigprocmask(&mut self, current: Self::Task, how: i32, set: Option<u64>) -> Result<u64>;
    /// rt_sigpending(2). [`Kernel::rt_sigpending`].
    ///
    /// # Errors
    /// As [`Kernel::rt_sigpending`].
    fn rt_sigpending(&self, current: Self::Task) -> Result<u64>;
    /// `prctl(PR_SET_NAME)`. [`Kernel::pr_set_name`].
    ///
    /// # Errors
    /// As [`Kernel::pr_set_name`].
    fn pr_set_name(&mut self, current: Self::Task, name: &[u8]) -> Result<()>;
    /// `prctl(PR_GET_NAME)`. [`Kernel::pr_get_name`].
    ///
    /// # Errors
    /// As [`Kernel::pr_get_name`].
    fn pr_get_name(&self, current: Self::Task) -> Result<[u8; crate::uapi::TASK_COMM_LEN]>;
    /// `prctl(PR_SET_DUMPABLE)`. [`Kernel::pr_set_dumpable`].
    ///
    /// # Errors
    /// As [`Kernel::pr_set_dumpable`].
    fn pr_set_dumpable(&mut self, current: Self::Task, arg: u64) -> Result<()>;
    /// `prctl(PR_GET_DUMPABLE)`. [`Kernel::pr_get_dumpable`].
    ///
    /// # Errors
    /// As [`Kernel::pr_get_dumpable`].
    fn pr_get_dumpable(&self, current: Self::Task) -> Result<i32>;
    /// `prctl(PR_SET_PDEATHSIG)`. [`Kernel::set_pdeathsig`].
    ///
    /// # Errors
    /// As [`Kernel::set_pdeathsig`].
    fn set_pdeathsig(&mut self, current: Self::Task, sig: i32) -> Result<()>;
    /// `prctl(PR_GET_PDEATHSIG)`. [`Kernel::pdeathsig`].
    ///
    /// # Errors
    /// As [`Kernel::pdeathsig`].
    fn pdeathsig(&self, current: Self::Task) -> Result<i32>;
    /// `prlimit64(pid, resource, new, old)`: the old limit, after setting
    /// `new` if given (`pid` 0: the caller). [`Kernel::prlimit64`].
    ///
    /// # Errors
    /// As [`Kernel::prlimit64`].
    fn prlimit64(
        &mut self,
        current: Self::Task,
        pid: i32,
        resource: u32,
        new: Option<crate::Rlimit>,
    ) -> Result<crate::Rlimit>;
    /// A task's pid as `viewer`'s namespace numbers it. [`Kernel::pid_vnr`].
    ///
    /// # Errors
    /// As [`Kernel::pid_vnr`].
    fn pid_vnr(&self, viewer: Self::Task, task: Self::Task) -> Result<i32>;
    /// Whether `nr` is in use in `viewer`'s namespace. [`Kernel::pid_in_use`].
    ///
    /// # Errors
    /// As [`Kernel::pid_in_use`].
    fn pid_in_use(&self, viewer: Self::Task, nr: i32) -> Result<bool>;
    /// The task `nr` names in `viewer`'s namespace.
    /// [`Kernel::find_task_by_vpid`].
    ///
    /// # Errors
    /// As [`Kernel::find_task_by_vpid`].
    fn find_task_by_vpid(&self, viewer: Self::Task, nr: i32) -> Result<Self::Task>;
}

/// Implements [`TaskApi`] for a type whose inherent methods have the
/// trait's names and signatures (with `$task` as the task handle and
/// `$pidfd` as the pidfd handle), by
/// forwarding. Used for [`Kernel`] here and for the reference model in
/// `taskcore-model`.
#[macro_export]
macro_rules! impl_task_api {
    ($ty:ty, $task:ty, $pidfd:ty) => {
        impl $crate::sys::TaskApi for $ty {
            type Task = $task;
            type PidFd = $pidfd;
            fn clone_with_pidfd(
                &mut self,
                c: $task,
                args: &$crate::task::CloneArgs,
            ) -> $crate::errno::Result<($task, Option<$pidfd>)> {
                <$ty>::clone_with_pidfd(self, c, args)
            }
            fn clone3_with_pidfd(
                &mut self,
                c: $task,
                args: &$crate::task::Clone3Args,
            ) -> $crate::errno::Result<($task, Option<$pidfd>)> {
                <$ty>::clone3_with_pidfd(self, c, args)
            }
            fn pidfd_open(
                &mut self,
                c: $task,
                pid: i32,
                flags: u32,
            ) -> $crate::errno::Result<$pidfd> {
                <$ty>::pidfd_open(self, c, pid, flags)
            }
            fn pidfd_send_signal(
                &mut self,
                c: $task,
                fd: $pidfd,
                sig: i32,
                info: Option<$crate::SigInfo>,
                flags: u32,
            ) -> $crate::errno::Result<()> {
                <$ty>::pidfd_send_signal(self, c, fd, sig, info, flags)
            }
            fn waitid_pidfd(
                &mut self,
                c: $task,
                fd: $pidfd,
                options: i32,
            ) -> $crate::errno::Result<$crate::wait::WaitOutcome> {
                <$ty>::waitid_pidfd(self, c, fd, options)
            }
            fn pidfd_close(&mut self, fd: $pidfd) -> $crate::errno::Result<()> {
                <$ty>::pidfd_close(self, fd)
            }
            fn new(config: $crate::task::Config) -> $crate::errno::Result<Self> {
                <$ty>::new(config)
            }
            fn init_task(&self) -> $crate::errno::Result<$task> {
                <$ty>::init_task(self)
            }
            fn nr_tasks(&self) -> usize {
                <$ty>::nr_tasks(self)
            }
            fn clone(
                &mut self,
                c: $task,
                args: &$crate::task::CloneArgs,
            ) -> $crate::errno::Result<$task> {
                <$ty>::clone(self, c, args)
            }
            fn clone3(
                &mut self,
                c: $task,
                args: &$crate::task::Clone3Args,
            ) -> $crate::errno::Result<$task> {
                <$ty>::clone3(self, c, args)
            }
            fn fork(&mut self, c: $task) -> $crate::errno::Result<$task> {
                <$ty>::fork(self, c)
            }
            fn vfork(&mut self, c: $task) -> $crate::errno::Result<$task> {
                <$ty>::vfork(self, c)
            }
            fn execve(&mut self, c: $task, filename: &str) -> $crate::errno::Result<()> {
                <$ty>::execve(self, c, filename)
            }
            fn exit(&mut self, c: $task, code: i32) -> $crate::errno::Result<()> {
                <$ty>::exit(self, c, code)
            }
            fn exit_group(&mut self, c: $task, code: i32) -> $crate::errno::Result<()> {
                <$ty>::exit_group(self, c, code)
            }
            fn wait4(
                &mut self,
                c: $task,
                pid: i32,
                options: i32,
            ) -> $crate::errno::Result<$crate::wait::WaitOutcome> {
                <$ty>::wait4(self, c, pid, options)
            }
            fn waitid(
                &mut self,
                c: $task,
                idtype: i32,
                id: i32,
                options: i32,
            ) -> $crate::errno::Result<$crate::wait::WaitOutcome> {
                <$ty>::waitid(self, c, idtype, id, options)
            }
            fn setpgid(&mut self, c: $task, pid: i32, pgid: i32) -> $crate::errno::Result<()> {
                <$ty>::setpgid(self, c, pid, pgid)
            }
            fn setsid(&mut self, c: $task) -> $crate::errno::Result<i32> {
                <$ty>::setsid(self, c)
            }
            fn getpgid(&self, c: $task, pid: i32) -> $crate::errno::Result<i32> {
                <$ty>::getpgid(self, c, pid)
            }
            fn getsid(&self, c: $task, pid: i32) -> $crate::errno::Result<i32> {
                <$ty>::getsid(self, c, pid)
            }
            fn getppid(&self, c: $task) -> $crate::errno::Result<i32> {
                <$ty>::getppid(self, c)
            }
            fn getpid(&self, c: $task) -> $crate::errno::Result<i32> {
                <$ty>::getpid(self, c)
            }
            fn gettid(&self, c: $task) -> $crate::errno::Result<i32> {
                <$ty>::gettid(self, c)
            }
            fn kill(&mut self, c: $task, pid: i32, sig: i32) -> $crate::errno::Result<()> {
                <$ty>::kill(self, c, pid, sig)
            }
            fn tgkill(
                &mut self,
                c: $task,
                tgid: i32,
                tid: i32,
                sig: i32,
            ) -> $crate::errno::Result<()> {
                <$ty>::tgkill(self, c, tgid, tid, sig)
            }
            fn tkill(&mut self, c: $task, tid: i32, sig: i32) -> $crate::errno::Result<()> {
                <$ty>::tkill(self, c, tid, sig)
            }
            fn rt_sigaction(
                &mut self,
                c: $task,
                sig: i32,
                act: Option<$crate::task::SigAction>,
            ) -> $crate::errno::Result<$crate::task::SigAction> {
                <$ty>::rt_sigaction(self, c, sig, act)
            }
            fn set_child_subreaper(&mut self, c: $task, on: bool) -> $crate::errno::Result<()> {
                <$ty>::set_child_subreaper(self, c, on)
            }
            fn ptrace_attach(
                &mut self,
                c: $task,
                pid: i32,
                seize: bool,
            ) -> $crate::errno::Result<()> {
                <$ty>::ptrace_attach(self, c, pid, seize)
            }
            fn ptrace_traceme(&mut self, c: $task) -> $crate::errno::Result<()> {
                <$ty>::ptrace_traceme(self, c)
            }
            fn ptrace_cont(&mut self, c: $task, pid: i32, sig: i32) -> $crate::errno::Result<()> {
                <$ty>::ptrace_cont(self, c, pid, sig)
            }
            fn ptrace_detach(&mut self, c: $task, pid: i32, sig: i32) -> $crate::errno::Result<()> {
                <$ty>::ptrace_detach(self, c, pid, sig)
            }
            fn ptrace_seize(
                &mut self,
                c: $task,
                pid: i32,
                options: u32,
            ) -> $crate::errno::Result<()> {
                <$ty>::ptrace_seize(self, c, pid, options)
            }
            fn ptrace_setoptions(
                &mut self,
                c: $task,
                pid: i32,
                options: u32,
            ) -> $crate::errno::Result<()> {
                <$ty>::ptrace_setoptions(self, c, pid, options)
            }
            fn ptrace_geteventmsg(&self, c: $task, pid: i32) -> $crate::errno::Result<u64> {
                <$ty>::ptrace_geteventmsg(self, c, pid)
            }
            fn ptrace_interrupt(&mut self, c: $task, pid: i32) -> $crate::errno::Result<()> {
                <$ty>::ptrace_interrupt(self, c, pid)
            }
            fn ptrace_listen(&mut self, c: $task, pid: i32) -> $crate::errno::Result<()> {
                <$ty>::ptrace_listen(self, c, pid)
            }
            fn ptrace_syscall(
                &mut self,
                c: $task,
                pid: i32,
                sig: i32,
            ) -> $crate::errno::Result<()> {
                <$ty>::ptrace_syscall(self, c, pid, sig)
            }
            fn setuid(&mut self, c: $task, uid: u32) -> $crate::errno::Result<()> {
                <$ty>::setuid(self, c, uid)
            }
            fn setgid(&mut self, c: $task, gid: u32) -> $crate::errno::Result<()> {
                <$ty>::setgid(self, c, gid)
            }
            fn setreuid(&mut self, c: $task, ruid: u32, euid: u32) -> $crate::errno::Result<()> {
                <$ty>::setreuid(self, c, ruid, euid)
            }
            fn setregid(&mut self, c: $task, rgid: u32, egid: u32) -> $crate::errno::Result<()> {
                <$ty>::setregid(self, c, rgid, egid)
            }
            fn setresuid(
                &mut self,
                c: $task,
                ruid: u32,
                euid: u32,
                suid: u32,
            ) -> $crate::errno::Result<()> {
                <$ty>::setresuid(self, c, ruid, euid, suid)
            }
            fn setresgid(
                &mut self,
                c: $task,
                rgid: u32,
                egid: u32,
                sgid: u32,
            ) -> $crate::errno::Result<()> {
                <$ty>::setresgid(self, c, rgid, egid, sgid)
            }
            fn setfsuid(&mut self, c: $task, uid: u32) -> $crate::errno::Result<u32> {
                <$ty>::setfsuid(self, c, uid)
            }
            fn setfsgid(&mut self, c: $task, gid: u32) -> $crate::errno::Result<u32> {
                <$ty>::setfsgid(self, c, gid)
            }
            fn setgroups(&mut self, c: $task, groups: &[u32]) -> $crate::errno::Result<()> {
                <$ty>::setgroups(self, c, groups)
            }
            fn unshare(&mut self, c: $task, flags: u64) -> $crate::errno::Result<()> {
                <$ty>::unshare(self, c, flags)
            }
            fn rt_sigprocmask(
                &mut self,
                c: $task,
                how: i32,
                set: Option<u64>,
            ) -> $crate::errno::Result<u64> {
                <$ty>::rt_sigprocmask(self, c, how, set)
            }
            fn rt_sigpending(&self, c: $task) -> $crate::errno::Result<u64> {
                <$ty>::rt_sigpending(self, c)
            }
            fn pr_set_name(&mut self, c: $task, name: &[u8]) -> $crate::errno::Result<()> {
                <$ty>::pr_set_name(self, c, name)
            }
            fn pr_get_name(
                &self,
                c: $task,
            ) -> $crate::errno::Result<[u8; $crate::uapi::TASK_COMM_LEN]> {
                <$ty>::pr_get_name(self, c)
            }
            fn pr_set_dumpable(&mut self, c: $task, arg: u64) -> $crate::errno::Result<()> {
                <$ty>::pr_set_dumpable(self, c, arg)
            }
            fn pr_get_dumpable(&self, c: $task) -> $crate::errno::Result<i32> {
                <$ty>::pr_get_dumpable(self, c)
            }
            fn set_pdeathsig(&mut self, c: $task, sig: i32) -> $crate::errno::Result<()> {
                <$ty>::set_pdeathsig(self, c, sig)
            }
            fn pdeathsig(&self, c: $task) -> $crate::errno::Result<i32> {
                <$ty>::pdeathsig(self, c)
            }
            fn prlimit64(
                &mut self,
                c: $task,
                pid: i32,
                resource: u32,
                new: Option<$crate::Rlimit>,
            ) -> $crate::errno::Result<$crate::Rlimit> {
                <$ty>::prlimit64(self, c, pid, resource, new)
            }
            fn pid_vnr(&self, v: $task, t: $task) -> $crate::errno::Result<i32> {
                <$ty>::pid_vnr(self, v, t)
            }
            fn pid_in_use(&self, v: $task, nr: i32) -> $crate::errno::Result<bool> {
                <$ty>::pid_in_use(self, v, nr)
            }
            fn find_task_by_vpid(&self, v: $task, nr: i32) -> $crate::errno::Result<$task> {
                <$ty>::find_task_by_vpid(self, v, nr)
            }
        }
    };
}

crate::impl_task_api!(Kernel, TaskId, crate::task::procapi::pidfd::PidFd);
