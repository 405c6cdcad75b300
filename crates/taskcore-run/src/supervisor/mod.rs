//! The supervisor: the state of one run and its event loop.
//!
//! Every traced thread stops at the points below, one at a time (the
//! supervisor is single-threaded and each stop waits for it):
//!
//! | stop | module | what the core does |
//! |---|---|---|
//! | seccomp (`PTRACE_EVENT_SECCOMP`) | `entry` | kill family and exit applied; arguments renumbered |
//! | clone / fork / vfork event | `events` | the child created and numbered |
//! | exec event | `events` | execve applied (a non-leader's tid renumbered) |
//! | syscall exit | `exit` | the call applied and compared; the result renumbered |
//! | signal delivery | `signals` | `get_signal` takes the same signal |
//! | gone (`WIFEXITED`/`WIFSIGNALED`) | here | a death no stop showed applied; init reaps what it is the parent of |
//!
//! Beside them: `answer` gives the real answer of id queries and of a
//! childless wait at the seccomp stop (no syscall-exit stop); `window` places a wait's answer within its entry–exit
//! window and pulls other threads' calls in flight into place; `frames`
//! confirms a handler frame the core set up by the thread's next stop;
//! `handon`
//! keeps the children an exit applied before the kernel's `exit_notify()`
//! handed on, for the waits placed before it; `reorder` applies again a
//! setpgid or setsid the kernel ran after an overlapping one; `userns`
//! gives the core the id maps a program wrote natively; `notation`
//! writes divergences in strace's notation.

#[macro_use]
mod log;
mod answer;
mod entry;
mod events;
mod exit;
mod frames;
mod handon;
mod hold;
mod lost;
mod notation;
mod reorder;
mod resend;
mod signals;
mod tidaddr;
mod userns;
mod window;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

use taskcore::sys::{SysResult, Syscall};
use taskcore::uapi::{__WALL, WNOHANG};
use taskcore::{Config, Kernel, SignalDelivery, TaskId};

use crate::check::Divergence;
use crate::filter;
use crate::options::{Options, RunError};
use crate::pidmap::PidMap;
use crate::report::Report;
use crate::spawn;
use crate::timeline::Recorder;
use crate::tracee;

/// How many of the latest death reports [`Supervisor`] keeps the moment of.
const DEATHS_KEPT: usize = 64;

/// A trapped call between its seccomp stop and its syscall-exit stop.
#[derive(Debug)]
struct InCall {
    nr: i64,
    name: &'static str,
    /// The program's (virtual) arguments.
    args: [u64; 6],
    /// The call decoded from them, for the core (`Err`: the core does not
    /// model it, or could not read an argument).
    call: Result<Syscall, taskcore::Errno>,
    /// The core's answer when it was applied at the entry.
    early: Option<SysResult>,
    /// clone family: the child's virtual pid, once its event came.
    child: Option<i32>,
    /// clone family: the core refused the child the real kernel made.
    refused: Option<taskcore::Errno>,
    /// clone family with `CLONE_VFORK`: the child's real tid.
    vfork_child: Option<i32>,
    /// wait4/waitid: what the core would have reported at the entry (a
    /// peek: `WNOWAIT|WNOHANG`), the start of the call's window.
    entry_peek: Option<Option<i32>>,
    /// wait4/waitid: the report the core would have given at the entry.
    entry_report: Option<taskcore::WaitReport>,
    /// wait4/waitid: the child the core would have reported when a death
    /// report first made one visible during the call (the moment the real
    /// kernel may have woken the waiter, or run a `WNOHANG` one; a peek, applied
    /// at the exit if the real answer names it, `supervisor/window.rs`).
    woken: Option<i32>,
    /// getpgid, getsid, getpgrp, getppid run by the kernel (not answered
    /// at the entry): the core's answer at the entry, the start of the
    /// call's window (another task's setpgid or setsid applied before its
    /// exit may have run after the kernel answered); setpgid and setsid:
    /// the answer a copy of the core gave at the entry.
    entry_read: Option<SysResult>,
    /// A pid in the caller's memory made real at the entry (the
    /// rt_sigqueueinfo family's `si_pid`, capget/capset's `hdrp->pid`):
    /// where, and the program's (virtual) value to put back at the exit.
    restore_pid: Option<(u64, i32)>,
    /// [`Supervisor::stops_seen`] at the entry.
    entry_seq: u64,
}

impl InCall {
    /// Call `nr` (`name`) entered with virtual `args`, decoded as `call`,
    /// with the core's `early` answer; nothing of its exit known yet.
    fn new(
        nr: i64,
        name: &'static str,
        args: [u64; 6],
        call: Result<Syscall, taskcore::Errno>,
        early: Option<SysResult>,
    ) -> InCall {
        InCall {
            nr,
            name,
            args,
            call,
            early,
            child: None,
            refused: None,
            vfork_child: None,
            entry_peek: None,
            entry_report: None,
            woken: None,
            entry_read: None,
            restore_pid: None,
            entry_seq: 0,
        }
    }
}

/// What the supervisor knows of one traced thread.
#[derive(Debug, Default)]
struct Thread {
    in_call: Option<InCall>,
    /// An rt_sigsuspend the core still sleeps in (the signal that ends it
    /// had not reached the core at its syscall exit): completed at the
    /// thread's next delivery stop.
    suspended: Option<taskcore::sys::Syscall>,
    /// Its real thread-group id (0: unknown), by Linux's rule: a clone
    /// with `CLONE_THREAD` joins its creator's group, any other task
    /// leads its own; a thread keeps it for life (an exec by a non-leader
    /// takes the leader's tid, which is the tgid).
    tgid: i32,
    /// Its exec was applied at its vfork parent's release, before its
    /// exec event (which then sets only its filename and argv).
    exec_applied: bool,
    /// Set_tid_address state, `supervisor/tidaddr.rs`.
    tid_address: TidAddress,
    /// [`Supervisor::stops_seen`] at its last stop, and at the one before
    /// (it was resumed from that one: what it did since came after).
    last_seen: u64,
    prev_seen: u64,
    /// A handler frame the core set up at its last delivery stop, to be
    /// confirmed at its next stop (`supervisor/frames.rs`).
    frame: Option<Frame>,
}

/// One thread's `set_tid_address` state (`supervisor/tidaddr.rs`).
#[derive(Debug, Default)]
struct TidAddress {
    /// No other task shares its address space, and none has since its
    /// exec event (no `CLONE_VM` clone since).
    fresh: bool,
    /// The address of a `set_tid_address` answered at its entry, not
    /// made for real yet (0 is never kept: the kernel's own value after
    /// an exec).
    pending: Option<u64>,
    /// The registers of a clone whose seccomp stop was turned into the
    /// pending `set_tid_address`: put back at that call's exit.
    clone_regs: Option<tracee::Regs>,
}

/// A handler frame the core set up at a delivery stop, not yet confirmed
/// (`supervisor/frames.rs`).
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// The mask the frame saved (before the delivery).
    saved: u64,
    /// The mask while the handler runs.
    running: u64,
}

/// The children a process's exit handed on in the core, before the real
/// kernel's `exit_notify()` is known to have done so
/// (`supervisor/handon.rs`).
#[derive(Debug, Clone)]
struct HandOn {
    /// The exiting process, in the core's root namespace numbers.
    parent: i32,
    /// Its children (process leaders, root namespace numbers) that the
    /// core gave to another process.
    children: Vec<i32>,
}

/// A setpgid or setsid the core applied, with its window
/// (`supervisor/reorder.rs`).
#[derive(Debug, Clone)]
struct Applied {
    task: TaskId,
    call: Syscall,
    /// [`Supervisor::stops_seen`] at its entry and at its exit.
    entry_seq: u64,
    exit_seq: u64,
    /// The process's group and session before it (virtual numbers).
    before: Option<(i32, i32)>,
}

/// What to do at a new task's first stop.
#[derive(Debug, Clone, Copy)]
struct Newborn {
    vtid: i32,
    /// Its real tgid (see [`Thread::tgid`]).
    tgid: i32,
    /// `CLONE_CHILD_SETTID`'s address, in the child's memory.
    child_tid: Option<u64>,
}

/// The state of one run.
struct Supervisor {
    k: Kernel,
    init: TaskId,
    map: PidMap,
    threads: HashMap<i32, Thread>,
    /// New tasks whose first stop (its wait status) came before their
    /// parent's clone event.
    parked: HashMap<i32, i32>,
    /// New tasks known from their parent's event, not yet stopped.
    newborn: HashMap<i32, Newborn>,
    /// vfork children (`CLONE_VFORK`) whose exec event or death the
    /// supervisor has not seen yet: their parent's release waits for it
    /// (`supervisor/exit.rs`).
    vfork_children: HashSet<i32>,
    /// vfork parents (real tid) held at their vfork event, by their child
    /// (real tid), until the child's exec event, exit or death
    /// (`supervisor/events.rs`).
    held_vfork_parents: HashMap<i32, i32>,
    /// Death reports of tasks not numbered yet (real tid → wait status),
    /// applied when they are (`supervisor/lost.rs`).
    unborn_deaths: HashMap<i32, i32>,
    /// New tasks the core could not number, killed: their deaths are
    /// not kept.
    unnumbered: HashSet<i32>,
    /// Virtual pid of each process the program created → its parent at
    /// creation (virtual tgid) and the thread that made it (virtual tid),
    /// to tell children handed on (orphans, children of an exited thread)
    /// from those still where their fork put them (`supervisor/window.rs`).
    /// A number's entry is replaced when the core gives it out again.
    born_to: HashMap<i32, (i32, i32)>,
    sup_pid: i32,
    command: i32,
    command_status: Option<i32>,
    opts: Options,
    report: Report,
    warned: HashSet<&'static str>,
    /// The debug lines (`TASKCORE_RUN_DEBUG`, `TASKCORE_RUN_RING`).
    log: log::DebugLog,
    /// The device of the emulated `/proc`'s mount ([`Options::proc_dir`]),
    /// learned once at the start: a directory on it is a pidfd for
    /// `pidfd_send_signal` (`supervisor/entry.rs`).
    proc_dev: Option<u64>,
    /// The test-only holds of `TASKCORE_RUN_HOLD` (`supervisor/hold.rs`).
    holds: hold::Holds,
    /// Leaders the core's init traces (seized before a death).
    seized: HashSet<TaskId>,
    /// The processes over time, with [`Options::timeline`].
    timeline: Option<Recorder>,
    /// Stops and death reports taken so far (an order of events).
    stops_seen: u64,
    /// Processes (real tgid) resumed with a stop signal at a delivery
    /// stop: `None` until a thread's group-stop trap is reported, then
    /// [`Supervisor::stops_seen`] at that report (`supervisor/window.rs`).
    group_stops: HashMap<i32, Option<u64>>,
    /// The latest death reports (virtual tid, [`Supervisor::stops_seen`]
    /// then), at most [`DEATHS_KEPT`]: a zombie whose report came after a
    /// wait's entry became visible to its parent inside that wait's
    /// window (`supervisor/window.rs`).
    deaths_seen: std::collections::VecDeque<(i32, u64)>,
    /// The SIGCONTs applied at their entry too early, to be sent again in
    /// the core once the kernel shows their order (`supervisor/resend.rs`,
    /// driven by `supervisor/signals.rs`).
    resends: resend::ContResends,
    /// Threads (real tid) with a call that sends a signal in flight
    /// ([`crate::calls::sends_signal`]: entered, its exit not seen),
    /// exactly: a thread joins it when such a call is made in flight at
    /// its entry ([`Thread::in_call`]), and leaves it at that call's
    /// syscall exit, at its next entry, at its exec event or at its death.
    /// The kill paths look for other threads' sends here, not among all
    /// threads ([`Supervisor::others_sending`]).
    sending: HashSet<i32>,
    /// The last kill-family calls applied at their entry: the sender's
    /// real tid, its task, the call, and [`Supervisor::stops_seen`] at
    /// its exit (`None`: in flight) (`supervisor/signals.rs`).
    recent_kills: std::collections::VecDeque<(i32, TaskId, Syscall, Option<u64>)>,
    /// Exits in flight (real tgid of the exiting process): the children
    /// the core handed on before the kernel is known to have
    /// (`supervisor/handon.rs`).
    hand_ons: HashMap<i32, HandOn>,
    /// Threads held at the seccomp stop of a `PR_SET_CHILD_SUBREAPER`
    /// prctl until the exit in flight it could decide (real tgid) has
    /// handed its children on for real (`supervisor/handon.rs`).
    held_prctls: HashMap<i32, i32>,
    /// Processes (real tgid) whose death the core applied at a stop
    /// (exit_group, a last thread's exit, a fatal signal's delivery)
    /// before their death report (`supervisor/handon.rs`).
    dying: HashMap<i32, Option<taskcore::WaitReport>>,
    /// Stop or continue reports a kill applied at its entry took from its
    /// target's parent in the core (virtual pid of the target process):
    /// the report, the sender's real tid, [`Supervisor::stops_seen`] at
    /// the kill's entry and at its exit (`None`: in flight)
    /// (`supervisor/window.rs`).
    taken_by_kill: HashMap<i32, (taskcore::WaitReport, i32, u64, Option<u64>)>,
    /// The setpgid and setsid calls applied per process (virtual tgid)
    /// whose windows overlapped (`supervisor/reorder.rs`).
    pgrp_calls: HashMap<i32, Vec<Applied>>,
}

/// The signal the supervisor was sent (INT, TERM, HUP), to forward.
static FORWARD: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_forwarded(sig: libc::c_int) {
    FORWARD.store(sig, Ordering::Relaxed);
}

fn install_forwarding() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a handler that only stores to an atomic; no SA_RESTART,
        // so the supervisor's waitpid returns EINTR and forwards.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_forwarded as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Runs `opts.argv` under the supervisor until every task of its namespace
/// is gone; returns what it did and found.
///
/// The calling process becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`)
/// and the tracer of every task the command creates; its SIGINT, SIGTERM
/// and SIGHUP handlers forward those signals to the command. Call it from
/// a single-threaded process (it forks).
///
/// # Errors
/// [`RunError`]: no command, an option out of range, ptrace or seccomp
/// unavailable, or a failed system call of the supervisor's own. The
/// program's failures are its exit status, not errors.
///
/// # Linux
/// What `unshare --pid --fork` plus `strace -f` give together, with the
/// core in the kernel's place for numbering.
pub fn run(opts: &Options) -> Result<Report, RunError> {
    if opts.argv.is_empty() {
        return Err(RunError::NoCommand);
    }
    if opts.first_pid < 2 || opts.first_pid as i64 >= opts.pid_max as i64 {
        return Err(RunError::BadOption(format!(
            "--first-pid must be in 2..{} (pid 1 is the supervisor)",
            opts.pid_max
        )));
    }
    let filter = filter::compile()?;
    let mut k = Kernel::new(Config {
        pid_max: opts.pid_max,
        // Init is the supervisor, a real process in its caller's session.
        init_is_global: false,
        ..Config::default()
    })
    .map_err(|e| RunError::BadOption(format!("--pid-max {}: {}", opts.pid_max, e.name())))?;
    k.set_signal_delivery(SignalDelivery::OnGetSignal);
    let init = k.init_task().map_err(RunError::Core)?;
    // Linux's cyclic rule from `first_pid`: the numbers below it were used
    // once and freed.
    for _ in 2..opts.first_pid {
        let t = k.fork(init).map_err(RunError::Core)?;
        k.exit_group(t, 0).map_err(RunError::Core)?;
        k.wait4(init, -1, 0).map_err(RunError::Core)?;
    }
    // SAFETY: prctl on this process.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(RunError::Os {
            what: "prctl(PR_SET_CHILD_SUBREAPER)",
            err: nix::Error::last(),
        });
    }
    install_forwarding();
    let start = Instant::now();
    // Init and the command start with the supervisor's credentials (the
    // command inherits them for real), and the command with the
    // no_new_privs its filter leaves.
    let own = crate::creds::Own::read();
    // The limits first, while init may still raise any (root's default
    // credentials).
    for (resource, lim) in crate::creds::own_rlimits() {
        let _ = k.setrlimit(init, resource, lim);
    }
    if let Some(o) = &own {
        let _ = k.set_cred(init, o.cred.clone());
    }
    let keep_privs = own.as_ref().is_some_and(|o| o.filter_keeps_privs());
    let cmd = k.fork(init).map_err(RunError::Core)?;
    if !keep_privs {
        let _ = k.pr_set_no_new_privs(cmd, [1, 0, 0, 0]);
    }
    k.setpgid(cmd, 0, 0).map_err(RunError::Core)?;
    let vcmd = k.pid_vnr(init, cmd).map_err(RunError::Core)?;
    if let Some(lv) = &opts.live_view {
        lv.attach();
    }
    let sp = spawn::spawn(&opts.argv, &filter, keep_privs, opts.proc_dir.as_deref())?;
    // The command starts with the dispositions and mask it inherited.
    for sig in (1..=64).filter(|s| sp.ignored & (1u64 << (s - 1)) != 0) {
        let ign = taskcore::SigAction {
            handler: taskcore::SigHandler::Ignore,
            ..Default::default()
        };
        let _ = k.rt_sigaction(cmd, sig, Some(ign));
    }
    let _ = k.rt_sigprocmask(cmd, taskcore::uapi::SIG_SETMASK, Some(sp.blocked));
    // SAFETY: getpid/getpgrp/getsid read this process's ids.
    let (sup_pid, sup_pgid, sup_sid) =
        unsafe { (libc::getpid(), libc::getpgrp(), libc::getsid(0)) };
    let mut map = PidMap::default();
    map.insert_number(1, sup_pid);
    map.alias(sup_pgid, 1);
    map.alias(sup_sid, 1);
    map.insert_task(sp.pid, cmd, vcmd);
    if let Some(ino) = crate::pidmap::pid_ns_inode(sup_pid) {
        map.insert_ns_inode(ino, k.root_ns());
    }
    let mut s = Supervisor {
        k,
        init,
        map,
        threads: HashMap::from([(
            sp.pid,
            Thread {
                tgid: sp.pid,
                ..Thread::default()
            },
        )]),
        parked: HashMap::new(),
        newborn: HashMap::new(),
        vfork_children: HashSet::new(),
        held_vfork_parents: HashMap::new(),
        unborn_deaths: HashMap::new(),
        unnumbered: HashSet::new(),
        born_to: HashMap::new(),
        sup_pid,
        command: sp.pid,
        command_status: None,
        opts: opts.clone(),
        report: Report {
            command_pid: vcmd,
            tasks_created: 1,
            ..Report::default()
        },
        warned: HashSet::new(),
        log: log::DebugLog::from_env(),
        proc_dev: None,
        holds: hold::Holds::from_env(),
        seized: HashSet::new(),
        timeline: opts.timeline.then(Recorder::default),
        stops_seen: 0,
        group_stops: HashMap::new(),
        deaths_seen: std::collections::VecDeque::new(),
        resends: resend::ContResends::default(),
        sending: HashSet::new(),
        recent_kills: std::collections::VecDeque::new(),
        hand_ons: HashMap::new(),
        held_prctls: HashMap::new(),
        dying: HashMap::new(),
        taken_by_kill: HashMap::new(),
        pgrp_calls: HashMap::new(),
    };
    if let Some(t) = &mut s.timeline {
        t.start(1, 0, 1, 1, vec!["taskcore".into(), "run".into()]);
        t.start(vcmd, 1, vcmd, 1, opts.argv.clone());
    }
    s.publish_view();
    // Its server answers now that a view is published.
    s.proc_dev = opts.proc_dir.as_deref().and_then(|d| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(d).ok().map(|m| m.dev())
    });
    s.event_loop();
    if sp.took_terminal {
        spawn::restore_terminal();
    }
    s.report.exit_status = s.command_status.unwrap_or(255);
    s.report.timeline = s.timeline.take().map(|t| t.finish(0));
    s.report.elapsed_s = start.elapsed().as_secs_f64();
    Ok(s.report)
}

impl Supervisor {
    /// Takes and handles stops until no traced task is left. With
    /// `TASKCORE_RUN_HOLD` rules (`supervisor/hold.rs`) the same loop first
    /// resumes or handles what is due, waits without blocking while
    /// anything is held, and puts a deferred stop aside.
    fn event_loop(&mut self) {
        loop {
            let mut flags = libc::__WALL;
            if self.holds.on() {
                for d in self.holds.due() {
                    match d {
                        hold::Due::Resume(tid) => self.resume(tid, 0),
                        hold::Due::Stop(tid, st) => self.on_status(tid, st),
                    }
                }
                if self.holds.waiting() {
                    flags |= libc::WNOHANG;
                }
            }
            let mut st: libc::c_int = 0;
            // SAFETY: waitpid writes the status to a local.
            let tid = unsafe { libc::waitpid(-1, &mut st, flags) };
            if tid == 0 {
                // Nothing yet (WNOHANG): something held comes due soon.
                self.publish_view_if_wanted();
                std::thread::sleep(std::time::Duration::from_micros(200));
                continue;
            }
            if tid < 0 {
                match nix::errno::Errno::last() {
                    nix::errno::Errno::EINTR => {
                        self.forward();
                        self.publish_view_if_wanted();
                        continue;
                    }
                    _ => break,
                }
            }
            self.on_waited(tid, st);
            self.publish_view_if_wanted();
        }
    }

    /// Status `st` of thread `tid` from the event loop's wait: handled,
    /// unless a `TASKCORE_RUN_HOLD` rule defers it (a stop put aside
    /// before comes first).
    fn on_waited(&mut self, tid: i32, st: i32) {
        if self.holds.on() {
            if let Some(prev) = self.holds.take_late_of(tid) {
                self.on_status(tid, prev);
            }
            // A new task's first stop is never deferred (its number comes
            // from its creator's event).
            let late = self
                .threads
                .contains_key(&tid)
                .then(|| self.holds.late_for(self.map.to_virtual(tid), st))
                .flatten();
            if let Some(d) = late {
                dline!(self, "[debug] hold: status {st:#x} of {tid} handled later");
                self.holds.defer(tid, st, d);
                return;
            }
        }
        self.on_status(tid, st);
    }

    /// Publishes a view if a reader asked for one, after the stops that
    /// are already waiting (they happened before the reader's request, as
    /// far as the supervisor can tell).
    fn publish_view_if_wanted(&mut self) {
        let wanted = self.opts.live_view.as_ref().is_some_and(|lv| {
            lv.invalidate();
            lv.take_request()
        });
        if wanted {
            self.drain_stops();
            self.publish_view();
        }
    }

    /// Handles the stops that are ready now, without waiting (at most a
    /// bounded number, so that a busy run still publishes); returns how
    /// many.
    fn drain_stops(&mut self) -> usize {
        let mut n = 0;
        for _ in 0..64 {
            let mut st: libc::c_int = 0;
            // SAFETY: waitpid writes the status to a local.
            let tid = unsafe { libc::waitpid(-1, &mut st, libc::__WALL | libc::WNOHANG) };
            if tid <= 0 {
                break;
            }
            self.on_status(tid, st);
            n += 1;
        }
        n
    }

    /// Publishes the core and the numbering as they are now (between two
    /// stops), with [`Options::live_view`].
    fn publish_view(&mut self) {
        if let Some(lv) = &self.opts.live_view {
            let to_virtual: HashMap<i32, i32> = self
                .map
                .threads()
                .map(|(r, _)| (r, self.map.to_virtual(r)))
                .collect();
            let to_real = to_virtual.iter().map(|(&r, &v)| (v, r)).collect();

            lv.publish(crate::live::View {
                kernel: self.k.snapshot(),
                to_virtual,
                to_real,
            });
        }
    }

    /// Forwards a signal the supervisor was sent to the command.
    fn forward(&mut self) {
        let sig = FORWARD.swap(0, Ordering::Relaxed);
        if sig != 0 && self.command_status.is_none() {
            // SAFETY: kill of the command's real pid.
            unsafe { libc::kill(self.command, sig) };
        }
    }

    fn on_status(&mut self, tid: i32, st: i32) {
        self.stops_seen += 1;
        if let Some(t) = self.threads.get_mut(&tid) {
            t.prev_seen = std::mem::replace(&mut t.last_seen, self.stops_seen);
        }
        if self.log.on() {
            dline!(
                self,
                "[debug] tid {tid} status {st:#x} v{}",
                self.map.to_virtual(tid)
            );
        }
        if libc::WIFEXITED(st) || libc::WIFSIGNALED(st) {
            self.report.stop("death");
            self.on_gone(tid, st);
            return;
        }
        if !libc::WIFSTOPPED(st) {
            return;
        }
        let sig = libc::WSTOPSIG(st);
        let event = (st >> 16) & 0xff;
        self.report.stop(match event {
            libc::PTRACE_EVENT_SECCOMP => "seccomp",
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                "clone-event"
            }
            libc::PTRACE_EVENT_EXEC => "exec-event",
            libc::PTRACE_EVENT_STOP => "event-stop",
            0 if sig == libc::SIGTRAP | 0x80 => "syscall-exit",
            0 => "signal-delivery",
            _ => "other",
        });
        if !self.threads.contains_key(&tid) {
            match self.newborn.remove(&tid) {
                Some(nb) => self.first_stop(tid, nb, st),
                None => {
                    // A stop after a death report of the same tid: a new
                    // task (the number was reused).
                    self.unborn_deaths.remove(&tid);
                    self.parked.insert(tid, st);
                }
            }
            return;
        }
        match event {
            libc::PTRACE_EVENT_SECCOMP => self.on_entry(tid),
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                self.on_clone_event(tid)
            }
            libc::PTRACE_EVENT_EXEC => self.on_exec_event(tid),
            libc::PTRACE_EVENT_STOP => self.on_event_stop(tid, sig),
            0 if sig == libc::SIGTRAP | 0x80 => self.on_syscall_exit(tid),
            0 => self.on_signal(tid, sig),
            _ => self.resume(tid, 0),
        }
    }

    /// Restarts thread `tid` with `sig` injected: to its current call's
    /// syscall-exit stop if one is awaited, else freely.
    fn resume(&mut self, tid: i32, sig: i32) {
        let awaiting = self.threads.get(&tid).is_some_and(|t| t.in_call.is_some());
        let _ = if awaiting {
            tracee::syscall(tid, sig)
        } else {
            tracee::cont(tid, sig)
        };
    }

    /// A `PTRACE_EVENT_STOP`: a group stop (kept with `PTRACE_LISTEN`, so
    /// that the real parent sees it and SIGCONT ends it), or the trap that
    /// ends a listen. Under `PTRACE_SEIZE` a group stop's `WSTOPSIG` is the
    /// stop signal and a trap's is SIGTRAP (`do_jobctl_trap()`).
    fn on_event_stop(&mut self, tid: i32, sig: i32) {
        let group_stop = matches!(
            sig,
            libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
        );
        // The core's init mirrors it where it traces the task too (a
        // process seized before a fatal signal or its exit).
        let v = self.map.to_virtual(tid);
        let task = self.map.task(tid);
        let seized = task.is_some_and(|t| self.seized.contains(&t));
        if group_stop {
            if let Some(t) = self.threads.get(&tid) {
                self.group_stops.insert(t.tgid, Some(self.stops_seen));
            }
            let _ = tracee::listen(tid);
            if let (true, Some(task)) = (seized, task) {
                // The core's traced thread takes part first when it is not
                // in its group-stop trap yet (a thread that dequeued no stop
                // signal itself: another one of its group started the
                // stop), then listens.
                let in_trap = self
                    .k
                    .ptrace_getsiginfo(self.init, v)
                    .is_ok_and(|i| i.code >> 8 == libc::PTRACE_EVENT_STOP);
                if !in_trap {
                    let _ = self.k.get_signal_jobctl(task);
                }
                let _ = self.k.ptrace_listen(self.init, v);
            } else if let Some(task) = task {
                // The thread took part in the group stop (do_signal_stop():
                // the last one tells the parent); the core's thread too,
                // dequeuing nothing it has not delivered for real.
                let _ = self.k.get_signal_jobctl(task);
            }
            if let Some(g) = self.threads.get(&tid).map(|t| t.tgid) {
                self.send_cont_proven_after_stop(Some(g));
            }
        } else {
            // A trap (a SIGCONT's notify, the end of a listen): the core's
            // traced task takes it too, and is resumed; an untraced one
            // tells its parent of the continued group, as the real thread
            // did before this trap.
            if let Some(task) = task {
                self.send_cont_after_stop(task);
                if seized {
                    if self.k.get_signal(task) == Ok(taskcore::SignalAction::Stopped) {
                        let _ = self.k.ptrace_cont(self.init, v, 0);
                    }
                } else {
                    let _ = self.k.get_signal_jobctl(task);
                }
            }
            self.resume(tid, 0);
        }
    }

    /// A thread is gone from the real kernel (for its tracer; for the
    /// supervisor's own children, reaped).
    fn on_gone(&mut self, tid: i32, st: i32) {
        if tid == self.command {
            self.command_status = Some(if libc::WIFSIGNALED(st) {
                128 + libc::WTERMSIG(st)
            } else {
                libc::WEXITSTATUS(st)
            });
        }
        self.parked.remove(&tid);
        self.held_prctls.remove(&tid);
        self.group_stops.remove(&tid);
        if self.deaths_seen.len() == DEATHS_KEPT {
            self.deaths_seen.pop_front();
        }
        self.deaths_seen
            .push_back((self.map.to_virtual(tid), self.stops_seen));
        self.vfork_children.remove(&tid);
        // A held vfork parent killed in its stop is gone (its number may
        // come back); one whose child died runs on.
        self.held_vfork_parents.retain(|_, p| *p != tid);
        self.release_vfork_parent(tid);
        // A thread that dies before its first stop (de_thread() may end
        // it so) is still its group's: its tgid is known from its clone.
        self.sending.remove(&tid);
        let gone = self.threads.remove(&tid).or_else(|| {
            self.newborn.remove(&tid).map(|nb| Thread {
                tgid: nb.tgid,
                ..Thread::default()
            })
        });
        let v = self.map.to_virtual(tid);
        let task = self.map.task(tid);
        if task.is_none() && gone.is_none() && !self.unnumbered.remove(&tid) && self.unborn(tid) {
            // Not numbered yet: kept until its creator's clone is applied.
            self.unborn_deaths.insert(tid, st);
            return;
        }
        // A thread that de_thread() ended for a sibling's execve: the
        // core's execve ends it at the exec event.
        let tgid = gone.as_ref().map_or(0, |t| t.tgid);
        if let Some(task) =
            task.filter(|_| libc::WIFSIGNALED(st) && libc::WTERMSIG(st) == libc::SIGKILL)
        {
            self.sigkill_overtook(task);
        }
        if let Some(task) = task.filter(|&t| self.alive(t) && !self.group_in_exec(tid, tgid, st)) {
            // A death no stop showed (a SIGKILL from outside): the clones
            // its group had in flight come first (supervisor/lost.rs).
            self.settle_woken_waits(tid, task, gone.as_ref());
            self.settle_lost_clones(tid, task, gone);
            let sig = if libc::WIFSIGNALED(st) {
                libc::WTERMSIG(st)
            } else {
                libc::SIGKILL
            };
            let _ = self.k.force_fatal_signal(task, sig, libc::WCOREDUMP(st));
            if sig != libc::SIGKILL {
                self.report.not_checked("death not seen at a stop");
            }
        } else if let Some(Thread {
            in_call: Some(ic),
            tgid,
            ..
        }) = gone
        {
            self.lost_clone_of_dead_group(tid, tgid, ic);
        }
        self.map.remove_task(tid);
        if let Some(t) = &mut self.timeline {
            // A leader's death is reported once its group is gone.
            t.exit(v, st & 0xffff);
        }
        self.reap_by_init(v);
        self.note_wakeups();
        self.end_hand_on(tgid);
        if tid == tgid {
            self.pgrp_calls.remove(&v);
            self.resends.forget(v);
        }
    }

    /// The core's init reaps virtual `v` if it is its zombie child (the
    /// supervisor, a real subreaper, reaped it for real).
    fn reap_by_init(&mut self, v: i32) {
        if v > 1 {
            let r = self.k.wait4(self.init, v, WNOHANG | __WALL);
            if let (Some(t), Ok(taskcore::WaitOutcome::Reported(w))) = (&mut self.timeline, r) {
                t.reap(1, w.pid);
            }
        }
    }

    /// Whether the core's `task` is not released yet (it may be exiting
    /// or a zombie: [`taskcore::Kernel::is_exiting`] tells).
    fn alive(&self, task: TaskId) -> bool {
        self.k.getpid(task).is_ok()
    }

    /// Records a disagreement, printing it unless told not to.
    fn diverge(&mut self, tid: i32, call: String, real: String, core: String) {
        let d = Divergence {
            pid: self.map.to_virtual(tid),
            call,
            real,
            core,
        };
        if self.opts.print_divergences {
            eprintln!("taskcore run: DIVERGENCE {d}");
        }
        self.report.divergences.push(d);
        self.log.dump();
    }

    /// Prints a warning once per key.
    fn warn_once(&mut self, key: &'static str, msg: &str) {
        if self.warned.insert(key) {
            eprintln!("taskcore run: warning: {msg}");
        }
    }
}
