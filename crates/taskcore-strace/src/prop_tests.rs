//! Property tests against plain reference models:
//!
//! - wait statuses: a model of strace's `printstatus()` renders a random
//!   Linux status int; decoding must give the int back;
//! - signal sets: a model of strace's `sprintsigmask()` renders a random
//!   mask; decoding must give the mask back;
//! - joining: random per-task call sequences, randomly interleaved and
//!   split into `<unfinished ...>` / `<... resumed>` halves (some never
//!   resumed before the task exits), must come back per task in order with
//!   the right lines, arguments and results;
//! - robustness: arbitrary and mutated lines never panic and keep the
//!   ordering contract.

use std::collections::VecDeque;

use proptest::prelude::*;

use super::args::parse_value;
use super::decode::sigset;
use super::{wait_status, Call, Event, EventKind, Parser, Recorded, Ret};
use taskcore::sys::Syscall;

/// strace's names for signals 1..=31 (x86_64), independent of `consts`.
const NAMES: [&str; 31] = [
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGILL",
    "SIGTRAP",
    "SIGABRT",
    "SIGBUS",
    "SIGFPE",
    "SIGKILL",
    "SIGUSR1",
    "SIGSEGV",
    "SIGUSR2",
    "SIGPIPE",
    "SIGALRM",
    "SIGTERM",
    "SIGSTKFLT",
    "SIGCHLD",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGIO",
    "SIGPWR",
    "SIGSYS",
];

/// strace's name for signal `n` in 1..=64.
fn sig_name(n: i32) -> String {
    match n {
        1..=31 => NAMES[(n - 1) as usize].to_string(),
        32 => "SIGRTMIN".to_string(),
        _ => format!("SIGRT_{}", n - 32),
    }
}

/// Model of strace's `printstatus()` (src/wait.c).
fn render_status(st: i32) -> String {
    let low = st & 0x7f;
    let mut rest;
    let mut out = if st & 0xff == 0x7f {
        let sig = (st >> 8) & 0xff;
        rest = st & !0xffff;
        format!(
            "[{{WIFSTOPPED(s) && WSTOPSIG(s) == {}{}}}",
            sig_name(sig & 0x7f),
            if sig & 0x80 != 0 { " | 0x80" } else { "" }
        )
    } else if low != 0 && low != 0x7f {
        rest = st & !0xff;
        format!(
            "[{{WIFSIGNALED(s) && WTERMSIG(s) == {}{}}}",
            sig_name(low),
            if st & 0x80 != 0 {
                " && WCOREDUMP(s)"
            } else {
                ""
            }
        )
    } else if low == 0 {
        rest = st & !0xff00;
        format!(
            "[{{WIFEXITED(s) && WEXITSTATUS(s) == {}}}",
            (st >> 8) & 0xff
        )
    } else if st == 0xffff {
        rest = 0;
        "[{WIFCONTINUED(s)}".to_string()
    } else {
        return format!("[{st:#x}]");
    };
    let event = (rest as u32) >> 16;
    if event != 0 {
        let name = match event {
            1 => "PTRACE_EVENT_FORK",
            2 => "PTRACE_EVENT_VFORK",
            3 => "PTRACE_EVENT_CLONE",
            4 => "PTRACE_EVENT_EXEC",
            5 => "PTRACE_EVENT_VFORK_DONE",
            6 => "PTRACE_EVENT_EXIT",
            7 => "PTRACE_EVENT_SECCOMP",
            _ => "PTRACE_EVENT_STOP",
        };
        out.push_str(&format!(" | {name} << 16"));
        rest &= 0xffff;
    }
    if rest != 0 {
        out.push_str(&format!(" | {rest:#x}"));
    }
    out.push(']');
    out
}

/// Statuses Linux can report: exited, killed (maybe with core), stopped
/// (maybe with the TRACESYSGOOD bit and a ptrace event), continued.
fn linux_status() -> impl Strategy<Value = i32> {
    prop_oneof![
        (0..=255i32).prop_map(|c| c << 8),
        (1..=64i32, any::<bool>()).prop_map(|(s, core)| s | if core { 0x80 } else { 0 }),
        (
            1..=64i32,
            any::<bool>(),
            prop_oneof![Just(0i32), 1..=7i32, Just(128i32)]
        )
            .prop_map(|(s, good, ev)| (ev << 16)
                | (((s | if good { 0x80 } else { 0 }) & 0xff) << 8)
                | 0x7f),
        Just(0xffff),
    ]
}

/// Model of strace's signal set printer: names without `SIG`, complemented
/// when more than half the signals are in the set.
fn render_sigset(mask: u64) -> String {
    let (neg, m) = if mask.count_ones() > 32 {
        ("~", !mask)
    } else {
        ("", mask)
    };
    let names: Vec<String> = (1..=64)
        .filter(|n| m & (1u64 << (n - 1)) != 0)
        .map(|n| sig_name(n)[3..].to_string())
        .collect();
    format!("{neg}[{}]", names.join(" "))
}

/// One generated syscall of a task.
#[derive(Clone, Debug)]
enum GenCall {
    /// `wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == code}], 0, NULL) = child`.
    Wait { code: i32, child: i32 },
    /// `kill(target, sig) = 0`.
    Kill { target: i32, sig: i32 },
}

impl GenCall {
    /// The entry half's text (after `NAME(`) and the rest after `resumed>`.
    fn halves(&self) -> (String, String) {
        match self {
            GenCall::Wait { code, child } => (
                "wait4(-1, ".to_string(),
                format!("[{{WIFEXITED(s) && WEXITSTATUS(s) == {code}}}], 0, NULL) = {child}"),
            ),
            GenCall::Kill { target, sig } => (
                format!("kill({target}, {}", sig_name(*sig)),
                ") = 0".to_string(),
            ),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            GenCall::Wait { .. } => "wait4",
            GenCall::Kill { .. } => "kill",
        }
    }

    fn expected(&self) -> Call {
        match *self {
            GenCall::Wait { code, .. } => Call::Sys {
                call: Syscall::Wait4 {
                    pid: -1,
                    options: 0,
                },
                out: Recorded::Wait4 {
                    status: Some(code << 8),
                },
            },
            GenCall::Kill { target, sig } => Call::Sys {
                call: Syscall::Kill { pid: target, sig },
                out: Recorded::Ret,
            },
        }
    }
}

fn gen_call() -> impl Strategy<Value = GenCall> {
    prop_oneof![
        (0..=255i32, 2..100_000i32).prop_map(|(code, child)| GenCall::Wait { code, child }),
        (-100..100_000i32, 1..=64i32).prop_map(|(target, sig)| GenCall::Kill { target, sig }),
    ]
}

/// A task's script: calls, which ones are split, and whether the last one
/// is left open when the task exits.
fn gen_task() -> impl Strategy<Value = (Vec<(GenCall, bool)>, bool)> {
    (
        prop::collection::vec((gen_call(), any::<bool>()), 0..6),
        any::<bool>(),
    )
}

fn feed_all(lines: &[String]) -> (Vec<Event>, Parser) {
    let mut p = Parser::new("prop");
    let mut out = VecDeque::new();
    for l in lines {
        p.feed(l, &mut out);
    }
    p.finish(&mut out);
    (out.into(), p)
}

/// Real lines from the bundled traces, for mutation.
const SAMPLES: &[&str] = &[
    "32032 1795224796.462294 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fa86f4f3a10) = 32033",
    "4155  1795224849.617570 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0239ed9990, parent_tid=0x7f0239ed9990, exit_signal=0, stack=0x7f0239cd9000, stack_size=0x1ffd40, tls=0x7f0239ed96c0} => {parent_tid=[4156]}, 88) = 4156",
    "32032 1795224796.463429 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=32033, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---",
    "32032 1795224796.463791 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 32033",
    "32031 1795224796.454374 rt_sigaction(SIGCHLD, {sa_handler=0x55e4b5a87dc0, sa_mask=~[RTMIN RT_1], sa_flags=SA_RESTORER, sa_restorer=0x7fdf549a4050}, NULL, 8) = 0",
    "32031 1795224796.450533 execve(\"/usr/bin/sh\", [\"sh\", \"-c\", \"./configure >/dev/null 2>&1 && m\"...], 0x7fff7c2fb438 /* 35 vars */) = 0",
    "4448  1795224858.437796 execve(\"/usr/local/go/bin/bash\", [\"bash\", \"/home/builder/.pyenv/shims/python3\", \"/build/mp.py\"], 0x7ffc8d264d70 /* 35 vars */) = -1 ENOENT (No such file or directory)",
    "32031 1795224796.456994 wait4(-1,  <unfinished ...>",
    "4158  1795224849.814815 <... clone3 resumed> => {parent_tid=[4159]}, 88) = 4159",
    "4449  1795224858.486119 <... wait4 resumed>0x7ffc, 0, NULL) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)",
    "32033 1795224796.463396 +++ exited with 0 +++",
    "27112 1795226021.044668 +++ superseded by execve in pid 27114 +++",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn wait_status_round_trips(st in linux_status()) {
        let text = render_status(st);
        prop_assert_eq!(wait_status(&text), Ok(Some(st)), "{}", text);
    }

    #[test]
    fn sigset_round_trips(mask in any::<u64>()) {
        let text = render_sigset(mask);
        prop_assert_eq!(sigset(&parse_value(&text)), Ok(mask), "{}", text);
    }

    #[test]
    fn interleaved_halves_join_per_task(
        tasks in prop::collection::vec(gen_task(), 1..6),
        schedule in prop::collection::vec(0..6usize, 0..80),
    ) {
        // Build the trace, remembering each call's expected lines.
        struct T { next: usize, open: Option<usize>, exited: bool }
        let mut st: Vec<T> = tasks.iter().map(|_| T { next: 0, open: None, exited: false }).collect();
        let mut lines: Vec<String> = Vec::new();
        // (pid, call index, entry line, completing line, completed)
        let mut expect: Vec<(i32, usize, usize, usize, bool)> = Vec::new();
        let picks = schedule.into_iter().chain((0..).map(|i| i % 6)).take(2000);
        for pick in picks {
            if st.iter().all(|t| t.exited) { break; }
            let i = pick % tasks.len();
            let (calls, leave_open) = &tasks[i];
            let t = &mut st[i];
            if t.exited { continue; }
            let pid = 100 + i as i32;
            let ts = format!("{}.{:06}", 1000 + lines.len(), 0);
            if let Some(k) = t.open {
                let last = k + 1 == calls.len();
                if last && *leave_open {
                    // Dies inside the call: no resumed line.
                    lines.push(format!("{pid} {ts} +++ exited with 0 +++"));
                    let entry = expect_entry(&expect, pid, k);
                    expect.retain(|e| !(e.0 == pid && e.1 == k));
                    expect.push((pid, k, entry, lines.len(), false));
                    t.exited = true;
                } else {
                    let (_, rest) = calls[k].0.halves();
                    lines.push(format!("{pid} {ts} <... {} resumed>{rest}", calls[k].0.name()));
                    let entry = expect_entry(&expect, pid, k);
                    expect.retain(|e| !(e.0 == pid && e.1 == k));
                    expect.push((pid, k, entry, lines.len(), true));
                    t.open = None;
                    t.next = k + 1;
                }
                continue;
            }
            if t.next == calls.len() {
                lines.push(format!("{pid} {ts} +++ exited with 0 +++"));
                t.exited = true;
                continue;
            }
            let k = t.next;
            let (c, split) = &calls[k];
            let (entry, rest) = c.halves();
            if *split || (k + 1 == calls.len() && *leave_open) {
                lines.push(format!("{pid} {ts} {entry} <unfinished ...>"));
                // Placeholder: the entry line, completing line unknown yet.
                expect.push((pid, k, lines.len(), 0, true));
                t.open = Some(k);
            } else {
                lines.push(format!("{pid} {ts} {entry}{rest}"));
                expect.push((pid, k, lines.len(), lines.len(), true));
                t.next = k + 1;
            }
        }
        let (events, parser) = feed_all(&lines);
        prop_assert!(parser.errors().is_empty(), "{:?}\n{}", parser.errors(), lines.join("\n"));
        // Calls still open at the end of the trace are flushed there.
        for e in expect.iter_mut().filter(|e| e.3 == 0) {
            e.3 = lines.len().max(e.2);
            e.4 = false;
        }
        expect.sort_by_key(|e| (e.3, e.2));
        let got: Vec<(i32, usize, usize, bool)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Syscall(s) => Some((e.pid, e.entry_line, e.line, s.completed)),
                _ => None,
            })
            .collect();
        let want: Vec<(i32, usize, usize, bool)> = expect.iter().map(|e| (e.0, e.2, e.3, e.4)).collect();
        prop_assert_eq!(&got, &want, "{}", lines.join("\n"));
        // Arguments and results survive the join.
        let mut idx = 0;
        for e in &events {
            let EventKind::Syscall(s) = &e.kind else { continue };
            let (pid, k, ..) = expect[idx];
            idx += 1;
            let gc = &tasks[(pid - 100) as usize].0[k].0;
            if s.completed {
                prop_assert_eq!(&s.call, &gc.expected());
                let want_ret = match gc { GenCall::Wait { child, .. } => Ret::Val(i64::from(*child)), GenCall::Kill { .. } => Ret::Val(0) };
                prop_assert_eq!(&s.ret, &want_ret);
            } else {
                prop_assert_eq!(&s.ret, &Ret::Unknown);
                prop_assert_eq!(&*s.name, gc.name());
            }
        }
        prop_assert!(events.windows(2).all(|w| w[0].line <= w[1].line));
    }

    #[test]
    fn arbitrary_lines_never_panic(lines in prop::collection::vec("[0-9a-z_ (){}\\[\\]<>.,=|~\"\\\\+\\-?/*]{0,60}", 0..30)) {
        let (events, parser) = feed_all(&lines);
        prop_assert!(events.windows(2).all(|w| w[0].line <= w[1].line));
        prop_assert_eq!(parser.stats().lines as usize, lines.len());
    }

    #[test]
    fn mutated_real_lines_never_panic(
        edits in prop::collection::vec((0..SAMPLES.len(), any::<prop::sample::Index>(), prop_oneof![Just(None), any::<char>().prop_map(Some)]), 1..40),
    ) {
        let lines: Vec<String> = edits
            .iter()
            .map(|(i, at, ch)| {
                let s = SAMPLES[*i];
                let cut = s.char_indices().map(|(j, _)| j).nth(at.index(s.chars().count())).unwrap_or(s.len());
                match ch {
                    None => s[..cut].to_string(),
                    Some(c) => format!("{}{c}{}", &s[..cut], &s[cut..]),
                }
            })
            .collect();
        let (events, parser) = feed_all(&lines);
        prop_assert!(events.windows(2).all(|w| w[0].line <= w[1].line));
        prop_assert_eq!(parser.stats().lines as usize, lines.len());
    }
}

/// The entry line recorded for `pid`'s call `k`.
fn expect_entry(expect: &[(i32, usize, usize, usize, bool)], pid: i32, k: usize) -> usize {
    expect
        .iter()
        .find(|e| e.0 == pid && e.1 == k)
        .map(|e| e.2)
        .unwrap_or(0)
}
