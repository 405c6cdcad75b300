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
//! [`super::SyscallLine::args_complete`] = false.
//!
//! Complexity: linear in the argument text. No Linux analogue: this mirrors
//! strace's decoders (`clone.c`, `wait.c`, `signal.c`, `prctl.c`, ...).

use std::cell::Cell;
use std::sync::Arc;

use taskcore::sys::{nr, Syscall, SIG_DFL, SIG_IGN};
use taskcore::uapi::{CLONE_PIDFD, CLONE_THREAD};
use taskcore::{Clone3Args, CloneArgs, SigAction, SigHandler};

use super::args::{parse_list, parse_value, Value};
use super::call::{Call, Recorded, WaitidInfo};
use super::consts::{self, lookup, signal_number};
use super::event::Ret;
use super::siginfo::SigInfo;
use super::uptrs::{self, UserPtr};

mod procapi;
mod signal;

// The page size mmap's byte offset is divided by (`pgoff`).
use taskcore::mm::flags::PAGE_SIZE;

/// Decodes syscall `name` from the text between its parentheses.
///
/// `ret` is the call's result; if it is [`Ret::Unknown`] the call did not
/// return and missing arguments are tolerated. Returns the call and whether
/// every argument the decoder wanted was present.
#[cfg(test)]
pub(crate) fn decode(name: &str, args_text: &str, ret: &Ret) -> (Call, bool) {
    let d = decode_full(name, args_text, ret);
    (d.call, d.complete)
}

/// A decoded call (see [`decode_full`]).
pub(crate) struct Decoded {
    /// The call.
    pub(crate) call: Call,
    /// Whether every argument the decoder wanted was present.
    pub(crate) complete: bool,
    /// The top-level arguments printed as a bare hexadecimal number (see
    /// [`super::SyscallLine::hex_args`]).
    pub(crate) hex: Box<[(u8, u64)]>,
    /// The pointers strace did not read, as the kernel touches them.
    pub(crate) uptrs: Option<Arc<[UserPtr]>>,
}

/// As [`decode`], plus the bare hexadecimal arguments and the unread
/// pointers.
pub(crate) fn decode_full(name: &str, args_text: &str, ret: &Ret) -> Decoded {
    let args = Args::new(args_text, matches!(ret, Ret::Unknown));
    let hex: Box<[(u8, u64)]> = args
        .raw
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let digits = r.strip_prefix("0x")?;
            let v = u64::from_str_radix(digits, 16).ok()?;
            Some((u8::try_from(i).ok()?, v))
        })
        .collect();
    let mut uptrs = None;
    let sys = |call| {
        Ok(Call::Sys {
            call,
            out: Recorded::Ret,
        })
    };
    let decoded = match name {
        "clone" => clone(&args),
        "clone3" => {
            let d = clone3(&args);
            uptrs = clone3_ptrs(&args, &hex, d.is_ok());
            d
        }
        "fork" => Ok(fork_like(Syscall::Fork)),
        "vfork" => Ok(fork_like(Syscall::Vfork)),
        "execve" => execve(&args, false),
        "execveat" => execve(&args, true),
        "exit" => args.int(0).and_then(|code| sys(Syscall::Exit { code })),
        "exit_group" => args
            .int(0)
            .and_then(|code| sys(Syscall::ExitGroup { code })),
        "wait4" => wait4(&args),
        "waitid" => waitid(&args),
        "setpgid" => (|| {
            sys(Syscall::Setpgid {
                pid: args.int(0)?,
                pgid: args.int(1)?,
            })
        })(),
        "setsid" => sys(Syscall::Setsid),
        "getpgid" => args.int(0).and_then(|pid| sys(Syscall::Getpgid { pid })),
        "getsid" => args.int(0).and_then(|pid| sys(Syscall::Getsid { pid })),
        "getppid" => sys(Syscall::Getppid),
        "getpid" => sys(Syscall::Getpid),
        "gettid" => sys(Syscall::Gettid),
        "getpgrp" => sys(Syscall::Getpgrp),
        "kill" => (|| {
            sys(Syscall::Kill {
                pid: args.int(0)?,
                sig: args.sig(1)?,
            })
        })(),
        "tgkill" => (|| {
            sys(Syscall::Tgkill {
                tgid: args.int(0)?,
                tid: args.int(1)?,
                sig: args.sig(2)?,
            })
        })(),
        "tkill" => (|| {
            sys(Syscall::Tkill {
                tid: args.int(0)?,
                sig: args.sig(1)?,
            })
        })(),
        "rt_sigaction" => rt_sigaction(&args),
        "prctl" => prctl(&args),
        "ptrace" => ptrace(&args),
        "mmap" => mmap(&args),
        "munmap" => (|| {
            sys(Syscall::Munmap {
                addr: args.addr(0)?,
                len: args.addr(1)?,
            })
        })(),
        "mprotect" => (|| {
            sys(Syscall::Mprotect {
                addr: args.addr(0)?,
                len: args.addr(1)?,
                prot: args.bits(2, consts::PROT_FLAGS)? as u32,
            })
        })(),
        "mremap" => mremap(&args),
        "brk" => args.addr(0).and_then(|addr| sys(Syscall::Brk { addr })),
        _ => match signal::decode(name, &args).or_else(|| procapi::decode(name, &args)) {
            Some(call) => call,
            None => Ok(args.other(None)),
        },
    };
    if uptrs.is_none() && name != "clone3" {
        uptrs = uptrs::user_ptrs(name, &hex);
    }
    match decoded {
        Ok(call) => Decoded {
            call,
            complete: !args.missing.get(),
            hex,
            uptrs,
        },
        Err(msg) => Decoded {
            call: args.other(Some(msg)),
            complete: false,
            hex,
            uptrs,
        },
    }
}

/// The arguments of one call: raw top-level pieces and their parsed values.
struct Args<'a> {
    /// The argument texts, trimmed.
    raw: Vec<&'a str>,
    /// The parsed values, one per `raw` piece.
    vals: Vec<Value<'a>>,
    /// Tolerate missing arguments (the call did not return).
    lenient: bool,
    /// Set when a lenient getter substituted a default.
    missing: Cell<bool>,
}

/// A decoding failure message.
type Res<T> = Result<T, String>;

impl<'a> Args<'a> {
    fn new(text: &'a str, lenient: bool) -> Args<'a> {
        let (raw, vals) = parse_list(text);
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
    fn get(&self, i: usize) -> Res<Option<&Value<'a>>> {
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

/// fork() and vfork(): the call itself (SIGCHLD, and `CLONE_VM |
/// CLONE_VFORK` for vfork, are implied by the syscall).
fn fork_like(call: Syscall) -> Call {
    Call::Sys {
        call,
        out: Recorded::Clone {
            pidfd: None,
            ns_nr: None,
        },
    }
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
///
/// The exit signal is the low byte of `flags` (0 with `CLONE_THREAD`, as
/// glibc passes it: kernel/fork.c ignores it for threads).
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
    if let Some(v) = named("child_stack").or_else(|| named("stack")) {
        if !v.is_null() {
            addr_of(v)?;
        }
    }
    let out = named("parent_tid")
        .or_else(|| named("parent_tidptr"))
        .and_then(out_int);
    let pidfd = if flags & CLONE_PIDFD != 0 { out } else { None };
    Ok(Call::Sys {
        call: Syscall::Clone(CloneArgs {
            flags,
            exit_signal: if flags & CLONE_THREAD != 0 {
                0
            } else {
                exit_signal
            },
            set_tid: Vec::new(),
        }),
        out: Recorded::Clone { pidfd, ns_nr: None },
    })
}

/// clone3({flags=..., exit_signal=..., ...} [=> {parent_tid=[N]}], size).
///
/// Only `flags` and `exit_signal` are carried (a negative exit signal
/// cannot be printed, so it is 0); the other fields are checked for form.
fn clone3(a: &Args<'_>) -> Res<Call> {
    let clone3 = |flags, exit_signal: i32, pidfd| Call::Sys {
        call: Syscall::Clone3(Clone3Args {
            flags,
            exit_signal: exit_signal.max(0) as u64,
            ..Clone3Args::default()
        }),
        out: Recorded::Clone { pidfd, ns_nr: None },
    };
    let Some(v) = a.get(0)? else {
        return Ok(clone3(0, 0, None));
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
    if let Some(v) = entry.field("stack") {
        if !v.is_null() {
            addr_of(v)?;
        }
    }
    if let Some(Value::Array { items, .. }) = entry.field("set_tid") {
        items.iter().map(int_of).collect::<Res<Vec<_>>>()?;
    }
    let pidfd = exit.and_then(|e| e.field("pidfd")).and_then(out_int);
    Ok(clone3(flags, exit_signal, pidfd))
}

/// clone3's pointers strace did not read: the structure itself when it
/// printed only its address (`clone3(0x7ffd..., 88)`), else an unread
/// `set_tid` array and, with `CLONE_PIDFD`, the `pidfd` pointer inside it.
/// `decoded`: whether the structure was decoded.
fn clone3_ptrs(a: &Args<'_>, hex: &[(u8, u64)], decoded: bool) -> Option<Arc<[UserPtr]>> {
    if decoded {
        return match a.vals.first()? {
            Value::Changed(entry, _) => clone3_inner_ptrs(entry),
            v => clone3_inner_ptrs(v),
        };
    }
    let addr = hex.iter().find(|(p, _)| *p == 0)?.1;
    let size: u64 = a.raw.get(1)?.parse().ok()?;
    uptrs::clone3_struct(addr, size)
}

fn clone3_inner_ptrs(entry: &Value) -> Option<Arc<[UserPtr]>> {
    let set_tid = match entry.field("set_tid") {
        Some(Value::Array { .. }) => None,
        Some(v) if !v.is_null() => {
            let size = entry.field("set_tid_size").and_then(Value::as_u64);
            v.as_u64().zip(size)
        }
        _ => None,
    };
    let flags = entry
        .field("flags")
        .and_then(|f| f.eval_bits(&|s| lookup(consts::CLONE_FLAGS, s)).ok())
        .unwrap_or(0);
    let pidfd = entry
        .field("pidfd")
        .filter(|v| !v.is_null())
        .and_then(Value::as_u64)
        .filter(|_| flags & CLONE_PIDFD != 0);
    uptrs::clone3_inner(set_tid, pidfd)
}

/// execve(path, argv, envp) / execveat(dirfd, path, argv, envp, flags),
/// both as execve(2) with the path and the arguments strace printed (a
/// string cut at strace's `-s` limit keeps its prefix; elided elements
/// are left out).
fn execve(a: &Args<'_>, at: bool) -> Res<Call> {
    let base = usize::from(at);
    if at {
        a.int(0)?;
    }
    let path = match a.get(base)? {
        None => String::new(),
        Some(Value::Str { text, .. }) => text.clone(),
        Some(v) if v.is_null() => String::new(),
        Some(v) => return Err(format!("execve path not a string: `{v}`")),
    };
    let argv = match a.get(base + 1)? {
        Some(Value::Array { items, .. }) => {
            let mut argv = Vec::with_capacity(items.len());
            for it in items {
                match it {
                    Value::Str { text, .. } => argv.push(text.clone().into_bytes()),
                    other => return Err(format!("execve argv element not a string: `{other}`")),
                }
            }
            argv
        }
        // NULL, or a pointer strace could not read.
        _ => Vec::new(),
    };
    if at {
        a.bits(base + 3, consts::AT_CONSTS)?;
    }
    Ok(Call::Sys {
        call: Syscall::Execve {
            filename: path,
            argv: Some(argv),
        },
        out: Recorded::Ret,
    })
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
    Ok(Call::Sys {
        call: Syscall::Wait4 { pid, options },
        out: Recorded::Wait4 { status },
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
        info.signo = sig_of(s)?;
    }
    if let Some(c) = v.field("si_code") {
        info.code = match c {
            Value::Sym(s) => {
                consts::si_code(s).ok_or_else(|| format!("unknown si_code {s}"))? as i32
            }
            other => other
                .as_i32()
                .ok_or_else(|| format!("bad si_code `{other}`"))?,
        };
    }
    info.pid = v.field("si_pid").map(int_of).transpose()?;
    info.uid = v
        .field("si_uid")
        .map(|u| int_of(u).map(|u| u as u32))
        .transpose()?;
    info.status = v
        .field("si_status")
        .map(|s| match s {
            Value::Sym(_) => sig_of(s),
            other => int_of(other),
        })
        .transpose()?;
    info.addr = v.field("si_addr").map(addr_of).transpose()?;
    // strace 6.x prints `si_int=N, si_ptr=P`; older ones `si_value={int=N, ptr=P}`
    let value = v.field("si_value");
    info.int = v
        .field("si_int")
        .or_else(|| value.and_then(|s| s.field("int")))
        .map(int_of)
        .transpose()?;
    info.ptr = v
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
    Ok(Call::Sys {
        call: Syscall::Waitid {
            idtype,
            id,
            options,
        },
        out: Recorded::Waitid {
            info: info.map(|i| WaitidInfo {
                pid: if i.signo == 0 { 0 } else { i.pid.unwrap_or(0) },
                code: i.code,
                status: i.status.unwrap_or(0),
            }),
        },
    })
}

/// A printed `struct sigaction`: `sa_handler` (`SIG_DFL` 0, `SIG_IGN` 1,
/// or the function's address), `sa_flags`, `sa_mask` and `sa_restorer`
/// (0 when not printed); `NULL` or an unread pointer is `None`.
fn sigact(v: Option<&Value>) -> Res<Option<(u64, u64, u64, u64)>> {
    let Some(v @ Value::Struct { .. }) = v else {
        return Ok(None);
    };
    let handler = match v.field("sa_handler") {
        Some(Value::Sym(s)) if s == "SIG_DFL" => SIG_DFL,
        Some(Value::Sym(s)) if s == "SIG_IGN" => SIG_IGN,
        Some(h) => addr_of(h)?,
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
    Ok(Some((handler, flags, mask, restorer.unwrap_or(0))))
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
    Ok(Call::Sys {
        call: Syscall::RtSigaction {
            sig,
            act: act
                .map(|(h, flags, mask, restorer)| SigAction::from_raw(h, flags, mask, restorer)),
        },
        out: Recorded::OldHandler(oldact.map(|(h, ..)| SigHandler::from_sa_handler(h))),
    })
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
    let other = || Ok(a.other(None));
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
    use nr::{
        PR_GET_CHILD_SUBREAPER, PR_GET_DUMPABLE, PR_GET_NAME, PR_GET_PDEATHSIG,
        PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, PR_SET_NAME, PR_SET_PDEATHSIG,
    };
    use taskcore::sys::Prctl;
    let (call, out) = match (option as u64, arg2, name) {
        (PR_GET_NAME, _, Some(name)) => (Prctl::GetName, Recorded::Name(name)),
        (PR_SET_NAME, _, Some(name)) => (Prctl::SetName(name.into_bytes()), Recorded::Ret),
        (PR_SET_PDEATHSIG, Some(sig), _) => (Prctl::SetPdeathsig(sig as i32), Recorded::Ret),
        // strace prints the signal written (`[SIGUSR2]`, `[0]`).
        (PR_GET_PDEATHSIG, arg2, _) => (Prctl::GetPdeathsig, Recorded::Written(arg2)),
        // strace names the argument (SUID_DUMP_USER...); the result of
        // PR_GET_DUMPABLE is the return value.
        (PR_SET_DUMPABLE, Some(arg), _) => (Prctl::SetDumpable(arg), Recorded::Ret),
        (PR_GET_DUMPABLE, _, _) => (Prctl::GetDumpable, Recorded::Ret),
        (PR_SET_CHILD_SUBREAPER, arg2, _) => (
            Prctl::SetChildSubreaper(arg2.unwrap_or(0) != 0),
            Recorded::Ret,
        ),
        (PR_GET_CHILD_SUBREAPER, arg2, _) => (Prctl::GetChildSubreaper, Recorded::Written(arg2)),
        // An option the core does not model, or an argument strace did
        // not print.
        _ => return other(),
    };
    Ok(Call::Sys {
        call: Syscall::Prctl(call),
        out,
    })
}

/// ptrace(request, pid, addr, data): kept as registers (request, pid),
/// as any request is answered where it is applied (under `strace -f` the
/// tracer is strace).
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
    Ok(Call::Raw {
        nr: nr::PTRACE,
        args: [request as u64, pid as u64, 0, 0, 0, 0],
        info: None,
    })
}

/// mmap(addr, length, prot, flags, fd, offset).
fn mmap(a: &Args<'_>) -> Res<Call> {
    let (addr, len) = (a.addr(0)?, a.addr(1)?);
    let prot = a.bits(2, consts::PROT_FLAGS)? as u32;
    let flags = a.bits(3, consts::MAP_FLAGS)? as u32;
    let fd = a.int(4)?;
    let offset = a.addr(5)?;
    Ok(Call::Sys {
        call: Syscall::Mmap {
            addr,
            len,
            prot,
            flags,
            file: None,
            pgoff: offset / PAGE_SIZE,
        },
        out: Recorded::Mmap { fd },
    })
}

/// mremap(old_addr, old_len, new_len, flags[, new_addr]).
fn mremap(a: &Args<'_>) -> Res<Call> {
    let (old, old_len, new_len) = (a.addr(0)?, a.addr(1)?, a.addr(2)?);
    let flags = a.bits(3, consts::MREMAP_FLAGS)? as u32;
    let new = a.vals.get(4).map(addr_of).transpose()?;
    Ok(Call::Sys {
        call: Syscall::Mremap {
            old,
            old_len,
            new_len,
            flags,
            new: new.unwrap_or(0),
        },
        out: Recorded::Ret,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uptrs::Access;
    use taskcore::sys::Prctl;
    use taskcore::uapi::{CLONE_VFORK, CLONE_VM, SIGCHLD};

    fn ok(name: &str, args: &str) -> Call {
        let (call, complete) = decode(name, args, &Ret::Val(0));
        assert!(complete, "{name}({args}) incomplete: {call:?}");
        assert!(!call.is_undecoded(), "{name}({args}): {call:?}");
        call
    }

    /// The core call and the recorded outputs of `name(args)`.
    fn sys(name: &str, args: &str) -> (Syscall, Recorded) {
        match ok(name, args) {
            Call::Sys { call, out } => (call, out),
            other => panic!("{name}({args}): {other:?}"),
        }
    }

    fn clone_args(args: &str) -> (CloneArgs, Recorded) {
        match sys("clone", args) {
            (Syscall::Clone(c), out) => (c, out),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clone_flags_split_off_the_exit_signal() {
        let (c, out) = clone_args("child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa86f4f3a10");
        assert_eq!(c.flags, 0x200000 | 0x1000000);
        assert_eq!(c.exit_signal, 17);
        assert_eq!(
            out,
            Recorded::Clone {
                pidfd: None,
                ns_nr: None
            }
        );
        // Go's threads: a stack, no exit signal.
        let (c, _) = clone_args(
            "child_stack=0xc000100000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, tls=0xc000080098",
        );
        assert_eq!(c.exit_signal, 0);
        assert_eq!(
            c.flags,
            0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000
        );
        // Go's vfork with a pidfd read back through parent_tid.
        let (_, out) = clone_args(
            "child_stack=NULL, flags=CLONE_VM|CLONE_PIDFD|CLONE_VFORK|SIGCHLD, parent_tid=[5]",
        );
        assert_eq!(
            out,
            Recorded::Clone {
                pidfd: Some(5),
                ns_nr: None
            }
        );
        // Numeric flags: the low byte is the signal.
        let (c, _) = clone_args("flags=0x1200011");
        assert_eq!((c.flags, c.exit_signal), (0x1200000, 17));
        let (c, _) = clone_args("child_stack=0x1, flags=SIGUSR1");
        assert_eq!((c.flags, c.exit_signal), (0, 10));
        // A thread's exit signal is 0, whatever the low byte says.
        let (c, _) =
            clone_args("child_stack=0x1, flags=CLONE_VM|CLONE_SIGHAND|CLONE_THREAD|SIGCHLD");
        assert_eq!(c.exit_signal, 0);
    }

    #[test]
    fn clone3_entry_and_exit_structures() {
        let d = decode_full(
            "clone3",
            "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0239ed9990, parent_tid=0x7f0239ed9990, exit_signal=0, stack=0x7f0239cd9000, stack_size=0x1ffd40, tls=0x7f0239ed96c0} => {parent_tid=[4156]}, 88",
            &Ret::Val(4156),
        );
        let Call::Sys {
            call: Syscall::Clone3(c),
            ..
        } = d.call
        else {
            panic!("{:?}", d.call)
        };
        assert_eq!(c.flags & 0x10000, 0x10000);
        assert_eq!(c.exit_signal, 0);
        assert!(d.uptrs.is_none());
        let (c, _) = sys("clone3", "{flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7fa9669cb000, stack_size=0x9000}, 88");
        assert_eq!(
            c,
            Syscall::Clone3(Clone3Args {
                flags: 0x4100,
                exit_signal: 17,
                ..Clone3Args::default()
            })
        );
        let (_, out) = sys("clone3", "{flags=CLONE_PIDFD, pidfd=0x7ffc, exit_signal=SIGCHLD, set_tid=[300, 1], set_tid_size=2} => {pidfd=[3]}, 88");
        assert_eq!(
            out,
            Recorded::Clone {
                pidfd: Some(3),
                ns_nr: None
            }
        );
        // A pointer instead of a structure (EFAULT) falls back to Other,
        // with the structure as a pointer the kernel reads.
        let d = decode_full("clone3", "0x1000, 88", &Ret::Val(0));
        assert!(d.call.is_undecoded());
        let p = d.uptrs.expect("the structure's pointer");
        assert_eq!(
            (p[0].addr, p[0].len, p[0].access),
            (0x1000, 88, Access::Read)
        );
        // A size the kernel refuses: no read.
        assert!(decode_full("clone3", "0x1000, 8", &Ret::Val(0))
            .uptrs
            .is_none());
        // Pointers strace did not read: the pidfd's, an unread set_tid.
        let d = decode_full("clone3", "{flags=CLONE_PIDFD, pidfd=0x7f00000ffe, exit_signal=SIGCHLD, stack=NULL, stack_size=0, set_tid=0x7f00001000, set_tid_size=2}, 88", &Ret::Val(0));
        let p = d.uptrs.expect("the inner pointers");
        assert_eq!(
            p.iter()
                .map(|p| (p.addr, p.len, p.access))
                .collect::<Vec<_>>(),
            [
                (0x7f00001000, 8, Access::CloneSetTid),
                (0x7f00000ffe, 4, Access::ClonePidfd)
            ]
        );
    }

    #[test]
    fn bare_hex_arguments_are_kept_by_position() {
        let e = Ret::Err(super::super::event::SysErr::from_name("EFAULT"));
        let hex = decode_full("wait4", "-1, 0x7f0c6b20c000, WNOHANG, 0x10", &e).hex;
        assert_eq!(&*hex, &[(1, 0x7f0c6b20c000), (3, 0x10)]);
        let hex = decode_full(
            "wait4",
            "-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL",
            &Ret::Val(5),
        )
        .hex;
        assert!(hex.is_empty());
        // execve's envp comment is not a bare number.
        let hex = decode_full(
            "execve",
            r#""/x", ["x"], 0x7ffd /* 3 vars */"#,
            &Ret::Val(0),
        )
        .hex;
        assert!(hex.is_empty());
    }

    #[test]
    fn fork_and_vfork_are_clones() {
        assert_eq!(
            sys("fork", ""),
            (
                Syscall::Fork,
                Recorded::Clone {
                    pidfd: None,
                    ns_nr: None
                }
            )
        );
        assert_eq!(sys("vfork", "").0, Syscall::Vfork);
        // What the two imply, as the core's clone flags.
        let _ = (CLONE_VM | CLONE_VFORK, SIGCHLD);
    }

    #[test]
    fn execve_argv_and_truncation() {
        let argv = |args: &str, at: bool| match sys(if at { "execveat" } else { "execve" }, args).0
        {
            Syscall::Execve { filename, argv } => (filename, argv.unwrap()),
            other => panic!("{other:?}"),
        };
        let (path, a) = argv(
            r#""/usr/bin/sh", ["sh", "-c", "./configure >/dev/null 2>&1 && m"...], 0x7fff7c2fb438 /* 35 vars */"#,
            false,
        );
        assert_eq!(path, "/usr/bin/sh");
        assert_eq!(a, [&b"sh"[..], b"-c", b"./configure >/dev/null 2>&1 && m"]);
        let (_, a) = argv(r#""/x", ["a", "b", ...], 0x1 /* 1 var */"#, false);
        assert_eq!(a.len(), 2);
        let (path, a) = argv(
            r#"AT_FDCWD, "/bin/true", ["true"], 0x1 /* 2 vars */, AT_EMPTY_PATH"#,
            true,
        );
        assert_eq!((path.as_str(), a.len()), ("/bin/true", 1));
        assert!(decode("execve", "0x1, 0x2, 0x3", &Ret::Val(0))
            .0
            .is_undecoded());
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
        let wait4 =
            |pid, options, status| (Syscall::Wait4 { pid, options }, Recorded::Wait4 { status });
        assert_eq!(
            sys(
                "wait4",
                "-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 1}], 0, NULL"
            ),
            wait4(-1, 0, Some(256))
        );
        assert_eq!(
            sys("wait4", "-1, 0x7ffc9604ec7c, WNOHANG, NULL"),
            wait4(-1, 1, None)
        );
        assert_eq!(
            sys(
                "wait4",
                "-1, NULL, WNOHANG|WSTOPPED|WCONTINUED|__WALL|__WCLONE, NULL"
            ),
            wait4(-1, (0xc000_000b_u32) as i32, None)
        );
        assert_eq!(
            sys("waitid", "P_PID, 27100, {si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=27100, si_uid=0, si_status=SIGSTOP, si_utime=0, si_stime=0}, WSTOPPED|WNOWAIT, NULL"),
            (
                Syscall::Waitid {
                    idtype: 1,
                    id: 27100,
                    options: 0x0100_0002
                },
                Recorded::Waitid {
                    info: Some(WaitidInfo {
                        pid: 27100,
                        code: 5,
                        status: 19
                    })
                }
            )
        );
        // `{}`: nothing to report, all zero.
        assert_eq!(
            sys("waitid", "P_ALL, 0, {}, WNOHANG|WEXITED, NULL"),
            (
                Syscall::Waitid {
                    idtype: 0,
                    id: 0,
                    options: 5
                },
                Recorded::Waitid {
                    info: Some(WaitidInfo {
                        pid: 0,
                        code: 0,
                        status: 0
                    })
                }
            )
        );
        assert_eq!(
            sys(
                "waitid",
                "P_PIDFD, 3, 0x7ffc3ddc5060, WEXITED, {ru_utime={tv_sec=0, tv_usec=1}, ...}",
            )
            .1,
            Recorded::Waitid { info: None }
        );
    }

    #[test]
    fn interrupted_calls_decode_leniently() {
        // `wait4(-1,  <unfinished ...>` never resumed.
        let (c, complete) = decode("wait4", "-1, ", &Ret::Unknown);
        assert_eq!(
            c,
            Call::Sys {
                call: Syscall::Wait4 {
                    pid: -1,
                    options: 0
                },
                out: Recorded::Wait4 { status: None }
            }
        );
        assert!(!complete);
        let (c, complete) = decode("exit_group", "0", &Ret::Unknown);
        assert_eq!(
            (c.syscall(), complete),
            (Some(&Syscall::ExitGroup { code: 0 }), true)
        );
        // The same text from a call that did return is an error.
        let (c, _) = decode("wait4", "-1", &Ret::Val(3));
        assert!(c.is_undecoded());
    }

    #[test]
    fn signals_and_groups() {
        let call = |name, args| sys(name, args).0;
        assert_eq!(
            call("kill", "27100, SIGSTOP"),
            Syscall::Kill {
                pid: 27100,
                sig: 19
            }
        );
        assert_eq!(
            call("kill", "-27124, 0"),
            Syscall::Kill {
                pid: -27124,
                sig: 0
            }
        );
        assert_eq!(
            call("tgkill", "4155, 4156, SIGRT_1"),
            Syscall::Tgkill {
                tgid: 4155,
                tid: 4156,
                sig: 33
            }
        );
        assert_eq!(
            call("tkill", "1, SIGUSR2"),
            Syscall::Tkill { tid: 1, sig: 12 }
        );
        assert_eq!(
            call("setpgid", "0, 0"),
            Syscall::Setpgid { pid: 0, pgid: 0 }
        );
        assert_eq!(call("getsid", "0"), Syscall::Getsid { pid: 0 });
        assert_eq!(call("setsid", ""), Syscall::Setsid);
        assert!(decode("kill", "1, SIGBOGUS", &Ret::Val(0)).0.is_undecoded());
    }

    #[test]
    fn rt_sigaction_actions() {
        let (c, out) = sys("rt_sigaction", "SIGCHLD, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER|SA_NOCLDWAIT, sa_restorer=0x7f}, {sa_handler=0x55e4b5a87dc0, sa_mask=~[RTMIN RT_1], sa_flags=SA_RESTORER, sa_restorer=0x7f}, 8");
        let Syscall::RtSigaction { sig, act } = c else {
            panic!()
        };
        assert_eq!(sig, 17);
        assert_eq!(
            act,
            Some(SigAction::from_raw(SIG_IGN, 0x0400_0002, 0, 0x7f))
        );
        assert_eq!(out, Recorded::OldHandler(Some(SigHandler::Handler)));
        let (c, out) = sys(
            "rt_sigaction",
            "SIGSEGV, NULL, {sa_handler=SIG_DFL, sa_mask=[INT QUIT], sa_flags=0}, 8",
        );
        assert_eq!(c, Syscall::RtSigaction { sig: 11, act: None });
        assert_eq!(out, Recorded::OldHandler(Some(SigHandler::Default)));
    }

    #[test]
    fn prctl_and_ptrace() {
        let prctl = |args| match sys("prctl", args) {
            (Syscall::Prctl(p), out) => (p, out),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            prctl("PR_SET_CHILD_SUBREAPER, 1"),
            (Prctl::SetChildSubreaper(true), Recorded::Ret)
        );
        assert_eq!(
            prctl("PR_GET_CHILD_SUBREAPER, [1]"),
            (Prctl::GetChildSubreaper, Recorded::Written(Some(1)))
        );
        assert_eq!(
            prctl("PR_SET_PDEATHSIG, SIGTERM"),
            (Prctl::SetPdeathsig(15), Recorded::Ret)
        );
        assert_eq!(
            prctl("PR_GET_PDEATHSIG, [SIGUSR2]"),
            (Prctl::GetPdeathsig, Recorded::Written(Some(12)))
        );
        assert_eq!(
            prctl("PR_GET_PDEATHSIG, [0]"),
            (Prctl::GetPdeathsig, Recorded::Written(Some(0)))
        );
        assert_eq!(
            prctl(r#"PR_SET_NAME, "tokio-runtime-w"..."#),
            (Prctl::SetName(b"tokio-runtime-w".to_vec()), Recorded::Ret)
        );
        assert_eq!(
            prctl("PR_SET_DUMPABLE, SUID_DUMP_USER"),
            (Prctl::SetDumpable(1), Recorded::Ret)
        );
        // An option the core does not model.
        assert!(matches!(
            ok("prctl", "PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x1, 4, \"x\""),
            Call::Other {
                undecoded: None,
                ..
            }
        ));
        let raw = |args| match ok("ptrace", args) {
            Call::Raw { nr: n, args, info } => {
                assert_eq!((n, info), (nr::PTRACE, None));
                args
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(raw("PTRACE_TRACEME"), [0; 6]);
        assert_eq!(
            raw("PTRACE_DETACH, 27103, NULL, SIGCONT"),
            [17, 27103, 0, 0, 0, 0]
        );
        assert_eq!(
            raw("PTRACE_SEIZE, 5, NULL, PTRACE_O_TRACESYSGOOD|PTRACE_O_TRACEFORK"),
            [0x4206, 5, 0, 0, 0, 0]
        );
    }

    #[test]
    fn memory_calls() {
        assert_eq!(
            sys(
                "mmap",
                "NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x3000"
            ),
            (
                Syscall::Mmap {
                    addr: 0,
                    len: 8192,
                    prot: 3,
                    flags: 0x22,
                    file: None,
                    pgoff: 3
                },
                Recorded::Mmap { fd: -1 }
            )
        );
        assert_eq!(
            sys("munmap", "0x7f0000000000, 4096").0,
            Syscall::Munmap {
                addr: 0x7f0000000000,
                len: 4096
            }
        );
        assert_eq!(
            sys("mprotect", "0x7f0000000000, 4096, PROT_NONE").0,
            Syscall::Mprotect {
                addr: 0x7f0000000000,
                len: 4096,
                prot: 0
            }
        );
        assert_eq!(sys("brk", "NULL").0, Syscall::Brk { addr: 0 });
        assert_eq!(
            sys("mremap", "0x1000, 4096, 8192, MREMAP_MAYMOVE").0,
            Syscall::Mremap {
                old: 0x1000,
                old_len: 4096,
                new_len: 8192,
                flags: 1,
                new: 0
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
        assert_eq!((i.signo, i.code, i.addr), (11, 1, Some(0)));
        let v = parse_value("{si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=4155, si_uid=0}");
        let i = siginfo(&v).unwrap();
        assert_eq!((i.signo, i.code, i.pid), (10, -6, Some(4155)));
        assert!(siginfo(&parse_value("{si_signo=SIGCHLD, si_code=CLD_WEIRD}")).is_err());
    }
}
