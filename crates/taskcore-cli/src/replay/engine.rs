//! The replay engine: drives a [`Kernel`] with one trace's events and
//! checks every recorded result.
//!
//! # Trace order is not kernel order
//! strace prints a line when it handles a tracee's stop, so lines of
//! different tasks can appear in another order than the kernel ran them.
//! The engine reasons about what the recording proves:
//! - A clone is applied at its entry line (its result is known from the
//!   joined event), so a child acting before its parent's `<... clone
//!   resumed>` exists. Events of a task that does not exist yet are held
//!   until the clone that creates it.
//! - Deaths are applied at the `+++ exited` / `+++ killed` line. Under
//!   strace every task is traced, so its real parent can only reap it after
//!   strace has: that line is where the death becomes visible. `exit` and
//!   `exit_group` lines only record the code.
//! - A `kill` takes effect at its completion line; the victim's death or
//!   stop is "unconfirmed" until its own `+++`/`--- stopped` line. A wait
//!   may skip unconfirmed children (the real kernel may not have seen them
//!   yet) but never a confirmed one, and never report a child the core does
//!   not consider ready with exactly the recorded status.
//! - A wait that reports a child whose death the trace prints later pulls
//!   that death forward.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use taskcore::uapi::{__WALL, CLONE_THREAD, P_PID, WEXITED, WNOHANG};
use taskcore::{
    CloneArgs, Config, Errno, Kernel, Notification, SigAction, SigHandler, TaskId, WaitOutcome,
};

use super::op::{Event, Op, Outcome, RecHandler};

/// A number no emulated pid can have: stands for a recorded pid the trace
/// never created.
const UNKNOWN_NR: i32 = 0x7fff_fff0;

/// One reported difference between the recording and the core.
#[derive(Debug, Clone)]
pub(crate) struct Mismatch {
    /// Position in the replay order of the step that found it.
    pub(crate) pos: usize,
    /// Index of the event it concerns.
    pub(crate) event: usize,
    /// Recorded pids whose history may explain it (a wait's recorded child
    /// and the one the core preferred).
    pub(crate) involved: Vec<i32>,
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) what: String,
    pub(crate) recorded: String,
    pub(crate) emulated: String,
}

/// Counters of one replay.
#[derive(Debug, Default, Clone)]
pub(crate) struct Stats {
    pub(crate) events: u64,
    pub(crate) checked: u64,
    pub(crate) tasks: u64,
    pub(crate) peak_live: u64,
    pub(crate) applied: u64,
    /// Lines not modelled, by syscall name.
    pub(crate) skipped: HashMap<String, u64>,
    /// Modelled lines whose result cannot be checked (interrupted calls,
    /// external pids), by syscall name.
    pub(crate) unchecked: HashMap<String, u64>,
    pub(crate) mismatches: Vec<Mismatch>,
}

/// What the engine knows of a recorded task.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    task: TaskId,
    /// Its thread group leader's recorded tid, when known.
    dead: bool,
}

pub(crate) struct Engine<'a> {
    /// The emulated strace: tracer of dying processes until their `+++`.
    strace: TaskId,
    /// Recorded tid -> emulated number of the leader strace seized as it
    /// died, until strace has reaped it.
    dying_leader: HashMap<i32, i32>,
    /// Emulated tgids whose current image's program break is known.
    pub(super) brk_known: HashSet<i32>,
    /// Position in the replay order of the current step.
    pos: usize,
    /// Emulated numbers of the processes outside the trace.
    outside: Vec<i32>,
    /// The process group the traced root started in (strace's job).
    root_pgid: i32,
    pub(super) k: Kernel,
    init: TaskId,
    pub(super) events: &'a [Event],
    /// Recorded tid -> emulated task (latest holder of that tid).
    tasks: HashMap<i32, Tracked>,
    /// Recorded pid -> emulated number (kept after death: pgids, sids).
    nr: HashMap<i32, i32>,
    /// Emulated number -> recorded pid.
    pub(super) rev_nr: HashMap<i32, i32>,
    /// Emulated task -> recorded tid.
    by_task: HashMap<TaskId, i32>,
    /// Exit status words from `Exited` notifications.
    exit_codes: HashMap<TaskId, i32>,
    /// Pending `exit(code)` of a recorded tid.
    pending_exit: HashMap<i32, i32>,
    /// Pending `exit_group(code)` by a recorded tid, keyed by its leader
    /// task.
    pending_group_exit: HashMap<TaskId, (i32, i32)>,
    /// Tasks dead in the core whose `+++` line has not been seen.
    pub(super) unconfirmed_dead: HashSet<TaskId>,
    /// Groups (leader tasks) stopped by a kill whose `--- stopped` line has
    /// not been seen.
    pub(super) unconfirmed_stop: HashSet<TaskId>,
    /// Events held until their task exists, by recorded tid.
    pub(super) held: HashMap<i32, Vec<usize>>,
    /// Events already applied out of order (pulled forward).
    pub(super) consumed: HashSet<usize>,
    /// Leaders whose pid a thread's exec took over (its `<... execve
    /// resumed>` is already applied).
    superseded: HashSet<i32>,
    /// Children of clones whose creator died before the call returned
    /// (`= ?`), recognised by their first lines: clone event -> child tid.
    inferred: HashMap<usize, i32>,
    /// Per recorded tid, indices of its `+++`/`--- stopped` events.
    pub(super) terminal: HashMap<i32, Vec<usize>>,
    pub(crate) stats: Stats,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(events: &'a [Event]) -> Engine<'a> {
        let mut k = Kernel::new(Config {
            pid_max: taskcore::uapi::PID_MAX_LIMIT,
            core_dumps: true,
            ..Config::default()
        })
        .expect("valid config");
        k.set_probes(std::sync::Arc::clone(super::probe::probes()));
        let init = k.init_task().expect("init exists");
        let inferred = infer_lost_clones(events);
        let mut terminal: HashMap<i32, Vec<usize>> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            if matches!(
                e.op,
                Op::Exited { .. } | Op::Killed { .. } | Op::Stopped { .. }
            ) {
                terminal.entry(e.pid).or_default().push(i);
            }
        }
        Engine {
            strace: init,
            dying_leader: HashMap::new(),
            brk_known: HashSet::new(),
            pos: 0,
            outside: Vec::new(),
            root_pgid: 1,
            k,
            init,
            events,
            tasks: HashMap::new(),
            nr: HashMap::new(),
            rev_nr: HashMap::new(),
            by_task: HashMap::new(),
            exit_codes: HashMap::new(),
            pending_exit: HashMap::new(),
            pending_group_exit: HashMap::new(),
            unconfirmed_dead: HashSet::new(),
            unconfirmed_stop: HashSet::new(),
            held: HashMap::new(),
            consumed: HashSet::new(),
            superseded: HashSet::new(),
            inferred,
            terminal,
            stats: Stats::default(),
        }
    }

    /// The emulated process table.
    pub(crate) fn kernel(&self) -> &Kernel {
        &self.k
    }

    /// A copy of the engine and its kernel (a snapshot for the search).
    pub(crate) fn snapshot(&self) -> Engine<'a> {
        Engine {
            strace: self.strace,
            dying_leader: self.dying_leader.clone(),
            brk_known: self.brk_known.clone(),
            pos: self.pos,
            outside: self.outside.clone(),
            root_pgid: self.root_pgid,
            k: self.k.snapshot(),
            init: self.init,
            events: self.events,
            tasks: self.tasks.clone(),
            nr: self.nr.clone(),
            rev_nr: self.rev_nr.clone(),
            by_task: self.by_task.clone(),
            exit_codes: self.exit_codes.clone(),
            pending_exit: self.pending_exit.clone(),
            pending_group_exit: self.pending_group_exit.clone(),
            unconfirmed_dead: self.unconfirmed_dead.clone(),
            unconfirmed_stop: self.unconfirmed_stop.clone(),
            held: self.held.clone(),
            consumed: self.consumed.clone(),
            superseded: self.superseded.clone(),
            inferred: self.inferred.clone(),
            terminal: self.terminal.clone(),
            stats: self.stats.clone(),
        }
    }

    /// The default replay order: clones at their entry line (their result
    /// is known), everything else at the line that completed it.
    pub(crate) fn default_order(events: &[Event]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..events.len()).collect();
        order.sort_by_key(|&i| (Self::key(&events[i]), i));
        order
    }

    /// Where an event is placed by default (see [`Self::default_order`]).
    pub(crate) fn key(e: &Event) -> usize {
        match e.op {
            Op::Clone { .. } => e.entry_line,
            _ => e.line,
        }
    }

    /// Creates the world the trace ran in and the traced root. strace ran
    /// as a job of a shell: init -> shell (its own session) -> strace (its
    /// own process group, ignoring signals) -> the traced root. These
    /// outside processes stand for every pid the trace never created.
    pub(crate) fn start(&mut self) {
        let Some(first) = self.events.first() else {
            return;
        };
        let k = &mut self.k;
        let shell = k.fork(self.init).expect("fork of init");
        k.setsid(shell).expect("setsid of a fresh process");
        let job = k.fork(shell).expect("fork of the shell");
        k.setpgid(job, 0, 0).expect("setpgid of a fresh process");
        for sig in 1..=64 {
            if !taskcore::uapi::sig_kernel_only(sig) {
                let ign = SigAction {
                    handler: SigHandler::Ignore,
                    flags: 0,
                };
                k.rt_sigaction(job, sig, Some(ign)).expect("valid signal");
            }
        }
        k.set_comm(shell, b"sh").expect("live");
        k.set_comm(job, b"strace").expect("live");
        let root = k.fork(job).expect("fork of the job");
        self.strace = job;
        for sig in 1..=64 {
            if !taskcore::uapi::sig_kernel_only(sig) {
                k.rt_sigaction(root, sig, Some(SigAction::DEFAULT))
                    .expect("valid signal");
            }
        }
        for t in [self.init, shell, job] {
            let nr = k.pid_vnr(self.init, t).expect("live");
            self.outside.push(nr);
        }
        self.root_pgid = k.getpgid(root, 0).expect("live");
        k.take_notifications();
        self.adopt(first.pid, root);
    }

    /// Applies event `i` as the `pos`-th step of the replay.
    pub(crate) fn step(&mut self, pos: usize, i: usize) {
        self.pos = pos;
        let ts = self.events[i].ts;
        if let Some(t0) = self.events.first().map(|e| e.ts) {
            if ts >= t0 {
                self.k.set_time(((ts - t0) * 1e9) as u64);
            }
        }
        // Synthetic death events are not lines of the trace.
        if !matches!(self.events[i].op, Op::Die { .. }) {
            self.stats.events += 1;
        }
        if !self.consumed.contains(&i) {
            self.dispatch(i);
        }
    }

    /// Counts events still held (their task was never created).
    pub(crate) fn finish(&mut self) {
        for held in self.held.values() {
            for &i in held {
                let name = format!("{} (task never created)", self.events[i].op.name());
                *self.stats.unchecked.entry(name).or_default() += 1;
            }
        }
        self.held.clear();
    }

    /// Records that recorded tid `rec` is emulated by `task`.
    fn adopt(&mut self, rec: i32, task: TaskId) {
        let nr = self.k.pid_vnr(self.init, task).expect("live task");
        self.tasks.insert(rec, Tracked { task, dead: false });
        if let Some(old) = self.nr.insert(rec, nr) {
            self.rev_nr.remove(&old);
        }
        self.rev_nr.insert(nr, rec);
        self.by_task.insert(task, rec);
        self.stats.tasks += 1;
        self.stats.peak_live = self.stats.peak_live.max(self.k.nr_tasks() as u64);
    }

    pub(super) fn dispatch(&mut self, i: usize) {
        let e = &self.events[i];
        if std::env::var_os("TASKCORE_REPLAY_DEBUG").is_some() {
            eprintln!(
                "[pos {}] line {} pid {} {:?} = {:?}",
                self.pos, e.line, e.pid, e.op, e.ret
            );
        }
        let Some(tr) = self.tasks.get(&e.pid).copied() else {
            self.held.entry(e.pid).or_default().push(i);
            return;
        };
        if tr.dead
            && !matches!(
                e.op,
                Op::Die { .. }
                    | Op::Exited { .. }
                    | Op::Killed { .. }
                    | Op::Signal { .. }
                    | Op::Stopped { .. }
            )
        {
            // Lines a task prints between its death in the core (a kill
            // applied at the sender's line) and its `+++` line.
            *self
                .stats
                .unchecked
                .entry(format!("{} (after death)", e.op.name()))
                .or_default() += 1;
            return;
        }
        self.apply(i, tr.task);
        self.drain();
    }

    /// Processes notifications raised by the last core call.
    pub(super) fn drain(&mut self) {
        let debug = std::env::var_os("TASKCORE_REPLAY_DEBUG").is_some();
        for n in self.k.take_notifications() {
            if debug {
                eprintln!("  [pos {}] {n:?}", self.pos);
            }
            if let Notification::Stopped { group, .. } = n {
                self.unconfirmed_stop.insert(group);
            }
            if let Notification::Continued { group } = n {
                self.unconfirmed_stop.remove(&group);
            }
            if let Notification::Exited { task, exit_code } = n {
                self.exit_codes.insert(task, exit_code);
                if let Some(rec) = self.by_task.get(&task).copied() {
                    if let Some(t) = self.tasks.get_mut(&rec) {
                        if t.task == task {
                            t.dead = true;
                        }
                    }
                }
                self.unconfirmed_dead.insert(task);
            }
        }
    }

    pub(super) fn mismatch(&mut self, i: usize, what: &str, recorded: String, emulated: String) {
        let e = &self.events[i];
        self.stats.mismatches.push(Mismatch {
            pos: self.pos,
            event: i,
            involved: Vec::new(),
            file: e.file.to_string(),
            line: e.line,
            what: format!("{} by {}: {}", e.op.name(), e.pid, what),
            recorded,
            emulated,
        });
    }

    pub(super) fn unchecked(&mut self, i: usize) {
        let name = self.events[i].op.name().to_string();
        *self.stats.unchecked.entry(name).or_default() += 1;
    }

    /// Emulated number of recorded pid `rec` (for syscall arguments).
    pub(super) fn map_nr(&self, rec: i32) -> i32 {
        self.nr.get(&rec).copied().unwrap_or(UNKNOWN_NR)
    }

    /// Whether emulated number `nr` stands for recorded value `rec` in a
    /// result: the same task, or (for a number the trace never created)
    /// the outside world, which init stands for.
    fn same_id(&self, rec: i64, nr: i32) -> bool {
        match self.nr.get(&(rec as i32)) {
            Some(&n) => n == nr,
            None => self.outside.contains(&nr) || (rec == 0 && nr == 0),
        }
    }

    fn errno_result<T>(r: &taskcore::Result<T>) -> Option<Errno> {
        r.as_ref().err().copied()
    }

    fn apply(&mut self, i: usize, cur: TaskId) {
        let e = self.events[i].clone();
        match e.op {
            Op::Clone { flags, exit_signal } => self.do_clone(i, cur, flags, exit_signal, &e.ret),
            Op::Execve { .. } if e.ret == Outcome::Value(0) && self.superseded.remove(&e.pid) => {
                // Applied at the `+++ superseded` line.
            }
            Op::Execve { ref path, ref argv } => {
                if e.ret == Outcome::Value(0) {
                    if let Ok(tgid) = self.k.getpid(cur) {
                        self.brk_known.remove(&tgid);
                    }
                    let args: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
                    match self.k.execve_argv(cur, path, &args) {
                        Ok(()) => self.stats.applied += 1,
                        Err(err) => self.mismatch(i, "execve", "0".into(), err.name().into()),
                    }
                    self.stats.checked += 1;
                } else {
                    self.unchecked(i);
                }
            }
            Op::Exit { code } => {
                self.pending_exit.insert(e.pid, code);
            }
            Op::ExitGroup { code } => {
                if let Ok(leader) = self.leader_of(cur) {
                    self.pending_group_exit
                        .entry(leader)
                        .or_insert((e.pid, code));
                }
            }
            Op::Die { code, sig } => self.die(i, e.pid, code, sig),
            Op::Exited { code } => self.do_death(i, e.pid, Some(code), None),
            Op::Killed { sig, core } => self.do_death(i, e.pid, None, Some((sig, core))),
            Op::Stopped { sig } => {
                if let Ok(leader) = self.leader_of(cur) {
                    if !self.unconfirmed_stop.remove(&leader) {
                        // A stop from outside the trace (terminal, untraced
                        // sender), or one already confirmed: deliver it; a
                        // stopped group ignores it.
                        let _ = self.k.send_signal(cur, sig);
                        self.drain();
                        self.unconfirmed_stop.remove(&leader);
                    }
                }
            }
            Op::Signal { .. } => {}
            Op::Superseded { by } => {
                // Thread `by` exec'd and took over this leader's pid.
                if let Some(t) = self.tasks.get(&by).copied().filter(|t| !t.dead) {
                    self.stats.checked += 1;
                    match self.k.execve(t.task, "") {
                        Ok(()) => {
                            self.tasks.remove(&by);
                            self.tasks.insert(e.pid, t);
                            self.by_task.insert(t.task, e.pid);
                            self.superseded.insert(e.pid);
                        }
                        Err(err) => {
                            self.mismatch(i, "execve by a thread", "0".into(), err.name().into())
                        }
                    }
                }
            }
            Op::Wait4 {
                pid,
                status,
                options,
            } => self.do_wait4(i, cur, pid, status, options, &e.ret),
            Op::Waitid {
                idtype,
                id,
                info,
                options,
            } => self.do_waitid(i, cur, idtype, id, info, options, &e.ret),
            Op::Setpgid { pid, pgid } => {
                let p = self.arg_nr(pid);
                let g = if pgid > 0 { self.map_pgid(pgid) } else { pgid };
                let r = self.k.setpgid(cur, p, g);
                self.check_unit(i, r, &e.ret);
            }
            Op::Setsid => {
                let r = self.k.setsid(cur);
                self.check_id(i, r, &e.ret);
            }
            Op::Getpgid { pid } => {
                let r = self.k.getpgid(cur, self.arg_nr(pid));
                self.check_id(i, r, &e.ret);
            }
            Op::Getsid { pid } => {
                let r = self.k.getsid(cur, self.arg_nr(pid));
                self.check_id(i, r, &e.ret);
            }
            Op::Getppid => {
                let r = self.k.getppid(cur);
                self.check_id(i, r, &e.ret);
            }
            Op::Kill { pid, sig } => {
                self.learn_core_dumps(i, sig);
                if self.external_target(pid) {
                    self.unchecked(i);
                    return;
                }
                let r = self.k.kill(cur, self.arg_nr(pid), sig);
                self.check_unit(i, r, &e.ret);
            }
            Op::Tgkill { tgid, tid, sig } => {
                self.learn_core_dumps(i, sig);
                if self.external_target(tid) {
                    self.unchecked(i);
                    return;
                }
                let r = self.k.tgkill(cur, self.arg_nr(tgid), self.arg_nr(tid), sig);
                self.check_unit(i, r, &e.ret);
            }
            Op::Tkill { tid, sig } => {
                self.learn_core_dumps(i, sig);
                if self.external_target(tid) {
                    self.unchecked(i);
                    return;
                }
                let r = self.k.tkill(cur, self.arg_nr(tid), sig);
                self.check_unit(i, r, &e.ret);
            }
            Op::RtSigaction { sig, act, old } => self.do_sigaction(i, cur, sig, act, old, &e.ret),
            Op::SetChildSubreaper { on } => {
                if e.ret == Outcome::Value(0) {
                    let r = self.k.set_child_subreaper(cur, on);
                    self.check_unit(i, r, &e.ret);
                } else {
                    self.unchecked(i);
                }
            }
            Op::GetChildSubreaper { value } => match (value, self.k.child_subreaper(cur)) {
                (Some(v), Ok(on)) if e.ret == Outcome::Value(0) => {
                    self.stats.checked += 1;
                    if (v != 0) != on {
                        self.mismatch(i, "subreaper", v.to_string(), on.to_string());
                    }
                }
                _ => self.unchecked(i),
            },
            Op::Mmap { .. }
            | Op::Munmap { .. }
            | Op::Mprotect { .. }
            | Op::Mremap { .. }
            | Op::Brk { .. } => self.apply_memory(i, cur, e.pid),
            Op::Other { ref name } => {
                *self.stats.skipped.entry(name.clone()).or_default() += 1;
            }
        }
    }

    fn leader_of(&self, t: TaskId) -> taskcore::Result<TaskId> {
        let pid = self.k.getpid(t)?;
        self.k.find_task_by_vpid(t, pid)
    }

    /// Whether a core-dumping signal dumps core depends on rlimits the trace
    /// does not show; the recording says what happened: the next death by
    /// that signal tells.
    fn learn_core_dumps(&mut self, i: usize, sig: i32) {
        if !taskcore::uapi::sig_kernel_coredump(sig) {
            return;
        }
        let line = self.events[i].line;
        let next = self.events[i..].iter().find_map(|e| match e.op {
            Op::Killed { sig: s, core } if s == sig && e.line > line => Some(core),
            _ => None,
        });
        if let Some(core) = next {
            self.k.set_core_dumps(core);
        }
    }

    /// A signal target (pid encoding as kill takes it) the trace never
    /// created: its result depends on processes outside the recording.
    fn external_target(&self, pid: i32) -> bool {
        match pid {
            0 | -1 => false,
            p if p > 0 => !self.nr.contains_key(&p),
            p => !self.nr.contains_key(&-p),
        }
    }

    /// Translates a pid argument (with kill/wait4 sign encodings).
    fn arg_nr(&self, pid: i32) -> i32 {
        match pid {
            0 | -1 => pid,
            p if p > 0 => self.map_nr(p),
            p if p == i32::MIN => p,
            p => -self.map_pgid(-p),
        }
    }

    /// Emulated number of a recorded process-group or session id. An id the
    /// trace never created is one the traced root inherited from outside
    /// (strace's own group or session), which init's (1) stands for.
    pub(super) fn map_pgid(&self, rec: i32) -> i32 {
        self.nr.get(&rec).copied().unwrap_or(self.root_pgid)
    }

    fn check_unit(&mut self, i: usize, r: taskcore::Result<()>, rec: &Outcome) {
        match (rec, Self::errno_result(&r)) {
            (Outcome::Unknown | Outcome::Interrupted | Outcome::Died, _) => self.unchecked(i),
            (Outcome::Value(0), None) => self.stats.checked += 1,
            (Outcome::Errno(a), Some(b)) if *a == b => self.stats.checked += 1,
            (rec, got) => {
                self.stats.checked += 1;
                let emu = got.map_or("0".to_string(), |e| e.name().to_string());
                self.mismatch(i, "result", fmt_outcome(rec), emu);
            }
        }
    }

    fn check_id(&mut self, i: usize, r: taskcore::Result<i32>, rec: &Outcome) {
        match (rec, &r) {
            (Outcome::Unknown | Outcome::Interrupted | Outcome::Died, _) => self.unchecked(i),
            (Outcome::Value(v), Ok(nr)) if self.same_id(*v, *nr) => self.stats.checked += 1,
            (Outcome::Errno(a), Err(b)) if a == b => self.stats.checked += 1,
            (rec, got) => {
                self.stats.checked += 1;
                let emu = match got {
                    Ok(nr) => format!("{nr} (recorded pid {:?})", self.rev_nr.get(nr)),
                    Err(e) => e.name().to_string(),
                };
                self.mismatch(i, "result", fmt_outcome(rec), emu);
            }
        }
    }

    fn do_clone(&mut self, i: usize, cur: TaskId, flags: u64, exit_signal: i32, ret: &Outcome) {
        let child = match (ret, self.inferred.get(&i)) {
            (Outcome::Value(child), _) => *child as i32,
            (_, Some(&child)) => {
                // The child exists though its creator never saw the result.
                self.unchecked(i);
                self.stats.checked = self.stats.checked.wrapping_sub(1);
                child
            }
            _ => {
                self.unchecked(i);
                return;
            }
        };
        // Linux never hands out a number still in use: the previous holder
        // of the recorded pid must be gone in the core too.
        if let Some(&old_nr) = self.nr.get(&child) {
            if self.k.pid_in_use(self.init, old_nr).unwrap_or(false) {
                self.mismatch(
                    i,
                    "pid reuse",
                    format!("{child} reused"),
                    format!("emulated {old_nr} still in use"),
                );
            }
        }
        let args = CloneArgs {
            flags,
            exit_signal: if flags & CLONE_THREAD != 0 {
                0
            } else {
                exit_signal
            },
            set_tid: Vec::new(),
        };
        self.stats.checked += 1;
        match self.k.clone(cur, &args) {
            Ok(t) => {
                self.stats.applied += 1;
                if flags & CLONE_THREAD == 0 {
                    let (p, c) = (self.k.getpid(cur), self.k.getpid(t));
                    if let (Ok(p), Ok(c)) = (p, c) {
                        if self.brk_known.contains(&p) {
                            self.brk_known.insert(c);
                        } else {
                            self.brk_known.remove(&c);
                        }
                    }
                }
                self.adopt(child, t);
                self.drain();
                if let Some(held) = self.held.remove(&child) {
                    for h in held {
                        self.dispatch(h);
                    }
                }
            }
            Err(err) => self.mismatch(i, "clone", child.to_string(), err.name().into()),
        }
    }

    /// A `+++` line: apply the death if the core has not, then check it.
    /// The `do_exit` of recorded task `rec`: the process's leader, when the
    /// whole process is ending, is first seized by the emulated strace, so
    /// that its zombie stays invisible to its parent until strace reaps it
    /// at the `+++` line.
    fn die(&mut self, i: usize, rec: i32, code: Option<i32>, sig: Option<(i32, bool)>) {
        let Some(tr) = self.tasks.get(&rec).copied() else {
            return;
        };
        if tr.dead {
            return;
        }
        let leader = self.leader_of(tr.task).ok();
        let group_ending = leader.is_some_and(|l| {
            l == tr.task || self.pending_group_exit.contains_key(&l) || sig.is_some()
        });
        if let (Some(l), true) = (leader, group_ending) {
            if let Ok(nr) = self.k.pid_vnr(self.strace, l) {
                // EPERM when the program traces it itself: then unseized.
                let _ = self.k.ptrace_attach(self.strace, nr, true);
                self.dying_leader.insert(rec, nr);
            }
        }
        self.apply_death(i, rec, tr.task, leader, code, sig);
        self.drain();
    }

    /// Applies the death of `task` (recorded `rec`): a pending exit_group of
    /// its process, a fatal signal, or its own exit.
    fn apply_death(
        &mut self,
        i: usize,
        rec: i32,
        task: TaskId,
        leader: Option<TaskId>,
        code: Option<i32>,
        sig: Option<(i32, bool)>,
    ) {
        let tr = Tracked { task, dead: false };
        {
            let group = leader.and_then(|l| self.pending_group_exit.remove(&l));
            let r = if let Some((caller, c)) = group {
                let who = self
                    .tasks
                    .get(&caller)
                    .filter(|t| !t.dead)
                    .map_or(tr.task, |t| t.task);
                self.k.exit_group(who, c)
            } else if let Some((s, core)) = sig {
                self.k.force_fatal_signal(tr.task, s, core)
            } else if let Some(c) = self.pending_exit.remove(&rec) {
                self.k.exit(tr.task, c)
            } else {
                self.k.exit(tr.task, code.unwrap_or(0))
            };
            if let Err(e) = r {
                self.mismatch(i, "death", "task alive".into(), e.name().into());
            }
        }
    }

    /// A `+++` line: the death is applied if it was not yet, strace reaps
    /// the process's zombie so that its parent sees it, and the status is
    /// checked.
    fn do_death(&mut self, i: usize, rec: i32, code: Option<i32>, sig: Option<(i32, bool)>) {
        let Some(tr) = self.tasks.get(&rec).copied() else {
            return;
        };
        if !tr.dead {
            let leader = self.leader_of(tr.task).ok();
            self.apply_death(i, rec, tr.task, leader, code, sig);
            self.drain();
        }
        // strace reaps what it seized: now, or (a leader waiting for its
        // threads) at a later `+++` line.
        let seized: Vec<(i32, i32)> = self.dying_leader.iter().map(|(&r, &n)| (r, n)).collect();
        for (r, nr) in seized {
            if r != rec && self.tasks.get(&r).is_some_and(|t| !t.dead) {
                continue;
            }
            let w = self
                .k
                .waitid(self.strace, P_PID, nr, WEXITED | __WALL | WNOHANG);
            match w {
                Ok(WaitOutcome::NothingYet) => {}
                _ => {
                    self.dying_leader.remove(&r);
                }
            }
        }
        self.drain();
        self.unconfirmed_dead.remove(&tr.task);
        let want = match (code, sig) {
            (Some(c), _) => (c & 0xff) << 8,
            (None, Some((s, core))) => s | if core { 0x80 } else { 0 },
            _ => 0,
        };
        self.stats.checked += 1;
        match self.exit_codes.get(&tr.task) {
            Some(&got) if got == want => {}
            Some(&got) => {
                self.mismatch(i, "exit status", format!("{want:#x}"), format!("{got:#x}"))
            }
            None => self.mismatch(i, "exit status", format!("{want:#x}"), "no exit".into()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn do_sigaction(
        &mut self,
        i: usize,
        cur: TaskId,
        sig: i32,
        act: Option<(RecHandler, u64)>,
        old: Option<RecHandler>,
        ret: &Outcome,
    ) {
        let act = act.map(|(h, flags)| SigAction {
            handler: match h {
                RecHandler::Dfl => SigHandler::Default,
                RecHandler::Ign => SigHandler::Ignore,
                RecHandler::Handler => SigHandler::Handler,
            },
            flags,
        });
        let r = self.k.rt_sigaction(cur, sig, act);
        self.stats.applied += 1;
        match (ret, &r) {
            (Outcome::Unknown | Outcome::Interrupted | Outcome::Died, _) => self.unchecked(i),
            (Outcome::Value(0), Ok(prev)) => {
                self.stats.checked += 1;
                if let Some(o) = old {
                    let got = match prev.handler {
                        SigHandler::Default => RecHandler::Dfl,
                        SigHandler::Ignore => RecHandler::Ign,
                        SigHandler::Handler => RecHandler::Handler,
                    };
                    if got != o {
                        self.mismatch(i, "old action", format!("{o:?}"), format!("{got:?}"));
                    }
                }
            }
            (Outcome::Errno(a), Err(b)) if a == b => self.stats.checked += 1,
            (rec, got) => {
                self.stats.checked += 1;
                self.mismatch(i, "result", fmt_outcome(rec), format!("{got:?}"));
            }
        }
    }
}

/// Clones whose creator died before they returned (`= ?`) still made a
/// child: the first task that appears afterwards without being created by
/// any clone of the trace. Returns clone event index -> child tid.
pub(super) fn infer_lost_clones(events: &[Event]) -> HashMap<usize, i32> {
    let mut created: HashSet<i32> = HashSet::new();
    if let Some(first) = events.first() {
        created.insert(first.pid);
    }
    for e in events {
        if let (Op::Clone { .. }, Outcome::Value(v)) = (&e.op, &e.ret) {
            created.insert(*v as i32);
        }
    }
    let mut lost: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.op, Op::Clone { .. }) && e.ret == Outcome::Died)
        .map(|(i, _)| i)
        .collect();
    lost.sort_by_key(|&i| events[i].entry_line);
    let mut out = HashMap::new();
    let mut seen = HashSet::new();
    for e in events {
        if created.contains(&e.pid) || !seen.insert(e.pid) {
            continue;
        }
        // The earliest lost clone that began before this task's first line.
        if let Some(pos) = lost.iter().position(|&c| events[c].entry_line < e.line) {
            let c = lost.remove(pos);
            out.insert(c, e.pid);
        }
    }
    out
}

fn fmt_outcome(o: &Outcome) -> String {
    let mut s = String::new();
    match o {
        Outcome::Value(v) => write!(s, "{v}").ok(),
        Outcome::Errno(e) => write!(s, "{}", e.name()).ok(),
        Outcome::Unknown => write!(s, "?").ok(),
        Outcome::Interrupted => write!(s, "interrupted").ok(),
        Outcome::Died => write!(s, "? (died)").ok(),
    };
    s
}
