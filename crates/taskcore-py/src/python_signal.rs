//! The signal path as Python sees it: dispositions, masks, delivery
//! (`get_signal`), the notifications an embedder acts on, and the restart
//! rule of an interrupted call. Conversions between the core's types and
//! Python values (ints, strings, dicts) live here; the methods are in
//! `python.rs`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use taskcore::{
    Notification, Restart, Restarted, SigAction, SigHandler, SigInfo, SignalAction, SignalDelivery,
    TaskId,
};

/// A signal delivery mode from its name: `"immediate"` or
/// `"on_get_signal"` ([`SignalDelivery`]).
pub(crate) fn delivery(name: &str) -> PyResult<SignalDelivery> {
    match name {
        "immediate" => Ok(SignalDelivery::Immediate),
        "on_get_signal" => Ok(SignalDelivery::OnGetSignal),
        _ => Err(PyValueError::new_err(format!(
            "signal_delivery must be 'immediate' or 'on_get_signal', not {name:?}"
        ))),
    }
}

/// A handler argument: `"default"` (SIG_DFL), `"ignore"` (SIG_IGN), or a
/// handler address (an int; 0 and 1 are SIG_DFL and SIG_IGN, as in C).
pub(crate) fn action(handler: &Bound<'_, PyAny>, flags: u64, mask: u64) -> PyResult<SigAction> {
    let (kind, addr) = if let Ok(s) = handler.extract::<String>() {
        match s.as_str() {
            "default" => (SigHandler::Default, 0),
            "ignore" => (SigHandler::Ignore, 0),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "a handler is 'default', 'ignore' or an address, not {s:?}"
                )))
            }
        }
    } else {
        match handler.extract::<u64>()? {
            0 => (SigHandler::Default, 0),
            1 => (SigHandler::Ignore, 0),
            addr => (SigHandler::Handler, addr),
        }
    };
    Ok(SigAction {
        addr,
        mask,
        ..SigAction::new(kind, flags)
    })
}

/// `{"handler": "default" | "ignore" | address, "flags": int, "mask": int}`.
pub(crate) fn action_dict<'py>(py: Python<'py>, a: &SigAction) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match a.handler {
        SigHandler::Default => d.set_item("handler", "default")?,
        SigHandler::Ignore => d.set_item("handler", "ignore")?,
        _ => d.set_item("handler", a.addr)?,
    }
    d.set_item("flags", a.flags)?;
    d.set_item("mask", a.mask)?;
    Ok(d)
}

/// A siginfo: `{"signo", "code", "pid", "uid", "status", "value"}`.
pub(crate) fn info_dict<'py>(py: Python<'py>, i: &SigInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("signo", i.signo)?;
    d.set_item("code", i.code)?;
    d.set_item("pid", i.pid)?;
    d.set_item("uid", i.uid)?;
    d.set_item("status", i.status)?;
    d.set_item("value", i.value)?;
    Ok(d)
}

/// What `get_signal` decided: `None` (nothing to deliver), or a dict with
/// `"action"`: `"handler"` (with `"sig"`, `"info"`, `"handler"`,
/// `"flags"`, `"mask"`, `"old_mask"`), `"stopped"` or `"exit"`.
pub(crate) fn signal_action<'py>(
    py: Python<'py>,
    a: &SignalAction,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let d = PyDict::new(py);
    match a {
        SignalAction::Handler {
            sig,
            info,
            action,
            old_mask,
        } => {
            d.set_item("action", "handler")?;
            d.set_item("sig", sig)?;
            d.set_item("info", info_dict(py, info)?)?;
            d.set_item("handler", action.addr)?;
            d.set_item("flags", action.flags)?;
            d.set_item("mask", action.mask)?;
            d.set_item("old_mask", old_mask)?;
        }
        SignalAction::Stopped => d.set_item("action", "stopped")?,
        SignalAction::Exit => d.set_item("action", "exit")?,
        _ => return Ok(None),
    }
    Ok(Some(d))
}

/// One notification as a dict: `"kind"` (the variant's name in
/// snake_case: `"wake_chldexit"`, `"signal"`, `"exited"`, `"stopped"`,
/// `"continued"`, `"vfork_done"`, `"sig_pending"`, `"task_stopped"`,
/// `"task_resumed"`, `"ptrace_stopped"`, `"ptrace_resumed"`, `"handler"`)
/// and its fields, tasks as `wrap(TaskId)`. `None` for a kind this
/// binding does not know yet.
pub(crate) fn notification<'py, W: IntoPyObject<'py>>(
    py: Python<'py>,
    n: &Notification,
    wrap: impl Fn(TaskId) -> W,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let d = PyDict::new(py);
    match *n {
        Notification::WakeChldexit { group } => {
            d.set_item("kind", "wake_chldexit")?;
            d.set_item("group", wrap(group))?;
        }
        Notification::Signal { group, sig, info } => {
            d.set_item("kind", "signal")?;
            d.set_item("group", wrap(group))?;
            d.set_item("sig", sig)?;
            d.set_item("info", info_dict(py, &info)?)?;
        }
        Notification::Exited { task, exit_code } => {
            d.set_item("kind", "exited")?;
            d.set_item("task", wrap(task))?;
            d.set_item("exit_code", exit_code)?;
        }
        Notification::Stopped { group, sig } => {
            d.set_item("kind", "stopped")?;
            d.set_item("group", wrap(group))?;
            d.set_item("sig", sig)?;
        }
        Notification::Continued { group } => {
            d.set_item("kind", "continued")?;
            d.set_item("group", wrap(group))?;
        }
        Notification::VforkDone { parent } => {
            d.set_item("kind", "vfork_done")?;
            d.set_item("parent", wrap(parent))?;
        }
        Notification::SigPending { task } => {
            d.set_item("kind", "sig_pending")?;
            d.set_item("task", wrap(task))?;
        }
        Notification::TaskStopped { task } => {
            d.set_item("kind", "task_stopped")?;
            d.set_item("task", wrap(task))?;
        }
        Notification::TaskResumed { task } => {
            d.set_item("kind", "task_resumed")?;
            d.set_item("task", wrap(task))?;
        }
        Notification::PtraceStopped { task, code } => {
            d.set_item("kind", "ptrace_stopped")?;
            d.set_item("task", wrap(task))?;
            d.set_item("code", code)?;
        }
        Notification::PtraceResumed { task, syscall } => {
            d.set_item("kind", "ptrace_resumed")?;
            d.set_item("task", wrap(task))?;
            d.set_item("syscall", syscall)?;
        }
        Notification::Handler { task, sig, info } => {
            d.set_item("kind", "handler")?;
            d.set_item("task", wrap(task))?;
            d.set_item("sig", sig)?;
            d.set_item("info", info_dict(py, &info)?)?;
        }
        _ => return Ok(None),
    }
    Ok(Some(d))
}

/// The restart code of an interrupted call from its number (512
/// `ERESTARTSYS`, 513 `ERESTARTNOINTR`, 514 `ERESTARTNOHAND`, 516
/// `ERESTART_RESTARTBLOCK`).
pub(crate) fn restart_code(code: i32) -> PyResult<Restart> {
    match code {
        512 => Ok(Restart::Sys),
        513 => Ok(Restart::NoIntr),
        514 => Ok(Restart::NoHand),
        516 => Ok(Restart::Block),
        _ => Err(PyValueError::new_err(format!(
            "{code} is not a restart code (512, 513, 514 or 516)"
        ))),
    }
}

/// A [`Restarted`] by name: `"eintr"`, `"restart"` or `"restart_syscall"`.
pub(crate) fn restarted_name(r: Restarted) -> &'static str {
    match r {
        Restarted::Eintr => "eintr",
        Restarted::Restart => "restart",
        _ => "restart_syscall",
    }
}
