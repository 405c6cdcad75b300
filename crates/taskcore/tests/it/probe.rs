//! Property test of `taskcore::probe`: random operations and random
//! (un)registrations on a probed kernel, against the same operations on an
//! unprobed twin (probes must change nothing) and against a plain model of
//! which probe sees which call (a list of registered probes, scanned).
#![cfg(not(loom))]

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ};
use taskcore::probe::{KretprobeBuilder, Op, OpSet, RetVal};
use taskcore::uapi::WNOHANG;
use taskcore::{Config, Errno, Kernel, TaskId, WaitOutcome};

/// One step of a scenario; task numbers index the live-task list (mod its
/// length).
#[derive(Clone, Debug)]
enum Step {
    Fork(usize),
    ExitGroup(usize),
    Wait(usize, bool),
    Kill(usize, i32, i32),
    Setpgid(usize),
    Setsid(usize),
    Mmap(usize, u64),
    Register(usize),
    Unregister(usize),
}

fn step() -> impl Strategy<Value = Step> {
    let t = 0..8usize;
    prop_oneof![
        3 => t.clone().prop_map(Step::Fork),
        2 => t.clone().prop_map(Step::ExitGroup),
        2 => (t.clone(), any::<bool>()).prop_map(|(i, h)| Step::Wait(i, h)),
        1 => (t.clone(), -3..12i32, prop_oneof![Just(0), Just(15), Just(99)])
            .prop_map(|(i, p, s)| Step::Kill(i, p, s)),
        1 => t.clone().prop_map(Step::Setpgid),
        1 => t.clone().prop_map(Step::Setsid),
        1 => (t, 1..5u64).prop_map(|(i, n)| Step::Mmap(i, n * 4096)),
        1 => (0..3usize).prop_map(Step::Register),
        1 => (0..3usize).prop_map(Step::Unregister),
    ]
}

/// The ops of the three probes.
const PROBE_OPS: [OpSet; 3] = [
    OpSet::ALL,
    OpSet::of(Op::Fork).with(Op::Wait4),
    OpSet::of(Op::Kill).with(Op::ExitGroup).with(Op::Mmap),
];

type Log = Arc<Mutex<Vec<(usize, Op, TaskId, RetVal)>>>;

/// Runs `steps`; panics on any disagreement.
fn run(steps: &[Step]) {
    let mut plain = Kernel::new(Config::default()).unwrap();
    let mut probed = plain.snapshot();
    probed.set_probes(Arc::new(taskcore::probe::ProbeSet::new()));
    let log: Log = Arc::default();
    let probes: Vec<_> = PROBE_OPS
        .iter()
        .enumerate()
        .map(|(i, ops)| {
            let (e, r) = (Arc::clone(&log), Arc::clone(&log));
            KretprobeBuilder::new(*ops, 1)
                .maxactive(1)
                .entry_handler(move |inst| {
                    // The log's length at entry: no return has run since.
                    inst.data[0] = e.lock().unwrap().len() as u64;
                    inst.data[1] = i as u64;
                    true
                })
                .handler(move |inst| {
                    let mut log = r.lock().unwrap();
                    // The other probes of the call return first (a shadow
                    // stack), so at most NR_PROBES - 1 entries came since.
                    assert!(log.len() as u64 - inst.data[0] < PROBE_OPS.len() as u64);
                    let ret = inst.retval().unwrap();
                    log.push((inst.data[1] as usize, inst.op(), inst.current(), ret));
                })
                .build()
                .unwrap()
        })
        .collect();
    // The model: registered probe numbers, in registration order.
    let mut registered: Vec<usize> = Vec::new();
    let mut expected: Vec<(usize, Op, TaskId, RetVal)> = Vec::new();
    let mut live = vec![plain.init_task().unwrap()];
    for s in steps {
        let pick = |i: usize| live[i % live.len()];
        // (op, current, result as RetVal) of the call made, if any.
        let call: Option<(Op, TaskId, RetVal)> = match *s {
            Step::Register(p) => {
                let want = if registered.contains(&p) {
                    Err(Errno::EINVAL)
                } else {
                    registered.push(p);
                    Ok(())
                };
                assert_eq!(probed.probes().register(&probes[p]), want);
                None
            }
            Step::Unregister(p) => {
                let want = match registered.iter().position(|&q| q == p) {
                    Some(i) => {
                        registered.remove(i);
                        Ok(())
                    }
                    None => Err(Errno::EINVAL),
                };
                assert_eq!(probed.probes().unregister(&probes[p]), want);
                None
            }
            Step::Fork(i) => {
                let cur = pick(i);
                let (a, b) = (plain.fork(cur), probed.fork(cur));
                assert_eq!(a, b);
                let rv = match a {
                    Ok(c) => {
                        live.push(c);
                        RetVal::Value(plain.pid_vnr(cur, c).unwrap().into())
                    }
                    Err(e) => RetVal::Err(e),
                };
                Some((Op::Fork, cur, rv))
            }
            Step::ExitGroup(i) => {
                let cur = pick(i);
                let (a, b) = (plain.exit_group(cur, 1), probed.exit_group(cur, 1));
                assert_eq!(a, b);
                Some((
                    Op::ExitGroup,
                    cur,
                    a.map_or_else(RetVal::Err, |()| RetVal::Value(0)),
                ))
            }
            Step::Wait(i, nohang) => {
                let cur = pick(i);
                let opts = if nohang { WNOHANG } else { 0 };
                let (a, b) = (plain.wait4(cur, -1, opts), probed.wait4(cur, -1, opts));
                assert_eq!(a, b);
                let rv = match a {
                    Ok(WaitOutcome::Reported(r)) => RetVal::Value(r.pid.into()),
                    Ok(WaitOutcome::NothingYet) => RetVal::Value(0),
                    Ok(WaitOutcome::WouldBlock) => RetVal::WouldBlock,
                    Ok(other) => panic!("an outcome this test does not know: {other:?}"),
                    Err(e) => RetVal::Err(e),
                };
                Some((Op::Wait4, cur, rv))
            }
            Step::Kill(i, pid, sig) => {
                let cur = pick(i);
                let (a, b) = (plain.kill(cur, pid, sig), probed.kill(cur, pid, sig));
                assert_eq!(a, b);
                Some((
                    Op::Kill,
                    cur,
                    a.map_or_else(RetVal::Err, |()| RetVal::Value(0)),
                ))
            }
            Step::Setpgid(i) => {
                let cur = pick(i);
                let (a, b) = (plain.setpgid(cur, 0, 0), probed.setpgid(cur, 0, 0));
                assert_eq!(a, b);
                Some((
                    Op::Setpgid,
                    cur,
                    a.map_or_else(RetVal::Err, |()| RetVal::Value(0)),
                ))
            }
            Step::Setsid(i) => {
                let cur = pick(i);
                let (a, b) = (plain.setsid(cur), probed.setsid(cur));
                assert_eq!(a, b);
                Some((
                    Op::Setsid,
                    cur,
                    a.map_or_else(RetVal::Err, |v| RetVal::Value(v.into())),
                ))
            }
            Step::Mmap(i, len) => {
                let cur = pick(i);
                let f = MAP_PRIVATE | MAP_ANONYMOUS;
                let a = plain.mmap(cur, 0, len, PROT_READ, f, None, 0);
                let b = probed.mmap(cur, 0, len, PROT_READ, f, None, 0);
                assert_eq!(a, b);
                Some((
                    Op::Mmap,
                    cur,
                    a.map_or_else(RetVal::Err, |v| RetVal::Value(v as i64)),
                ))
            }
        };
        if let Some((op, cur, rv)) = call {
            // Return handlers run last registered first.
            for &p in registered.iter().rev() {
                if PROBE_OPS[p].contains(op) {
                    expected.push((p, op, cur, rv));
                }
            }
        }
        assert_eq!(plain.take_notifications(), probed.take_notifications());
        assert_eq!(plain.nr_tasks(), probed.nr_tasks());
    }
    assert_eq!(*log.lock().unwrap(), expected);
    for p in &probes {
        assert_eq!(p.nmissed(), 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 128 }))]

    #[test]
    fn probes_see_exactly_the_calls_made_while_registered_and_change_nothing(
        steps in prop::collection::vec(step(), 1..80)
    ) {
        run(&steps);
    }
}

#[test]
fn a_fixed_scenario_is_logged_in_order() {
    use Step::*;
    run(&[
        Register(0),
        Fork(0),
        Register(1),
        Fork(1),
        Wait(0, true),
        ExitGroup(2),
        Unregister(0),
        Wait(0, false),
        Register(2),
        Kill(0, 2, 99),
        Mmap(1, 8192),
    ]);
}
