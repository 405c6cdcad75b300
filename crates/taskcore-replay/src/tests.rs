//! Replays of small traces written by hand: what the engine checks, and
//! that it reports what it must.

use crate::{Options, Replayer};

/// Replays trace text; returns the summary.
use crate::test_support::summary;

/// Replays trace text; returns (checks, mismatch lines).
fn replay(text: &str) -> (u64, Vec<usize>) {
    let s = summary(text);
    (
        s.stats.checked,
        s.mismatches.iter().map(|m| m.line).collect(),
    )
}

const OK: &str = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 102
101 1.2 exit_group(3) = ?
101 1.3 +++ exited with 3 +++
102 1.4 exit_group(4) = ?
102 1.5 +++ exited with 4 +++
100 1.6 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
100 1.7 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 4}], 0, NULL) = 102
100 1.8 wait4(-1, 0x7ffc, WNOHANG, NULL) = -1 ECHILD (No child processes)
";

#[test]
fn a_consistent_trace_replays_clean() {
    let (checks, bad) = replay(OK);
    assert_eq!(checks, 7, "2 clones, 3 waits, 2 exits");
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn a_wrong_wait_order_is_a_mismatch() {
    // Both deaths are confirmed before the wait: Linux reports 101 first.
    let text = OK
        .replace("== 3}], 0, NULL) = 101", "== 4}], 0, NULL) = 102")
        .replace(
            "== 4}], 0, NULL) = 102\n100 1.8",
            "== 3}], 0, NULL) = 101\n100 1.8",
        );
    let (_, bad) = replay(&text);
    assert!(bad.contains(&7), "{bad:?}");
}

#[test]
fn a_wrong_status_or_errno_is_a_mismatch() {
    let (_, bad) = replay(&OK.replace("WEXITSTATUS(s) == 3", "WEXITSTATUS(s) == 5"));
    assert!(bad.contains(&7), "{bad:?}");
    let (_, bad) = replay(&OK.replace("= -1 ECHILD (No child processes)", "= 0"));
    assert!(bad.contains(&9), "{bad:?}");
    let text = format!("{OK}100 1.9 setpgid(0, 101) = 0\n");
    let (_, bad) = replay(&text);
    assert!(bad.contains(&10), "{bad:?}");
}

#[test]
fn memory_calls_are_checked_against_the_address_space() {
    let text = "\
100 1.0 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
100 1.1 munmap(0x7f0000001000, 4096) = 0
100 1.2 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000
100 1.3 mremap(0x7f0000000000, 4096, 16384, MREMAP_MAYMOVE) = 0x7f0000100000
100 1.4 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
";
    let (checks, bad) = replay(text);
    assert_eq!((checks, bad), (5, vec![]));
    // Overlapping a mapping the trace made and never removed.
    let (_, bad) = replay(&text.replace("munmap(0x7f0000001000", "munmap(0x7f0000005000"));
    assert_eq!(bad, vec![3]);
}

#[test]
fn overlapping_calls_may_take_effect_in_either_order() {
    // 102 makes its own group while the parent moves 101 into it: the
    // parent's call took effect first (EPERM: group 102 did not exist).
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 1.2 setpgid(0, 0 <unfinished ...>
100 1.3 setpgid(101, 102 <unfinished ...>
102 1.4 <... setpgid resumed>) = 0
100 1.5 <... setpgid resumed>) = -1 EPERM (Operation not permitted)
";
    let (_, bad) = replay(text);
    assert!(bad.is_empty(), "{bad:?}");
    // Without overlap the order is known, and EPERM is wrong.
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 1.2 setpgid(0, 0) = 0
100 1.3 setpgid(101, 102) = -1 EPERM (Operation not permitted)
";
    let (_, bad) = replay(text);
    assert_eq!(bad, vec![4]);
}

#[test]
fn a_group_the_trace_never_created_is_no_group() {
    // Linux said EPERM: no such group in the session. Replaying it as the
    // root's inherited group would wrongly succeed.
    let s = summary("100 1.0 setpgid(0, 424242) = -1 EPERM (Operation not permitted)\n");
    assert_eq!((s.stats.checked, s.mismatches.len()), (1, 0), "{s:?}");
    // A recorded success for that group is checked against the emulation
    // (here: the root may join its inherited group, it is already in it).
    let s = summary("100 1.0 setpgid(0, 424242) = 0\n");
    assert_eq!((s.stats.checked, s.mismatches.len()), (1, 0), "{s:?}");
    // And a success where Linux could not have one is a mismatch.
    let s = summary("100 1.0 setpgid(0, 424242) = -1 ESRCH (No such process)\n");
    assert_eq!(s.mismatches.len(), 1, "{s:?}");
}

#[test]
fn calls_aimed_outside_the_trace_are_not_checkable() {
    let s = summary("100 1.0 getpgid(1) = 0\n100 1.1 getsid(1) = 0\n100 1.2 kill(1, 0) = 0\n");
    assert_eq!((s.stats.checked, s.mismatches.len()), (0, 0), "{s:?}");
    let n: u64 = s
        .stats
        .unchecked
        .iter()
        .filter(|(k, _)| k.contains("outside the trace"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(n, 3, "{:?}", s.stats.unchecked);
}

#[test]
fn a_call_cut_short_before_its_arguments_is_not_checkable() {
    // strace never printed wait4's options: replaying it as options 0 would
    // check a blocking wait that may not have been one.
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 wait4(-1,  <unfinished ...>
100 1.2 +++ killed by SIGKILL +++
";
    let s = summary(text);
    let k = s
        .stats
        .unchecked
        .keys()
        .find(|k| k.starts_with("wait4 (arguments not recorded"));
    assert!(k.is_some(), "{:?}", s.stats.unchecked);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
}

/// A loop trace: `n` children, each created, exited and reaped, with
/// recorded pids that wrap below `pid_max` (300..pid_max, as Linux's).
fn loop_trace(n: usize, pid_max: i32) -> String {
    let mut s = String::new();
    let mut pid = 1000;
    let mut line_ts = 1.0;
    for _ in 0..n {
        pid += 1;
        if pid >= pid_max {
            pid = 300;
        }
        for l in [
            format!("100 {line_ts:.6} clone(child_stack=NULL, flags=SIGCHLD) = {pid}\n"),
            format!("{pid} {line_ts:.6} exit_group(0) = ?\n"),
            format!("{pid} {line_ts:.6} +++ exited with 0 +++\n"),
            format!("100 {line_ts:.6} wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], 0, NULL) = {pid}\n"),
        ] {
            s.push_str(&l);
            line_ts += 0.000001;
        }
    }
    s
}

#[test]
fn recorded_pids_that_wrap_replay_clean() {
    // 3,000 processes over recorded pids 300..1,400: each number reused.
    let s = summary(&loop_trace(3000, 1400));
    assert_eq!(s.stats.tasks, 3001);
    assert_eq!(s.stats.checked, 3000 * 3);
    assert!(s.mismatches.is_empty(), "{:?}", &s.mismatches[..1]);
}

#[test]
fn a_recorded_pid_reused_while_still_in_use_is_a_mismatch() {
    // 101 is not reaped before its number is handed out again.
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.1 exit_group(0) = ?
101 1.2 +++ exited with 0 +++
100 1.3 clone(child_stack=NULL, flags=SIGCHLD) = 101
";
    let (_, bad) = replay(text);
    assert_eq!(bad, vec![4]);
}

#[test]
fn memory_stays_bounded_by_live_tasks_not_trace_length() {
    // Feed a long trace and record the most events held at any time.
    let text = loop_trace(40_000, 32768);
    let parsed = taskcore_strace::parse_str("t", &text);
    let mut r = Replayer::new(Options::default());
    let mut most = 0;
    for (i, e) in parsed.events.iter().enumerate() {
        r.push(e);
        r.watermark(e.line + 1);
        if i % 1000 == 0 {
            most = most.max(r.held_events());
        }
    }
    let s = r.finish();
    assert!(s.mismatches.is_empty());
    // The window (checkpoint distance plus lookahead), not 200,000 events.
    assert!(most < 25_000, "{most} events held");
}

#[test]
fn process_records_follow_the_trace() {
    let text = "\
100 1.0 execve(\"/bin/sh\", [\"sh\", \"-c\", \"x\"], 0x1 /* 1 var */) = 0
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.2 setpgid(0, 0) = 0
101 1.3 execve(\"/bin/true\", [\"true\"], 0x1 /* 1 var */) = 0
101 1.4 exit_group(3) = ?
101 1.5 +++ exited with 3 +++
100 1.6 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
100 1.7 exit_group(0) = ?
100 1.8 +++ exited with 0 +++
";
    let parsed = taskcore_strace::parse_str("t", text);
    let mut r = Replayer::new(Options {
        records: true,
        ..Options::default()
    });
    for e in &parsed.events {
        r.push(e);
    }
    let s = r.finish();
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    let child = s
        .records
        .iter()
        .find(|p| p.pid == 101)
        .expect("child record");
    assert_eq!((child.ppid, child.pgid), (100, 101));
    assert_eq!(child.argv, vec!["true"]);
    assert_eq!(
        (child.start, child.end, child.exit_status),
        (1.1, Some(1.5), Some(3 << 8))
    );
    let root = s
        .records
        .iter()
        .find(|p| p.pid == 100)
        .expect("root record");
    assert_eq!(root.argv, vec!["sh", "-c", "x"]);
    assert_eq!(root.exit_status, Some(0));
    assert_eq!(s.records.len(), 2);
}

#[test]
fn memory_the_trace_unmapped_is_never_learned_back() {
    // 0x7f0000001000 was unmapped by the trace: a recorded success there
    // is a mismatch, not memory to learn.
    let text = "\
100 1.0 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
100 1.1 munmap(0x7f0000001000, 4096) = 0
100 1.2 mprotect(0x7f0000001000, 4096, PROT_READ|PROT_WRITE) = 0
100 1.3 mremap(0x7f0000001000, 4096, 4096, MREMAP_MAYMOVE|MREMAP_FIXED, 0x7f0000100000) = 0x7f0000100000
";
    let (_, bad) = replay(text);
    assert_eq!(bad, vec![3, 4]);
    // Memory the trace never touched predates it (exec, the loader): it
    // is learned, and the call is counted as not checkable, with why.
    let s = summary("100 1.0 mprotect(0x7f1000000000, 4096, PROT_READ) = 0\n");
    assert!(s.mismatches.is_empty());
    assert_eq!(
        s.stats
            .unchecked
            .get("mprotect (memory mapped before the trace, learned)"),
        Some(&1)
    );
}

#[test]
fn a_dontunmap_move_without_fixed_is_not_checkable() {
    // glibc passes an unprinted, unchecked-by-us new address.
    let text = "\
100 1.0 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
100 1.1 mremap(0x7f0000000000, 8192, 8192, MREMAP_MAYMOVE|MREMAP_DONTUNMAP) = -1 EINVAL (Invalid argument)
";
    let s = summary(text);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(
        s.stats.unchecked.get("mremap (new address not recorded)"),
        Some(&1)
    );
}

#[test]
fn the_order_search_works_far_into_a_trace() {
    // 3,000 processes of filler (12,000 events: past two checkpoints), then
    // the overlapping setpgid race, which only a reordering explains.
    let filler = loop_trace(3000, 32768);
    let race = "\
100 9.0 clone(child_stack=NULL, flags=SIGCHLD) = 201
100 9.1 clone(child_stack=NULL, flags=SIGCHLD) = 202
202 9.2 setpgid(0, 0 <unfinished ...>
100 9.3 setpgid(201, 202 <unfinished ...>
202 9.4 <... setpgid resumed>) = 0
100 9.5 <... setpgid resumed>) = -1 EPERM (Operation not permitted)
";
    let s = summary(&format!("{filler}{race}"));
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert!(s.stats.checked > 9000);
    // Without the overlap the order is known, and EPERM is reported.
    let fixed = race
        .replace("setpgid(0, 0 <unfinished ...>", "setpgid(0, 0) = 0")
        .replace("202 9.4 <... setpgid resumed>) = 0\n", "")
        .replace(
            "setpgid(201, 202 <unfinished ...>",
            "setpgid(201, 202) = -1 EPERM (Operation not permitted)",
        )
        .replace(
            "100 9.5 <... setpgid resumed>) = -1 EPERM (Operation not permitted)\n",
            "",
        );
    let s = summary(&format!("{filler}{fixed}"));
    assert_eq!(s.mismatches.len(), 1, "{:?}", s.mismatches);
}

#[test]
fn prctl_set_name_and_pdeathsig_are_applied_and_checked() {
    let text = "\
100 1.0 prctl(PR_SET_NAME, \"worker-1\") = 0
100 1.1 prctl(PR_SET_PDEATHSIG, SIGTERM) = 0
100 1.2 prctl(PR_SET_PDEATHSIG, 99) = -1 EINVAL (Invalid argument)
";
    let parsed = taskcore_strace::parse_str("t", text);
    let mut r = Replayer::new(Options::default());
    for e in &parsed.events {
        r.push(e);
    }
    let k = r.finish_kernel();
    let k = &k;
    let init = k.init_task().unwrap();
    // The traced root is the only task named so.
    let root = (1..10)
        .filter_map(|p| k.find_task_by_vpid(init, p).ok())
        .find(|&t| k.comm(t).is_ok_and(|c| c == b"worker-1"));
    assert!(root.is_some(), "PR_SET_NAME not applied");
    assert_eq!(k.pdeathsig(root.unwrap()), Ok(15));
    let s = summary(text);
    assert_eq!((s.stats.checked, s.mismatches.len()), (3, 0), "{s:?}");
}

#[test]
fn pr_get_pdeathsig_is_checked_and_a_fork_child_starts_without_one() {
    let ok = "\
100 1.0 prctl(PR_SET_PDEATHSIG, SIGUSR2) = 0
100 1.1 prctl(PR_GET_PDEATHSIG, [SIGUSR2]) = 0
100 1.2 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0) = 101
101 1.3 prctl(PR_GET_PDEATHSIG, [0]) = 0
";
    let s = summary(ok);
    assert_eq!(s.mismatches.len(), 0, "{s:?}");
    assert_eq!(s.stats.checked, 4, "{s:?}");
    // Linux clears the pdeath signal at fork: a child claiming to have
    // inherited it is a mismatch, and so is a wrong value in the parent.
    let inherited = ok.replace(
        "101 1.3 prctl(PR_GET_PDEATHSIG, [0])",
        "101 1.3 prctl(PR_GET_PDEATHSIG, [SIGUSR2])",
    );
    assert_eq!(summary(&inherited).mismatches.len(), 1);
    let wrong = ok.replace("[SIGUSR2]) = 0", "[SIGTERM]) = 0");
    assert_eq!(summary(&wrong).mismatches.len(), 1);
}

/// The OK trace as `strace -qq` records it: no `+++ exited` lines.
fn quiet(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("+++ exited"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_qq_trace_takes_exits_from_the_exit_calls() {
    let s = summary(&quiet(OK));
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(s.recording.exit_lines, crate::ExitLines::Dropped);
    // 2 clones, 3 waits and the 2 (synthetic) exit statuses.
    assert_eq!(s.stats.checked, 7);
    assert_eq!(summary(OK).recording.exit_lines, crate::ExitLines::Printed);
}

#[test]
fn a_qq_trace_still_reports_a_wrong_status() {
    let text = quiet(&OK.replace("WEXITSTATUS(s) == 3", "WEXITSTATUS(s) == 5"));
    let (_, bad) = replay(&text);
    assert!(bad.contains(&5), "{bad:?}");
}

#[test]
fn a_qq_reap_waits_for_the_line_that_reports_it() {
    // Two children exit at once: their SIGCHLDs would merge if both
    // reaps came at the exit calls; the second is reported after the
    // first SIGCHLD was taken.
    let text = "\
100 1.0 rt_sigaction(SIGCHLD, {sa_handler=0x55d0, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x7f00}, NULL, 8) = 0
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.2 clone(child_stack=NULL, flags=SIGCHLD) = 102
101 1.3 exit_group(0) = ?
102 1.4 exit_group(0) = ?
100 1.5 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 1.6 rt_sigreturn({mask=[]}) = 0
100 1.7 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=102, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 1.8 rt_sigreturn({mask=[]}) = 0
100 1.9 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101
100 2.0 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 102
";
    let s = summary(text);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(s.stats.signals_checked, 2);
}

#[test]
fn a_disposition_from_before_the_trace_is_learned_once() {
    // SIGINT ignored before the trace (a background job): the first old
    // action is learned; a later one that disagrees is a mismatch.
    let text = "\
100 1.0 rt_sigaction(SIGINT, NULL, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, 8) = 0
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.2 rt_sigaction(SIGINT, NULL, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, 8) = 0
101 1.3 rt_sigaction(SIGQUIT, NULL, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0
100 1.4 rt_sigaction(SIGINT, NULL, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0
";
    let s = summary(text);
    assert_eq!(s.stats.learned.get("rt_sigaction old action"), Some(&1));
    let lines: Vec<usize> = s.mismatches.iter().map(|m| m.line).collect();
    // The child inherited what its parent learned; the root's last line
    // contradicts what it showed.
    assert_eq!(lines, vec![5]);
}

#[test]
fn a_mask_from_before_the_trace_is_learned() {
    let text = "\
100 1.0 rt_sigprocmask(SIG_BLOCK, [CHLD], [INT], 8) = 0
100 1.1 rt_sigprocmask(SIG_SETMASK, [], [INT CHLD], 8) = 0
100 1.2 rt_sigprocmask(SIG_BLOCK, [], [HUP], 8) = 0
";
    let s = summary(text);
    assert_eq!(s.stats.learned.get("rt_sigprocmask old mask"), Some(&1));
    let lines: Vec<usize> = s.mismatches.iter().map(|m| m.line).collect();
    assert_eq!(lines, vec![3]);
}

#[test]
fn a_trace_without_f_is_refused_before_any_mismatch() {
    // `strace` without -f: no pid column, the children's lines missing.
    let text = "\
1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
1.1 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101
1.2 wait4(-1, 0x7ffc, WNOHANG, NULL) = -1 ECHILD (No child processes)
";
    let src = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
    let (r, _, unusable) =
        crate::replay_reader("t", src, Replayer::new(Options::default()), |_, _| {}).expect("read");
    let e = unusable.expect("refused");
    assert!(e.to_string().contains("without -f"), "{e}");
    let s = r.finish();
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
}

/// Replays `text` as file `name` through the streaming reader: what it
/// said of the input, and the mismatches.
fn read_as(name: &str, text: &[u8]) -> (Option<crate::InputError>, usize) {
    let src = Box::new(std::io::Cursor::new(text.to_vec()));
    let (r, _, unusable) =
        crate::replay_reader(name, src, Replayer::new(Options::default()), |_, _| {})
            .expect("read");
    (unusable, r.finish().mismatches.len())
}

#[test]
fn every_file_of_strace_ff_is_named_so() {
    // `strace -ff -o t`: t.100 holds the parent's lines, t.101 the child's.
    let parent = b"\
1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
1.2 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101
";
    let child = b"1.1 exit_group(0) = ?\n1.1 +++ exited with 0 +++\n";
    for (name, text) in [
        ("t.100", &parent[..]),
        ("t.101", &child[..]),
        ("t.101.gz", &child[..]),
    ] {
        let (e, mismatches) = read_as(name, text);
        let e = e.unwrap_or_else(|| panic!("{name}: accepted"));
        assert!(e.to_string().contains("strace -ff"), "{name}: {e}");
        assert_eq!(mismatches, 0, "{name}");
    }
    // The same lines under another name: a trace without -f, and a leaf
    // process's trace is one the replay can use.
    let (e, _) = read_as("t.strace", parent);
    assert!(e.expect("refused").to_string().contains("without -f"));
    assert!(read_as("t.strace", child).0.is_none());
}

#[test]
fn a_binary_file_is_named_so_at_its_first_nul_line() {
    let mut text = b"100 1.0 getpid() = 100\n".to_vec();
    text.extend_from_slice(b"\x7fELF\x02\x01\x00\x00junk\n100 1.1 getpid() = 100\n");
    let (e, mismatches) = read_as("t", &text);
    let e = e.expect("refused").to_string();
    assert!(e.starts_with("t:2: binary file"), "{e}");
    assert_eq!(mismatches, 0);
}

/// Thread 201 of process 200 execs: strace prints `+++ superseded by
/// execve in pid 201 +++` for the leader 200 once the exec took effect
/// (`de_thread()`: 201 took pid 200), and 201's execve completes under
/// pid 200. The call is placed at that line as 201's; from then on 200
/// is 201's task, whose mask the exec kept.
const THREAD_EXEC: &str = "\
100 1.00 clone(child_stack=NULL, flags=SIGCHLD) = 200
200 1.01 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x1000, stack_size=0x1000}, 88) = 201
201 1.02 rt_sigprocmask(SIG_BLOCK, [USR1], [], 8) = 0
201 1.03 execve(\"/bin/true\", [\"true\"], 0x7ffc /* 1 var */ <unfinished ...>
200 1.04 +++ superseded by execve in pid 201 +++
200 1.05 <... execve resumed>) = 0
200 1.06 rt_sigprocmask(SIG_BLOCK, NULL, [USR1], 8) = 0
200 1.07 exit_group(3) = ?
200 1.08 +++ exited with 3 +++
100 1.09 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 200
";

#[test]
fn a_threads_exec_is_placed_at_the_superseded_line_and_takes_the_leaders_pid() {
    let s = summary(THREAD_EXEC);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    // The clones, both masks, the execve, the exit status, the wait.
    assert_eq!(s.stats.checked, 7, "{:?}", s.stats);
    // The leader's mask is not the exec'd thread's.
    let s = summary(&THREAD_EXEC.replace("NULL, [USR1], 8) = 0", "NULL, [], 8) = 0"));
    assert_eq!(s.mismatches.len(), 1, "{:?}", s.mismatches);
}

/// A `-qq` trace: `head`, then leader 101 makes thread 102 and calls
/// `exit(0)`, then `n` `getpid` lines of the thread, then `tail`.
fn qq_leader_trace(head: &str, n: usize, tail: &str) -> String {
    let mut text = format!(
        "{head}\
101 1.1 clone3({{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f90, parent_tid=0x7f90, exit_signal=0, stack=0x7f00, stack_size=0x7fff80, tls=0x7f60}} => {{parent_tid=[102]}}, 88) = 102
101 1.2 exit(0) = ?
"
    );
    for i in 0..n {
        text.push_str(&format!("102 1.3{i:04} getpid() = 101\n"));
    }
    text + tail
}

/// A `-qq` leader that calls `exit` while its thread runs on for more
/// than [`crate::shape::exits::REAP_HOLD`] lines: its synthetic `+++`
/// line would be due while the thread lives, and strace can reap it only
/// once the thread is gone (`delay_group_leader()`). The thread has
/// lines after it, so its death could not be moved before it: the line
/// is held until the thread's death (`shape/exits.rs`; 2 mismatches
/// without, since the engine's retry, the former rule 10, is gone).
#[test]
fn a_qq_leader_whose_thread_outlives_its_reap_line_is_reaped_after_the_thread() {
    let text = qq_leader_trace(
        "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
",
        600,
        "\
102 1.4 exit(0) = ?
100 1.5 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101
100 1.6 wait4(-1, NULL, 0, NULL) = -1 ECHILD (No child processes)
",
    );
    let s = summary(&text);
    assert_eq!(s.recording.exit_lines, crate::ExitLines::Dropped);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
}

/// The same `-qq` leader, its thread created after the trace's first exit
/// call and ending the process with `exit_group(3)`: the leader's held
/// line is placed after the group's death, and the parent's wait reports
/// the group's code (`wait_task_zombie()`: `SIGNAL_GROUP_EXIT`'s
/// `group_exit_code`, not the leader's own `exit(0)`).
#[test]
fn a_qq_leader_held_for_its_thread_is_reaped_after_the_threads_exit_group() {
    let text = qq_leader_trace(
        "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.01 clone(child_stack=NULL, flags=SIGCHLD) = 103
103 1.02 exit_group(0) = ?
100 1.03 wait4(103, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 103
",
        20,
        "\
102 1.4 exit_group(3) = ?
100 1.5 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
100 1.6 wait4(-1, NULL, 0, NULL) = -1 ECHILD (No child processes)
",
    );
    let s = summary(&text);
    assert_eq!(s.recording.exit_lines, crate::ExitLines::Dropped);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
}
