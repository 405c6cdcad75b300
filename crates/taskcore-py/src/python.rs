//! The `taskcore` Python module (PyO3).

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyBlockingIOError, PyInterruptedError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::{CloneArgs, Config, Errno, TaskId, WaitOutcome};

use crate::python_signal as sig;
use crate::{os_message, raw_syscall, PidFds, RangeMemory, Raw, RecordStream};

/// Linux's errno as `OSError(errno, strerror)` (Python picks the subclass:
/// `ChildProcessError`, `ProcessLookupError`, `PermissionError`, ...).
fn os_err(e: Errno) -> PyErr {
    let n = e.as_i32();
    PyOSError::new_err((n, os_message(n)))
}

fn res<T>(r: taskcore::Result<T>) -> PyResult<T> {
    r.map_err(os_err)
}

/// A task of a [`Kernel`] (a handle: stale once the task is reaped).
#[pyclass(module = "taskcore", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Task(TaskId);

#[pymethods]
impl Task {
    fn __repr__(&self) -> String {
        format!("Task({:?})", self.0)
    }
}

/// Linux's process table: `Kernel(pid_max=32768)`. Operations take the
/// calling task and Linux's arguments, and return Linux's results or raise
/// `OSError` with Linux's errno.
#[pyclass(module = "taskcore", unsendable)]
struct Kernel {
    k: taskcore::Kernel,
    /// The pidfds' numbers (for `syscall`).
    fds: PidFds,
}

/// A register value: any Python int from -2**63 to 2**64 - 1 (negative
/// ones as two's complement, as C passes them).
fn register(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    match v.extract::<u64>() {
        Ok(u) => Ok(u),
        Err(_) => Ok(v.extract::<i64>()? as u64),
    }
}

#[pymethods]
impl Kernel {
    /// `Kernel(pid_max=32768, signal_delivery="immediate")`: with
    /// `"on_get_signal"` the caller delivers signals itself through
    /// `get_signal` (see `take_notifications`).
    #[new]
    #[pyo3(signature = (pid_max = 32768, signal_delivery = "immediate"))]
    fn new(pid_max: u32, signal_delivery: &str) -> PyResult<Kernel> {
        let mode = sig::delivery(signal_delivery)?;
        let mut k = res(taskcore::Kernel::new(Config {
            pid_max,
            ..Config::default()
        }))?;
        k.set_signal_delivery(mode);
        Ok(Kernel {
            k,
            fds: PidFds::default(),
        })
    }

    /// The root namespace's init (pid 1).
    fn init_task(&self) -> PyResult<Task> {
        res(self.k.init_task()).map(Task)
    }

    /// `fork()` by `current`: the child.
    fn fork(&mut self, current: &Task) -> PyResult<Task> {
        res(self.k.fork(current.0)).map(Task)
    }

    /// `clone(flags | exit_signal)` by `current`: the new task.
    #[pyo3(signature = (current, flags, exit_signal = 17))]
    fn clone(&mut self, current: &Task, flags: u64, exit_signal: i32) -> PyResult<Task> {
        let args = CloneArgs {
            flags,
            exit_signal,
            set_tid: Vec::new(),
        };
        res(self.k.clone(current.0, &args)).map(Task)
    }

    /// `exit(code)` of one thread.
    fn exit(&mut self, current: &Task, code: i32) -> PyResult<()> {
        res(self.k.exit(current.0, code))
    }

    /// `exit_group(code)` of the whole process.
    fn exit_group(&mut self, current: &Task, code: i32) -> PyResult<()> {
        res(self.k.exit_group(current.0, code))
    }

    /// `wait4(pid, options)`: `(pid, status)`, `None` under WNOHANG when
    /// nothing is ready; raises `BlockingIOError` when the wait would
    /// sleep (retry after a child event), and `InterruptedError` with
    /// errno 512 (`ERESTARTSYS`) when a signal interrupted it: take the
    /// signals (`get_signal`), then `resolve_restart` says whether the
    /// wait is made again or fails with `EINTR`.
    #[pyo3(signature = (current, pid, options = 0))]
    fn wait4(&mut self, current: &Task, pid: i32, options: i32) -> PyResult<Option<(i32, i32)>> {
        match res(self.k.wait4(current.0, pid, options))? {
            WaitOutcome::Reported(r) => Ok(Some((r.pid, r.status))),
            WaitOutcome::NothingYet => Ok(None),
            WaitOutcome::Interrupted => Err(interrupted()),
            _ => Err(PyBlockingIOError::new_err("the wait would sleep")),
        }
    }

    /// `waitid(idtype, id, options)`: a dict of the siginfo (`pid`,
    /// `code`, `status`, and `wstatus`, the equivalent wait4 status), or
    /// `None` under WNOHANG when nothing is ready; raises
    /// `BlockingIOError` when the wait would sleep, `InterruptedError`
    /// (errno 512) as `wait4` does.
    fn waitid<'py>(
        &mut self,
        py: Python<'py>,
        current: &Task,
        idtype: i32,
        id: i32,
        options: i32,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        match res(self.k.waitid(current.0, idtype, id, options))? {
            WaitOutcome::Reported(r) => {
                let d = PyDict::new(py);
                d.set_item("pid", r.pid)?;
                d.set_item("code", r.info.code)?;
                d.set_item("status", r.info.status)?;
                d.set_item("wstatus", r.status)?;
                Ok(Some(d))
            }
            WaitOutcome::NothingYet => Ok(None),
            WaitOutcome::Interrupted => Err(interrupted()),
            _ => Err(PyBlockingIOError::new_err("the wait would sleep")),
        }
    }

    /// `kill(pid, sig)`.
    fn kill(&mut self, current: &Task, pid: i32, sig: i32) -> PyResult<()> {
        res(self.k.kill(current.0, pid, sig))
    }

    /// `setpgid(pid, pgid)`.
    fn setpgid(&mut self, current: &Task, pid: i32, pgid: i32) -> PyResult<()> {
        res(self.k.setpgid(current.0, pid, pgid))
    }

    /// `setsid()`: the new session id.
    fn setsid(&mut self, current: &Task) -> PyResult<i32> {
        res(self.k.setsid(current.0))
    }

    /// `getpid()` (the tgid).
    fn getpid(&self, current: &Task) -> PyResult<i32> {
        res(self.k.getpid(current.0))
    }

    /// `getppid()`.
    fn getppid(&self, current: &Task) -> PyResult<i32> {
        res(self.k.getppid(current.0))
    }

    /// `getpgid(pid)`.
    #[pyo3(signature = (current, pid = 0))]
    fn getpgid(&self, current: &Task, pid: i32) -> PyResult<i32> {
        res(self.k.getpgid(current.0, pid))
    }

    /// `getsid(pid)`.
    #[pyo3(signature = (current, pid = 0))]
    fn getsid(&self, current: &Task, pid: i32) -> PyResult<i32> {
        res(self.k.getsid(current.0, pid))
    }

    /// The number `task` has as `viewer` sees it (`pid_vnr`).
    fn pid(&self, viewer: &Task, task: &Task) -> PyResult<i32> {
        res(self.k.pid_vnr(viewer.0, task.0))
    }

    /// Reads `/proc/<path>` (e.g. `"1/stat"`, `"loadavg"`) as `current`
    /// (default: init) sees it.
    #[pyo3(signature = (path, current = None))]
    fn proc_read(&self, path: &str, current: Option<&Task>) -> PyResult<Vec<u8>> {
        let fs = res(ProcFs::new(
            &self.k,
            self.k.root_ns(),
            ProcClock::from_kernel(&self.k, 0),
        ))?;
        let fs = match current {
            Some(t) => res(fs.with_current(t.0))?,
            None => fs,
        };
        let node = res(fs.resolve(path.trim_start_matches('/').as_bytes()))?;
        res(fs.read(node))
    }

    /// `syscall(nr, *args)` by `current`: any call of `taskcore.sys`
    /// from its x86_64 number and up to six argument registers (ints;
    /// negative ones as C passes them). Returns the return register (a
    /// pid for clone/fork, a pidfd's number for pidfd_open...); what Linux
    /// writes through output pointers is not returned. `mem` maps
    /// addresses to bytes for the pointer arguments Linux reads (a path,
    /// `struct clone_args`, a sigset...); other addresses are unreadable
    /// (`EFAULT`). Pidfds (pidfd_open, `CLONE_PIDFD`) get the lowest free
    /// number from 3, in one table for the kernel; `close(fd)` closes one.
    /// Raises `OSError` with Linux's errno (`ENOSYS` for a call the core
    /// does not model), and `BlockingIOError` when the call would sleep
    /// (retry it later).
    #[pyo3(signature = (current, nr, args = Vec::new(), mem = None))]
    fn syscall(
        &mut self,
        current: &Task,
        nr: u64,
        args: Vec<Bound<'_, PyAny>>,
        mem: Option<BTreeMap<u64, Vec<u8>>>,
    ) -> PyResult<i64> {
        if args.len() > 6 {
            return Err(PyValueError::new_err("at most 6 arguments"));
        }
        let mut regs = [0u64; 6];
        for (r, a) in regs.iter_mut().zip(&args) {
            *r = register(a)?;
        }
        let mem = RangeMemory(mem.unwrap_or_default());
        match res(raw_syscall(
            &mut self.k,
            &mut self.fds,
            current.0,
            nr,
            regs,
            &mem,
        ))? {
            Raw::Ret(v) => Ok(v),
            Raw::WouldBlock => Err(PyBlockingIOError::new_err("the call would sleep")),
        }
    }

    /// `close(fd)` of a pidfd numbered by `syscall`.
    fn close(&mut self, fd: i32) -> PyResult<()> {
        res(self.fds.close(&mut self.k, fd))
    }

    /// The task numbered `pid` in `viewer`'s namespace
    /// (`find_task_by_vpid`).
    fn task(&self, viewer: &Task, pid: i32) -> PyResult<Task> {
        res(self.k.find_task_by_vpid(viewer.0, pid)).map(Task)
    }

    /// Tasks alive or zombie.
    fn nr_tasks(&self) -> usize {
        self.k.nr_tasks()
    }

    /// `rt_sigaction(sig, act)`: with `handler` (`"default"`, `"ignore"`
    /// or a handler address), `flags` (`SA_*`) and `mask`, sets the
    /// action; without, only reads it. Returns the old action as
    /// `{"handler", "flags", "mask"}`. Raises `OSError(EINVAL)` for a bad
    /// signal, or a change to SIGKILL/SIGSTOP.
    #[pyo3(signature = (current, signo, handler = None, flags = 0, mask = 0))]
    fn sigaction<'py>(
        &mut self,
        py: Python<'py>,
        current: &Task,
        signo: i32,
        handler: Option<Bound<'py, PyAny>>,
        flags: u64,
        mask: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let act = handler.map(|h| sig::action(&h, flags, mask)).transpose()?;
        let old = res(self.k.rt_sigaction(current.0, signo, act))?;
        sig::action_dict(py, &old)
    }

    /// `rt_sigprocmask(how, set)`: the old mask (bit `n - 1` for signal
    /// `n`); without `set`, only reads it. SIGKILL and SIGSTOP are never
    /// blocked. Raises `OSError(EINVAL)` for a bad `how`.
    #[pyo3(signature = (current, how, set = None))]
    fn sigprocmask(&mut self, current: &Task, how: i32, set: Option<u64>) -> PyResult<u64> {
        res(self.k.rt_sigprocmask(current.0, how, set))
    }

    /// `get_signal()`, on `current`'s way back to user space: `None` when
    /// there is nothing to deliver, else a dict whose `"action"` is
    /// `"handler"` (run the handler at `"handler"` for `"sig"` with
    /// `"info"`, then call `rt_sigreturn(current, old_mask)`),
    /// `"stopped"` (the task must not run until resumed) or `"exit"` (a
    /// signal killed its group).
    fn get_signal<'py>(
        &mut self,
        py: Python<'py>,
        current: &Task,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let a = res(self.k.get_signal(current.0))?;
        sig::signal_action(py, &a)
    }

    /// `rt_sigreturn()`: a handler returned; restores the mask it saved.
    fn rt_sigreturn(&mut self, current: &Task, mask: u64) -> PyResult<()> {
        res(self.k.rt_sigreturn(current.0, mask))
    }

    /// What the caller must act on since the last call, in order, as
    /// dicts with a `"kind"` (`"sig_pending"`: wake `"task"` and call
    /// `get_signal`; `"wake_chldexit"`: retry the waits of `"group"`;
    /// `"task_stopped"`, `"task_resumed"`, `"ptrace_stopped"`,
    /// `"ptrace_resumed"`, `"vfork_done"`, `"exited"`, `"signal"`,
    /// `"stopped"`, `"continued"`, `"handler"`).
    fn take_notifications<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for n in self.k.take_notifications() {
            if let Some(d) = sig::notification(py, &n, Task)? {
                out.append(d)?;
            }
        }
        Ok(out)
    }
}

/// A call interrupted by a signal: `InterruptedError(512, ...)`, the
/// kernel's `ERESTARTSYS`.
fn interrupted() -> PyErr {
    PyInterruptedError::new_err((512, "interrupted by a signal (ERESTARTSYS)"))
}

/// `resolve_restart(code, flags=None)`: what an interrupted call with
/// restart code `code` (512 `ERESTARTSYS`, 513, 514, 516) becomes when
/// the thread returns to user space: `"restart"`, `"eintr"` or
/// `"restart_syscall"`. `flags` are the `SA_*` flags of the handler that
/// ran, `None` if none did (Linux's `handle_signal()` and
/// `arch_do_signal_or_restart()`).
#[pyfunction]
#[pyo3(signature = (code, flags = None))]
fn resolve_restart(code: i32, flags: Option<u64>) -> PyResult<&'static str> {
    let r = sig::restart_code(code)?;
    let a = flags.map(|f| taskcore::SigAction::new(taskcore::SigHandler::Handler, f));
    Ok(sig::restarted_name(r.resolve(a.as_ref())))
}

/// The records of one replay, as an iterator of dicts (`pid`, `ppid`,
/// `pgid`, `sid`, `argv`, `start`, `end`, `exit_status`); `summary` and
/// `mismatches` once it is exhausted.
#[pyclass(module = "taskcore", unsendable)]
struct Replay {
    stream: RecordStream,
}

#[pymethods]
impl Replay {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = self.stream.next() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("pid", r.pid)?;
        d.set_item("ppid", r.ppid)?;
        d.set_item("pgid", r.pgid)?;
        d.set_item("sid", r.sid)?;
        d.set_item("argv", r.argv)?;
        d.set_item("start", r.start)?;
        d.set_item("end", r.end)?;
        d.set_item("exit_status", r.exit_status)?;
        Ok(Some(d))
    }

    /// The counters (`events`, `checked`, `mismatches`, `tasks`,
    /// `peak_live`, `unusable`), or `None` before the iterator is
    /// exhausted.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.stream.summary() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("events", s.stats.events)?;
        d.set_item("checked", s.stats.checked)?;
        d.set_item("mismatches", self.stream.mismatches().len())?;
        d.set_item("tasks", s.stats.tasks)?;
        d.set_item("peak_live", s.stats.peak_live)?;
        d.set_item("parse_errors", self.stream.parse_stats().error_lines)?;
        d.set_item("unusable", self.stream.unusable().map(|e| e.to_string()))?;
        Ok(Some(d))
    }

    /// The mismatches found so far, as `(file, line, what, recorded,
    /// emulated)`.
    #[getter]
    fn mismatches(&self) -> Vec<(String, usize, String, String, String)> {
        self.stream
            .mismatches()
            .iter()
            .map(|m| {
                (
                    m.file.clone(),
                    m.line,
                    m.what.clone(),
                    m.recorded.clone(),
                    m.emulated.clone(),
                )
            })
            .collect()
    }
}

/// `replay(path)`: replays a `strace -f -ttt` recording (plain or gzip)
/// lazily; iterate it for the per-process records.
#[pyfunction]
fn replay(path: PathBuf) -> PyResult<Replay> {
    let stream = RecordStream::open(&path).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(Replay { stream })
}

/// The numbers exported as `taskcore.nr.<NAME>`.
const SYSCALL_NRS: &[(&str, u64)] = {
    use taskcore::sys::nr::*;
    &[
        ("CLONE", CLONE),
        ("CLONE3", CLONE3),
        ("FORK", FORK),
        ("VFORK", VFORK),
        ("EXECVE", EXECVE),
        ("EXIT", EXIT),
        ("EXIT_GROUP", EXIT_GROUP),
        ("WAIT4", WAIT4),
        ("WAITID", WAITID),
        ("KILL", KILL),
        ("TGKILL", TGKILL),
        ("TKILL", TKILL),
        ("GETPID", GETPID),
        ("GETPPID", GETPPID),
        ("GETTID", GETTID),
        ("GETPGID", GETPGID),
        ("GETSID", GETSID),
        ("SETPGID", SETPGID),
        ("SETSID", SETSID),
        ("RT_SIGACTION", RT_SIGACTION),
        ("RT_SIGPROCMASK", RT_SIGPROCMASK),
        ("RT_SIGPENDING", RT_SIGPENDING),
        ("RT_SIGQUEUEINFO", RT_SIGQUEUEINFO),
        ("RT_SIGTIMEDWAIT", RT_SIGTIMEDWAIT),
        ("PIDFD_OPEN", PIDFD_OPEN),
        ("PIDFD_SEND_SIGNAL", PIDFD_SEND_SIGNAL),
        ("UNSHARE", UNSHARE),
        ("SETNS", SETNS),
        ("PRCTL", PRCTL),
        ("BRK", BRK),
        ("MMAP", MMAP),
    ]
};

#[pymodule]
#[pyo3(name = "taskcore")]
fn py_taskcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Kernel>()?;
    m.add_class::<Task>()?;
    m.add_class::<Replay>()?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_restart, m)?)?;
    m.add("WNOHANG", taskcore::uapi::WNOHANG)?;
    m.add("WEXITED", taskcore::uapi::WEXITED)?;
    m.add("WNOWAIT", taskcore::uapi::WNOWAIT)?;
    m.add("P_ALL", taskcore::uapi::P_ALL)?;
    m.add("P_PID", taskcore::uapi::P_PID)?;
    m.add("P_PGID", taskcore::uapi::P_PGID)?;
    m.add("P_PIDFD", taskcore::uapi::P_PIDFD)?;
    m.add("CLONE_PIDFD", taskcore::uapi::CLONE_PIDFD)?;
    m.add("SIGUSR1", taskcore::uapi::SIGUSR1)?;
    m.add("SIGUSR2", taskcore::uapi::SIGUSR2)?;
    m.add("SIGSTOP", taskcore::uapi::SIGSTOP)?;
    m.add("SIGCONT", taskcore::uapi::SIGCONT)?;
    m.add("SIG_BLOCK", taskcore::uapi::SIG_BLOCK)?;
    m.add("SIG_UNBLOCK", taskcore::uapi::SIG_UNBLOCK)?;
    m.add("SIG_SETMASK", taskcore::uapi::SIG_SETMASK)?;
    m.add("SA_RESTART", taskcore::uapi::SA_RESTART)?;
    m.add("SA_NODEFER", taskcore::uapi::SA_NODEFER)?;
    m.add("SA_RESETHAND", taskcore::uapi::SA_RESETHAND)?;
    m.add("SA_SIGINFO", taskcore::uapi::SA_SIGINFO)?;
    // x86_64 syscall numbers of the calls `Kernel.syscall` decodes.
    let nr = PyModule::new(m.py(), "nr")?;
    for (name, v) in SYSCALL_NRS {
        nr.add(*name, *v)?;
    }
    m.add_submodule(&nr)?;
    m.add("SIGCHLD", 17)?;
    m.add("SIGKILL", 9)?;
    m.add("SIGTERM", 15)?;
    m.add("CLONE_THREAD", taskcore::uapi::CLONE_THREAD)?;
    m.add("CLONE_VM", taskcore::uapi::CLONE_VM)?;
    m.add("CLONE_SIGHAND", taskcore::uapi::CLONE_SIGHAND)?;
    Ok(())
}
