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
//! `+++` line (`engine/deaths.rs`; under `-qq`, where the reap is the
//! replay's, to the first line that reports the task, `shape/mod.rs`); strace's restart of a stop or
//! core-dumping signal's signal-delivery-stop (`Kind::Resume`) between its
//! `---` line and the thread's next line (`shape/mod.rs`,
//! `engine/strace.rs`); a thread's execve at strace's `+++ superseded by
//! execve in pid T +++` line, inside its window (`shape/mod.rs`); under
//! `-qq`, strace's reap between the exit call and the first line that
//! reports the task, and for a leader that called `exit` while threads
//! of its process live, just after the last of their deaths (strace
//! cannot reap it before, `delay_group_leader()`; `shape/exits.rs`); in a
//! trace merged from `strace -ff` files (`ffmerge.rs`), a call as late as
//! its task's next line, and a `---` line after an interrupted call from
//! that call's entry (`Options::merged`), since the files stamp calls
//! only at their entry. The planner (`plan.rs`), one pass over the
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
//! The scheduler moves the earlier event to just before the later one;
//! when the earlier one's window begins after the later one's point (a
//! `-qq` reap, whose window runs from the exit call to the first line
//! that reports the task, after a dequeue of its parent's that follows
//! the parent's own lines inside that window), the later one moves to
//! just after it instead, within its own window.
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
//! strace or kernel behaviour that forces it, and where it lives: 10 of
//! them, 5 of which take a fact the planner read from later lines
//! (`plan.rs`: rules 1-3, 7 and 10; the engine decides with its state what
//! the fact means). The engine reads such facts at 7 places (`uncreated`,
//! `ns_annotated`, `unblocked` twice, `next_signal`, `sigreturn_later`,
//! and `causes`, which only names what the scheduler may move). How the
//! count went from 25 to 10, and what replaced each rule removed, is in
//! `docs/replay-rules.md`.
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
//!     before it sets it (`engine/learned.rs`; the attributes, `Attr`, in `engine/known.rs`): a signal's
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
//!     truncated (`input.rs`). Such a status is the call's argument,
//!     not the kernel's word: a thread whose `exit(N) = ?` line comes
//!     after its death in the emulation (its group's exit reached it
//!     first, as strace's order of stops allows) skipped the call in the
//!     kernel (`ptrace_report_syscall()` returns
//!     `fatal_signal_pending()`) and died with the group's code, so its
//!     status is not checkable (`do_death`, `engine/deaths.rs`;
//!     `ff/randscen-402-qq`: 1 mismatch before).
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
//! non-tracee). A third, the former rule 10 (a leader whose threads
//! outlive it, `delay_group_leader()`, reaped by a retry of strace's
//! wait at each later `+++` line and thread exit), is a placement now:
//! under `-qq` the leader's synthetic `+++` line is held until the last
//! thread's death (above), and in a `-q` trace the kernel forces the
//! order (strace's wait cannot reap the leader before it reaped the
//! threads, whose `+++` lines come first); strace's wait for a leader
//! happens once, at its `+++` line (`engine/deaths.rs`). Left:
//! 10. `get_signal()` reads a tracee's action after its
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
mod ffmerge;
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
pub use ffmerge::{group_inputs, open_merged, replay_input_with, Input, Merge, PerTaskFiles};
pub use input::{
    kernel_at, not_a_trace, open, per_process_file, replay_file, replay_file_with, replay_reader,
    verdict, BenchTrace, FileReport, InputError, MAX_ERROR_RATIO, MAX_PARSE_ERRORS,
};
pub use replayer::{Options, Recording, Replayer, Summary};
pub use shape::exits::ExitLines;

#[cfg(test)]
mod signal_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cost;
#[cfg(test)]
mod tests_order;
#[cfg(test)]
mod tests_procapi;
#[cfg(test)]
mod tests_qq;
#[cfg(test)]
mod tests_unseen;
