//! Calls answered at their seccomp stop, with no syscall-exit stop: the
//! real kernel's answer is read from its state another way, the call is
//! skipped (`orig_rax = -1`, `rax` = that answer renumbered), and the
//! core's answer is compared with it as at an exit.
//!
//! | call | the real answer, read at the stop |
//! |---|---|
//! | `gettid` | the stopped thread's tid (`waitpid`'s) |
//! | `getpid` | its tgid, known since its clone event ([`super::Thread::tgid`]) |
//! | `set_tid_address` by a thread whose address space nobody shares | the stopped thread's tid; the call itself is made before the thread's first `CLONE_VM` clone (`supervisor/tidaddr.rs`) |
//! | `getppid`, `getpgrp`, `getpgid(0)`, `getsid(0)` | fields 4-6 of `/proc/TID/stat` (`real_parent`'s tgid, `task_pgrp_nr_ns`, `task_session_nr_ns`) |
//! | `wait4` with valid options by a single-threaded process (no other thread known to the supervisor, [`Supervisor::lone_thread`]) whose wait the core answers `ECHILD` | `ECHILD` when it has no child (`/proc/TGID/task/TID/children` empty: `do_wait()` finds no task to consider) |
//!
//! Each read is made while the caller is stopped in its call, so the
//! answer is the kernel's at one moment inside the call, as a syscall's
//! own would be. Anything else (another pid, a wait with children) runs
//! in the kernel as before.

use std::io::Read;

use super::Supervisor;

/// wait4's valid options (`kernel_wait4()`): anything else is `EINVAL`.
const WAIT4_OPTIONS: u32 = (libc::WNOHANG | libc::WUNTRACED | libc::WCONTINUED) as u32
    | libc::__WNOTHREAD as u32
    | libc::__WCLONE as u32
    | libc::__WALL as u32;

/// Reads at most 1 KiB of `path` (`/proc` files are generated on read;
/// no `statx` for a size hint as `fs::read` would make).
fn read_small(path: &str) -> Option<Vec<u8>> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 1024];
    let n = f.read(&mut buf).ok()?;
    buf.truncate(n);
    Some(buf)
}

/// Fields 4, 5 and 6 of `/proc/TID/stat` (ppid, pgrp, session), read
/// after the last `)` (the command name may hold spaces and parentheses).
pub(super) fn stat_ids(tid: i32) -> Option<[i32; 3]> {
    parse_stat_ids(&read_small(&format!("/proc/{tid}/stat"))?)
}

/// [`stat_ids`] of the text of a `/proc/TID/stat`.
fn parse_stat_ids(text: &[u8]) -> Option<[i32; 3]> {
    let close = text.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&text[close + 1..]).ok()?;
    // " S ppid pgrp session ..."
    let mut f = rest.split_ascii_whitespace().skip(1);
    let mut next = || f.next()?.parse::<i32>().ok();
    Some([next()?, next()?, next()?])
}

/// Whether real thread `tid`, the only thread of its group, has no child
/// (`None`: unknown, such as a kernel without `CONFIG_PROC_CHILDREN`).
/// Only a group whose one thread is the caller, stopped, is read (the
/// caller checks it, [`Supervisor::lone_thread`]): with several, each
/// list is read at another moment, and a thread exiting in between moves
/// its children to another one's list (`forget_original_parent()`), which
/// could then be read before and the exiting one's after the move, both
/// empty (randscen seed 27: `wait4(141, WNOHANG|WSTOPPED) = -1 ECHILD`
/// given to the program, with the child alive).
fn no_children(tgid: i32, tid: i32) -> Option<bool> {
    let kids = read_small(&format!("/proc/{tgid}/task/{tid}/children"))?;
    Some(!kids.iter().any(|b| b.is_ascii_digit()))
}

impl Supervisor {
    /// Whether real thread `tid` of group `tgid` is its group's only
    /// thread: no other thread of the run has that group (or an unknown
    /// one, 0), none is born into it (its first stop to come), and no new
    /// task's first stop is parked before its creator's clone event. Each
    /// thread is in [`Supervisor::threads`] from its creator's clone event
    /// (which comes before that clone returns) to its death report (which
    /// comes after its `exit_notify()` handed its children on), so no
    /// thread the kernel has, or had when the caller stopped, is missed;
    /// the kernel's `/proc/TGID/task` listing, which this replaces, costs
    /// four system calls.
    pub(super) fn lone_thread(&self, tid: i32, tgid: i32) -> bool {
        let of_group = |g: i32| g == tgid || g == 0;
        tgid > 0
            && self.parked.is_empty()
            && !self.newborn.values().any(|nb| of_group(nb.tgid))
            && !self
                .threads
                .iter()
                .any(|(&t, th)| t != tid && of_group(th.tgid))
    }

    /// The real kernel's answer to call `nr` with real arguments `args`
    /// by thread `tid`, stopped at its entry, when it can be read now
    /// (a pid or `-errno`, not renumbered); `None`: the call must run.
    /// `core_childless`: the core's answer to the same wait now is
    /// `ECHILD` (otherwise the kernel, whose children the core mirrors,
    /// most likely has one too, and a wait runs without reading its
    /// children lists: the same check, at the exit).
    pub(super) fn real_answer_at_entry(
        &self,
        tid: i32,
        nr: i64,
        args: &[u64; 6],
        core_childless: bool,
    ) -> Option<i64> {
        let tgid = self.threads.get(&tid).map_or(0, |t| t.tgid);
        let own = args[0] as i32 == 0;
        let r = match nr {
            libc::SYS_gettid => tid,
            libc::SYS_getpid if tgid > 0 => tgid,
            // Its effect waits for the address space to be shared
            // (supervisor/tidaddr.rs).
            libc::SYS_set_tid_address if self.tid_address_unshared(tid) => tid,
            libc::SYS_getppid => stat_ids(tid)?[0],
            libc::SYS_getpgrp => stat_ids(tid)?[1],
            libc::SYS_getpgid if own => stat_ids(tid)?[1],
            libc::SYS_getsid if own => stat_ids(tid)?[2],
            libc::SYS_wait4
                if args[2] as u32 & !WAIT4_OPTIONS == 0
                    && args[0] as i32 != i32::MIN
                    && core_childless
                    && self.lone_thread(tid, tgid)
                    && no_children(tgid, tid)? =>
            {
                -libc::ECHILD
            }
            _ => return None,
        };
        Some(r.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_ids_are_read_after_the_last_parenthesis() {
        let line = b"4242 (a) b (c) S 17 4242 99 34816 4242 4194304 0 0";
        assert_eq!(parse_stat_ids(line), Some([17, 4242, 99]));
        assert_eq!(parse_stat_ids(b"4242 (sh S 1 2 3"), None);
        // This process's own, as the kernel writes it.
        // SAFETY: getppid/getpgrp/getsid read this process's ids.
        let want = unsafe { [libc::getppid(), libc::getpgrp(), libc::getsid(0)] };
        // SAFETY: gettid reads this thread's id.
        let tid = unsafe { libc::gettid() };
        assert_eq!(stat_ids(tid), Some(want));
    }

    #[test]
    fn a_child_is_seen_in_the_children_lists() {
        let me = std::process::id() as i32;
        if !std::path::Path::new(&format!("/proc/{me}/task/{me}/children")).exists() {
            assert_eq!(no_children(me, me), None);
            return;
        }
        // A single-threaded shell with one child, and that child with none.
        let mut sh = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(sh.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let sleep: i32 = line.trim().parse().unwrap();
        let shell = sh.id() as i32;
        let (of_shell, of_sleep) = (no_children(shell, shell), no_children(sleep, sleep));
        // SAFETY: kill of the sleep this test started.
        unsafe { libc::kill(sleep, libc::SIGKILL) };
        sh.wait().unwrap();
        assert_eq!(of_shell, Some(false));
        assert_eq!(of_sleep, Some(true));
    }
}
