//! Typed decoding: a syscall name plus its argument text to a [`Call`].
//!
//! Each modelled syscall has a decoder reading its arguments by position
//! (clone()'s by name). A decoder that meets something it cannot interpret
//! (an unknown constant, a pointer where a structure was expected) fails,
//! and the call becomes [`Call::Other`] with the reason in `undecoded`, so
//! nothing is lost silently and nothing is fatal.
//!
//! When a call did not return (`= ?`, or it never resumed), strace printed
//! only the arguments known on entry. Decoders are then lenient: a missing
//! argument takes a default (0, `None`, empty) and the event is flagged
//! [`super::Syscall::args_complete`] = false.
//!
//! Complexity: linear in the argument text. No Linux analogue: this mirrors
//! strace's decoders (`clone.c`, `wait.c`, `signal.c`, `prctl.c`, ...).

use std::cell::Cell;

use super::args::{parse_value, split_top, Value};
use super::consts::{self, lookup, signal_number};
use super::event::{Call, CloneArgs, CloneFlavor, ExecArgs, Ret, SigAct, SigHandler};
use super::siginfo::SigInfo;

mod procapi;
mod signal;

/// Decodes syscall `name` from the text between its parentheses.
///
/// `ret` is the call's result; if it is [`Ret::Unknown`] the call did not
/// return and missing arguments are tolerated. Returns the call and whether
/// every argument the decoder wanted was present.
#[cfg(test)]
pub(crate) fn decode(name: &str, args_text: &str, ret: &Ret) -> (Call, bool) {
    let (call, complete, _) = decode_full(name, args_text, ret);
    (call, complete)
}

/// As [`decode`], plus the top-level arguments printed as a bare
/// hexadecimal number (see [`super::Syscall::hex_args`]).
pub(crate) fn decode_full(
    name: &str,
    args_text: &str,
    ret: &Ret,
) -> (Call, bool, Box<[(u8, u64)]>) {
    let args = Args::new(args_text, matches!(ret, Ret::Unknown));
    let hex = args
        .raw
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let digits = r.strip_prefix("0x")?;
            let v = u64::from_str_radix(digits, 16).ok()?;
            Some((u8::try_from(i).ok()?, v))
        })
        .collect();
    let decoded = match name {
        "clone" => clone(&args),
        "clone3" => clone3(&args),
        "fork" => Ok(fork_like(CloneFlavor::Fork)),
        "vfork" => Ok(fork_like(CloneFlavor::Vfork)),
        "execve" => execve(&args, false),
        "execveat" => execve(&args, true),
        "exit" => args.int(0).map(|code| Call::Exit { code }),
        "exit_group" => args.int(0).map(|code| Call::ExitGroup { code }),
        "wait4" => wait4(&args),
        "waitid" => waitid(&args),
        "setpgid" => (|| {
            Ok(Call::Setpgid {
                pid: args.int(0)?,
                pgid: args.int(1)?,
            })
        })(),
        "setsid" => Ok(Call::Setsid),
        "getpgid" => args.int(0).map(|pid| Call::Getpgid { pid }),
        "getsid" => args.int(0).map(|pid| Call::Getsid { pid }),
        "getppid" => Ok(Call::Getppid),
        "getpid" => Ok(Call::Getpid),
        "gettid" => Ok(Call::Gettid),
        "getpgrp" => Ok(Call::Getpgrp),
        "kill" => (|| {
            Ok(Call::Kill {
                pid: args.int(0)?,
                sig: args.sig(1)?,
            })
        })(),
        "tgkill" => (|| {
            Ok(Call::Tgkill {
                tgid: args.int(0)?,
                tid: args.int(1)?,
                sig: args.sig(2)?,
            })
        })(),
        "tkill" => (|| {
            Ok(Call::Tkill {
                tid: args.int(0)?,
                sig: args.sig(1)?,
            })
        })(),
        "rt_sigaction" => rt_sigaction(&args),
        "prctl" => prctl(&args),
        "ptrace" => ptrace(&args),
        "mmap" => mmap(&args),
        "munmap" => (|| {
            Ok(Call::Munmap {
                addr: args.addr(0)?,
                len: args.addr(1)?,
            })
        })(),
        "mprotect" => (|| {
            Ok(Call::Mprotect {
                addr: args.addr(0)?,
                len: args.addr(1)?,
                prot: args.bits(2, consts::PROT_FLAGS)?,
            })
        })(),
        "mremap" => mremap(&args),
        "brk" => args.addr(0).map(|addr| Call::Brk { addr }),
        _ => match signal::decode(name, &args).or_else(|| procapi::decode(name, &args)) {
            Some(call) => call,
            None => Ok(args.other(None)),
        },
    };
    match decoded {
        Ok(call) => (call, !args.missing.get(), hex),
        Err(msg) => (args.other(Some(msg)), false, hex),
    }
}

/// The arguments of one call: raw top-level pieces and their parsed values.
struct Args<'a> {
    /// The argument texts, trimmed.
    raw: Vec<&'a str>,
    /// The parsed values, one per `raw` piece.
    vals: Vec<Value>,
    /// Tolerate missing arguments (the call did not return).
    lenient: bool,
    /// Set when a lenient getter substituted a default.
    missing: Cell<bool>,
}

/// A decoding failure message.
type Res<T> = Result<T, String>;

impl<'a> Args<'a> {
    fn new(text: &'a str, lenient: bool) -> Args<'a> {
        let raw = split_top(text, b',');
        let vals = raw.iter().map(|r| parse_value(r)).collect();
        Args {
            raw,
            vals,
            lenient,
            missing: Cell::new(false),
        }
    }

    /// Falls back to [`Call::Other`].
    fn other(&self, undecoded: Option<String>) -> Call {
        Call::Other {
            args: self.raw.iter().map(|s| s.to_string()).collect(),
            undecoded,
        }
    }

    /// Argument `i`, or `None` (after flagging) if absent and lenient.
    fn get(&self, i: usize) -> Res<Option<&Value>> {
        match self.vals.get(i) {
            Some(Value::Raw(s)) if s.is_empty() && self.lenient => {
                self.missing.set(true);
                Ok(None)
            }
            Some(v) => Ok(Some(v)),
            None if self.lenient => {
                self.missing.set(true);
                Ok(None)
            }
            None => Err(format!("missing argument {}", i + 1)),
        }
    }

    /// Argument `i` as an int (pid, code, fd).
    fn int(&self, i: usize) -> Res<i32> {
        match self.get(i)? {
            None => Ok(0),
            Some(v) => int_of(v),
        }
    }

    /// Argument `i` as an address or length (`NULL` = 0).
    fn addr(&self, i: usize) -> Res<u64> {
        match self.get(i)? {
            None => Ok(0),
            Some(v) => addr_of(v),
        }
    }

    /// Argument `i` as a signal number (name or number).
    fn sig(&self, i: usize) -> Res<i32> {
        match self.get(i)? {
            None => Ok(0),
            Some(v) => sig_of(v),
        }
    }

    /// Argument `i` as flag bits from `table`.
    fn bits(&self, i: usize, table: &[(&str, u64)]) -> Res<u64> {
        match self.get(i)? {
            None => Ok(0),
            Some(v) => v.eval_bits(&|s| lookup(table, s)),
        }
    }
}

/// An int-valued argument.
fn int_of(v: &Value) -> Res<i32> {
    match v.unnamed() {
        Value::Sym(s) if s == "AT_FDCWD" => Ok(consts::AT_FDCWD),
        other => other
            .as_i32()
            .ok_or_else(|| format!("expected an int, got `{other}`")),
    }
}

/// An address-valued argument.
fn addr_of(v: &Value) -> Res<u64> {
    let v = v.unnamed();
    if v.is_null() {
        return Ok(0);
    }
    v.as_u64()
        .ok_or_else(|| format!("expected an address, got `{v}`"))
}

/// A signal argument: `SIGCHLD`, `SIGRT_3`, `0`, `17`.
fn sig_of(v: &Value) -> Res<i32> {
    match v.unnamed() {
        Value::Sym(s) => signal_number(s).ok_or_else(|| format!("unknown signal {s}")),
        Value::Int(_) => v.as_i32().ok_or_else(|| format!("bad signal `{v}`")),
        other => Err(format!("expected a signal, got `{other}`")),
    }
}

/// The output pointer form `[N]`: the int strace read back.
fn out_int(v: &Value) -> Option<i32> {
    match v.unnamed() {
        Value::Array { items, .. } if items.len() == 1 => items[0].as_i32(),
        _ => None,
    }
}

/// A one-item array holding a signal name (`[SIGUSR2]`): its number.
fn out_signal(v: &Value) -> Option<i32> {
    match v.unnamed() {
        Value::Array { items, .. } if items.len() == 1 => match &items[0] {
            Value::Sym(s) => signal_number(s),
            _ => None,
        },
        _ => None,
    }
}

/// fork() and vfork() as clone arguments.
fn fork_like(flavor: CloneFlavor) -> Call {
    let flags = if flavor == CloneFlavor::Vfork {
        consts::CLONE_VM | consts::CLONE_VFORK
    } else {
        0
    };
    Call::Clone(CloneArgs {
        flavor,
        flags,
        exit_signal: consts::SIGCHLD,
        stack: None,
        parent_tid: None,
        pidfd: None,
        set_tid: Vec::new(),
        cgroup: None,
        pidfd_ptr: None,
        set_tid_ptr: None,
    })
}

/// clone()'s `flags`: `CLONE_*` names, a signal name and numbers; the low
/// byte is the exit signal (Linux's `CSIGNAL`).
fn clone_flags(v: &Value) -> Res<(u64, i32)> {
    let parts: Vec<&Value> = match v.unnamed() {
        Value::Or(parts) => parts.iter().collect(),
        one => vec![one],
    };
    let mut bits = 0u64;
    let mut sig = 0i32;
    for p in parts {
        match p {
            Value::Sym(s) if s.starts_with("SIG") => sig = sig_of(p)?,
            Value::Sym(s) => {
                bits |= lookup(consts::CLONE_FLAGS, s)
                    .ok_or_else(|| format!("unknown clone flag {s}"))?
            }
            _ => bits |= p.as_u64().ok_or_else(|| format!("bad clone flags `{p}`"))?,
        }
    }
    let low = (bits & 0xff) as i32;
    Ok((bits & !0xff, if sig != 0 { sig } else { low }))
}

/// clone(child_stack=..., flags=..., parent_tid=..., child_tidptr=..., tls=...).
fn clone(a: &Args<'_>) -> Res<Call> {
    let named = |key: &str| {
        a.vals.iter().find_map(|v| match v {
            Value::Named(k, v) if k == key => Some(&**v),
            _ => None,
        })
    };
    let (flags, exit_signal) = match named("flags") {
        Some(v) => clone_flags(v)?,
        None if a.lenient => {
            a.missing.set(true);
            (0, 0)
        }
        None => return Err("clone without flags=".into()),
    };
    let stack = match named("child_stack").or_else(|| named("stack")) {
        Some(v) if !v.is_null() => Some(addr_of(v)?),
        _ => None,
    };
    let out = named("parent_tid")
        .or_else(|| named("parent_tidptr"))
        .and_then(out_int);
    let (parent_tid, pidfd) = if flags & consts::CLONE_PIDFD != 0 {
        (None, out)
    } else {
        (out, None)
    };
    Ok(Call::Clone(CloneArgs {
        flavor: CloneFlavor::Clone,
        flags,
        exit_signal,
        stack,
        parent_tid,
        pidfd,
        set_tid: Vec::new(),
        cgroup: None,
        pidfd_ptr: None,
        set_tid_ptr: None,
    }))
}

/// clone3({flags=..., exit_signal=..., ...} [=> {parent_tid=[N]}], size).
fn clone3(a: &Args<'_>) -> Res<Call> {
    let Some(v) = a.get(0)? else {
        return Ok(Call::Clone(CloneArgs {
            flavor: CloneFlavor::Clone3,
            flags: 0,
            exit_signal: 0,
            stack: None,
            parent_tid: None,
            pidfd: None,
            set_tid: Vec::new(),
            cgroup: None,
            pidfd_ptr: None,
            set_tid_ptr: None,
        }));
    };
    let (entry, exit) = match v {
        Value::Changed(a, b) => (&**a, Some(&**b)),
        v => (v, None),
    };
    if !matches!(entry, Value::Struct { .. }) {
        return Err(format!("clone3 args not a structure: `{entry}`"));
    }
    let flags = match entry.field("flags") {
        Some(f) => f.eval_bits(&|s| lookup(consts::CLONE_FLAGS, s))?,
        None => 0,
    };
    let exit_signal = match entry.field("exit_signal") {
        Some(s) => sig_of(s)?,
        None => 0,
    };
    let stack = match entry.field("stack") {
        Some(v) if !v.is_null() => Some(addr_of(v)?),
        _ => None,
    };
    let (set_tid, set_tid_ptr) = match entry.field("set_tid") {
        Some(Value::Array { items, .. }) => {
            (items.iter().map(int_of).collect::<Res<Vec<_>>>()?, None)
        }
        // An address: strace could not read the array.
        Some(v) if !v.is_null() => {
            let size = entry.field("set_tid_size").and_then(Value::as_u64);
            (Vec::new(), v.as_u64().zip(size))
        }
        _ => (Vec::new(), None),
    };
    let cgroup = entry.field("cgroup").and_then(Value::as_u64);
    let pidfd_ptr = entry
        .field("pidfd")
        .filter(|v| !v.is_null())
        .and_then(Value::as_u64);
    let from_exit = |k: &str| exit.and_then(|e| e.field(k)).and_then(out_int);
    Ok(Call::Clone(CloneArgs {
        flavor: CloneFlavor::Clone3,
        flags,
        exit_signal,
        stack,
        parent_tid: from_exit("parent_tid"),
        pidfd: from_exit("pidfd"),
        set_tid,
        cgroup,
        pidfd_ptr,
        set_tid_ptr,
    }))
}

/// execve(path, argv, envp) / execveat(dirfd, path, argv, envp, flags).
fn execve(a: &Args<'_>, at: bool) -> Res<Call> {
    let base = usize::from(at);
    let dirfd = if at { Some(a.int(0)?) } else { None };
    let (path, path_cut) = match a.get(base)? {
        None => (String::new(), true),
        Some(Value::Str { text, truncated }) => (text.clone(), *truncated),
        Some(v) if v.is_null() => (String::new(), false),
        Some(v) => return Err(format!("execve path not a string: `{v}`")),
    };
    let (argv, argv_complete) = match a.get(base + 1)? {
        None => (Vec::new(), false),
        Some(Value::Array { items, more }) => {
            let mut complete = !more && !path_cut;
            let mut argv = Vec::with_capacity(items.len());
            for it in items {
                match it {
                    Value::Str { text, truncated } => {
                        complete &= !truncated;
                        argv.push(text.clone());
                    }
                    other => return Err(format!("execve argv element not a string: `{other}`")),
                }
            }
            (argv, complete)
        }
        Some(v) if v.is_null() => (Vec::new(), true),
        // A pointer strace could not read.
        Some(_) => (Vec::new(), false),
    };
    let flags = if at {
        a.bits(base + 3, consts::AT_CONSTS)?
    } else {
        0
    };
    Ok(Call::Execve(ExecArgs {
        dirfd,
        path,
        argv,
        argv_complete,
        flags,
    }))
}

/// Converts strace's wait status notation to the Linux status int.
///
/// `[{WIFEXITED(s) && WEXITSTATUS(s) == 3}]` → `3 << 8`;
/// `[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL && WCOREDUMP(s)}]` → `9 | 0x80`;
/// `[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP | 0x80}] | PTRACE_EVENT_FORK << 16`
/// style extras are ORed in; `[{WIFCONTINUED(s)}]` → `0xffff`; `[0x137f]` →
/// the number. `NULL` or a bare pointer (nothing written) → `None`.
///
/// # Errors
/// A message for any other text.
///
/// # Linux
/// The inverse of strace's `printstatus()` over the encoding of
/// `include/uapi/linux/wait.h` / glibc's `W_EXITCODE`, `W_STOPCODE`.
pub fn wait_status(raw: &str) -> Res<Option<i32>> {
    let raw = raw.trim();
    let v = parse_value(raw);
    if v.is_null() || v.int().is_some() {
        return Ok(None);
    }
    let inner = raw
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("bad wait status `{raw}`"))?
        .trim();
    if let Some(n) = parse_value(inner).as_i32() {
        return Ok(Some(n));
    }
    let body = inner
        .strip_prefix('{')
        .ok_or_else(|| format!("bad wait status `{raw}`"))?;
    let close = body
        .find('}')
        .ok_or_else(|| format!("bad wait status `{raw}`"))?;
    let (cond, extras) = (&body[..close], &body[close + 1..]);
    let terms: Vec<&str> = cond.split("&&").map(str::trim).collect();
    let sig_with_flag = |s: &str| -> Res<i32> {
        // `SIGTRAP | 0x80`: PTRACE_O_TRACESYSGOOD's marker bit.
        let mut total = 0;
        for part in s.split('|') {
            let part = part.trim();
            total |= match signal_number(part) {
                Some(n) => n,
                None => parse_value(part)
                    .as_i32()
                    .ok_or_else(|| format!("bad signal `{part}` in wait status"))?,
            };
        }
        Ok(total)
    };
    let mut status = match terms.first().copied() {
        Some("WIFEXITED(s)") => {
            let code = terms
                .get(1)
                .and_then(|t| rhs(t, "WEXITSTATUS(s)"))
                .and_then(|n| n.parse::<i32>().ok())
                .ok_or_else(|| format!("bad exit status in `{raw}`"))?;
            (code & 0xff) << 8
        }
        Some("WIFSIGNALED(s)") => {
            let sig = terms
                .get(1)
                .and_then(|t| rhs(t, "WTERMSIG(s)"))
                .ok_or_else(|| format!("bad term signal in `{raw}`"))?;
            let core = terms.get(2) == Some(&"WCOREDUMP(s)");
            sig_with_flag(sig)? | if core { 0x80 } else { 0 }
        }
        Some("WIFSTOPPED(s)") => {
            let sig = terms
                .get(1)
                .and_then(|t| rhs(t, "WSTOPSIG(s)"))
                .ok_or_else(|| format!("bad stop signal in `{raw}`"))?;
            (sig_with_flag(sig)? << 8) | 0x7f
        }
        Some("WIFCONTINUED(s)") => 0xffff,
        _ => return Err(format!("bad wait status `{raw}`")),
    };
    for extra in extras.split('|').map(str::trim).filter(|e| !e.is_empty()) {
        if let Some(ev) = extra.strip_suffix("<< 16").map(str::trim) {
            let ev = lookup(consts::PTRACE_EVENTS, ev)
                .or_else(|| parse_value(ev).as_u64())
                .ok_or_else(|| format!("bad ptrace event `{ev}`"))?;
            status |= (ev as i32) << 16;
        } else {
            status |= parse_value(extra)
                .as_i32()
                .ok_or_else(|| format!("bad wait status extra `{extra}`"))?;
        }
    }
    Ok(Some(status))
}

/// The right-hand side of `LHS == RHS`, if `t` starts with `lhs`.
fn rhs<'t>(t: &'t str, lhs: &str) -> Option<&'t str> {
    t.strip_prefix(lhs)?
        .trim()
        .strip_prefix("==")
        .map(str::trim)
}

/// wait4(pid, status, options, rusage).
fn wait4(a: &Args<'_>) -> Res<Call> {
    let pid = a.int(0)?;
    let status = match a.get(1)? {
        None => None,
        Some(_) => wait_status(a.raw[1])?,
    };
    let options = a.bits(2, consts::WAIT_OPTIONS)? as u32 as i32;
    Ok(Call::Wait4 {
        pid,
        status,
        options,
    })
}

/// Decodes a printed `siginfo_t`. `{}` is the all-zero siginfo.
///
/// # Errors
/// A message if `v` is not a structure or a field has an unknown name.
pub(crate) fn siginfo(v: &Value) -> Res<SigInfo> {
    if !matches!(v, Value::Struct { .. }) {
        return Err(format!("siginfo not a structure: `{v}`"));
    }
    let mut info = SigInfo::default();
    if let Some(s) = v.field("si_signo") {
        info.si_signo = sig_of(s)?;
    }
    if let Some(c) = v.field("si_code") {
        info.si_code = match c {
            Value::Sym(s) => {
                consts::si_code(s).ok_or_else(|| format!("unknown si_code {s}"))? as i32
            }
            other => other
                .as_i32()
                .ok_or_else(|| format!("bad si_code `{other}`"))?,
        };
    }
    info.si_pid = v.field("si_pid").map(int_of).transpose()?;
    info.si_uid = v
        .field("si_uid")
        .map(|u| int_of(u).map(|u| u as u32))
        .transpose()?;
    info.si_status = v
        .field("si_status")
        .map(|s| match s {
            Value::Sym(_) => sig_of(s),
            other => int_of(other),
        })
        .transpose()?;
    info.si_addr = v.field("si_addr").map(addr_of).transpose()?;
    // strace 6.x prints `si_int=N, si_ptr=P`; older ones `si_value={int=N, ptr=P}`
    let value = v.field("si_value");
    info.si_int = v
        .field("si_int")
        .or_else(|| value.and_then(|s| s.field("int")))
        .map(int_of)
        .transpose()?;
    info.si_ptr = v
        .field("si_ptr")
        .or_else(|| value.and_then(|s| s.field("ptr")))
        .map(addr_of)
        .transpose()?;
    Ok(info)
}

/// waitid(idtype, id, infop, options, rusage).
fn waitid(a: &Args<'_>) -> Res<Call> {
    let idtype = match a.get(0)? {
        None => 0,
        Some(Value::Sym(s)) => {
            lookup(consts::ID_TYPES, s).ok_or_else(|| format!("unknown idtype {s}"))? as i32
        }
        Some(v) => int_of(v)?,
    };
    let id = a.int(1)?;
    let info = match a.get(2)? {
        Some(v @ Value::Struct { .. }) => Some(siginfo(v)?),
        _ => None,
    };
    let options = a.bits(3, consts::WAIT_OPTIONS)? as u32 as i32;
    Ok(Call::Waitid {
        idtype,
        id,
        info,
        options,
    })
}

/// A printed `struct sigaction`; `NULL` or an unread pointer is `None`.
fn sigact(v: Option<&Value>) -> Res<Option<SigAct>> {
    let Some(v @ Value::Struct { .. }) = v else {
        return Ok(None);
    };
    let handler = match v.field("sa_handler") {
        Some(Value::Sym(s)) if s == "SIG_DFL" => SigHandler::Dfl,
        Some(Value::Sym(s)) if s == "SIG_IGN" => SigHandler::Ign,
        Some(h) => SigHandler::Handler(addr_of(h)?),
        None => return Err("sigaction without sa_handler".into()),
    };
    let mask = match v.field("sa_mask") {
        Some(m) => sigset(m)?,
        None => 0,
    };
    let flags = match v.field("sa_flags") {
        Some(f) => f.eval_bits(&|s| lookup(consts::SA_FLAGS, s))?,
        None => 0,
    };
    let restorer = v.field("sa_restorer").map(addr_of).transpose()?;
    Ok(Some(SigAct {
        handler,
        mask,
        flags,
        restorer,
    }))
}

/// A signal set `[CHLD TERM]` or `~[RTMIN RT_1]` as Linux's 64-bit mask
/// (bit `n - 1` for signal `n`).
pub(crate) fn sigset(v: &Value) -> Res<u64> {
    let (items, negate) = match v {
        Value::Array { items, .. } => (items, false),
        Value::NotSet(items) => (items, true),
        other => return Err(format!("not a signal set: `{other}`")),
    };
    let mut mask = 0u64;
    for it in items {
        let n = match it {
            Value::Sym(s) => {
                signal_number(s).ok_or_else(|| format!("unknown signal {s} in set"))?
            }
            other => other
                .as_i32()
                .ok_or_else(|| format!("bad signal `{other}` in set"))?,
        };
        if (1..=64).contains(&n) {
            mask |= 1 << (n - 1);
        }
    }
    Ok(if negate { !mask } else { mask })
}

/// rt_sigaction(sig, act, oldact, sigsetsize).
fn rt_sigaction(a: &Args<'_>) -> Res<Call> {
    let sig = a.sig(0)?;
    let act = sigact(a.get(1)?)?;
    let oldact = sigact(a.get(2)?)?;
    Ok(Call::RtSigaction { sig, act, oldact })
}

/// prctl(option, arg2, ...).
fn prctl(a: &Args<'_>) -> Res<Call> {
    let option = match a.get(0)? {
        None => 0,
        Some(Value::Sym(s)) => lookup(consts::PRCTL_OPTIONS, s)
            .ok_or_else(|| format!("unknown prctl option {s}"))?
            as i32,
        Some(v) => int_of(v)?,
    };
    if let Some(c) = procapi::cap_prctl(option as u32 as u64, a) {
        return c;
    }
    let (arg2, name) = match a.vals.get(1) {
        Some(Value::Str { text, .. }) => (None, Some(text.clone())),
        Some(Value::Sym(s)) => (
            signal_number(s)
                .map(|n| n as u64)
                .or_else(|| lookup(consts::SUID_DUMP, s)),
            None,
        ),
        // A value written back: `[1]`, or a signal (`PR_GET_PDEATHSIG, [SIGUSR2]`).
        Some(v @ Value::Array { .. }) => (
            out_int(v)
                .map(|n| n as u32 as u64)
                .or_else(|| out_signal(v).map(|n| n as u64)),
            None,
        ),
        Some(v) => (v.as_u64(), None),
        None => (None, None),
    };
    Ok(Call::Prctl { option, arg2, name })
}

/// ptrace(request, pid, addr, data).
fn ptrace(a: &Args<'_>) -> Res<Call> {
    let request = match a.get(0)? {
        None => 0,
        Some(Value::Sym(s)) => lookup(consts::PTRACE_REQUESTS, s)
            .ok_or_else(|| format!("unknown ptrace request {s}"))?
            as i32,
        Some(v) => int_of(v)?,
    };
    let pid = match a.vals.get(1) {
        Some(v) => int_of(v)?,
        None => 0,
    };
    let addr = a.vals.get(2).and_then(|v| addr_of(v).ok());
    let data = a.vals.get(3).and_then(|v| match v {
        Value::Sym(s) if s.starts_with("SIG") => signal_number(s).map(|n| n as u64),
        v if v.is_null() => Some(0),
        v => v
            .eval_bits(&|s| {
                lookup(consts::PTRACE_OPTIONS, s).or_else(|| signal_number(s).map(|n| n as u64))
            })
            .ok(),
    });
    Ok(Call::Ptrace {
        request,
        pid,
        addr,
        data,
    })
}

/// mmap(addr, length, prot, flags, fd, offset).
fn mmap(a: &Args<'_>) -> Res<Call> {
    Ok(Call::Mmap {
        addr: a.addr(0)?,
        len: a.addr(1)?,
        prot: a.bits(2, consts::PROT_FLAGS)?,
        flags: a.bits(3, consts::MAP_FLAGS)?,
        fd: a.int(4)?,
        offset: a.addr(5)?,
    })
}

/// mremap(old_addr, old_len, new_len, flags[, new_addr]).
fn mremap(a: &Args<'_>) -> Res<Call> {
    Ok(Call::Mremap {
        old_addr: a.addr(0)?,
        old_len: a.addr(1)?,
        new_len: a.addr(2)?,
        flags: a.bits(3, consts::MREMAP_FLAGS)?,
        new_addr: a.vals.get(4).map(addr_of).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(name: &str, args: &str) -> Call {
        let (call, complete) = decode(name, args, &Ret::Val(0));
        assert!(complete, "{name}({args}) incomplete: {call:?}");
        assert!(!call.is_undecoded(), "{name}({args}): {call:?}");
        call
    }

    #[test]
    fn clone_flags_split_off_the_exit_signal() {
        let c = ok("clone", "child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa86f4f3a10");
        let Call::Clone(c) = c else { panic!() };
        assert_eq!(c.flavor, CloneFlavor::Clone);
        assert_eq!(c.flags, 0x200000 | 0x1000000);
        assert_eq!(c.exit_signal, 17);
        assert_eq!(c.stack, None);
        // Go's threads: a stack, no exit signal.
        let Call::Clone(c) = ok(
            "clone",
            "child_stack=0xc000100000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, tls=0xc000080098",
        ) else {
            panic!()
        };
        assert_eq!(c.exit_signal, 0);
        assert_eq!(c.stack, Some(0xc000100000));
        assert_eq!(
            c.flags,
            0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000
        );
        // Go's vfork with a pidfd read back through parent_tid.
        let Call::Clone(c) = ok(
            "clone",
            "child_stack=NULL, flags=CLONE_VM|CLONE_PIDFD|CLONE_VFORK|SIGCHLD, parent_tid=[5]",
        ) else {
            panic!()
        };
        assert_eq!((c.pidfd, c.parent_tid), (Some(5), None));
        // Numeric flags: the low byte is the signal.
        let Call::Clone(c) = ok("clone", "flags=0x1200011") else {
            panic!()
        };
        assert_eq!((c.flags, c.exit_signal), (0x1200000, 17));
        let Call::Clone(c) = ok("clone", "child_stack=0x1, flags=SIGUSR1") else {
            panic!()
        };
        assert_eq!((c.flags, c.exit_signal), (0, 10));
    }

    #[test]
    fn clone3_entry_and_exit_structures() {
        let Call::Clone(c) = ok(
            "clone3",
            "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0239ed9990, parent_tid=0x7f0239ed9990, exit_signal=0, stack=0x7f0239cd9000, stack_size=0x1ffd40, tls=0x7f0239ed96c0} => {parent_tid=[4156]}, 88",
        ) else {
            panic!()
        };
        assert_eq!(c.flavor, CloneFlavor::Clone3);
        assert_eq!(c.flags & 0x10000, 0x10000);
        assert_eq!((c.exit_signal, c.parent_tid), (0, Some(4156)));
        assert_eq!(c.stack, Some(0x7f0239cd9000));
        let Call::Clone(c) = ok("clone3", "{flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7fa9669cb000, stack_size=0x9000}, 88") else {
            panic!()
        };
        assert_eq!((c.flags, c.exit_signal, c.parent_tid), (0x4100, 17, None));
        let Call::Clone(c) = ok("clone3", "{flags=CLONE_PIDFD, pidfd=0x7ffc, exit_signal=SIGCHLD, set_tid=[300, 1], set_tid_size=2} => {pidfd=[3]}, 88") else {
            panic!()
        };
        assert_eq!((c.pidfd, c.set_tid.clone()), (Some(3), vec![300, 1]));
        // A pointer instead of a structure (EFAULT) falls back to Other.
        let (c, _) = decode("clone3", "0x1, 88", &Ret::Val(0));
        assert!(c.is_undecoded());
        // Pointers strace did not read: the pidfd's, an unread set_tid.
        let Call::Clone(c) = ok("clone3", "{flags=CLONE_PIDFD, pidfd=0x7f00000ffe, exit_signal=SIGCHLD, stack=NULL, stack_size=0, set_tid=0x7f00001000, set_tid_size=2}, 88") else {
            panic!()
        };
        assert_eq!(c.pidfd_ptr, Some(0x7f00000ffe));
        assert_eq!(
            (c.set_tid.len(), c.set_tid_ptr),
            (0, Some((0x7f00001000, 2)))
        );
    }

    #[test]
    fn bare_hex_arguments_are_kept_by_position() {
        let e = Ret::Err(super::super::event::SysErr::from_name("EFAULT"));
        let (_, _, hex) = decode_full("wait4", "-1, 0x7f0c6b20c000, WNOHANG, 0x10", &e);
        assert_eq!(&*hex, &[(1, 0x7f0c6b20c000), (3, 0x10)]);
        let (_, _, hex) = decode_full(
            "wait4",
            "-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL",
            &Ret::Val(5),
        );
        assert!(hex.is_empty());
        // execve's envp comment is not a bare number.
        let (_, _, hex) = decode_full(
            "execve",
            r#""/x", ["x"], 0x7ffd /* 3 vars */"#,
            &Ret::Val(0),
        );
        assert!(hex.is_empty());
    }

    #[test]
    fn fork_and_vfork_are_clones() {
        let Call::Clone(f) = ok("fork", "") else {
            panic!()
        };
        assert_eq!(
            (f.flavor, f.flags, f.exit_signal),
            (CloneFlavor::Fork, 0, 17)
        );
        let Call::Clone(v) = ok("vfork", "") else {
            panic!()
        };
        assert_eq!(
            (v.flavor, v.flags, v.exit_signal),
            (CloneFlavor::Vfork, 0x4100, 17)
        );
    }

    #[test]
    fn execve_argv_and_truncation() {
        let c = ok(
            "execve",
            r#""/usr/bin/sh", ["sh", "-c", "./configure >/dev/null 2>&1 && m"...], 0x7fff7c2fb438 /* 35 vars */"#,
        );
        let Call::Execve(e) = c else { panic!() };
        assert_eq!(e.path, "/usr/bin/sh");
        assert_eq!(e.argv, vec!["sh", "-c", "./configure >/dev/null 2>&1 && m"]);
        assert!(!e.argv_complete);
        assert_eq!(e.dirfd, None);
        let Call::Execve(e) = ok(
            "execve",
            r#""./configure", ["./configure"], 0x55e4bd866a98 /* 35 vars */"#,
        ) else {
            panic!()
        };
        assert!(e.argv_complete);
        let Call::Execve(e) = ok("execve", r#""/x", ["a", "b", ...], 0x1 /* 1 var */"#) else {
            panic!()
        };
        assert_eq!((e.argv.len(), e.argv_complete), (2, false));
        let Call::Execve(e) = ok(
            "execveat",
            r#"AT_FDCWD, "/bin/true", ["true"], 0x1 /* 2 vars */, AT_EMPTY_PATH"#,
        ) else {
            panic!()
        };
        assert_eq!((e.dirfd, e.flags), (Some(-100), 0x1000));
    }

    #[test]
    fn wait_statuses_encode_like_linux() {
        assert_eq!(
            wait_status("[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]"),
            Ok(Some(0))
        );
        assert_eq!(
            wait_status("[{WIFEXITED(s) && WEXITSTATUS(s) == 127}]"),
            Ok(Some(127 << 8))
        );
        assert_eq!(
            wait_status("[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]"),
            Ok(Some(9))
        );
        assert_eq!(
            wait_status("[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}]"),
            Ok(Some(11 | 0x80))
        );
        assert_eq!(
            wait_status("[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}]"),
            Ok(Some(0x137f))
        );
        assert_eq!(
            wait_status("[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP | 0x80}]"),
            Ok(Some(0x857f))
        );
        assert_eq!(
            wait_status("[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP} | PTRACE_EVENT_FORK << 16]"),
            Ok(Some(0x1057f))
        );
        assert_eq!(wait_status("[{WIFCONTINUED(s)}]"), Ok(Some(0xffff)));
        assert_eq!(wait_status("[0x137f]"), Ok(Some(0x137f)));
        assert_eq!(wait_status("0x7ffc9604ec7c"), Ok(None));
        assert_eq!(wait_status("NULL"), Ok(None));
        assert!(wait_status("[{WIFWEIRD(s)}]").is_err());
        assert!(wait_status("[{WIFEXITED(s) && WEXITSTATUS(s) == x}]").is_err());
        assert!(wait_status("{").is_err());
    }

    #[test]
    fn wait4_and_waitid() {
        let c = ok(
            "wait4",
            "-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 1}], 0, NULL",
        );
        assert_eq!(
            c,
            Call::Wait4 {
                pid: -1,
                status: Some(256),
                options: 0
            }
        );
        let c = ok("wait4", "-1, 0x7ffc9604ec7c, WNOHANG, NULL");
        assert_eq!(
            c,
            Call::Wait4 {
                pid: -1,
                status: None,
                options: 1
            }
        );
        let c = ok(
            "wait4",
            "-1, NULL, WNOHANG|WSTOPPED|WCONTINUED|__WALL|__WCLONE, NULL",
        );
        assert_eq!(
            c,
            Call::Wait4 {
                pid: -1,
                status: None,
                options: (0xc000_000b_u32) as i32
            }
        );
        let c = ok("waitid", "P_PID, 27100, {si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=27100, si_uid=0, si_status=SIGSTOP, si_utime=0, si_stime=0}, WSTOPPED|WNOWAIT, NULL");
        let info = SigInfo {
            si_signo: 17,
            si_code: 5,
            si_pid: Some(27100),
            si_uid: Some(0),
            si_status: Some(19),
            si_addr: None,
            ..SigInfo::default()
        };
        assert_eq!(
            c,
            Call::Waitid {
                idtype: 1,
                id: 27100,
                info: Some(info),
                options: 0x0100_0002
            }
        );
        let c = ok("waitid", "P_ALL, 0, {}, WNOHANG|WEXITED, NULL");
        assert_eq!(
            c,
            Call::Waitid {
                idtype: 0,
                id: 0,
                info: Some(SigInfo::default()),
                options: 5
            }
        );
        let c = ok(
            "waitid",
            "P_PIDFD, 3, 0x7ffc3ddc5060, WEXITED, {ru_utime={tv_sec=0, tv_usec=1}, ...}",
        );
        assert_eq!(
            c,
            Call::Waitid {
                idtype: 3,
                id: 3,
                info: None,
                options: 4
            }
        );
    }

    #[test]
    fn interrupted_calls_decode_leniently() {
        // `wait4(-1,  <unfinished ...>` never resumed.
        let (c, complete) = decode("wait4", "-1, ", &Ret::Unknown);
        assert_eq!(
            c,
            Call::Wait4 {
                pid: -1,
                status: None,
                options: 0
            }
        );
        assert!(!complete);
        let (c, complete) = decode("exit_group", "0", &Ret::Unknown);
        assert_eq!((c, complete), (Call::ExitGroup { code: 0 }, true));
        // The same text from a call that did return is an error.
        let (c, _) = decode("wait4", "-1", &Ret::Val(3));
        assert!(c.is_undecoded());
    }

    #[test]
    fn signals_and_groups() {
        assert_eq!(
            ok("kill", "27100, SIGSTOP"),
            Call::Kill {
                pid: 27100,
                sig: 19
            }
        );
        assert_eq!(
            ok("kill", "-27124, 0"),
            Call::Kill {
                pid: -27124,
                sig: 0
            }
        );
        assert_eq!(
            ok("tgkill", "4155, 4156, SIGRT_1"),
            Call::Tgkill {
                tgid: 4155,
                tid: 4156,
                sig: 33
            }
        );
        assert_eq!(ok("tkill", "1, SIGUSR2"), Call::Tkill { tid: 1, sig: 12 });
        assert_eq!(ok("setpgid", "0, 0"), Call::Setpgid { pid: 0, pgid: 0 });
        assert_eq!(ok("getsid", "0"), Call::Getsid { pid: 0 });
        assert_eq!(ok("setsid", ""), Call::Setsid);
        assert!(decode("kill", "1, SIGBOGUS", &Ret::Val(0)).0.is_undecoded());
    }

    #[test]
    fn rt_sigaction_actions() {
        let c = ok("rt_sigaction", "SIGCHLD, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER|SA_NOCLDWAIT, sa_restorer=0x7f}, {sa_handler=0x55e4b5a87dc0, sa_mask=~[RTMIN RT_1], sa_flags=SA_RESTORER, sa_restorer=0x7f}, 8");
        let Call::RtSigaction { sig, act, oldact } = c else {
            panic!()
        };
        assert_eq!(sig, 17);
        let act = act.unwrap();
        assert_eq!(act.handler, SigHandler::Ign);
        assert_eq!(act.flags, 0x0400_0002);
        assert_eq!(act.restorer, Some(0x7f));
        let old = oldact.unwrap();
        assert_eq!(old.handler, SigHandler::Handler(0x55e4b5a87dc0));
        assert_eq!(old.mask, !((1u64 << 31) | (1u64 << 32)));
        let c = ok(
            "rt_sigaction",
            "SIGSEGV, NULL, {sa_handler=SIG_DFL, sa_mask=[INT QUIT], sa_flags=0}, 8",
        );
        let Call::RtSigaction { act, oldact, .. } = c else {
            panic!()
        };
        assert_eq!(act, None);
        assert_eq!(oldact.unwrap().mask, 0b110);
    }

    #[test]
    fn prctl_and_ptrace() {
        assert_eq!(
            ok("prctl", "PR_SET_CHILD_SUBREAPER, 1"),
            Call::Prctl {
                option: 36,
                arg2: Some(1),
                name: None
            }
        );
        assert_eq!(
            ok("prctl", "PR_GET_CHILD_SUBREAPER, [1]"),
            Call::Prctl {
                option: 37,
                arg2: Some(1),
                name: None
            }
        );
        assert_eq!(
            ok("prctl", "PR_SET_PDEATHSIG, SIGTERM"),
            Call::Prctl {
                option: 1,
                arg2: Some(15),
                name: None
            }
        );
        assert_eq!(
            ok("prctl", "PR_GET_PDEATHSIG, [SIGUSR2]"),
            Call::Prctl {
                option: 2,
                arg2: Some(12),
                name: None
            }
        );
        assert_eq!(
            ok("prctl", "PR_GET_PDEATHSIG, [0]"),
            Call::Prctl {
                option: 2,
                arg2: Some(0),
                name: None
            }
        );
        assert_eq!(
            ok("prctl", r#"PR_SET_NAME, "tokio-runtime-w"..."#),
            Call::Prctl {
                option: 15,
                arg2: None,
                name: Some("tokio-runtime-w".into())
            }
        );
        assert_eq!(
            ok("prctl", "PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x1, 4, \"x\"").clone(),
            Call::Prctl {
                option: 0x53564d41,
                arg2: None,
                name: None
            }
        );
        assert_eq!(
            ok("ptrace", "PTRACE_TRACEME"),
            Call::Ptrace {
                request: 0,
                pid: 0,
                addr: None,
                data: None
            }
        );
        assert_eq!(
            ok("ptrace", "PTRACE_DETACH, 27103, NULL, SIGCONT"),
            Call::Ptrace {
                request: 17,
                pid: 27103,
                addr: Some(0),
                data: Some(18)
            }
        );
        assert_eq!(
            ok(
                "ptrace",
                "PTRACE_SEIZE, 5, NULL, PTRACE_O_TRACESYSGOOD|PTRACE_O_TRACEFORK"
            ),
            Call::Ptrace {
                request: 0x4206,
                pid: 5,
                addr: Some(0),
                data: Some(3)
            }
        );
    }

    #[test]
    fn memory_calls() {
        assert_eq!(
            ok(
                "mmap",
                "NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0"
            ),
            Call::Mmap {
                addr: 0,
                len: 8192,
                prot: 3,
                flags: 0x22,
                fd: -1,
                offset: 0
            }
        );
        assert_eq!(
            ok("munmap", "0x7f0000000000, 4096"),
            Call::Munmap {
                addr: 0x7f0000000000,
                len: 4096
            }
        );
        assert_eq!(
            ok("mprotect", "0x7f0000000000, 4096, PROT_NONE"),
            Call::Mprotect {
                addr: 0x7f0000000000,
                len: 4096,
                prot: 0
            }
        );
        assert_eq!(ok("brk", "NULL"), Call::Brk { addr: 0 });
        assert_eq!(
            ok("mremap", "0x1000, 4096, 8192, MREMAP_MAYMOVE"),
            Call::Mremap {
                old_addr: 0x1000,
                old_len: 4096,
                new_len: 8192,
                flags: 1,
                new_addr: None
            }
        );
    }

    #[test]
    fn unknown_syscalls_keep_raw_args() {
        let (c, complete) = decode("pidfd_getfd", "3, 4, 0", &Ret::Val(5));
        assert!(complete);
        assert_eq!(
            c,
            Call::Other {
                args: vec!["3".into(), "4".into(), "0".into()],
                undecoded: None
            }
        );
    }

    #[test]
    fn siginfo_of_a_fault() {
        let v = parse_value("{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}");
        let i = siginfo(&v).unwrap();
        assert_eq!((i.si_signo, i.si_code, i.si_addr), (11, 1, Some(0)));
        let v = parse_value("{si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=4155, si_uid=0}");
        let i = siginfo(&v).unwrap();
        assert_eq!((i.si_signo, i.si_code, i.si_pid), (10, -6, Some(4155)));
        assert!(siginfo(&parse_value("{si_signo=SIGCHLD, si_code=CLD_WEIRD}")).is_err());
    }
}
