//! `taskcore run`'s ptrace stops: the calls it no longer stops at keep
//! their effect (an exec followed at its event, a `set_tid_address`
//! made before the address space is shared), and a `/bin/true` loop
//! costs the stops docs/run.md counts.

use std::time::Duration;

use crate::run_live::{available, have};
use crate::run_races::{build, runs_like_native};

/// A non-leader thread execs while the leader and another thread sleep
/// (`de_thread()` kills them: their deaths report exit code 0); a vfork
/// child execs and is sent SIGTERM at once (its handlers are the new
/// image's); a vfork child's first execve fails before one succeeds; a
/// vfork child exits.
const EXECS: &str = r#"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void *sleeper(void *a) { sleep(10); return 0; }
static void *execer(void *a) {
    usleep(20000);
    execl("/bin/sh", "sh", "-c", "echo exec pid $$ ppid $PPID", (char *)0);
    perror("exec");
    return 0;
}
static void handler(int s) { _exit(9); }
int main(void) {
    pid_t p = fork();
    if (p == 0) {
        pthread_t t1, t2;
        pthread_create(&t1, 0, sleeper, 0);
        pthread_create(&t2, 0, execer, 0);
        pthread_join(t1, 0);
        return 3;
    }
    int st;
    pid_t w = waitpid(p, &st, 0);
    printf("child %d reaped %d status %#x\n", p, w, st);
    signal(SIGTERM, handler);
    pid_t v = vfork();
    if (v == 0) { execl("/bin/sleep", "sleep", "5", (char *)0); _exit(127); }
    kill(v, SIGTERM);
    waitpid(v, &st, 0);
    printf("vfork child %d status %#x\n", v, st);
    v = vfork();
    if (v == 0) {
        execl("/nonexistent", "x", (char *)0);
        execl("/bin/sh", "sh", "-c", "exit 4", (char *)0);
        _exit(127);
    }
    waitpid(v, &st, 0);
    printf("vfork child %d status %#x\n", v, st);
    v = vfork();
    if (v == 0) _exit(7);
    waitpid(v, &st, 0);
    printf("vfork child %d status %#x\n", v, st);
    return 0;
}
"#;

/// The main thread's `set_tid_address` (glibc's, at start) is answered at
/// its entry; another thread joins the main thread after its
/// `pthread_exit`, woken by the kernel's `clear_child_tid` futex wake,
/// so the real call must have been made before the thread was created.
const JOIN_MAIN: &str = r#"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static pthread_t mainth;
static void *joiner(void *a) {
    pthread_join(mainth, NULL);
    printf("joined main from %ld\n", (long)syscall(SYS_gettid));
    exit(0);
}
int main(void) {
    printf("main %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    mainth = pthread_self();
    pthread_t t;
    pthread_create(&t, 0, joiner, 0);
    pthread_exit(0);
}
"#;

/// `out` with each number (a pid: virtual or real) as `N`.
fn no_pids(out: &[u8]) -> String {
    let mut s = String::new();
    for c in String::from_utf8_lossy(out).chars() {
        if !c.is_ascii_digit() {
            s.push(c);
        } else if !s.ends_with('N') {
            s.push('N');
        }
    }
    s
}

/// Runs `bin` natively and three times under `taskcore run` (within
/// 30 s each): the same output (pids aside) and status, no divergence.
fn same_as_native(bin: &std::path::Path) {
    runs_like_native(
        &[bin.to_str().unwrap()],
        3,
        Duration::from_secs(30),
        no_pids,
        None,
    );
}

/// Execs followed at their exec event (execve is not trapped): a
/// non-leader's, vfork children's (their parent's release waits for the
/// exec event), failed ones.
#[test]
fn execs_seen_at_their_event_only() {
    if !available() || !have("gcc") {
        return;
    }
    same_as_native(&build("execs", EXECS));
}

/// A `set_tid_address` answered at its entry keeps its effect: the real
/// call is made before the first `CLONE_VM` clone, so joining the main
/// thread ends (it hung before that was done).
#[test]
fn set_tid_address_is_made_before_the_address_space_is_shared() {
    if !available() || !have("gcc") {
        return;
    }
    same_as_native(&build("join_main", JOIN_MAIN));
}
