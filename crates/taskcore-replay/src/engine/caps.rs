//! Capabilities: `capget`, `capset` and the capability prctl options
//! (`PR_CAPBSET_*`, `PR_CAP_AMBIENT`, `PR_*_KEEPCAPS`, `PR_*_SECUREBITS`,
//! `PR_*_NO_NEW_PRIVS`); and the supplementary groups (`getgroups`,
//! `setgroups`).
//!
//! # What is known
//! A trace's first processes get their capabilities and groups from
//! outside it (strace's shell: on a container without `CAP_SYS_RESOURCE`,
//! the permitted set lacks it). Each is an attribute learned at its first
//! read ([`learned`](super::learned)): the effective, permitted and
//! inheritable sets at a `capget` (or a `capset` that succeeded), the
//! bounding and ambient sets bit by bit at `PR_CAPBSET_READ` and
//! `PR_CAP_AMBIENT_IS_SET`, the securebits at `PR_GET_SECUREBITS`, the
//! no_new_privs flag at `PR_GET_NO_NEW_PRIVS`, the groups at `getgroups`.
//! An exec keeps the sets known only when its result depends on nothing
//! unknown (the ambient set, the securebits, and for root the bounding
//! set). A setter whose answer depends on something unknown is not
//! checkable; the state follows the recording then.

use taskcore::sys::{Prctl, SysRet, Syscall};
use taskcore::task::capability::{Cap, SECBIT_KEEP_CAPS, SECBIT_NOROOT};
use taskcore::{AmbientOp, CapUserData, Cred, KernelCap, TaskId};

use super::known::{Attr, Read};
use super::Engine;
use crate::event::{Event, Outcome, Rec};

impl Engine {
    /// Writes `f`'s change into `t`'s emulated credentials (what the
    /// recording showed of the world outside the trace); whether they
    /// changed.
    fn caps_write(&mut self, t: TaskId, f: impl FnOnce(&mut Cred)) -> bool {
        let Ok(was) = self.k.cred(t) else {
            return false;
        };
        let mut c = was.clone();
        f(&mut c);
        c.cap_ambient = c
            .cap_ambient
            .intersect(c.cap_permitted.intersect(c.cap_inheritable));
        let changed = c != was;
        changed && self.k.set_cred(t, c).is_ok()
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
                    self.set_known(cur, Attr::Groups, true);
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
        let shown = match (&e.ret, &recorded) {
            (Outcome::Value(n), Some(g)) if *n as usize == g.len() => Some(g.clone()),
            _ => None,
        };
        let read = self.first_read(cur, Attr::Groups, shown.is_some(), |en| {
            let g = shown.unwrap_or_default();
            en.caps_write(cur, |c| c.groups = g.into())
        });
        if read != Read::Known {
            return self.unchecked_because(e, &Attr::Groups.why());
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
        let read = self.first_read(target, Attr::CapSets, true, |en| {
            en.caps_write(target, |c| {
                c.cap_effective = rec.effective;
                c.cap_permitted = rec.permitted;
                c.cap_inheritable = rec.inheritable;
            })
        });
        if read == Read::Learned {
            return self.unchecked_because(e, &Attr::CapSets.why());
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
        // A successful capset shows the sets it set, which the emulation
        // cannot check against a permitted set it does not know.
        let shown = data.filter(|_| e.ret == Outcome::Value(0));
        let read = self.first_read(cur, Attr::CapSets, shown.is_some(), |en| {
            let d = shown.unwrap_or_default();
            en.caps_write(cur, |c| {
                c.cap_effective = d.effective;
                c.cap_permitted = d.permitted;
                c.cap_inheritable = d.inheritable;
            })
        });
        match read {
            Read::Known => {
                let call = Syscall::Capset {
                    version,
                    pid: nr,
                    data,
                };
                let r = self.sys(cur, &call);
                self.check_unit(e, r.map(drop));
            }
            Read::Learned => self.unchecked_because(e, &Attr::CapSets.why()),
            Read::Unknown => self.unchecked(e),
        }
    }

    /// A prctl whose result is the return value of attribute `attr` (a
    /// first read, [`Engine::first_read`]): `take` writes the recorded
    /// value into the emulation and says whether it changed it. `checked`:
    /// the call is checked whatever is known (invalid arguments).
    fn cap_value(
        &mut self,
        e: &Event,
        cur: TaskId,
        p: &Prctl,
        attr: Attr,
        checked: bool,
        take: impl FnOnce(&mut Engine, i64) -> bool,
    ) {
        let r = self.sys(cur, &Syscall::Prctl(p.clone()));
        let shown = match &e.ret {
            Outcome::Value(v) if r.is_ok() && !checked => Some(*v),
            _ => None,
        };
        let read = if checked {
            Read::Known
        } else {
            self.first_read(cur, attr, shown.is_some(), |en| {
                take(en, shown.unwrap_or_default())
            })
        };
        match read {
            Read::Learned => self.unchecked_because(e, &attr.why()),
            _ => self.check_value(e, r.map(|v| v.raw())),
        }
    }

    fn do_cap_prctl(&mut self, e: &Event, cur: TaskId, p: &Prctl) {
        let ok = e.ret == Outcome::Value(0);
        let flip = |s: KernelCap, c: Cap, on: bool| if on { s.with(c) } else { s.without(c) };
        match *p {
            Prctl::CapbsetRead(cap) => {
                // An invalid capability is EINVAL whatever is known.
                let valid = Cap::from_arg(cap).is_some();
                self.cap_value(e, cur, p, Attr::Bset(cap), !valid, |en, v| {
                    en.caps_write(cur, |cr| {
                        cr.cap_bset = flip(cr.cap_bset, Cap(cap as u8), v == 1)
                    })
                });
            }
            Prctl::CapAmbient(Some(AmbientOp::IsSet), cap, 0, 0)
                if Cap::from_arg(cap).is_some() =>
            {
                self.cap_value(e, cur, p, Attr::Ambient(cap), false, |en, v| {
                    en.caps_write(cur, |cr| {
                        cr.cap_ambient = flip(cr.cap_ambient, Cap(cap as u8), v == 1)
                    })
                });
            }
            Prctl::GetSecurebits => self.cap_value(e, cur, p, Attr::Securebits, false, |en, v| {
                en.caps_write(cur, |c| c.securebits = v as u32)
            }),
            Prctl::GetKeepcaps => self.cap_value(e, cur, p, Attr::Keepcaps, false, |en, v| {
                en.caps_write(cur, |c| {
                    c.securebits = c.securebits & !SECBIT_KEEP_CAPS
                        | if v == 1 { SECBIT_KEEP_CAPS } else { 0 };
                })
            }),
            Prctl::GetNoNewPrivs(args) => {
                // Other arguments are EINVAL whatever is known.
                let bad = args != [0; 4];
                self.cap_value(e, cur, p, Attr::NoNewPrivs, bad, |en, v| {
                    v == 1 && en.k.pr_set_no_new_privs(cur, [1, 0, 0, 0]).is_ok()
                });
            }
            _ => {
                // The setters: checkable when their answer depends only on
                // what is known.
                let known = |a| self.attr_known(cur, a);
                let checkable = match *p {
                    Prctl::SetNoNewPrivs(_) => true,
                    Prctl::SetKeepcaps(_) => known(Attr::Securebits),
                    Prctl::SetSecurebits(_) | Prctl::CapbsetDrop(_) => {
                        known(Attr::Securebits) && known(Attr::CapSets)
                    }
                    Prctl::CapAmbient(..) => known(Attr::CapSets) && known(Attr::Securebits),
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
                    match *p {
                        Prctl::SetNoNewPrivs(_) => self.set_known(cur, Attr::NoNewPrivs, true),
                        Prctl::SetSecurebits(_) => self.set_known(cur, Attr::Securebits, true),
                        Prctl::CapbsetDrop(c) => self.set_known(cur, Attr::Bset(c), true),
                        Prctl::CapAmbient(Some(AmbientOp::ClearAll), ..) => {
                            for c in 0..64 {
                                self.set_known(cur, Attr::Ambient(c), true);
                            }
                        }
                        Prctl::CapAmbient(_, c, ..) => self.set_known(cur, Attr::Ambient(c), true),
                        _ => {}
                    }
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

    /// After a successful exec by `cur`: the sets stay known only if the
    /// new ones depend on nothing unknown.
    pub(super) fn caps_after_exec(&mut self, cur: TaskId) {
        let Ok(c) = self.k.cred(cur) else { return };
        let full = KernelCap::FULL.bits();
        let all = |en: &Engine, a: fn(u64) -> Attr| {
            (0..64).all(|b| full & (1u64 << b) == 0 || en.attr_known(cur, a(b)))
        };
        let root_rules = (c.uid == 0 || c.euid == 0) && c.securebits & SECBIT_NOROOT == 0;
        let still = self.attr_known(cur, Attr::CapSets)
            && self.attr_known(cur, Attr::Securebits)
            && all(self, Attr::Ambient)
            && (!root_rules || all(self, Attr::Bset));
        self.set_known(cur, Attr::CapSets, still);
    }
}
