//! Recorded ids to emulated ones.
//!
//! The recording's pids are the real kernel's; the emulation hands out its
//! own at each clone. A recorded pid is reused many times in a long trace
//! (the recording machine's `pid_max` wraps), so the map follows the
//! latest holder of each recorded number, and forgets a holder once the
//! emulation no longer uses its number (reaped, and no process group or
//! session named after it): memory stays bounded by the live tasks.
//!
//! Numbers fall in three kinds:
//! - *created*: a clone of the trace returned it (or it is the traced
//!   root); mapped to the emulated task's number while that number is in
//!   use, and to [`UNUSED_NR`] once it is not (a later `kill` gets
//!   `ESRCH`, as it would have);
//! - *inherited*: the traced root's process group and session, which
//!   strace's job and the shell stand for; learned when a result shows
//!   them ([`PidMap::learn_outside`]);
//! - *outside*: anything else. Arguments naming such a number are not
//!   checkable (the recording does not show those processes); a group id
//!   given to `setpgid` maps to [`UNUSED_NR`], so a recorded `EPERM` stays
//!   an `EPERM`.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use taskcore::{Kernel, TaskId};

/// A number no emulated pid can have (above `PID_MAX_LIMIT`): stands for
/// a recorded id with no emulated holder.
pub(crate) const UNUSED_NR: i32 = 0x7fff_fff0;

/// What the engine knows of a recorded task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tracked {
    pub(crate) task: TaskId,
    /// Dead in the core (its `+++` line may still come).
    pub(crate) dead: bool,
}

/// Graveyard entries examined per sweep.
const SWEEP_BATCH: usize = 64;

/// A set of recorded numbers (a bitmap over the pid space, so its size is
/// bounded by `PID_MAX_LIMIT`, not by the trace).
#[derive(Debug, Clone, Default)]
struct NrSet {
    words: Vec<u64>,
}

impl NrSet {
    fn insert(&mut self, n: i32) {
        let Ok(n) = usize::try_from(n) else { return };
        if n >= 1 << 23 {
            return;
        }
        if self.words.len() <= n / 64 {
            self.words.resize(n / 64 + 1, 0);
        }
        self.words[n / 64] |= 1 << (n % 64);
    }

    fn remove(&mut self, n: i32) {
        if let Some(w) = usize::try_from(n)
            .ok()
            .and_then(|n| self.words.get_mut(n / 64))
        {
            *w &= !(1 << (n % 64));
        }
    }

    fn contains(&self, n: i32) -> bool {
        usize::try_from(n)
            .ok()
            .and_then(|n| self.words.get(n / 64).map(|w| w & (1 << (n % 64)) != 0))
            .unwrap_or(false)
    }
}

/// The map itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct PidMap {
    /// Recorded tid -> emulated task (latest holder of that tid).
    tasks: HashMap<i32, Tracked>,
    /// Recorded pid -> emulated number (kept after death while the number
    /// is in use: pgids, sids, zombies).
    nr: HashMap<i32, i32>,
    /// Emulated number -> recorded pid.
    rev_nr: HashMap<i32, i32>,
    /// Emulated task -> recorded tid.
    by_task: HashMap<TaskId, i32>,
    /// Recorded tid -> the recorded tid that created it.
    creator: HashMap<i32, i32>,
    /// Recorded numbers the trace created whose holders are gone.
    released: NrSet,
    /// Recorded numbers of the world outside the trace that results
    /// revealed (the root's inherited group and session) -> emulated.
    outside: HashMap<i32, i32>,
    /// Recorded tids of dead tasks, to sweep (a recorded tid may appear
    /// more than once; stale entries are dropped when met).
    graveyard: VecDeque<i32>,
    /// The last [`RECENT`] released `(recorded, emulated)` pairs: a
    /// signal's siginfo may name a child reaped just before it was
    /// delivered.
    recent: VecDeque<(i32, i32)>,
    /// Tids already given to clones whose creator strace did not number
    /// the child for: clone sequence number -> child tid.
    pub(crate) inferred: HashMap<u64, i32>,
}

/// How many released pairs [`PidMap::was`] remembers.
const RECENT: usize = 1024;

impl PidMap {
    /// Records that recorded tid `rec` is emulated by `task`, number `nr`.
    pub(crate) fn adopt(&mut self, rec: i32, task: TaskId, nr: i32, creator: Option<i32>) {
        self.tasks.insert(rec, Tracked { task, dead: false });
        if let Some(old) = self.nr.insert(rec, nr) {
            self.rev_nr.remove(&old);
        }
        self.rev_nr.insert(nr, rec);
        self.by_task.insert(task, rec);
        self.released.remove(rec);
        match creator {
            Some(c) => self.creator.insert(rec, c),
            None => self.creator.remove(&rec),
        };
    }

    /// Thread `by` exec'd and took over leader `leader`'s tid.
    pub(crate) fn supersede(&mut self, by: i32, leader: i32) {
        if let Some(t) = self.tasks.remove(&by) {
            self.tasks.insert(leader, t);
            self.by_task.insert(t.task, leader);
        }
    }

    /// The emulated task of recorded tid `rec`, if it was created.
    pub(crate) fn task(&self, rec: i32) -> Option<Tracked> {
        self.tasks.get(&rec).copied()
    }

    /// Whether recorded tid `rec` has a live emulated task.
    pub(crate) fn is_live(&self, rec: i32) -> bool {
        self.tasks.get(&rec).is_some_and(|t| !t.dead)
    }

    /// Marks the emulated `task` dead (an `Exited` notification).
    pub(crate) fn mark_dead(&mut self, task: TaskId) {
        if let Some(rec) = self.by_task.get(&task).copied() {
            if let Some(t) = self.tasks.get_mut(&rec) {
                if t.task == task {
                    t.dead = true;
                    self.graveyard.push_back(rec);
                }
            }
        }
    }

    /// The emulated number recorded pid `rec` currently maps to.
    pub(crate) fn nr_of(&self, rec: i32) -> Option<i32> {
        self.nr.get(&rec).copied()
    }

    /// The recorded pid of emulated number `nr`.
    pub(crate) fn rec_of(&self, nr: i32) -> Option<i32> {
        self.rev_nr.get(&nr).copied()
    }

    /// The recorded tid that created `rec`.
    pub(crate) fn creator(&self, rec: i32) -> Option<i32> {
        self.creator.get(&rec).copied()
    }

    /// Emulated number of recorded pid `rec` (for syscall arguments).
    pub(crate) fn map_nr(&self, rec: i32) -> i32 {
        self.nr
            .get(&rec)
            .or_else(|| self.outside.get(&rec))
            .copied()
            .unwrap_or(UNUSED_NR)
    }

    /// Emulated number of a recorded process-group or session id: its
    /// creator's, the learned inherited one, or [`UNUSED_NR`].
    pub(crate) fn map_pgid(&self, rec: i32) -> i32 {
        self.map_nr(rec)
    }

    /// Whether recorded number `rec` (> 0) belongs to the world outside the
    /// trace and is not one the engine learned.
    pub(crate) fn is_outside(&self, rec: i32) -> bool {
        !self.nr.contains_key(&rec)
            && !self.released.contains(rec)
            && !self.outside.contains_key(&rec)
    }

    /// A result named recorded number `rec` where the emulation has `nr`,
    /// a process of the world outside the trace (`outside`): learn it.
    pub(crate) fn learn_outside(&mut self, rec: i32, nr: i32) {
        self.outside.insert(rec, nr);
    }

    /// Whether emulated number `nr` stands for recorded value `rec` in a
    /// result: the same task, or (for a number the trace never created)
    /// the outside world.
    pub(crate) fn same_id(&self, rec: i32, nr: i32, outside: &[i32]) -> bool {
        if let Some(&n) = self.nr.get(&rec).or_else(|| self.outside.get(&rec)) {
            return n == nr;
        }
        if self.released.contains(rec) {
            return false;
        }
        outside.contains(&nr) || (rec == 0 && nr == 0)
    }

    /// The emulated number recorded pid `rec` had when it was last
    /// released, if that was among the last [`RECENT`] releases.
    pub(crate) fn was(&self, rec: i32) -> Option<i32> {
        self.recent
            .iter()
            .rev()
            .find(|(r, _)| *r == rec)
            .map(|(_, n)| *n)
    }

    /// Forgets dead tasks whose emulated numbers are no longer in use and
    /// whose `+++` has been seen; returns their emulated tasks. Looks at
    /// [`SWEEP_BATCH`] entries per call, round-robin, so a call costs O(1)
    /// however many zombies there are.
    pub(crate) fn sweep(
        &mut self,
        k: &Kernel,
        init: TaskId,
        unconfirmed: &HashSet<TaskId>,
    ) -> Vec<TaskId> {
        let mut gone = Vec::new();
        for _ in 0..SWEEP_BATCH.min(self.graveyard.len()) {
            let Some(rec) = self.graveyard.pop_front() else {
                break;
            };
            let Some(t) = self.tasks.get(&rec).copied() else {
                continue;
            };
            let nr = self.nr.get(&rec).copied();
            let in_use = || nr.is_some_and(|n| k.pid_in_use(init, n).unwrap_or(false));
            if !t.dead || unconfirmed.contains(&t.task) || in_use() {
                if t.dead {
                    self.graveyard.push_back(rec);
                }
                continue;
            }
            self.tasks.remove(&rec);
            self.by_task.remove(&t.task);
            self.creator.remove(&rec);
            if let Some(n) = nr {
                self.nr.remove(&rec);
                self.rev_nr.remove(&n);
                if self.recent.len() == RECENT {
                    self.recent.pop_front();
                }
                self.recent.push_back((rec, n));
            }
            self.released.insert(rec);
            gone.push(t.task);
        }
        gone
    }
}
