//! Group stop of a 3-thread process compared with Linux's answers recorded
//! by tests/oracle/jobctl_rules.c (re-record with tests/oracle/record.sh):
//! the parent's CLD_STOPPED/CLD_CONTINUED siginfo, the threads' states, and
//! what WUNTRACED/WSTOPPED/WCONTINUED report. With
//! `SignalDelivery::OnGetSignal`, the parent hears of the stop only once
//! every thread took part.
//!
//! Not expressed here: the procfs signal lines (SigQ...: other tests), the
//! orphaned-pgrp and PDEATHSIG cases (the lead's and other tests).

use crate::common::recorded;

use taskcore::uapi::*;
use taskcore::{Config, Kernel, SigWait, SignalAction, SignalDelivery, TaskId, WaitOutcome};

const OUT: &str = include_str!("oracle/jobctl_rules.out");

fn want(key: &str) -> &'static str {
    recorded::want(OUT, key)
}

struct Setup {
    k: Kernel,
    p: TaskId,
    c: TaskId,
    threads: Vec<TaskId>,
    cp: i32,
}

fn setup(delivery: SignalDelivery) -> Setup {
    let mut k = Kernel::new(Config::default()).unwrap();
    k.set_signal_delivery(delivery);
    let init = k.init_task().unwrap();
    // Like the recording's parent: its own process group under a shell in
    // the same session, so that the child's group is not orphaned.
    let shell = k.fork(init).unwrap();
    k.setsid(shell).unwrap();
    let p = k.fork(shell).unwrap();
    k.setpgid(p, 0, 0).unwrap();
    k.rt_sigprocmask(p, SIG_SETMASK, Some(1 << (SIGCHLD - 1)))
        .unwrap();
    let c = k.fork(p).unwrap();
    let t1 = k.clone(c, &taskcore::CloneArgs::thread()).unwrap();
    let t2 = k.clone(c, &taskcore::CloneArgs::thread()).unwrap();
    let cp = k.pid_vnr(p, c).unwrap();
    Setup {
        k,
        p,
        c,
        threads: vec![c, t1, t2],
        cp,
    }
}

impl Setup {
    fn states(&self) -> String {
        let clock = taskcore::procfs::ProcClock {
            now_ns: 0,
            boot_ns: 0,
            boot_wall_s: 0,
        };
        let fs = taskcore::procfs::ProcFs::new(&self.k, self.k.root_ns(), clock).unwrap();
        let mut s = String::new();
        for &t in &self.threads {
            let tid = self.k.pid_vnr(self.p, t).unwrap();
            let path = format!("{}/task/{tid}/stat", self.cp);
            let body =
                String::from_utf8(fs.read(fs.resolve(path.as_bytes()).unwrap()).unwrap()).unwrap();
            let i = body.rfind(')').unwrap();
            s.push(body.as_bytes()[i + 2] as char);
        }
        format!("threads={} states={s}", self.threads.len())
    }

    fn chld(&mut self) -> String {
        match self.k.rt_sigtimedwait(self.p, 1 << (SIGCHLD - 1), true) {
            Ok(SigWait::Signal(i)) => format!(
                "sig={} si_code={} si_status={} si_pid={}",
                i.signo,
                i.code,
                i.status,
                if i.pid == self.cp { "child" } else { "other" }
            ),
            Err(e) => format!("ret=-1 errno={e:?}"),
            Ok(SigWait::WouldBlock) => "would block".into(),
            Ok(_) => "other".into(),
        }
    }

    fn wp(&mut self, flags: i32) -> String {
        match self.k.wait4(self.p, self.cp, flags | WNOHANG).unwrap() {
            WaitOutcome::Reported(r) => format!("ret=child status={:#x}", r.status),
            _ => "ret=0 status=0x0".into(),
        }
    }

    fn wid(&mut self, flags: i32) -> String {
        match self
            .k
            .waitid(self.p, P_PID, self.cp, flags | WNOHANG)
            .unwrap()
        {
            WaitOutcome::Reported(r) => format!(
                "ret=0 si_pid=child si_code={} si_status={}",
                r.info.code, r.info.status
            ),
            _ => "ret=0 si_pid=zero si_code=0 si_status=0".into(),
        }
    }
}

fn group_stop(delivery: SignalDelivery) {
    let mut s = setup(delivery);
    assert_eq!(s.states(), want("running"));
    let (p, cp) = (s.p, s.cp);
    s.k.kill(p, cp, SIGSTOP).unwrap();
    if delivery == SignalDelivery::OnGetSignal {
        // The thread that took SIGSTOP stops first; the parent hears
        // nothing until the last thread took part.
        let mut stopped = 0;
        for i in 0..3 {
            let t = s.threads[i];
            assert_eq!(s.k.get_signal(t), Ok(SignalAction::Stopped));
            stopped += 1;
            if stopped < 3 {
                assert_eq!(s.chld(), "ret=-1 errno=EAGAIN");
                assert_eq!(s.wp(WUNTRACED), "ret=0 status=0x0");
                let st = s.states();
                assert_eq!(st.matches('T').count(), stopped, "{st}");
            }
        }
    }
    assert_eq!(s.chld(), want("stop_sigchld"));
    assert_eq!(s.states(), want("stopped"));
    assert_eq!(
        s.wid(WSTOPPED | WNOWAIT),
        want("stop_waitid_wstopped_wnowait")
    );
    assert_eq!(s.wp(0), want("stop_waitpid_no_flags_wnohang"));
    assert_eq!(s.wp(WCONTINUED), want("stop_waitpid_wcontinued_wnohang"));
    assert_eq!(s.wp(WUNTRACED), want("stop_waitpid_wuntraced"));
    assert_eq!(s.wp(WUNTRACED), want("stop_waitpid_wuntraced_again"));
    assert_eq!(s.wid(WSTOPPED), want("stop_waitid_wstopped_again"));
    s.k.kill(p, cp, SIGSTOP).unwrap();
    assert_eq!(s.chld(), want("stop_again_sigchld"));
    assert_eq!(s.wp(WUNTRACED), want("stop_again_waitpid_wuntraced"));
    s.k.kill(p, cp, SIGCONT).unwrap();
    if delivery == SignalDelivery::OnGetSignal {
        // The parent hears of it from the first thread to run get_signal()
        // (SIGNAL_CLD_CONTINUED), not from the sender.
        assert_eq!(s.chld(), "ret=-1 errno=EAGAIN");
        for &t in &s.threads.clone() {
            s.k.get_signal(t).unwrap();
        }
    }
    assert_eq!(s.chld(), want("cont_sigchld"));
    assert_eq!(s.states(), want("continued"));
    assert_eq!(s.wp(WUNTRACED), want("cont_waitpid_wuntraced"));
    assert_eq!(
        s.wid(WCONTINUED | WNOWAIT),
        want("cont_waitid_wcontinued_wnowait")
    );
    assert_eq!(s.wp(WCONTINUED), want("cont_waitpid_wcontinued"));
    assert_eq!(s.wp(WCONTINUED), want("cont_waitpid_wcontinued_again"));
    s.k.kill(p, cp, SIGCONT).unwrap();
    assert_eq!(s.chld(), want("cont_when_running_sigchld"));
    for (sig, key) in [(SIGTSTP, "tstp"), (SIGTTIN, "ttin"), (SIGTTOU, "ttou")] {
        s.k.kill(p, cp, sig).unwrap();
        if delivery == SignalDelivery::OnGetSignal {
            for &t in &s.threads.clone() {
                s.k.get_signal(t).unwrap();
            }
        }
        assert_eq!(s.chld(), want(&format!("{key}_sigchld")));
        if key == "tstp" {
            assert_eq!(s.wid(WSTOPPED), want("tstp_waitid_wstopped"));
        }
        s.k.kill(p, cp, SIGCONT).unwrap();
        if delivery == SignalDelivery::OnGetSignal {
            for &t in &s.threads.clone() {
                s.k.get_signal(t).unwrap();
            }
        }
        assert_eq!(s.chld(), want(&format!("{key}_cont_sigchld")));
        if key == "tstp" {
            assert_eq!(s.wid(WCONTINUED), want("tstp_cont_waitid_wcontinued"));
        }
    }
    assert_eq!(
        s.wp(WUNTRACED | WCONTINUED),
        want("ttou_cont_waitpid_wuntraced_wcontinued")
    );
    assert_eq!(
        s.wp(WUNTRACED | WCONTINUED),
        want("ttou_cont_waitpid_again")
    );
    s.k.kill(p, cp, SIGSTOP).unwrap();
    if delivery == SignalDelivery::OnGetSignal {
        for &t in &s.threads.clone() {
            s.k.get_signal(t).unwrap();
        }
    }
    assert_eq!(s.chld(), want("kill_stopped_stop_sigchld"));
    s.k.kill(p, cp, SIGKILL).unwrap();
    assert_eq!(s.chld(), want("kill_stopped_sigchld"));
    let r = match s.k.wait4(p, cp, WUNTRACED | WCONTINUED).unwrap() {
        WaitOutcome::Reported(r) => format!("ret=child status={:#x}", r.status),
        _ => "none".into(),
    };
    assert_eq!(r, want("kill_stopped_waitpid"));
    let _ = s.c;
    s.k.check_invariants();
}

#[test]
fn group_stop_immediate_as_linux() {
    group_stop(SignalDelivery::Immediate);
}

#[test]
fn group_stop_through_every_thread_as_linux() {
    group_stop(SignalDelivery::OnGetSignal);
}
