//! The replay engine: drives a [`Kernel`] with one trace's events and
//! checks every recorded result.
//!
//! The engine's state is split by concept:
//! - [`pidmap`]: recorded thread ids and group ids to emulated tasks and
//!   numbers, including pid reuse and the outside world;
//! - [`world`]: the processes the trace ran in (init, a shell, strace);
//! - [`deaths`]: the two moments of a death under strace;
//! - [`waits`]: wait results, allowing for timing strace cannot show;
//! - [`memory`]: the memory syscalls;
//! - [`signals`]: the signal state (masks seen, handler frames, sleeping
//!   waits) and the `--- SIGxxx` lines (delivered there with
//!   `get_signal`);
//! - [`sigcalls`]: the signal calls (rt_sigaction, masks, pending sets,
//!   signal waits, rt_sig(tg)queueinfo, rt_sigreturn), ptrace under
//!   strace;
//! - [`report`]: counters and mismatches; [`checks`]: the result checks;
//! - [`learned`]: state from before the trace (dispositions, masks,
//!   limits, capabilities, groups), learned at its first read (what is
//!   known of it: [`known`]);
//! - [`records`]: per-process records and timeline marks, kept by
//!   [`recorder`];
//! - [`consumed`]: signals consumed where the trace cannot see (signalfd);
//! - [`frames`]: handler frames an order the recording allows never set
//!   up (another thread's `rt_sigaction` open at the `---` line);
//! - [`procapi`]: pidfds, namespaces, credentials, limits;
//! - [`pidns`]: callers in nested pid namespaces;
//! - [`userns`]: the writes of `/proc/PID/uid_map`, `gid_map`, `setgroups`;
//! - [`calls`]: the recorded system calls, each handed to its family's
//!   module, which maps its numbers to the emulation's and applies it
//!   through [`taskcore::sys::dispatch`];
//! - [`lifecycle`]: clone, execve, exit, process groups and sessions,
//!   kill;
//! - this module: dispatching one event.
//!
//! The types of the engine's fields stand below this module and import
//! nothing that imports it ([`state`], [`known`], [`pidmap`], [`records`],
//! [`report`], [`sigwait`]); each concept's behaviour is an `impl Engine`
//! in its module, above it.
//!
//! # Trace order is not kernel order
//! strace prints a line when it handles a tracee's stop, so lines of
//! different tasks can appear in another order than the kernel ran them.
//! The engine reasons about what the recording proves:
//! - A clone is applied at its entry line (its result is known from the
//!   joined event), so a child acting before its parent's `<... clone
//!   resumed>` exists. Events of a task that does not exist yet are held
//!   until the clone that creates it.
//! - Deaths are two moments: `do_exit` somewhere in the task's last window,
//!   and its visibility at the `+++` line, when strace reaps it (see
//!   [`deaths`]).
//! - A `kill` takes effect at its completion line; the victim's death or
//!   stop is "unconfirmed" until its own `+++`/`--- stopped` line. A wait
//!   may skip unconfirmed children (the real kernel may not have seen them
//!   yet) but never a confirmed one, and never report a child the core does
//!   not consider ready with exactly the recorded status.
//! - The engine never looks ahead: what later lines show reaches it as
//!   the planner's facts attached to an event (`plan.rs`, `facts.rs`),
//!   and the order it is given already has the happens-before constraints
//!   the trace shows (a wait after the death it reports, a `---` line
//!   after its sender, see `replayer.rs`). When it finds a signal taken
//!   that no applied call sent and the facts name a later line that did,
//!   it says so ([`Engine::take_wants`]) and applies nothing out of turn.
//!
//! # Memory
//! Everything the engine keeps is bounded by the tasks alive (or still
//! referable: zombies, process groups) plus the events held for tasks not
//! created yet: entries of
//! reaped tasks whose numbers the emulation no longer uses are dropped (see
//! [`pidmap::PidMap::sweep`]).

mod calls;
mod caps;
mod checks;
mod consumed;
mod deaths;
mod frames;
mod known;
mod learned;
mod lifecycle;
mod memory;
mod notation;
pub(crate) mod pidmap;
mod pidns;
mod procapi;
mod recorder;
pub(crate) mod records;
pub(crate) mod report;
mod sigcalls;
mod signals;
mod sigwait;
mod state;
mod strace;
mod uaccess;
mod userns;
mod waits;
mod world;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use taskcore::{Config, Kernel, Notification, TaskId};

use crate::event::{Call, Event, Kind, Outcome};
use crate::facts::Facts;
use pidmap::PidMap;
pub(crate) use report::{Mismatch, Stats};

/// An event with the facts the planner attached to it.
type Planned = (Arc<Event>, Arc<Facts>);

/// How often (in steps) entries of reaped tasks are swept.
const SWEEP_EVERY: u64 = 256;

/// The replay state of one trace: the emulated kernel and what the engine
/// knows of the recorded tasks. Cloned whole for the order search's
/// checkpoints ([`Engine::snapshot`]); its size is bounded by the live
/// tasks, not by the trace.
pub(crate) struct Engine {
    pub(crate) k: Kernel,
    /// The processes the trace ran in (see [`world`]).
    world: state::World,
    /// Recorded ids to emulated ones (see [`pidmap`]).
    pub(crate) pids: PidMap,
    /// The two moments of each death under strace (see [`deaths`]).
    deaths: state::Deaths,
    /// What the memory calls need to know (see [`memory`]).
    mem: state::Mem,
    /// Signal masks, frames and interrupted calls (see [`signals`]).
    sig: state::SigState,
    /// pidfd tables and known limits (see [`procapi`]).
    proc: state::ProcState,
    /// What the trace has set or shown of state from before it (see
    /// [`learned`]).
    learned: known::Learned,
    /// Per-process records (see [`records`]).
    pub(crate) rec: records::Records,
    pub(crate) stats: Stats,
    /// Position in the replay order of the current step.
    pos: u64,
    /// Timestamp of the first event (the emulated clock's origin).
    t0: Option<f64>,
    /// Events held until their task exists (with their facts), by
    /// recorded tid.
    held: HashMap<i32, Vec<Planned>>,
    /// The planner's facts of the event being applied.
    facts: Arc<Facts>,
    /// Later lines the event applied last (its sequence number) needed
    /// before it (see [`Engine::take_wants`]).
    wants: Option<(u64, Vec<(usize, u64)>)>,
}

impl Engine {
    /// An engine with the world of [`world`] not yet created (see
    /// [`Engine::start`]). `look` is the window of events read so far.
    pub(crate) fn new(probes: Arc<taskcore::probe::ProbeSet>, records: bool) -> Self {
        let mut k = Kernel::new(Config {
            pid_max: taskcore::uapi::PID_MAX_LIMIT,
            core_dumps: true,
            ..Config::default()
        })
        .expect("PID_MAX_LIMIT is a valid pid_max");
        k.set_probes(probes);
        // Threads take signals at their `---` lines (see `signals`).
        k.set_signal_delivery(taskcore::SignalDelivery::OnGetSignal);
        let init = k.init_task().expect("a new kernel has init");
        Engine {
            k,
            world: state::World {
                init,
                strace: init,
                resumed: None,
                exit_resumed: None,
                stopped_with: None,
                defer_stop: None,
                held_stops: Vec::new(),
                outside: Vec::new(),
                inherited_pgid: 0,
            },
            pids: PidMap::default(),
            deaths: state::Deaths::default(),
            mem: state::Mem::default(),
            sig: state::SigState::default(),
            proc: state::ProcState::default(),
            learned: known::Learned::default(),
            rec: records::Records {
                on: records,
                ..records::Records::default()
            },
            stats: Stats::default(),
            pos: 0,
            t0: None,
            held: HashMap::default(),
            facts: Arc::clone(Facts::none()),
            wants: None,
        }
    }

    /// The emulated process table.
    pub(crate) fn kernel(&self) -> &Kernel {
        &self.k
    }

    /// A copy of the engine and its kernel (a checkpoint for the search):
    /// O(live tasks).
    pub(crate) fn snapshot(&self) -> Engine {
        Engine {
            k: self.k.snapshot(),
            world: self.world.clone(),
            pids: self.pids.clone(),
            deaths: self.deaths.clone(),
            mem: self.mem.clone(),
            sig: self.sig.clone(),
            proc: self.proc.clone(),
            learned: self.learned.clone(),
            rec: self.rec.clone(),
            stats: self.stats.clone(),
            pos: self.pos,
            t0: self.t0,
            held: self.held.clone(),
            facts: Arc::clone(&self.facts),
            wants: None,
        }
    }

    /// Where an event is placed by default ([`Event::key`]).
    pub(crate) fn key(e: &Event) -> usize {
        e.key()
    }

    /// Applies `ev`, with the facts the planner attached to it, as the
    /// `pos`-th step of the replay.
    pub(crate) fn step(&mut self, pos: u64, ev: &Arc<Event>, facts: &Arc<Facts>) {
        self.pos = pos;
        self.wants = None;
        if self.t0.is_none() {
            self.t0 = Some(ev.ts);
            self.start(ev.pid);
        }
        if let Some(t0) = self.t0 {
            if ev.ts >= t0 {
                self.k.set_time(((ev.ts - t0) * 1e9) as u64);
            }
        }
        // Synthetic deaths and restarts are not lines of the trace.
        if !matches!(ev.kind, Kind::Die { .. } | Kind::Resume { .. }) {
            self.stats.events += 1;
        }
        self.dispatch(ev, facts);
        if pos.is_multiple_of(SWEEP_EVERY) {
            self.sweep_pids();
        }
        // The per-task maps are walked whole: once per as many positions
        // as there are tasks (rounded up to a power of two), so that the
        // walks cost O(1) per event however many tasks are alive.
        let every = (self.k.nr_tasks() as u64)
            .next_power_of_two()
            .max(SWEEP_EVERY);
        if pos.is_multiple_of(every) {
            self.sweep_maps();
        }
    }

    /// The later lines (`(key, seq)`) that event `seq`, just applied, says
    /// the kernel applied before it, given what the emulation holds (a
    /// signal taken that no applied call sent). The scheduler moves them
    /// before the event and replays it from a copy taken before it; the
    /// engine applied it as if they were not there.
    pub(crate) fn take_wants(&mut self, seq: u64) -> Option<Vec<(usize, u64)>> {
        match self.wants.take() {
            Some((s, w)) if s == seq => Some(w),
            _ => None,
        }
    }

    /// Counts events still held (their task was never created).
    pub(crate) fn finish(&mut self) {
        for held in self.held.values() {
            for (e, _) in held {
                let name = format!("{} (task never created)", e.kind.name());
                *self.stats.unchecked.entry(name).or_default() += 1;
            }
        }
        self.held.clear();
        self.close_open_records();
    }

    /// Drops the numbers of a batch of reaped tasks the emulation no
    /// longer uses (O(1): [`PidMap::sweep`]), and their exit codes.
    fn sweep_pids(&mut self) {
        let gone = self
            .pids
            .sweep(&self.k, self.world.init, &self.deaths.unconfirmed_dead);
        for t in gone {
            self.deaths.exit_codes.remove(&t);
        }
    }

    /// Drops what the per-task maps hold of tasks gone (O(their size)).
    fn sweep_maps(&mut self) {
        let k = &self.k;
        self.deaths
            .pending_group_exit
            .retain(|l, _| k.getpid(*l).is_ok());
        self.deaths.group_status.retain(|l, _| k.getpid(*l).is_ok());
        let unconfirmed = &self.deaths.unconfirmed_dead;
        self.deaths
            .death_leader
            .retain(|t, _| unconfirmed.contains(t));
        let pids = &self.pids;
        self.deaths.pending_exit.retain(|rec, _| pids.is_live(*rec));
        // A claimed child once gone no longer needs excluding.
        let mut inferred = std::mem::take(&mut self.pids.inferred);
        inferred.retain(|_, c| self.pids.task(*c).is_some());
        self.pids.inferred = inferred;
        self.world.held_stops.retain(|(t, _)| k.getpid(*t).is_ok());
        self.sweep_signals();
        self.sweep_learned();
        self.sweep_signalfd();
    }

    /// Records that recorded tid `rec` (created by recorded `creator`) is
    /// emulated by `task`.
    fn adopt(&mut self, rec: i32, task: TaskId, creator: Option<&Event>) {
        let nr = self
            .k
            .pid_vnr(self.world.init, task)
            .expect("a task just created");
        self.pids.adopt(rec, task, nr, creator.map(|e| e.pid));
        self.open_record(rec, task, creator);
        self.stats.tasks += 1;
        self.stats.peak_live = self.stats.peak_live.max(self.k.nr_tasks() as u64);
    }

    /// Applies `e` with its facts (`facts`).
    pub(crate) fn dispatch(&mut self, e: &Arc<Event>, facts: &Arc<Facts>) {
        let outer = std::mem::replace(&mut self.facts, Arc::clone(facts));
        self.dispatch_one(e);
        self.facts = outer;
    }

    fn dispatch_one(&mut self, e: &Arc<Event>) {
        if debug_enabled() {
            eprintln!(
                "[pos {}] line {} pid {} {:?} = {:?}",
                self.pos, e.line, e.pid, e.kind, e.ret
            );
        }
        let Some(tr) = self.pids.task(e.pid) else {
            let held = (Arc::clone(e), Arc::clone(&self.facts));
            self.held.entry(e.pid).or_default().push(held);
            return;
        };
        if let Kind::Resume { sig, core } = e.kind {
            // Not a line of the thread's: strace's restart of it.
            self.resume_stop(tr.task, sig, core);
            return;
        }
        if tr.dead
            && !matches!(
                e.kind,
                Kind::Die { .. }
                    | Kind::Exited { .. }
                    | Kind::Killed { .. }
                    | Kind::Signal { .. }
                    | Kind::Stopped { .. }
            )
        {
            // Lines a task prints between its death in the core (a kill
            // applied at the sender's line) and its `+++` line.
            if crate::shape::exits::exit_call(e).is_some() {
                self.deaths.exit_after_death.insert(e.pid);
            }
            *self
                .stats
                .unchecked
                .entry(format!("{} (after death)", e.kind.name()))
                .or_default() += 1;
            return;
        }
        self.sig.cur_line = e.line;
        self.note_thread_line(tr.task, e);
        self.apply(e, tr.task);
        self.note_call(e);
        self.drain();
    }

    /// Processes notifications raised by the last core call.
    pub(super) fn drain(&mut self) {
        let debug = debug_enabled();
        loop {
            let ns = self.k.take_notifications();
            if ns.is_empty() {
                break;
            }
            for n in ns {
                if debug {
                    eprintln!("  [pos {}] {n:?}", self.pos);
                }
                match n {
                    Notification::Stopped { group, .. } => {
                        self.deaths.unconfirmed_stop.insert(group);
                    }
                    Notification::Continued { group } => {
                        self.deaths.unconfirmed_stop.remove(&group);
                    }
                    Notification::Exited { task, exit_code } => {
                        self.deaths.exit_codes.insert(task, exit_code);
                        self.pids.mark_dead(task);
                        self.deaths.unconfirmed_dead.insert(task);
                        self.strace_exited(task);
                    }
                    Notification::PtraceStopped { task, code } => self.strace_stop(task, code),
                    _ => {}
                }
            }
        }
    }

    fn apply(&mut self, e: &Arc<Event>, cur: TaskId) {
        if self.input_faults(e, cur) {
            return;
        }
        match &e.kind {
            Kind::Call(Call::Sys { call, out: rec }) if e.uptrs.is_some() => {
                self.apply_with_ptrs(e, cur, call, rec)
            }
            Kind::Call(Call::Sys { call, out: rec }) => self.apply_sys(e, cur, call, rec),
            Kind::Die { code, sig } => self.die(e, *code, *sig),
            Kind::Exited { code, inferred } => self.do_death(e, Some(*code), None, *inferred),
            Kind::Killed { sig, core } => self.do_death(e, None, Some((*sig, *core)), false),
            Kind::Stopped { sig } => self.stopped_line(cur, *sig),
            Kind::Resume { sig, core } => self.resume_stop(cur, *sig, *core),
            Kind::Signal { .. } | Kind::Call(Call::RestartSyscall { .. }) => {
                self.apply_signal(e, cur)
            }
            Kind::Call(Call::Raw { nr, args, .. }) if *nr == taskcore::sys::nr::PTRACE => {
                self.ptrace_call(e, cur, *args)
            }
            Kind::Call(Call::Raw { nr, args, info }) => {
                self.apply_fd_call(e, cur, *nr, *args, *info)
            }
            Kind::Call(Call::ProcWrite { pid, file, data }) => {
                self.apply_proc_write(e, cur, *pid, *file, data)
            }
            Kind::Call(Call::Refused { name, err }) => self.refused(e, name, *err),
            Kind::Call(Call::Unchecked { why, .. }) => self.unchecked_because(e, why),
            Kind::Unrecorded { .. } => {
                self.unchecked_because(e, "arguments not recorded: the caller died in the call")
            }
            Kind::Other { name } => {
                if name.starts_with("signalfd") && matches!(e.ret, Outcome::Value(_)) {
                    self.opened_signalfd(cur);
                }
                self.note_skipped(e, name);
                *self.stats.skipped.entry(name.clone()).or_default() += 1;
            }
            // Not built (see `Kind::Call`): counted as not modelled.
            Kind::Call(Call::Other { .. }) => {
                *self.stats.skipped.entry("other".into()).or_default() += 1;
            }
        }
    }

    /// Counts `name in a pid namespace` in [`Stats::checked_calls`] for a
    /// caller in a nested pid namespace (`nested`) whose call was checked
    /// since `checked` was `before`.
    pub(super) fn count_nested(&mut self, nested: bool, before: u64, name: &str) {
        if nested && self.stats.checked > before {
            let name = format!("{name} in a pid namespace");
            *self.stats.checked_calls.entry(name).or_default() += 1;
        }
    }

    fn leader_of(&self, t: TaskId) -> taskcore::Result<TaskId> {
        let pid = self.k.getpid(t)?;
        self.k.find_task_by_vpid(t, pid)
    }

    /// A target (pid encoding as kill takes it) outside the trace: a
    /// number the trace never created and that is not the traced root's
    /// inherited group or session. Its result depends on processes the
    /// recording does not show.
    ///
    /// A caller in a nested pid namespace names only tasks of its
    /// namespace, which the trace created: never outside.
    fn outside_target(&self, cur: TaskId, pid: i32) -> bool {
        match pid {
            0 | -1 | i32::MIN => false,
            _ if self.nested(cur) => false,
            p => self.pids.is_outside(p.abs()),
        }
    }

    /// Emulated number of recorded process-group id `rec` given as an
    /// argument of event `e`. A group the trace never created is the traced
    /// root's inherited one (strace's job) only when the recorded call
    /// succeeded, which proves the group existed in the caller's session
    /// (then it is learned); otherwise it stands for no group at all, so
    /// that `setpgid(0, 424242) = -1 EPERM` is checked as such.
    ///
    /// A caller in a nested pid namespace passes its namespace's numbers,
    /// which are the emulated ones (see [`pidns`]): taken as they are.
    fn group_arg(&mut self, e: &Event, cur: TaskId, rec: i32) -> i32 {
        if self.nested(cur) {
            return rec;
        }
        if !self.pids.is_outside(rec) {
            return self.pids.map_pgid(rec);
        }
        if matches!(e.ret, Outcome::Value(_)) {
            self.pids.learn_outside(rec, self.world.inherited_pgid);
            return self.world.inherited_pgid;
        }
        pidmap::UNUSED_NR
    }

    /// Translates a pid argument (with kill/wait4 sign encodings) of a
    /// call by `cur`; a caller in a nested pid namespace passes emulated
    /// numbers already (see [`pidns`]).
    fn arg_nr(&self, cur: TaskId, pid: i32) -> i32 {
        match pid {
            0 | -1 | i32::MIN => pid,
            _ if self.nested(cur) => pid,
            p if p > 0 => self.pids.map_nr(p),
            p => -self.pids.map_pgid(-p),
        }
    }
}

/// Whether `TASKCORE_REPLAY_DEBUG` is set; read once per process, not per
/// event.
fn debug_enabled() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("TASKCORE_REPLAY_DEBUG").is_some())
}
