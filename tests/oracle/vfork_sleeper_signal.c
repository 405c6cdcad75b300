/* Which thread takes a process-directed signal when the leader sleeps in
 * vfork (issue 24, the model-vs-core case 3029ecf), run WITHOUT strace, as
 * root:
 * - vfork_sleeper: the tracee (seized with PTRACE_O_TRACEVFORK) runs a
 *   thread that did PTRACE_TRACEME and waits in pause(); the leader vforks,
 *   its tracer resumes it from the VFORK event stop with PTRACE_SYSCALL, so
 *   it sleeps in wait_for_vfork_done() (TASK_KILLABLE), its child held in
 *   its first trap. Then kill(tracee, SIGSTOP): complete_signal() asks
 *   wants_signal() of the leader first; the lines show whether the thread
 *   took the signal (a signal-delivery-stop its tracer can wait for and
 *   PTRACE_CONT) or it stayed with the sleeping leader. Then SIGCONT:
 *   the leader, woken for the first signal (TIF_SIGPENDING set) but still
 *   asleep, no longer wants a signal (wants_signal(): `task_curr(p) ||
 *   !task_sigpending(p)`), so the thread takes it.
 * - vfork_sleeper_usr1: the same with SIGUSR1 (SIG_DFL: fatal, but to a
 *   traced group, so not at once) first.
 * - vfork_sleeper_interrupt: PTRACE_INTERRUPT of the sleeping leader (its
 *   trap waits for the vfork; ptrace_signal_wake_up() sets TIF_SIGPENDING),
 *   then SIGUSR1: the thread takes it.
 * - vfork_sleeper_cont_only: SIGCONT alone: the leader, with no
 *   TIF_SIGPENDING yet, wants it and keeps it.
 * - pause_leader: the same without the vfork (the leader in pause()): the
 *   control, where the leader takes it.
 * Lines: as tracer_log.h prints them, pids by name.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer_log.h"

static int tidpipe[2];
static int go[2];

static void *thread_main(void *a) {
    (void)a;
    pid_t tid = syscall(SYS_gettid);
    long r = ptrace(PTRACE_TRACEME, 0, 0, 0);
    if (r != 0) _exit(4);
    if (write(tidpipe[1], &tid, sizeof tid) != sizeof tid) _exit(3);
    for (;;) pause();
}

static void nap(int ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* first: the signal sent first (0 for none), then SIGCONT if `cont`. */
static void one_case(const char *name_, int do_vfork, int first, int cont, int interrupt) {
    cs = name_;
    if (pipe(tidpipe) || pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        char b;
        if (read(go[0], &b, 1) != 1) _exit(9);
        pthread_t t;
        pthread_create(&t, NULL, thread_main, NULL);
        if (read(go[0], &b, 1) != 1) _exit(9);
        if (do_vfork) {
            pid_t v = vfork();
            if (v == 0) _exit(0);
        }
        for (;;) pause();
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEVFORKDONE);
    if (write(go[1], "g", 1) != 1) exit(1);
    pid_t tid;
    if (read(tidpipe[0], &tid, sizeof tid) != sizeof tid) exit(1);
    name(tid, "tracee.thread");
    if (write(go[1], "v", 1) != 1) exit(1);
    if (do_vfork) {
        W(c); /* the VFORK event stop; names the child tracee.vfork */
        pid_t v = 0;
        for (int i = nnames - 1; i >= 0 && !v; i--)
            if (!strcmp(names[i].name, "tracee.vfork")) v = names[i].pid;
        W(v); /* the child's first trap */
        PT(PTRACE_SYSCALL, c, 0);
    }
    nap(100);
    if (interrupt) {
        PT(PTRACE_INTERRUPT, c, 0);
        nap(50);
        Wq(c);
    }
    if (first) {
        K(c, first, first == SIGSTOP ? "SIGSTOP" : "SIGUSR1");
        nap(100);
        Wq(tid);
        PT(PTRACE_CONT, tid, 0);
        Wq(c);
    }
    if (cont) {
        K(c, SIGCONT, "SIGCONT");
        nap(100);
        Wq(tid);
        PT(PTRACE_CONT, tid, 0);
        Wq(c);
    }
    PT(PTRACE_CONT, c, 0);
    for (int i = 0; i < nnames; i++)
        kill(names[i].pid, SIGKILL);
    while (waitpid(-1, NULL, __WALL) > 0) {
    }
    nnames = 0;
    close(tidpipe[0]);
    close(tidpipe[1]);
    close(go[0]);
    close(go[1]);
}

/* term_after_stop: an untraced, single-threaded process asleep in vfork
 * is sent SIGSTOP (which it keeps: TIF_SIGPENDING), then SIGTERM: it no
 * longer wants a signal, so complete_signal() returns before its fatal
 * fast path; it lives until the vfork child ends, then takes the SIGTERM
 * (the lower number) and dies of it. */
static void case_term_after_stop(void) {
    cs = "term_after_stop";
    int vp[2];
    if (pipe(vp)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        pid_t v = vfork();
        if (v == 0) {
            pid_t me = getpid();
            if (write(vp[1], &me, sizeof me) != sizeof me) _exit(3);
            for (;;) pause();
        }
        _exit(0);
    }
    name(c, "tracee");
    pid_t v;
    if (read(vp[0], &v, sizeof v) != sizeof v) exit(1);
    close(vp[0]);
    close(vp[1]);
    nap(100);
    K(c, SIGSTOP, "SIGSTOP");
    nap(50);
    K(c, SIGTERM, "SIGTERM");
    nap(100);
    Wq(c);
    K(c, 0, "0");
    K(v, SIGKILL, "SIGKILL_to_the_vfork_child");
    W(c);
    while (waitpid(-1, NULL, __WALL) > 0) {
    }
    nnames = 0;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    one_case("pause_leader", 0, SIGSTOP, 1, 0);
    one_case("vfork_sleeper", 1, SIGSTOP, 1, 0);
    one_case("vfork_sleeper_usr1", 1, SIGUSR1, 1, 0);
    one_case("vfork_sleeper_interrupt", 1, SIGUSR1, 0, 1);
    one_case("vfork_sleeper_cont_only", 1, 0, 1, 0);
    case_term_after_stop();
    return 0;
}
