//! The replay's cost on a trace that disagrees with Linux on most lines
//! (the shape of `data/traces/gen-mismatch.py`): every wrong line is
//! reported, and the order search's steps stay linear in the trace's
//! length, whatever its mismatch count; and what the window holds of a
//! long trace that agrees is bounded by the checkpoint spacing.

use crate::{Options, Replayer};

/// `rounds` rounds of a fork, an exit, and four lines Linux could not have
/// printed (a wrong wait status, a kill and a getpgid of the reaped child
/// that succeed, a WNOHANG wait that finds a child when none is left).
fn mismatching_trace(rounds: usize) -> String {
    let mut s = String::new();
    let mut t = 1.0f64;
    let mut line = |pid: i32, text: &str| {
        t += 0.000_001;
        s.push_str(&format!("{pid} {t:.6} {text}\n"));
    };
    let parent = 1000;
    for child in 2001..2001 + rounds as i32 {
        line(
            parent,
            &format!("clone(child_stack=NULL, flags=SIGCHLD) = {child}"),
        );
        line(child, "exit_group(0) = ?");
        line(child, "+++ exited with 0 +++");
        line(
            parent,
            &format!("wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 1}}], 0, NULL) = {child}"),
        );
        line(parent, &format!("kill({child}, SIGTERM) = 0"));
        line(parent, &format!("getpgid({child}) = {parent}"));
        line(
            parent,
            &format!(
                "wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], WNOHANG, NULL) = {child}"
            ),
        );
    }
    s
}

/// (events, mismatches, search steps) of a replay of `text`.
fn cost(text: &str) -> (u64, usize, u64) {
    let parsed = taskcore_strace::parse_str("t", text);
    let mut r = Replayer::new(Options::default());
    for e in &parsed.events {
        r.push(e);
        // No call is left open across lines: nothing pushed later is
        // placed before this line.
        r.watermark(e.line);
    }
    let s = r.finish();
    (s.stats.events, s.mismatches.len(), s.search_steps)
}

#[test]
fn every_wrong_line_is_reported() {
    let (events, bad, _) = cost(&mismatching_trace(50));
    assert_eq!(events, 50 * 7);
    assert_eq!(bad, 50 * 4);
}

#[test]
fn search_steps_grow_with_the_trace_not_the_mismatches() {
    let (small_events, small_bad, small) = cost(&mismatching_trace(300));
    let (events, bad, big) = cost(&mismatching_trace(6000));
    assert_eq!((small_bad, bad), (300 * 4, 6000 * 4));
    // 20 times the mismatches: the search spends its initial allowance
    // and then a few steps per event (a search per mismatch would be
    // hundreds of steps for each of the 24,000).
    let per_event = (big - small) as f64 / (events - small_events) as f64;
    assert!(
        per_event < 4.0,
        "{small} steps at 300 rounds, {big} at 6000"
    );
}

/// `rounds` rounds of a fork, the child's exit and the wait that reaps
/// it, as Linux prints them.
fn agreeing_trace(rounds: usize) -> String {
    let mut s = String::new();
    let mut t = 1.0f64;
    let mut line = |pid: i32, text: &str| {
        t += 0.000_001;
        s.push_str(&format!("{pid} {t:.6} {text}\n"));
    };
    for child in 2001..2001 + rounds as i32 {
        line(
            1000,
            &format!("clone(child_stack=NULL, flags=SIGCHLD) = {child}"),
        );
        line(child, "exit_group(0) = ?");
        line(child, "+++ exited with 0 +++");
        line(
            1000,
            &format!("wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], 0, NULL) = {child}"),
        );
    }
    s
}

#[test]
fn the_window_holds_two_checkpoint_spans_not_the_trace() {
    use crate::replayer::{CHECKPOINT_EVERY, LOOKAHEAD};
    // The budget: some 3,200 events of about 250 B, under 1 MB. (At the
    // spacing of 4,096 before, 9,280 events were held here.)
    const BUDGET: usize = 3_200;
    let rounds = 4000;
    let parsed = taskcore_strace::parse_str("t", &agreeing_trace(rounds));
    let mut r = Replayer::new(Options::default());
    let mut most = 0;
    for e in &parsed.events {
        r.push(e);
        r.watermark(e.line);
        most = most.max(r.held_events());
    }
    let s = r.finish();
    assert_eq!((s.stats.events, s.mismatches.len()), (rounds as u64 * 4, 0));
    // From the older of the two checkpoints kept to the lookahead's end,
    // and the few events of the line being read.
    let bound = (2 * CHECKPOINT_EVERY + LOOKAHEAD) as usize + 16;
    assert!(
        most <= bound.min(BUDGET),
        "{most} events held, bound {bound}, budget {BUDGET}"
    );
}
