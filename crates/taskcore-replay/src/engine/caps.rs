//! Capabilities: `capget`, `capset` and the capability prctl options
//! (`PR_CAPBSET_*`, `PR_CAP_AMBIENT`, `PR_*_KEEPCAPS`, `PR_*_SECUREBITS`,
//! `PR_*_NO_NEW_PRIVS`); and the supplementary groups (`getgroups`,
//! `setgroups`), also inherited from outside the trace.
//!
//! # What is known
//! A trace's first processes get their capabilities from outside it
//! (strace's shell: on a container without `CAP_SYS_RESOURCE`, the
//! permitted set lacks it). As with resource limits, each thread group's
//! sets are "known" once the trace showed them: the first `capget` that
//! succeeds (or `capset` that does) in a process whose effective,
//! permitted and inheritable sets are not known is learned, written into
//! the emulated process; later ones are checked. The bounding and ambient
//! sets are learned bit by bit from `PR_CAPBSET_READ` and
//! `PR_CAP_AMBIENT_IS_SET`, the securebits from `PR_GET_SECUREBITS`, the
//! no_new_privs flag from `PR_GET_NO_NEW_PRIVS`. A fork copies what is
//! known; an exec keeps the sets known only when its result depends on
//! nothing unknown (the ambient set, the securebits, and for root the
//! bounding set). A call whose answer depends on something unknown is not
//! checkable; the state follows the recording then. The groups are known
//! once a `setgroups` succeeded in the process or an ancestor; until then
//! a `getgroups` is learned.

use std::collections::HashMap;

use taskcore::sys::{Prctl, SysRet, Syscall};
use taskcore::task::capability::{Cap, SECBIT_KEEP_CAPS, SECBIT_NOROOT};
use taskcore::{AmbientOp, CapUserData, Cred, KernelCap, TaskId};

use super::Engine;
use crate::event::{Event, Outcome, Rec};

/// What the trace has shown of one thread group's capability state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CapKnown {
    /// The effective, permitted and inheritable sets.
    sets: bool,
    /// Bounding-set bits known.
    bset: u64,
    /// Ambient-set bits known.
    ambient: u64,
    /// The securebits.
    securebits: bool,
    /// The no_new_privs flag.
    nnp: bool,
    /// The supplementary groups.
    groups: bool,
}

/// Per thread group (its leader task), what is known.
pub(crate) type CapsKnown = HashMap<TaskId, CapKnown>;

const WHY: &str = "capabilities from outside the trace, learned";

impl Engine {
    fn caps_known(&self, t: TaskId) -> CapKnown {
        let g = self.leader_of(t).unwrap_or(t);
        self.proc.caps.get(&g).copied().unwrap_or_default()
    }

    fn caps_learn(&mut self, t: TaskId, f: impl FnOnce(&mut CapKnown)) {
        let g = self.leader_of(t).unwrap_or(t);
        f(self.proc.caps.entry(g).or_default());
    }

    /// Writes `f`'s change into `t`'s emulated credentials (what the
    /// recording showed of the world outside the trace).
    fn caps_write(&mut self, t: TaskId, f: impl FnOnce(&mut Cred)) {
        if let Ok(mut c) = self.k.cred(t) {
            f(&mut c);
            c.cap_ambient = c
                .cap_ambient
                .intersect(c.cap_permitted.intersect(c.cap_inheritable));
            let _ = self.k.set_cred(t, c);
        }
    }

    /// Applies and checks a capability call of `e` by `cur`.
    pub(super) fn apply_caps(&mut self, e: &Event, cur: TaskId, call: &Syscall, rec: &Rec) {
        let before = self.stats.checked;
        match call {
            &Syscall::Capget { version, pid, data } => {
                let recorded = match rec {
                    Rec::Caps(d) => *d,
                    _ => None,
                };
                self.do_capget(e, cur, version, pid, data, recorded);
            }
            &Syscall::Capset { version, pid, data } => self.do_capset(e, cur, version, pid, data),
            Syscall::Prctl(p) => self.do_cap_prctl(e, cur, p),
            Syscall::Setgroups { .. } => {
                let r = self.sys(cur, call);
                self.check_unit(e, r.map(drop));
                if e.ret == Outcome::Value(0) {
                    self.caps_learn(cur, |k| k.groups = true);
                }
            }
            &Syscall::Getgroups { size } => {
                let recorded = match rec {
                    Rec::Groups(g) => g.clone(),
                    _ => None,
                };
                self.do_getgroups(e, cur, size, recorded);
            }
            _ => self.unchecked(e),
        }
        self.count_procapi(e, before);
    }

    /// getgroups(size, list): the count (the return value) and the list
    /// written, checked once the groups are known, learned before.
    fn do_getgroups(&mut self, e: &Event, cur: TaskId, size: i32, recorded: Option<Vec<u32>>) {
        let r = self.sys(cur, &Syscall::Getgroups { size });
        if !self.caps_known(cur).groups {
            if let (Outcome::Value(n), Some(g)) = (&e.ret, &recorded) {
                if *n as usize == g.len() {
                    let g = g.clone();
                    self.caps_write(cur, |c| c.groups = g.into());
                    self.caps_learn(cur, |k| k.groups = true);
                }
            }
            return self.unchecked_because(e, "groups from outside the trace, learned");
        }
        match (r, recorded) {
            (Ok(SysRet::Groups(got)), Some(want)) if e.ret == Outcome::Value(want.len() as i64) => {
                self.stats.checked += 1;
                let mut want = want;
                want.sort_unstable();
                if got != want {
                    self.mismatch(
                        e,
                        "groups",
                        super::notation::fmt_ids(&want),
                        super::notation::fmt_ids(&got),
                    );
                }
            }
            (r, _) => self.check_value(e, r.map(|v| v.raw())),
        }
    }

    /// The target of a capget/capset `pid` argument and the number the
    /// caller uses for it; `None` for a process outside the trace.
    fn cap_target(&self, cur: TaskId, pid: i32) -> Option<(TaskId, i32)> {
        if pid <= 0 {
            return Some((cur, pid));
        }
        if !self.nested(cur) && self.pids.is_outside(pid) {
            return None;
        }
        let nr = self.nr_for(cur, pid);
        match self.k.find_task_by_vpid(cur, nr) {
            Ok(t) => Some((t, nr)),
            // No such task: the call fails in the core as in Linux.
            Err(_) => Some((cur, nr)),
        }
    }

    fn do_capget(
        &mut self,
        e: &Event,
        cur: TaskId,
        version: u32,
        pid: i32,
        with_data: bool,
        recorded: Option<CapUserData>,
    ) {
        let Some((target, nr)) = self.cap_target(cur, pid) else {
            return self.unchecked_because(e, "a process outside the trace");
        };
        let call = Syscall::Capget {
            version,
            pid: nr,
            data: with_data,
        };
        let r = self.sys(cur, &call);
        let (Some(rec), Outcome::Value(0)) = (recorded, &e.ret) else {
            return self.check_unit(e, r.map(drop));
        };
        if !self.caps_known(target).sets {
            self.caps_write(target, |c| {
                c.cap_effective = rec.effective;
                c.cap_permitted = rec.permitted;
                c.cap_inheritable = rec.inheritable;
            });
            self.caps_learn(target, |k| k.sets = true);
            return self.unchecked_because(e, WHY);
        }
        match r {
            Ok(SysRet::Caps(got)) => {
                self.stats.checked += 1;
                // Version 1 copies only the low 32 bits.
                let cut = |s: KernelCap| {
                    if version == taskcore::task::capability::LINUX_CAPABILITY_VERSION_1 {
                        s.bits() & 0xffff_ffff
                    } else {
                        s.bits()
                    }
                };
                let show = |d: &CapUserData| {
                    format!(
                        "effective={:#x} permitted={:#x} inheritable={:#x}",
                        cut(d.effective),
                        cut(d.permitted),
                        cut(d.inheritable)
                    )
                };
                if show(&got) != show(&rec) {
                    self.mismatch(e, "capabilities", show(&rec), show(&got));
                }
            }
            other => self.check_unit(e, other.map(drop)),
        }
    }

    fn do_capset(
        &mut self,
        e: &Event,
        cur: TaskId,
        version: u32,
        pid: i32,
        data: Option<CapUserData>,
    ) {
        let nr = match self.cap_target(cur, pid) {
            Some((_, nr)) => nr,
            None => pid,
        };
        if self.caps_known(cur).sets {
            let call = Syscall::Capset {
                version,
                pid: nr,
                data,
            };
            let r = self.sys(cur, &call);
            return self.check_unit(e, r.map(drop));
        }
        match (data, &e.ret) {
            (Some(d), Outcome::Value(0)) => {
                self.caps_write(cur, |c| {
                    c.cap_effective = d.effective;
                    c.cap_permitted = d.permitted;
                    c.cap_inheritable = d.inheritable;
                });
                self.caps_learn(cur, |k| k.sets = true);
                self.unchecked_because(e, WHY);
            }
            _ => self.unchecked(e),
        }
    }

    /// A prctl whose result is the return value: checked when `known`,
    /// else learned by `learn` (given the recorded value).
    fn cap_value(
        &mut self,
        e: &Event,
        cur: TaskId,
        p: &Prctl,
        known: bool,
        learn: impl FnOnce(&mut Engine, i64),
    ) {
        let r = self.sys(cur, &Syscall::Prctl(p.clone()));
        match (&e.ret, known) {
            (Outcome::Value(v), false) if r.is_ok() => {
                let v = *v;
                learn(self, v);
                self.unchecked_because(e, WHY);
            }
            _ => self.check_value(e, r.map(|v| v.raw())),
        }
    }

    fn do_cap_prctl(&mut self, e: &Event, cur: TaskId, p: &Prctl) {
        let k = self.caps_known(cur);
        let ok = e.ret == Outcome::Value(0);
        match *p {
            Prctl::CapbsetRead(cap) => {
                let bit = Cap::from_arg(cap).map_or(0, |c| 1u64 << c.0);
                self.cap_value(e, cur, p, bit == 0 || k.bset & bit != 0, |en, v| {
                    let c = Cap(cap as u8);
                    en.caps_write(cur, |cr| {
                        cr.cap_bset = if v == 1 {
                            cr.cap_bset.with(c)
                        } else {
                            cr.cap_bset.without(c)
                        };
                    });
                    en.caps_learn(cur, |k| k.bset |= bit);
                });
            }
            Prctl::CapAmbient(Some(AmbientOp::IsSet), cap, 0, 0)
                if Cap::from_arg(cap).is_some() =>
            {
                let bit = 1u64 << cap;
                self.cap_value(e, cur, p, k.ambient & bit != 0, |en, v| {
                    let c = Cap(cap as u8);
                    en.caps_write(cur, |cr| {
                        cr.cap_ambient = if v == 1 {
                            cr.cap_ambient.with(c)
                        } else {
                            cr.cap_ambient.without(c)
                        };
                    });
                    en.caps_learn(cur, |k| k.ambient |= bit);
                });
            }
            Prctl::GetSecurebits => self.cap_value(e, cur, p, k.securebits, |en, v| {
                en.caps_write(cur, |c| c.securebits = v as u32);
                en.caps_learn(cur, |k| k.securebits = true);
            }),
            Prctl::GetKeepcaps => self.cap_value(e, cur, p, k.securebits, |en, v| {
                en.caps_write(cur, |c| {
                    c.securebits = c.securebits & !SECBIT_KEEP_CAPS
                        | if v == 1 { SECBIT_KEEP_CAPS } else { 0 };
                });
            }),
            Prctl::GetNoNewPrivs(args) => {
                let known = k.nnp || args != [0; 4];
                self.cap_value(e, cur, p, known, |en, v| {
                    if v == 1 {
                        let _ = en.k.pr_set_no_new_privs(cur, [1, 0, 0, 0]);
                    }
                    en.caps_learn(cur, |k| k.nnp = true);
                });
            }
            _ => {
                // The setters: checkable when their answer depends only on
                // what is known.
                let checkable = match *p {
                    Prctl::SetNoNewPrivs(_) => true,
                    Prctl::SetKeepcaps(_) => k.securebits,
                    Prctl::SetSecurebits(_) | Prctl::CapbsetDrop(_) => k.securebits && k.sets,
                    Prctl::CapAmbient(..) => k.sets && k.securebits,
                    _ => false,
                };
                let r = self.sys(cur, &Syscall::Prctl(p.clone()));
                if checkable {
                    self.check_unit(e, r.map(drop));
                } else {
                    if ok && r.is_err() {
                        // Follow the recording.
                        self.force_cap_prctl(cur, p);
                    }
                    self.unchecked(e);
                }
                if ok {
                    self.caps_learn(cur, |k| match *p {
                        Prctl::SetNoNewPrivs(_) => k.nnp = true,
                        Prctl::SetSecurebits(_) => k.securebits = true,
                        Prctl::CapbsetDrop(c) if c < 64 => k.bset |= 1 << c,
                        Prctl::CapAmbient(Some(AmbientOp::ClearAll), ..) => k.ambient = !0,
                        Prctl::CapAmbient(_, c, ..) if c < 64 => k.ambient |= 1 << c,
                        _ => {}
                    });
                }
            }
        }
    }

    /// The effect of a capability prctl that succeeded in the recording
    /// but not in the emulation (whose unknown state differed).
    fn force_cap_prctl(&mut self, cur: TaskId, p: &Prctl) {
        self.caps_write(cur, |c| match *p {
            Prctl::SetKeepcaps(a) => {
                c.securebits =
                    c.securebits & !SECBIT_KEEP_CAPS | if a == 1 { SECBIT_KEEP_CAPS } else { 0 }
            }
            Prctl::SetSecurebits(b) => c.securebits = b as u32,
            Prctl::CapbsetDrop(cap) => {
                if let Some(cap) = Cap::from_arg(cap) {
                    c.cap_bset = c.cap_bset.without(cap);
                }
            }
            Prctl::CapAmbient(Some(AmbientOp::Raise), cap, ..) => {
                if let Some(cap) = Cap::from_arg(cap) {
                    c.cap_permitted = c.cap_permitted.with(cap);
                    c.cap_inheritable = c.cap_inheritable.with(cap);
                    c.cap_ambient = c.cap_ambient.with(cap);
                }
            }
            _ => {}
        });
    }

    /// After a fork of `child` from `parent`'s process: it knows what its
    /// parent knew.
    pub(super) fn caps_after_clone(&mut self, parent: TaskId, child: TaskId) {
        let k = self.caps_known(parent);
        self.proc.caps.insert(child, k);
    }

    /// After a successful exec by `cur`: the sets stay known only if the
    /// new ones depend on nothing unknown.
    pub(super) fn caps_after_exec(&mut self, cur: TaskId) {
        let Ok(c) = self.k.cred(cur) else { return };
        let k = self.caps_known(cur);
        let full = KernelCap::FULL.bits();
        let root_rules = (c.uid == 0 || c.euid == 0) && c.securebits & SECBIT_NOROOT == 0;
        let still = k.sets
            && k.securebits
            && k.ambient & full == full
            && (!root_rules || k.bset & full == full);
        self.caps_learn(cur, |k| k.sets = still);
    }
}
