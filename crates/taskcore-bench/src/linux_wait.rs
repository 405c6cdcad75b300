//! Reference for `wait`: the same workload on this machine's kernel.
//!
//! N real children are forked and sleep in `pause()` (with
//! `PR_SET_PDEATHSIG` so they die with us); the timed operation is one more
//! `fork()` whose child calls `_exit(0)` at once, then `waitpid(pid)` or
//! `waitpid(-1)` for it. This is seed 000's `BM_WaitPid`, except that the N
//! children are alive rather than zombies (a zombie would be reaped first by
//! `waitpid(-1)`). Linux >= 5.13 looks a pid up directly, so `pid` stays
//! flat; `waitpid(-1)` still walks the children list.

use std::time::Duration;

use super::harness::{per_op_with, Sample};

/// N sleeping children of this process; killed and reaped on drop.
#[derive(Debug, Default)]
pub(crate) struct RealChildren {
    pids: Vec<libc::pid_t>,
}

impl RealChildren {
    /// Forks sleeping children until there are `n`.
    pub(crate) fn grow_to(&mut self, n: usize) -> Result<(), String> {
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        while self.pids.len() < n {
            // SAFETY: this process is single-threaded while benchmarking, so
            // the child may run any code; it only calls async-signal-safe
            // functions anyway (prctl, getppid, pause, _exit).
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                return Err(format!(
                    "fork failed after {} children: {}",
                    self.pids.len(),
                    std::io::Error::last_os_error()
                ));
            }
            if pid == 0 {
                // SAFETY: plain system calls in the child of a fork.
                unsafe {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    if libc::getppid() != me {
                        libc::_exit(0);
                    }
                    loop {
                        libc::pause();
                    }
                }
            }
            self.pids.push(pid);
        }
        Ok(())
    }

    /// Times fork + `_exit(0)` + `waitpid(pid)` (or `waitpid(-1)` when
    /// `any`), with the current children present.
    pub(crate) fn measure(
        &self,
        any: bool,
        batch: Duration,
        reps: usize,
    ) -> Result<Sample, String> {
        let mut failure: Option<String> = None;
        let sample = per_op_with(batch, reps, &mut || {
            if failure.is_some() {
                return;
            }
            // SAFETY: single-threaded process; the child only calls _exit.
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                failure = Some(format!("fork: {}", std::io::Error::last_os_error()));
                return;
            }
            if pid == 0 {
                // SAFETY: _exit is async-signal-safe and never returns.
                unsafe { libc::_exit(0) };
            }
            let mut status = 0;
            let target = if any { -1 } else { pid };
            // SAFETY: `status` is a valid out pointer.
            let got = unsafe { libc::waitpid(target, &mut status, 0) };
            if got != pid {
                failure = Some(format!(
                    "waitpid({target}) returned {got}, expected {pid}: {}",
                    std::io::Error::last_os_error()
                ));
            }
        });
        match failure {
            Some(f) => Err(f),
            None => Ok(sample),
        }
    }
}

impl Drop for RealChildren {
    fn drop(&mut self) {
        for &p in &self.pids {
            // SAFETY: p is our own child, not yet reaped.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        for &p in &self.pids {
            let mut status = 0;
            // SAFETY: `status` is a valid out pointer.
            unsafe { libc::waitpid(p, &mut status, 0) };
        }
    }
}
