//! Replays `strace -f` recordings of real programs against the taskcore
//! process core and checks every recorded result: clone/fork/vfork results,
//! wait4/waitid reports and errnos, setpgid/setsid/getpgid/getsid/getppid,
//! kill/tgkill/tkill, rt_sigaction's old handlers, prctl(subreaper), the
//! `+++ exited/killed` lines, every `--- SIGxxx {...} ---` line (delivered
//! there through `get_signal`, siginfo compared), the mask and signal-wait
//! calls (rt_sigprocmask, rt_sigpending, rt_sigtimedwait, rt_sigsuspend,
//! pause, rt_sigreturn, rt_sig(tg)queueinfo, restart_syscall), ptrace under
//! strace, and mmap/munmap/mprotect/mremap/brk when the trace has them.
//!
//! The replay streams: it reads, parses, applies, checks and forgets in
//! one pass, in memory bounded by the live tasks and a reorder window,
//! never by the trace's length. strace's line order is not the kernel's:
//! each call is placed within its `[entry, completion]` window, and when a
//! result disagrees, an order search moves nearby calls within their
//! windows from a checkpoint of the engine before it reports a mismatch
//! (see [`Replayer`]).
//!
//! # Example
//! ```
//! use taskcore_replay::{Options, Replayer};
//!
//! let trace = "\
//! 100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
//! 101 1.1 exit_group(3) = ?
//! 101 1.2 +++ exited with 3 +++
//! 100 1.3 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
//! ";
//! let parsed = taskcore_strace::parse_str("example", trace);
//! let mut r = Replayer::new(Options::default());
//! for e in &parsed.events {
//!     r.push(e);
//! }
//! // The emulated kernel can be queried at any point.
//! assert!(r.kernel().nr_tasks() >= 1);
//! let summary = r.finish();
//! assert_eq!(summary.stats.checked, 3); // the clone, the exit status, the wait
//! assert!(summary.mismatches.is_empty());
//! ```
//!
//! Files: [`replay_file`] reads (plain or gzip, `-` for stdin) and parses
//! on a thread of its own, overlapped with the replay, and says when the
//! input is not a usable trace ([`InputError`]).
//!
//! # Special rules
//!
//! One ordering mechanism is no rule about a kind of trace. Each event is
//! placed within its window: a call's `[entry, completion]` lines; a clone
//! at its entry line, its child's events held until it (`engine/mod.rs`);
//! a death (`Kind::Die`) between the task's last printed activity and its
//! `+++` line (`engine/deaths.rs`); strace's restart of a stop or
//! core-dumping signal's signal-delivery-stop (`Kind::Resume`) between its
//! `---` line and the thread's next line (`shape/mod.rs`,
//! `engine/strace.rs`); a thread's execve at strace's `+++ superseded by
//! execve in pid T +++` line, inside its window (`shape/mod.rs`); under
//! `-qq`, strace's reap between the exit call and the first line that
//! reports the task (`shape/exits.rs`). The planner (`plan.rs`), one pass over the
//! lookahead window in file order, attaches to each event what later lines
//! show about it (`facts.rs`), among them happens-before constraints the
//! scheduler (`replayer.rs`) makes hold before any engine applies the
//! event:
//! - a death before the wait that reports it: a wait reporting a child's
//!   death or stop comes after the child's death and `+++` line (or `---
//!   stopped by` line) that strace printed later (the kernel wakes the
//!   parent from inside the child's exit or stop, `do_notify_parent()`;
//!   strace prints the line when its own `waitpid` collects the tracee's
//!   event). Not past a clone that reuses the pid; a nested caller's
//!   number is strace's through the clone's `--decode-pids=pidns` comment.
//!   (Was the engine's `pull_forward`.)
//! - a sender before the `---` line it caused: a call of the process
//!   `si_pid` names, sending that signal, whose window contains the line
//!   (the signal is queued inside the sender's syscall, before its
//!   syscall-exit stop; strace may handle the receiver's
//!   signal-delivery-stop first). (Was `pull_sender`.)
//! - a child's stop before the `CLD_STOPPED` SIGCHLD it caused: the `---
//!   stopped by` lines of the child's threads whose windows contain the
//!   `---` line (the last thread to stop notifies the parent in
//!   `do_signal_stop()`, `do_notify_parent_cldstop()`, before strace prints
//!   the stops). (Was `pull_cause`.)
//! - a dequeue before the send it did not coalesce with: a parent's `---`
//!   SIGCHLD line whose window (from the thread's previous line) contains
//!   a child's `+++` line comes before that `+++` line when a later `---`
//!   SIGCHLD line of the same thread names the child (strace's reap at the
//!   `+++` line sends the parent its SIGCHLD, `wait_task_zombie()` ->
//!   `do_notify_parent()`; a non-real-time signal sent while the same one
//!   is pending is lost, `legacy_queue()`, so the child's was sent after
//!   the dequeue; strace prints the `---` line only at the
//!   signal-delivery-stop). (Was rule 1, the engine's `requeue_lost`,
//!   which queued the lost signal again from a fact of later lines.)
//!
//! The first and the last hold whatever the emulation's state; the other
//! two only when the emulation holds no such signal already (an earlier
//! send may be the one taken): the engine says so ([`Replayer`]'s `apply_at`,
//! `Engine::take_wants`), and the scheduler moves the lines and replays
//! the event from a copy taken before it. The engine itself is a function
//! of its state and the events (with their facts) in the order given:
//! it never reads the window, applies no event before its turn, is `Send`,
//! and its copies (the order search's checkpoints) own their state.
//! When a result still disagrees, the order search ([`Replayer`],
//! `search.rs`) moves nearby events within their windows. The search's
//! cost is bounded (150,000 engine steps and copies + 2 per event,
//! `replayer.rs`), so a replay costs O(its length) whatever its mismatch
//! count.
//!
//! Everything else is a special rule, each listed here once with the
//! strace or kernel behaviour that forces it, and where it lives. Counts:
//! at the start of this round of issue 22 (main at 6c466df) 24, at
//! 4a5bf00 24, at 4ab5526 25 (10 engine-side look-aheads and pulls, 9 for
//! state the recording does not show, 6 for strace being every task's
//! tracer); at cef9f00 22 listed (the three pulls became the constraints
//! above, and no rule reads the lookahead from the engine), plus two that
//! were not listed (the program break learned at an image's first `brk`,
//! and exec-time mappings learned from a call that succeeded on them):
//! 24 in all. Now 19: rule 8 is one mechanism for what were four listed
//! rules and the unlisted `brk` one (5 -> 1), rule 11 one for two (2 ->
//! 1), and the exec-time mappings are listed (rule 9). Of the 19, 8 take
//! a fact the planner read from later lines (`plan.rs`: the 7 below and
//! rule 19); the engine decides with its state what the fact means.
//! Now 17: the emulated strace became every task's tracer in the core,
//! and the core's ptrace semantics replaced the former rules 15
//! (`sig_ignored()`'s tracee exception) and 16 (ptrace requests under
//! strace); the former 17-19 are now 15-17 (rule 17, formerly 19, is
//! the one that takes a fact from later lines beside 1-7).
//! Now 16: with every task traced, the former rule 2 (`next_waker`'s
//! wakers the untraced emulation dropped at the send: a signal the
//! waiting thread ignores, another thread's `--- SIGCONT` under
//! `PTRACE_SEIZE`) is the core's: `sig_ignored()` keeps a tracee's
//! ignored signal queued and it interrupts the wait, and a SIGCONT wakes
//! every seized thread (`ptrace_trap_notify()`). Deleted with its fact
//! (`Facts::sigcont_threads`); all seven trace sets replay with the same
//! checks and 0 mismatches without it. What stays of `next_waker` is rule
//! 10's: a wait interrupted with nothing held sleeps until the signal of
//! the thread's next `---` line, sent from outside, arrives there (fact
//! `Facts::next_signal`). The former 3-17 are now 2-16; of the 16, 8
//! take a fact from later lines (1-6, 10 and 16).
//! Now 15: the former rule 14 (a fatal signal killing at the send, the
//! engine taking a dead task's death as the check of its `---` line) is
//! gone: `complete_signal()` kills the group at the send only for an
//! untraced task (`sig == SIGKILL || !p->ptrace`), and every task is
//! traced, so a fatal signal stops its thread in its
//! signal-delivery-stop (the `---` line) first; the thread is resumed
//! into its `PTRACE_EVENT_EXIT` stop and exits only then (`take_signal`, `engine/strace.rs`); no
//! thread is dead at its own `---` line. Deleting both branches left the
//! seven trace sets' checks and `---` line counts unchanged, 0
//! mismatches (it cost 62 checks in `extra` before the exit stop was
//! taken for what it is). The former 15-16 are now 14-15; of the 15, 8
//! take a fact from later lines (1-6, 10 and 15).
//! Now 14 (branch tracer4): the former rule 1 (`requeue_lost`, a
//! child's SIGCHLD the emulation lost to one still pending, queued again
//! after the dequeue when a later `---` line named the child) is the
//! fourth happens-before constraint above: the scheduler applies the
//! dequeue before the reap, so nothing is lost and nothing is queued
//! again (its fact `Facts::later_same`, the engine's record of the
//! kernel's signals and its counter `--- signal sent after the dequeue of
//! the same signal` are gone; the 13 lines it requeued in `extra` and
//! `wide` are checked as before, every set's checks unchanged, 0
//! mismatches). The former 2-15 are now 1-14; of the 14, 7 take a fact
//! from later lines (1-5, 9 and 14).
//! Now 13: the former rule 1 (`next_line_is_sigcont`: a stop signal's
//! `---` line the core no longer held, followed by a `--- SIGCONT`,
//! accepted from a fact of later lines) is the emulated strace's: the
//! `---` line of a stop signal taken with the default action is its
//! dequeue, at its own place, and strace restarts that
//! signal-delivery-stop at a synthetic `Kind::Resume` (just after the
//! line when the thread's next line is its `--- stopped by`, else at
//! that next line), where the thread runs on into `do_signal_stop()`;
//! a SIGCONT sent in between finds it in the stop and the core gives the
//! stop up (`prepare_signal()` clears `JOBCTL_STOP_DEQUEUED`,
//! `tests/oracle/ptrace_edges.out`, `sigstop_cancelled`). Before, the
//! whole line was held to the next line, so such a SIGCONT flushed a
//! signal not yet dequeued. A `pause`/`rt_sigsuspend` interrupted is now
//! the core's answer (`TIF_SIGPENDING` for a group stop another thread
//! began, not only for a pending signal). Deleted with its fact
//! (`Facts::next_is_sigcont`); the seven sets' checks unchanged, 0
//! mismatches. The former 2-14 are now 1-13; of the 13, 6 take a fact
//! from later lines (1-4, 8 and 13).
//! Now 12: the former rule 4 (`learn_core_dumps`, which set whether
//! core-dumping signals dump core from a fact of later lines, the next
//! `+++ killed by` that signal, at every send and `---` line of one) is
//! part of rule 4 (was 5), state from before the trace: the core-dumping
//! signal's `---` line is its dequeue too, strace's restart
//! (`Kind::Resume`) ends at the thread's `+++ killed by` line and carries
//! what it says, and the thread dumps core or not when it runs on. Its
//! fact `Facts::core_dump` is gone. The repository needs it after all
//! (`extra/jobctl`, `suite/cpython-process-q`: a SIGSEGV and a SIGABRT
//! death without a core, counted under `learned` now); the seven sets'
//! checks unchanged, 0 mismatches. The former 5-13 are now 4-12; of the
//! 12, 5 take a fact from later lines (1-3, 7 and 12).
//! Now 11: the former rule 11 (a thread's exec applied at the `+++
//! superseded` line by a handler of that line, its `<... execve
//! resumed>` then skipped through a set of superseded leaders) is a
//! placement: the shaper holds the line until the old leader's next
//! event and, when that is the execve the thread entered, places the
//! call at the line as the thread's (strace prints the line at
//! `PTRACE_EVENT_EXEC`, after `de_thread()`: a point of the call's
//! window); `do_execve` applies every exec the same way, and the pid map
//! gives the leader's number to the thread that exec'd it. The line is no
//! event of its own (4 fewer events in `extra`; the same checks, the
//! execve's instead of the line's; 0 mismatches). The former 12 is now
//! 11; of the 11, 5 take a fact from later lines (1-3, 7 and 11).
//! The engine reads facts of later lines at 7 places now, 10 at
//! da92cce (`later_same`, `next_is_sigcont` and `core_dump` gone; left:
//! `uncreated`, `ns_annotated`, `unblocked` twice, `next_signal`,
//! `sigreturn_later`, and `causes`, which only names what the scheduler
//! may move).
//!
//! ## Rules that take a fact from later lines
//! The planner reads the fact (`plan.rs`); the rule that uses it lives in
//! the engine module named.
//! 1. `unnamed_child` (`engine/lifecycle.rs`; fact `Facts::uncreated`): a
//!    clone's child strace did not number for the trace, because the
//!    caller died inside the call (`= ?`: the child exists,
//!    `copy_process()` completed) or because the caller lives in a nested
//!    pid namespace and the trace has no `--decode-pids=pidns` comments
//!    (the result is the namespace's number, strace labels lines with its
//!    own): the first task of the lookahead that no clone created and no
//!    other such clone claimed.
//! 2. `infer_new_pid_ns` (`engine/pidns.rs`; fact `Facts::ns_annotated`):
//!    a pid namespace whose `unshare(CLONE_NEWPID)` the filter left out is
//!    applied before the clone of a child whose own clones strace
//!    annotates with namespace numbers (Linux numbers a task once, at its
//!    creation, in its parent's `pid_for_children`).
//! 3. `consumed_unseen` (`engine/consumed.rs`; fact `Facts::unblocked`):
//!    a signal a signalfd user unblocks whose `---` line does not come
//!    before the thread's next call was consumed where the trace cannot
//!    see (a `read()` of the signalfd); it is dequeued. A signal unblocked
//!    is delivered on the way out of the unblocking call, a tracee's
//!    dequeue is a signal-delivery-stop strace prints.
//!
//! ## State the recording does not show
//! Learned (counted under `learned`, not checked) or not checkable (with
//! the reason, never a mismatch).
//! 4. State from before the trace is learned at its first read: one
//!     mechanism for every per-task attribute the recording can show
//!     before it sets it (`engine/learned.rs`, `Attr`): a signal's
//!     disposition (`rt_sigaction`'s old action: nohup, a
//!     non-interactive shell's background job), the mask
//!     (`rt_sigprocmask`'s old mask), each resource limit
//!     (`prlimit64`/`getrlimit`'s old limits), the capability sets,
//!     bounding and ambient bits, securebits and no_new_privs
//!     (`capget`, `PR_CAPBSET_READ`, `PR_CAP_AMBIENT_IS_SET`,
//!     `PR_GET_SECUREBITS`, `PR_GET_NO_NEW_PRIVS`) and the groups
//!     (`getgroups`); and the program break exec placed at random (an
//!     image's first `brk`, unknown again after each exec). The process
//!     inherited them from strace's shell (`copy_process()` copies
//!     `sighand`, `blocked`, `signal->rlim` and the credentials; exec
//!     keeps them); the emulation's world starts with its own defaults.
//!     An attribute the trace has neither set nor shown takes the value
//!     its first read shows (counted under `learned` when it differs,
//!     the value not compared); every later read is compared; a new
//!     process knows what its creator's knew. (Were four listed rules
//!     before: dispositions, masks, limits, and
//!     credentials/groups/capabilities, and the unlisted `brk` one,
//!     each with its own store and its own idea of when a value is
//!     known; limits were never known from a read, so every read of a
//!     limit the trace did not set went unchecked: the one mechanism
//!     checks more calls, 2,255 in `extra`, 3,712 in `wide`, 1,048 in
//!     `suite`, 88 in `qq`, 9 in `signal`.) The credentials' ids are
//!     not learned: the world runs as root, as the recordings were
//!     made, and `get*id` is checked. Whether a core-dumping signal
//!     dumps core (`RLIMIT_CORE`, inherited too, and `core_pattern`) is
//!     shown at the death: the thread's `+++ killed by SIGx [(core
//!     dumped)]` line ends strace's restart of its signal-delivery-stop
//!     (`Kind::Resume`, `shape/mod.rs`), which carries it and applies it
//!     before the thread runs on into `do_coredump()`
//!     (`engine/strace.rs`; learned, not an `Attr`: no call reads it).
//! 5. Memory exec and the loader mapped is not in the trace: an
//!     `mprotect` or `mremap` that succeeded where the emulation has no
//!     mapping and the trace never mapped, moved or unmapped reveals one;
//!     it is mapped in and the call counted as not checkable
//!     (`engine/memory.rs`). Not a first read of an attribute: a range is
//!     known only where a call touched it.
//! 6. Processes outside the trace (strace's parent, the shell): a call
//!     naming one is applied to the emulation's stand-ins and not checked
//!     (`outside_target`, `engine/mod.rs`; `engine/world.rs`).
//! 7. A signal whose send the replay does not apply is queued where the
//!     recording shows it arrive, with the recorded siginfo: at its `---`
//!     line, or at an `rt_sigtimedwait` that returns it with no `---`
//!     line (a dequeue by a sigwait is not a signal-delivery-stop); a
//!     signal wait interrupted with nothing held sleeps until then
//!     (`next_waker`, fact `Facts::next_signal`: the thread's next line's
//!     signal). One
//!     decision (`unmodelled_sender`, `engine/signals.rs`) and one
//!     queueing (`send_from_outside`) for every such send: a sender the
//!     replay does not model (a terminal, a timer, a fault, SIGPIPE, a
//!     process outside the trace, `SI_KERNEL`), and a traced call whose
//!     send cannot be applied at the call (`pidfd_send_signal` on an fd
//!     the trace did not open, e.g. a `/proc/PID` directory; a siginfo
//!     strace did not read), which `note_skipped` counts for its process
//!     so that its `---` line is taken as such a send, not a lost signal.
//!     (Were two rules before, 13 and 14, over the same code path;
//!     `suite/cpython-signal-q`: 3 mismatches before.) A SIGCONT is such
//!     a send too: a thread the emulation holds in a group stop that
//!     takes another signal at a `---` line was continued from outside
//!     (timeout(1) sends its signal, then SIGCONT); the SIGCONT is sent
//!     there and counted under `learned`, the line checked once
//!     (`deliver`, `engine/signals.rs`; it was counted under `unchecked`
//!     as well, so such a line counted twice).
//! 8. `strace -qq` drops `+++ exited` lines: a trace with none, 2,048
//!     lines after its first exit call (or at its end), takes each exit
//!     from its `exit_group(N) = ?` / `exit(N) = ?` line
//!     (`shape/exits.rs`); an open call at its end does not make it
//!     truncated (`input.rs`).
//! 9. A clone recorded as refused is refused in the core too, whatever
//!     the core answers (a child it made is undone from a copy taken
//!     before the call: `copy_process()` changes nothing when it fails);
//!     EAGAIN and ENOMEM the core would not give depend on counts outside
//!     the trace (RLIMIT_NPROC counts the user's processes, pid_max and
//!     threads-max the system's; memory) and are not checkable
//!     (`refused_clone`, `engine/lifecycle.rs`, new). `qq/nproc-q`/`-qq`:
//!     4 mismatches each before, 0 after.
//!
//! ## strace is every task's tracer
//! The emulated strace (`engine/strace.rs`) is the core-level tracer of
//! every traced task: it seizes the traced root with strace's options
//! (`PTRACE_O_TRACESYSGOOD | TRACEEXEC | TRACEEXIT | TRACECLONE |
//! TRACEFORK | TRACEVFORK`, strace.c's `ptrace_setoptions` under `-f`),
//! the core auto-attaches every child, and the engine handles each ptrace
//! stop as strace's event loop does, through the core's ptrace API (no
//! wait call per stop): event stops resumed, a signal-delivery-stop
//! resumed with its signal (its `---` line; a stop or core-dumping signal
//! taken with the default action at its `Kind::Resume`, above), a group-stop trap left
//! listening. strace reaps a thread at its exit and a leader at its
//! `+++` line. What the core's ptrace semantics now do by themselves
//! replaced two rules of this list (see the counts above): the former
//! rule 15 (`sig_ignored()` keeping a tracee's ignored signals: the
//! hand-kept signals of `engine/kept.rs`, deleted, and the `---` lines
//! of ignored signals the emulation did not hold, checked as ignored:
//! the core holds them now and `get_signal()` discards them after the
//! stop; the report still counts, under `--- signal sent while
//! ignored, kept by tracing`, the lines the core's queue answered for a
//! signal sent while ignored and taken with a handler or the default,
//! `note_send` in `engine/signals.rs`, read by nothing else) and the
//! former rule 16 (`PTRACE_TRACEME`/`ATTACH`/`SEIZE`
//! EPERM and other requests ESRCH, written by hand: the call now goes
//! to the core, whose `ptrace_traceme()`/`ptrace_attach()` refuse an
//! already traced task and whose `ptrace_check_attach()` refuses a
//! non-tracee). Left:
//! 10. strace reaps a dying process's leader at the `+++` line, so its
//!     parent sees the zombie only then; a leader whose threads outlive
//!     it is reaped at the first later `+++` line after which it can
//!     (`delay_group_leader()`). The delay itself is the core's now
//!     (a traced zombie is its tracer's to reap, `wait_task_zombie()`
//!     tells the real parent); what stays a rule is when the emulated
//!     strace's wait happens: at the `+++` line (`engine/deaths.rs`).
//! 11. `get_signal()` reads a tracee's action after its
//!     signal-delivery-stop (the `---` line), so another thread's
//!     `rt_sigaction` whose window overlaps the `---` line to the thread's
//!     next line may decide whether a handler ran. A frame set up there
//!     that a discarding action may have prevented is undone at the first
//!     line only its absence explains (a signal it blocks taken, an old
//!     mask or `rt_sigreturn` mask that is the one it saved); an ignored
//!     `---` line a handler-setting action overlapped takes the thread's
//!     next line, a frameless `rt_sigreturn`, as its handler's
//!     (`engine/frames.rs`; counted under `learned`). Whether a frame's
//!     end is in the record at all (without `%signal` there are no
//!     `rt_sigreturn` lines) takes a fact from later lines: the thread's
//!     next `rt_sigreturn` (`Facts::sigreturn_later`, `engine/signals.rs`). A frameless
//!     `rt_sigreturn` otherwise, of a thread the trace created, is a
//!     mismatch. With rule 7 (10 before tracer4) and the former rule 15 (of the 19): `suite/cpython-signal-q`/`-qq` 24 and 41
//!     mismatches before, 0 after.
//!
//! No Linux analogue: this is a checker. What it checks is Linux's
//! behaviour as the recording shows it.

pub(crate) mod engine;
mod event;
mod facts;
mod input;
mod plan;
pub mod probe;
mod replayer;
mod search;
pub(crate) mod shape;
mod sigbit;
mod window;

pub use engine::records::{Mark, ProcessRecord};
pub use engine::report::{Mismatch, Stats};
pub use input::{
    kernel_at, not_a_trace, open, per_process_file, replay_file, replay_file_with, replay_reader,
    verdict, FileReport, InputError, MAX_ERROR_RATIO, MAX_PARSE_ERRORS,
};
pub use replayer::{Options, Recording, Replayer, Summary};
pub use shape::exits::ExitLines;

#[cfg(test)]
mod signal_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cost;
#[cfg(test)]
mod tests_order;
#[cfg(test)]
mod tests_procapi;
#[cfg(test)]
mod tests_unseen;
