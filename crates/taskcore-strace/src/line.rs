//! Lexing one line of `strace -f` output into its prefix and body.
//!
//! ```text
//!   4155  1795224849.617570 clone3({...} => {parent_tid=[4156]}, 88) = 4156
//!   ^pid  ^timestamp        ^body
//!   [pid  4155] 01:36:12.123456 wait4(-1,  <unfinished ...>
//!   1795224849.617570 exit_group(0) = ?              (single process: no pid)
//! ```
//!
//! Body forms ([`Body`]):
//!
//! ```text
//!   NAME(ARGS) = RESULT            Body::Call
//!   NAME(ARGS <unfinished ...>     Body::Unfinished
//!   <... NAME resumed>ARGS) = R    Body::Resumed
//!   --- SIGCHLD {si_signo=...} --- Body::Signal
//!   --- stopped by SIGSTOP ---     Body::Stopped
//!   +++ exited with N +++          Body::Exited
//!   +++ killed by SIGX [(core dumped)] +++   Body::Killed
//!   +++ superseded by execve in pid N +++    Body::Superseded
//!   strace: Process N attached     Body::Noise (also blank lines, -k frames)
//! ```
//!
//! The timestamp may be `-ttt` (seconds since the epoch), `-tt`/`-t`
//! (wall-clock time of day, converted to seconds since midnight) or absent
//! (0.0). A `-T` duration suffix (`<0.000012>`) is dropped from results.
//!
//! Complexity: O(line length). No Linux analogue: this mirrors strace's
//! `printleader()` and `syscall_exiting_trace()` output.

use super::scan::matching_close;

/// A lexed line: the optional pid and timestamp, then the body.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Line<'a> {
    /// The pid prefix (`4155` or `[pid 4155]`); `None` when strace printed
    /// none (a single traced process).
    pub(crate) pid: Option<i32>,
    /// Seconds: since the epoch with `-ttt`, since midnight with `-t`/`-tt`,
    /// and 0.0 without a timestamp.
    pub(crate) ts: f64,
    /// What the line says.
    pub(crate) body: Body<'a>,
}

/// The part of a line after the pid and timestamp.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Body<'a> {
    /// A whole syscall on one line: `NAME(ARGS) = RESULT`.
    Call {
        /// The syscall name (`???` for one strace could not identify).
        name: &'a str,
        /// The text between the parentheses.
        args: &'a str,
        /// The text after `= ` (see [`super::event::Ret::parse`]).
        result: &'a str,
    },
    /// The entry half of a syscall: `NAME(ARGS <unfinished ...>`.
    Unfinished {
        /// The syscall name.
        name: &'a str,
        /// The arguments printed so far (those known on entry).
        args: &'a str,
    },
    /// The exit half: `<... NAME resumed>REST) = RESULT`.
    Resumed {
        /// The syscall name.
        name: &'a str,
        /// Everything after `resumed>`: the remaining arguments, `)`, `= `
        /// and the result. Appending it to the entry's `args` gives the
        /// text of a whole call.
        rest: &'a str,
    },
    /// `--- SIGNAME {siginfo} ---`: a signal was delivered.
    Signal {
        /// The signal name, e.g. `SIGCHLD`.
        name: &'a str,
        /// The siginfo text including braces, or `""` if none was printed.
        info: &'a str,
    },
    /// `--- stopped by SIGSTOP ---`: the task entered group stop.
    Stopped {
        /// The stop signal's name.
        name: &'a str,
    },
    /// `+++ exited with N +++`.
    Exited {
        /// The exit status (0..=255).
        code: i32,
    },
    /// `+++ killed by SIGX +++` or `+++ killed by SIGX (core dumped) +++`.
    Killed {
        /// The fatal signal's name.
        name: &'a str,
        /// Whether a core was dumped.
        core_dumped: bool,
    },
    /// `+++ superseded by execve in pid N +++`: thread `N` of this thread
    /// group called execve() and took over the group leader's pid.
    Superseded {
        /// The tid that called execve().
        by_pid: i32,
    },
    /// A line carrying no event (`strace:` messages, blank lines, `-k`
    /// stack frames).
    Noise,
}

/// Lexes one line (without its newline).
///
/// # Errors
/// A lowercase message when the line fits none of the forms above.
pub(crate) fn lex(line: &str) -> Result<Line<'_>, String> {
    let end = line.bytes().rposition(|c| c != b'\n' && c != b'\r');
    let line = &line[..end.map_or(0, |i| i + 1)];
    let t = line.trim_start();
    if t.is_empty()
        || t.starts_with("strace: ")
        || t.starts_with("> ")
        || t.starts_with("[ Process PID=")
    {
        return Ok(Line {
            pid: None,
            ts: 0.0,
            body: Body::Noise,
        });
    }
    let (pid, rest) = lex_pid(t)?;
    let (ts, rest) = lex_timestamp(rest);
    let body = lex_body(rest.trim_start())?;
    Ok(Line { pid, ts, body })
}

/// Splits off a `[pid N]` or `N ` prefix.
fn lex_pid(t: &str) -> Result<(Option<i32>, &str), String> {
    if let Some(rest) = t.strip_prefix("[pid") {
        let close = rest.find(']').ok_or("unterminated [pid prefix")?;
        let pid = rest[..close]
            .trim()
            .parse()
            .map_err(|_| "bad [pid N] prefix")?;
        return Ok((Some(pid), rest[close + 1..].trim_start()));
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0
        && t.as_bytes()
            .get(digits)
            .is_some_and(|c| c.is_ascii_whitespace())
    {
        let pid = t[..digits].parse().map_err(|_| "pid out of range")?;
        return Ok((Some(pid), t[digits..].trim_start()));
    }
    Ok((None, t))
}

/// Splits off a timestamp: `1795224849.604632`, `01:36:12.123456`,
/// `01:36:12`. Returns 0.0 and the input unchanged if there is none.
fn lex_timestamp(t: &str) -> (f64, &str) {
    // An ASCII byte: the same index as the first such character.
    let end = t
        .bytes()
        .position(|c| c.is_ascii_whitespace())
        .unwrap_or(t.len());
    let tok = &t[..end];
    let ok_chars = !tok.is_empty()
        && tok
            .bytes()
            .all(|c| c.is_ascii_digit() || c == b'.' || c == b':');
    if !ok_chars || !tok.as_bytes()[0].is_ascii_digit() || end == t.len() {
        return (0.0, t);
    }
    let secs = if tok.contains(':') {
        let mut total = 0.0;
        let mut parts = 0;
        for p in tok.split(':') {
            match p.parse::<f64>() {
                Ok(v) => total = total * 60.0 + v,
                Err(_) => return (0.0, t),
            }
            parts += 1;
        }
        if parts != 3 {
            return (0.0, t);
        }
        total
    } else if tok.contains('.') {
        match tok.parse::<f64>() {
            Ok(v) => v,
            Err(_) => return (0.0, t),
        }
    } else {
        return (0.0, t);
    };
    (secs, t[end..].trim_start())
}

/// Classifies the body text.
fn lex_body(b: &str) -> Result<Body<'_>, String> {
    if let Some(inner) = b.strip_prefix("--- ") {
        let inner = inner
            .strip_suffix(" ---")
            .ok_or("signal line without closing ---")?;
        if let Some(name) = inner.strip_prefix("stopped by ") {
            return Ok(Body::Stopped { name: name.trim() });
        }
        let (name, info) = match inner.find(' ') {
            Some(i) => (&inner[..i], inner[i..].trim()),
            None => (inner, ""),
        };
        if !name.starts_with("SIG") {
            return Err(format!("unknown signal line: --- {inner} ---"));
        }
        return Ok(Body::Signal { name, info });
    }
    if let Some(inner) = b.strip_prefix("+++ ") {
        let inner = inner
            .strip_suffix(" +++")
            .ok_or("exit line without closing +++")?;
        if let Some(code) = inner.strip_prefix("exited with ") {
            let code = code
                .trim()
                .parse()
                .map_err(|_| format!("bad exit code in: +++ {inner} +++"))?;
            return Ok(Body::Exited { code });
        }
        if let Some(sig) = inner.strip_prefix("killed by ") {
            let (name, core_dumped) = match sig.strip_suffix(" (core dumped)") {
                Some(name) => (name, true),
                None => (sig, false),
            };
            return Ok(Body::Killed {
                name: name.trim(),
                core_dumped,
            });
        }
        if let Some(pid) = inner.strip_prefix("superseded by execve in pid ") {
            let by_pid = pid
                .trim()
                .parse()
                .map_err(|_| format!("bad pid in: +++ {inner} +++"))?;
            return Ok(Body::Superseded { by_pid });
        }
        return Err(format!("unknown exit line: +++ {inner} +++"));
    }
    if let Some(inner) = b.strip_prefix("<... ") {
        let end = inner.find(" resumed>").ok_or("<... without resumed>")?;
        let name = &inner[..end];
        if !is_syscall_name(name) {
            return Err(format!("bad syscall name in resumed line: `{name}`"));
        }
        let rest = &inner[end + " resumed>".len()..];
        // A second interruption prints `<... NAME resumed> <unfinished ...>)`;
        // the marker carries no argument text.
        let rest = rest.strip_prefix(" <unfinished ...>").unwrap_or(rest);
        return Ok(Body::Resumed { name, rest });
    }
    let open = b
        .find('(')
        .ok_or_else(|| format!("unrecognised line: `{b}`"))?;
    let name = &b[..open];
    if !is_syscall_name(name) {
        return Err(format!("unrecognised line: `{b}`"));
    }
    let after = &b[open + 1..];
    for marker in [" <unfinished ...>", "<unfinished ...>"] {
        if let Some(args) = after.strip_suffix(marker) {
            return Ok(Body::Unfinished { name, args });
        }
    }
    // `... <pid changed to N ...>`: the execve()ing thread's entry line was
    // cut when it took over the leader's pid (strace's maybe_switch_tcbs()).
    if after.ends_with(" ...>") {
        if let Some(i) = after.rfind(" <pid changed to ") {
            return Ok(Body::Unfinished {
                name,
                args: &after[..i],
            });
        }
    }
    let (args, result) =
        split_call_tail(b, open).ok_or_else(|| format!("no `) = result` in: `{b}`"))?;
    Ok(Body::Call { name, args, result })
}

/// Whether `s` can be a syscall name: `[A-Za-z0-9_]+` or `???`.
fn is_syscall_name(s: &str) -> bool {
    s == "???" || (!s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
}

/// For `text` whose byte `open` is the call's `(`, returns the argument
/// text and the result text after `= ` (with any `-T` suffix removed).
pub(crate) fn split_call_tail(text: &str, open: usize) -> Option<(&str, &str)> {
    let close = matching_close(text.as_bytes(), open)?;
    let tail = text[close + 1..].trim_start();
    let result = tail.strip_prefix('=')?.trim();
    Some((&text[open + 1..close], strip_duration(result)))
}

/// Drops a trailing `-T` duration, ` <0.000012>`.
fn strip_duration(r: &str) -> &str {
    if !r.ends_with('>') {
        return r;
    }
    if let Some(i) = r.rfind(" <") {
        let d = &r[i + 2..];
        if let Some(d) = d.strip_suffix('>') {
            if !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
                return r[..i].trim_end();
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_call_with_pid_and_ttt() {
        let l = lex("32032 1795224796.462294 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa86f4f3a10) = 32033").unwrap();
        assert_eq!(l.pid, Some(32032));
        assert!((l.ts - 1795224796.462294).abs() < 1e-6);
        assert_eq!(
            l.body,
            Body::Call {
                name: "clone",
                args: "child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa86f4f3a10",
                result: "32033"
            }
        );
    }

    #[test]
    fn padded_pid_and_spaced_result() {
        let l = lex("4155  1795224849.604632 exit_group(0)   = ?").unwrap();
        assert_eq!(l.pid, Some(4155));
        assert_eq!(
            l.body,
            Body::Call {
                name: "exit_group",
                args: "0",
                result: "?"
            }
        );
    }

    #[test]
    fn bracketed_pid_no_pid_and_wall_clock_timestamps() {
        let l = lex("[pid  4155] 01:02:03.500000 getpid() = 4155").unwrap();
        assert_eq!(l.pid, Some(4155));
        assert!((l.ts - 3723.5).abs() < 1e-9);
        let l = lex("1795224849.604632 getppid() = 1").unwrap();
        assert_eq!(l.pid, None);
        assert_eq!(
            l.body,
            Body::Call {
                name: "getppid",
                args: "",
                result: "1"
            }
        );
        let l = lex("getpid() = 7").unwrap();
        assert_eq!((l.pid, l.ts), (None, 0.0));
        let l = lex("12:00:00 getpid() = 7").unwrap();
        assert_eq!(l.ts, 43200.0);
        let l = lex("99 getpid() = 7 <0.000012>").unwrap();
        assert_eq!(
            l.body,
            Body::Call {
                name: "getpid",
                args: "",
                result: "7"
            }
        );
    }

    #[test]
    fn unfinished_and_resumed_halves() {
        let l = lex("32031 1795224796.456994 wait4(-1,  <unfinished ...>").unwrap();
        assert_eq!(
            l.body,
            Body::Unfinished {
                name: "wait4",
                args: "-1, "
            }
        );
        let l = lex("32031 1795224796.456624 vfork( <unfinished ...>").unwrap();
        assert_eq!(
            l.body,
            Body::Unfinished {
                name: "vfork",
                args: ""
            }
        );
        let l = lex("6550  1795225236.677174 ???( <unfinished ...>").unwrap();
        assert_eq!(
            l.body,
            Body::Unfinished {
                name: "???",
                args: ""
            }
        );
        let l =
            lex("4158  1795224849.814815 <... clone3 resumed> => {parent_tid=[4159]}, 88) = 4159")
                .unwrap();
        assert_eq!(
            l.body,
            Body::Resumed {
                name: "clone3",
                rest: " => {parent_tid=[4159]}, 88) = 4159"
            }
        );
        let l = lex("7 1.5 <... wait4 resumed> <unfinished ...>) = ?").unwrap();
        assert_eq!(
            l.body,
            Body::Resumed {
                name: "wait4",
                rest: ") = ?"
            }
        );
        let l =
            lex("7 1.5 execve(\"/bin/true\", [\"true\"], 0x1 /* 3 vars */ <pid changed to 5 ...>")
                .unwrap();
        assert_eq!(
            l.body,
            Body::Unfinished {
                name: "execve",
                args: "\"/bin/true\", [\"true\"], 0x1 /* 3 vars */"
            }
        );
    }

    #[test]
    fn signal_and_exit_markers() {
        let l = lex("32032 1795224796.463429 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=32033, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---").unwrap();
        match l.body {
            Body::Signal { name, info } => {
                assert_eq!(name, "SIGCHLD");
                assert!(info.starts_with("{si_signo=SIGCHLD") && info.ends_with('}'));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            lex("1 2.0 --- stopped by SIGSTOP ---").unwrap().body,
            Body::Stopped { name: "SIGSTOP" }
        );
        assert_eq!(
            lex("1 2.0 --- SIGINT ---").unwrap().body,
            Body::Signal {
                name: "SIGINT",
                info: ""
            }
        );
        assert_eq!(
            lex("1 2.0 +++ exited with 127 +++").unwrap().body,
            Body::Exited { code: 127 }
        );
        assert_eq!(
            lex("1 2.0 +++ killed by SIGKILL +++").unwrap().body,
            Body::Killed {
                name: "SIGKILL",
                core_dumped: false
            }
        );
        assert_eq!(
            lex("1 2.0 +++ killed by SIGSEGV (core dumped) +++")
                .unwrap()
                .body,
            Body::Killed {
                name: "SIGSEGV",
                core_dumped: true
            }
        );
        assert_eq!(
            lex("27112 1795226021.044668 +++ superseded by execve in pid 27114 +++")
                .unwrap()
                .body,
            Body::Superseded { by_pid: 27114 }
        );
    }

    #[test]
    fn noise_lines() {
        for l in [
            "",
            "   ",
            "strace: Process 123 attached",
            "strace: Process 5 detached",
            " > /lib/libc.so.6(abort+0x1) [0x1]",
        ] {
            assert_eq!(lex(l).unwrap().body, Body::Noise, "{l:?}");
        }
    }

    #[test]
    fn malformed_lines_are_errors_not_panics() {
        for l in [
            "garbage",
            "12 1.0 garbage",
            "12 1.0 --- SIGCHLD {",
            "12 1.0 +++ exited with x +++",
            "12 1.0 +++ something +++",
            "12 1.0 <... wait4",
            "12 1.0 wait4(-1, NULL",
            "12 1.0 wait4(-1) 5",
            "[pid 12",
            "[pid x] getpid() = 1",
            "99999999999 1.0 getpid() = 1",
            "12 1.0 <... a b resumed>) = 0",
            "12 1.0 ba d(1) = 0",
        ] {
            assert!(lex(l).is_err(), "{l:?}");
        }
    }

    #[test]
    fn result_with_parenthesised_strings_in_args() {
        let l = lex(r#"5 1.0 execve("/bin/sh", ["sh", "-c", "echo ) = 3"], 0x1 /* 1 var */) = 0"#)
            .unwrap();
        match l.body {
            Body::Call { args, result, .. } => {
                assert!(args.ends_with("/* 1 var */"));
                assert_eq!(result, "0");
            }
            other => panic!("{other:?}"),
        }
    }
}
