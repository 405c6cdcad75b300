//! The `taskcore` Python module (PyO3).

use std::path::PathBuf;

use pyo3::exceptions::{PyBlockingIOError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::{CloneArgs, Config, Errno, TaskId, WaitOutcome};

use crate::{os_message, RecordStream};

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
}

#[pymethods]
impl Kernel {
    #[new]
    #[pyo3(signature = (pid_max = 32768))]
    fn new(pid_max: u32) -> PyResult<Kernel> {
        let k = res(taskcore::Kernel::new(Config {
            pid_max,
            ..Config::default()
        }))?;
        Ok(Kernel { k })
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
    /// sleep (retry after a child event).
    #[pyo3(signature = (current, pid, options = 0))]
    fn wait4(&mut self, current: &Task, pid: i32, options: i32) -> PyResult<Option<(i32, i32)>> {
        match res(self.k.wait4(current.0, pid, options))? {
            WaitOutcome::Reported(r) => Ok(Some((r.pid, r.status))),
            WaitOutcome::NothingYet => Ok(None),
            _ => Err(PyBlockingIOError::new_err("the wait would sleep")),
        }
    }

    /// `waitid(idtype, id, options)`: a dict of the siginfo (`pid`,
    /// `code`, `status`, and `wstatus`, the equivalent wait4 status), or
    /// `None` under WNOHANG when nothing is ready; raises
    /// `BlockingIOError` when the wait would sleep.
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

    /// Tasks alive or zombie.
    fn nr_tasks(&self) -> usize {
        self.k.nr_tasks()
    }
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

#[pymodule]
#[pyo3(name = "taskcore")]
fn py_taskcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Kernel>()?;
    m.add_class::<Task>()?;
    m.add_class::<Replay>()?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add("WNOHANG", taskcore::uapi::WNOHANG)?;
    m.add("WEXITED", taskcore::uapi::WEXITED)?;
    m.add("WNOWAIT", taskcore::uapi::WNOWAIT)?;
    m.add("P_ALL", taskcore::uapi::P_ALL)?;
    m.add("P_PID", taskcore::uapi::P_PID)?;
    m.add("P_PGID", taskcore::uapi::P_PGID)?;
    m.add("SIGCHLD", 17)?;
    m.add("SIGKILL", 9)?;
    m.add("SIGTERM", 15)?;
    m.add("CLONE_THREAD", taskcore::uapi::CLONE_THREAD)?;
    m.add("CLONE_VM", taskcore::uapi::CLONE_VM)?;
    m.add("CLONE_SIGHAND", taskcore::uapi::CLONE_SIGHAND)?;
    Ok(())
}
