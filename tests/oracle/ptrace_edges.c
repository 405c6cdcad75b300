/* Edges of ptrace stops (issue 10), run WITHOUT strace, as root:
 * - sigcont*: SIGCONT to a seized tracee when no group stop is in effect
 *   (prepare_signal() calls ptrace_trap_notify() for every PT_SEIZED
 *   thread: a PTRACE_EVENT_STOP before the SIGCONT is dequeued);
 * - exit_*: which threads take a PTRACE_EVENT_EXIT stop when the group dies
 *   of SIGTERM, of SIGKILL, or by exit_group() of one thread;
 * - resume_*: the signal given to PTRACE_CONT in an event stop
 *   (PTRACE_EVENT_STOP of PTRACE_INTERRUPT and of a new child, FORK,
 *   VFORK_DONE, EXEC, EXIT) and in a syscall-entry/-exit stop. The tracee's
 *   handler sets a bit per signal it ran for and exits with that mask.
 * - zombie_status: a traced thread that ended with exit(0), reaped by its
 *   tracer only after another thread's exit_group(173): wait_task_zombie()
 *   reports the group's exit code (what strace prints as `+++ exited with
 *   173 +++` for that thread).
 * - sigstop_cancelled*: SIGSTOP dequeued (signal-delivery-stop), then
 *   SIGCONT sent, then the tracer resumes with SIGSTOP: prepare_signal()
 *   cleared JOBCTL_STOP_DEQUEUED, so do_signal_stop() gives the stop up
 *   (what strace shows as `--- SIGSTOP` then `--- SIGCONT`, no stop).
 * - exit_in_stop: SIGKILL to a tracee (PTRACE_O_TRACEEXIT) waiting in a
 *   signal-delivery-stop: it leaves the stop for its PTRACE_EVENT_EXIT stop.
 * - exit_tracer_gone: a tracee waits in its PTRACE_EVENT_EXIT stop when its
 *   tracer (a sibling process) exits: untraced, it goes on exiting, and
 *   its real parent reaps it.
 * - exit_stop_killed: SIGKILL to a tracee waiting in its PTRACE_EVENT_EXIT
 *   stop of a fatal SIGTERM (SIGNAL_GROUP_EXIT set: do_group_exit()) is
 *   dropped: it stays in the stop until resumed.
 * - exit_stop_killed_exit: the same after the tracee's own exit(0) (no
 *   group exit): the SIGKILL wakes it and it goes on exiting.
 * - exit_stop_zapped: the leader waits in its PTRACE_EVENT_EXIT stop of
 *   exit(5) while another (untraced) thread runs; SIGTERM kills the group:
 *   the leader goes on exiting, no second exit stop.
 * - stop_undequeued: PTRACE_DETACH with SIGSTOP from the signal-delivery-
 *   stop of a SIGTERM (no stop signal dequeued: JOBCTL_STOP_DEQUEUED clear)
 *   and from that of a SIGSTOP.
 * - clone_ptrace_stop: a CLONE_PTRACE child starts with SIGSTOP pending and
 *   stops for it (signal-delivery-stop); resumed with that SIGSTOP, it
 *   stops again (do_signal_stop(), then a group-stop trap).
 * - syscall_kill: PTRACE_SYSCALL with SIGKILL from a syscall-entry-stop of
 *   a tracee with PTRACE_O_TRACEEXIT: the SIGKILL is sent, and the tracee
 *   stops in its PTRACE_EVENT_EXIT stop first.
 * - sigcont_syscall: SIGCONT to a seized tracee in a syscall-entry-stop:
 *   its re-trap (JOBCTL_TRAP_NOTIFY) survives the syscall-exit stop (only
 *   a PTRACE_EVENT_STOP trap clears it, ptrace_stop()) and comes once
 *   the tracee is resumed from there, before the SIGCONT itself.
 * - listen_new_thread: a seized process of a stopped group, resumed from
 *   its group-stop trap, makes a thread (PTRACE_O_TRACECLONE): the thread
 *   joins the group stop (task_join_group_stop()) in its first trap (a
 *   PTRACE_EVENT_STOP with SIGSTOP), with no re-trap left pending: after
 *   PTRACE_LISTEN it listens (PTRACE_SETOPTIONS: ESRCH; nothing to wait
 *   for).
 * Lines: as tracer_log.h prints them (ptrace calls, wait status words,
 * event messages, kills), pids by name.
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
#include <unistd.h>

#include "tracer_log.h"

static char *self_exe;
static volatile int mask;
static void h(int s) {
    mask |= s == SIGUSR1 ? 1 : s == SIGUSR2 ? 2 : s == SIGHUP ? 4 : s == SIGURG ? 8 : 16;
}

static int tidpipe[2];
static void *thread_main(void *a) {
    pid_t tid = syscall(SYS_gettid);
    if (write(tidpipe[1], &tid, sizeof tid) != sizeof tid) _exit(3);
    char b;
    /* exit_group case: the thread calls exit_group(3) when told */
    if (read((int)(long)a, &b, 1) == 1) syscall(SYS_exit_group, 3);
    for (;;) pause();
}

/* Forks a tracee that runs `threads` threads (1 or 2), all in pause();
 * names them tracee and tracee.thread. The thread reads `go` (exit_group). */
static pid_t spawn(int threads, pid_t *tid, int go) {
    if (pipe(tidpipe)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        signal(SIGUSR1, h);
        if (threads > 1) {
            pthread_t t;
            pthread_create(&t, NULL, thread_main, (void *)(long)go);
        }
        for (;;) pause();
    }
    name(c, "tracee");
    *tid = 0;
    if (threads > 1) {
        if (read(tidpipe[0], tid, sizeof *tid) != sizeof *tid) exit(1);
        name(*tid, "tracee.thread");
    }
    close(tidpipe[0]);
    close(tidpipe[1]);
    usleep(50000);
    return c;
}

static void case_sigcont(void) {
    cs = "sigcont";
    pid_t t;
    pid_t c = spawn(1, &t, -1);
    PT(PTRACE_SEIZE, c, 0);
    K(c, SIGCONT, "SIGCONT");
    W(c); /* PTRACE_EVENT_STOP? */
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGCONT signal-delivery-stop */
    PT(PTRACE_CONT, c, SIGCONT);
    Wq(c);
    /* SIGCONT while in a signal-delivery-stop */
    K(c, SIGUSR1, "SIGUSR1");
    W(c);
    K(c, SIGCONT, "SIGCONT");
    PT(PTRACE_CONT, c, 0); /* suppress SIGUSR1 */
    W(c);
    PT(PTRACE_CONT, c, 0);
    W(c);
    PT(PTRACE_CONT, c, SIGCONT);
    Wq(c);
    K(c, SIGKILL, "SIGKILL");
    W(c);
    /* an attached (not seized) tracee, for contrast */
    cs = "sigcont_attached";
    c = spawn(1, &t, -1);
    PT(PTRACE_ATTACH, c, 0);
    W(c);
    PT(PTRACE_CONT, c, 0);
    K(c, SIGCONT, "SIGCONT");
    W(c);
    PT(PTRACE_CONT, c, SIGCONT);
    Wq(c);
    K(c, SIGKILL, "SIGKILL");
    W(c);
}

static void case_sigcont_threads(void) {
    cs = "sigcont_threads";
    pid_t t;
    pid_t c = spawn(2, &t, -1);
    PT(PTRACE_SEIZE, c, 0);
    PT(PTRACE_SEIZE, t, 0);
    K(c, SIGCONT, "SIGCONT");
    W(c);
    W(t);
    PT(PTRACE_CONT, c, 0);
    W(c);
    PT(PTRACE_CONT, t, 0);
    Wq(t);
    PT(PTRACE_CONT, c, SIGCONT);
    Wq(c);
    K(c, SIGKILL, "SIGKILL");
    W(t);
    W(c);
}

/* Resumes every stop of the listed tasks with signal 0 (a signal-delivery
 * stop with its own signal) until each has exited; a fixed order per
 * round, settling first. */
static void drain(pid_t *p, int n) {
    int alive = n;
    int done[4] = {0};
    for (int round = 0; round < 6 && alive; round++) {
        int st[4];
        usleep(100000);
        for (int i = 0; i < n; i++) {
            st[i] = -2;
            if (done[i]) continue;
            st[i] = Wq(p[i]);
            if (st[i] >= 0 && !WIFSTOPPED(st[i])) {
                done[i] = 1;
                alive--;
            }
        }
        for (int i = 0; i < n; i++) {
            if (st[i] < 0 || !WIFSTOPPED(st[i])) continue;
            int ev = (st[i] >> 16) & 0xff;
            PT(PTRACE_CONT, p[i], ev ? 0 : WSTOPSIG(st[i]));
        }
    }
}

static void case_exit(int threads, int sig, const char *sn) {
    static char buf[64];
    snprintf(buf, sizeof buf, "exit_%s_%s", threads > 1 ? "threads" : "single",
             sig ? sn : "exit_group");
    cs = buf;
    int go[2];
    if (pipe(go)) exit(1);
    pid_t t;
    pid_t c = spawn(threads, &t, go[0]);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEEXIT);
    if (threads > 1) PT(PTRACE_SEIZE, t, PTRACE_O_TRACEEXIT);
    if (sig)
        K(c, sig, sn);
    else if (write(go[1], "x", 1) != 1)
        exit(1);
    pid_t all[2] = {c, t};
    drain(all, threads);
    close(go[0]);
    close(go[1]);
}

static void resume_tracee(int go) {
    signal(SIGUSR1, h);
    signal(SIGUSR2, h);
    signal(SIGHUP, h);
    signal(SIGURG, h);
    char b;
    if (read(go, &b, 1) != 1) _exit(9);
    pid_t f = fork();
    if (f == 0) _exit(mask);
    waitpid(f, NULL, 0);
    pid_t v = vfork();
    if (v == 0) _exit(0);
    waitpid(v, NULL, 0);
    char m[16];
    snprintf(m, sizeof m, "%d", mask);
    char *argv[] = {self_exe, "exitmask", m, NULL};
    execv("/proc/self/exe", argv);
    _exit(99);
}

/* Event stops: the restart signal of each is SIGUSR1/USR2/HUP/URG (bits 1,
 * 2, 4, 8 of the exit status of the image that ran the handler). */
static void case_resume_events(void) {
    cs = "resume_events";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) resume_tracee(go[0]);
    name(c, "tracee");
    usleep(50000);
    PT(PTRACE_SEIZE, c,
       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT);
    PT(PTRACE_INTERRUPT, c, 0);
    W(c);                        /* PTRACE_EVENT_STOP */
    PT(PTRACE_CONT, c, SIGUSR1); /* bit 1 */
    Wq(c);
    if (write(go[1], "g", 1) != 1) exit(1);
    W(c); /* fork event */
    pid_t f = 0;
    for (int i = 0; i < nnames; i++)
        if (!strcmp(names[i].name, "tracee.fork")) f = names[i].pid;
    W(f);                        /* the new child's PTRACE_EVENT_STOP */
    PT(PTRACE_CONT, f, SIGHUP);  /* bit 4, in the child */
    W(f);                        /* the child's exit event (options inherited) */
    PT(PTRACE_CONT, f, 0);
    W(f); /* the child's exit: its mask */
    PT(PTRACE_CONT, c, SIGUSR2); /* bit 2 */
    W(c);                        /* SIGCHLD */
    PT(PTRACE_CONT, c, 0);
    W(c);                       /* vfork done */
    PT(PTRACE_CONT, c, SIGURG); /* bit 8 */
    W(c);                       /* SIGCHLD */
    PT(PTRACE_CONT, c, 0);
    W(c);                        /* exec event */
    PT(PTRACE_CONT, c, SIGUSR1); /* the new image has SIGUSR1 at SIG_DFL */
    W(c);                        /* exit event */
    PT(PTRACE_CONT, c, SIGUSR1);
    W(c);
}

/* Syscall stops: PTRACE_CONT with SIGUSR1 from a syscall-entry stop and
 * from a syscall-exit stop. */
static void case_resume_syscall(void) {
    cs = "resume_syscall";
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        signal(SIGUSR1, h);
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
        syscall(SYS_getppid);
        mask <<= 4;
        syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
        syscall(SYS_getppid);
        _exit(mask);
    }
    name(c, "tracee");
    W(c); /* SIGSTOP */
    PT(PTRACE_SYSCALL, c, 0);
    W(c); /* getppid entry */
    PT(PTRACE_CONT, c, SIGUSR1);
    W(c); /* SIGUSR1 signal-delivery-stop, if it was sent */
    PT(PTRACE_CONT, c, SIGUSR1);
    W(c); /* SIGSTOP */
    PT(PTRACE_SYSCALL, c, 0);
    W(c); /* getppid entry */
    PT(PTRACE_SYSCALL, c, 0);
    W(c); /* getppid exit */
    PT(PTRACE_CONT, c, SIGUSR1);
    W(c);
    PT(PTRACE_CONT, c, SIGUSR1);
    W(c);
}

static void *exit0(void *a) {
    (void)a;
    syscall(SYS_exit, 0);
    return NULL;
}

static void case_zombie_status(void) {
    cs = "zombie_status";
    int go[2], tidp[2];
    if (pipe(go) || pipe(tidp)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        char b;
        if (read(go[0], &b, 1) != 1) _exit(9);
        pthread_t t;
        pthread_create(&t, NULL, exit0, NULL);
        /* CLONE_CHILD_CLEARTID wakes the join once the thread's mm is
         * released in do_exit() */
        pthread_join(t, NULL);
        usleep(100000);
        syscall(SYS_exit_group, 173);
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACECLONE);
    if (write(go[1], "g", 1) != 1) exit(1);
    W(c); /* clone event */
    pid_t t = 0;
    for (int i = 0; i < nnames; i++)
        if (!strcmp(names[i].name, "tracee.clone")) t = names[i].pid;
    PT(PTRACE_CONT, c, 0);
    W(t); /* the thread's PTRACE_EVENT_STOP */
    PT(PTRACE_CONT, t, 0);
    usleep(300000); /* the thread exited, then the group */
    W(t);
    W(c);
}

static void case_sigstop_cancelled(int seize) {
    cs = seize ? "sigstop_cancelled_seized" : "sigstop_cancelled";
    pid_t t;
    pid_t c = spawn(1, &t, -1);
    if (seize) {
        PT(PTRACE_SEIZE, c, 0);
    } else {
        PT(PTRACE_ATTACH, c, 0);
        W(c);
        PT(PTRACE_CONT, c, 0);
    }
    K(c, SIGSTOP, "SIGSTOP");
    W(c); /* signal-delivery-stop */
    K(c, SIGCONT, "SIGCONT");
    PT(PTRACE_CONT, c, SIGSTOP);
    W(c);
    PT(PTRACE_CONT, c, 0);
    W(c);
    PT(PTRACE_CONT, c, 0);
    Wq(c);
    K(c, SIGKILL, "SIGKILL");
    W(c);
}

static void case_exit_in_stop(void) {
    cs = "exit_in_stop";
    pid_t t;
    pid_t c = spawn(1, &t, -1);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEEXIT);
    K(c, SIGUSR1, "SIGUSR1");
    W(c); /* signal-delivery-stop */
    K(c, SIGKILL, "SIGKILL");
    W(c);
    PT(PTRACE_CONT, c, 0);
    W(c);
}

static void case_exit_tracer_gone(void) {
    cs = "exit_tracer_gone";
    pid_t t;
    pid_t c = spawn(1, &t, -1);
    fflush(stdout);
    pid_t r = fork();
    if (r == 0) {
        PT(PTRACE_SEIZE, c, PTRACE_O_TRACEEXIT);
        K(c, SIGKILL, "SIGKILL");
        W(c); /* PTRACE_EVENT_EXIT */
        fflush(stdout);
        _exit(0);
    }
    name(r, "subtracer");
    W(r);
    W(c); /* reaped by its real parent once the tracer is gone */
}

static void case_exit_stop_killed(void) {
    cs = "exit_stop_killed";
    pid_t t;
    pid_t c = spawn(1, &t, -1);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEEXIT);
    K(c, SIGTERM, "SIGTERM");
    W(c); /* signal-delivery-stop */
    PT(PTRACE_CONT, c, SIGTERM);
    W(c); /* PTRACE_EVENT_EXIT */
    K(c, SIGKILL, "SIGKILL");
    Wq(c);
    PT(PTRACE_CONT, c, 0);
    W(c);
}

static void case_exit_stop_killed_exit(void) {
    cs = "exit_stop_killed_exit";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        char b;
        if (read(go[0], &b, 1) != 1) _exit(9);
        syscall(SYS_exit, 5);
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEEXIT);
    if (write(go[1], "x", 1) != 1) exit(1);
    W(c); /* PTRACE_EVENT_EXIT */
    K(c, SIGKILL, "SIGKILL");
    W(c);
    close(go[0]);
    close(go[1]);
}

static void *pause_forever(void *a) {
    (void)a;
    for (;;) pause();
    return NULL;
}

static void case_exit_stop_zapped(void) {
    cs = "exit_stop_zapped";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        pthread_t t;
        pthread_create(&t, NULL, pause_forever, NULL);
        char b;
        if (read(go[0], &b, 1) != 1) _exit(9);
        syscall(SYS_exit, 5);
    }
    name(c, "tracee");
    usleep(50000);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEEXIT);
    if (write(go[1], "x", 1) != 1) exit(1);
    W(c); /* PTRACE_EVENT_EXIT */
    K(c, SIGTERM, "SIGTERM");
    W(c);
    Wq(c);
    close(go[0]);
    close(go[1]);
}

static void case_stop_undequeued(int first) {
    static char buf[64];
    snprintf(buf, sizeof buf, "stop_undequeued_%s", first == SIGSTOP ? "SIGSTOP" : "SIGTERM");
    cs = buf;
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        for (;;) pause();
    }
    name(c, "tracee");
    usleep(50000);
    PT(PTRACE_SEIZE, c, 0);
    K(c, first, first == SIGSTOP ? "SIGSTOP" : "SIGTERM");
    W(c);
    PT(PTRACE_DETACH, c, SIGSTOP);
    usleep(100000);
    int st = 0;
    pid_t r = waitpid(c, &st, WUNTRACED | WNOHANG);
    printf("%s waitpid WUNTRACED ret=%s status=0x%x\n", cs, r > 0 ? pn(r) : "none", r > 0 ? st : 0);
    K(c, SIGKILL, "SIGKILL");
    W(c);
}

static void case_clone_ptrace_stop(void) {
    cs = "clone_ptrace_stop";
    int gp[2];
    if (pipe(gp)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        kill(getpid(), SIGSTOP);
        long g = syscall(SYS_clone, CLONE_PTRACE | SIGCHLD, 0, 0, 0, 0);
        if (g == 0) {
            for (;;) pause();
        }
        pid_t gg = (pid_t)g;
        if (write(gp[1], &gg, sizeof gg) != sizeof gg) _exit(3);
        for (;;) pause();
    }
    name(c, "tracee");
    W(c);
    PT(PTRACE_CONT, c, 0);
    pid_t g = 0;
    if (read(gp[0], &g, sizeof g) != sizeof g) exit(1);
    name(g, "tracee.child");
    W(g);
    PT(PTRACE_CONT, g, SIGSTOP);
    W(g);
    kill(g, SIGKILL);
    W(g);
    kill(c, SIGKILL);
    W(c);
    close(gp[0]);
    close(gp[1]);
}

static void case_syscall_kill(void) {
    cs = "syscall_kill";
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        kill(getpid(), SIGSTOP);
        for (;;) syscall(SYS_getppid);
    }
    name(c, "tracee");
    W(c);
    PT(PTRACE_SETOPTIONS, c, PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD);
    PT(PTRACE_SYSCALL, c, 0);
    W(c);
    PT(PTRACE_SYSCALL, c, SIGKILL);
    W(c);
    PT(PTRACE_CONT, c, 0);
    W(c);
}

static void case_sigcont_syscall(void) {
    cs = "sigcont_syscall";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        char b;
        if (read(go[0], &b, 1) != 1) _exit(2);
        syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
        syscall(SYS_getppid);
        for (;;) pause();
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, 0);
    if (write(go[1], "g", 1) != 1) exit(1);
    W(c); /* SIGSTOP signal-delivery-stop */
    PT(PTRACE_SYSCALL, c, 0);
    W(c); /* getppid entry */
    K(c, SIGCONT, "SIGCONT");
    Wq(c);
    PT(PTRACE_SYSCALL, c, 0);
    W(c); /* getppid exit */
    PT(PTRACE_CONT, c, 0);
    W(c); /* PTRACE_EVENT_STOP: the re-trap */
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGCONT signal-delivery-stop */
    PT(PTRACE_CONT, c, 0);
    Wq(c);
    K(c, SIGKILL, "SIGKILL");
    W(c);
    close(go[0]);
    close(go[1]);
}

static void case_listen_new_thread(void) {
    cs = "listen_new_thread";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        char b;
        if (read(go[0], &b, 1) != 1) _exit(9);
        syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
        pthread_t t;
        pthread_create(&t, NULL, pause_forever, NULL);
        for (;;) pause();
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACECLONE);
    if (write(go[1], "g", 1) != 1) exit(1);
    W(c); /* SIGSTOP signal-delivery-stop */
    PT(PTRACE_CONT, c, SIGSTOP);
    W(c); /* group-stop trap */
    PT(PTRACE_CONT, c, 0);
    W(c); /* clone event */
    pid_t t = 0;
    for (int i = nnames - 1; i >= 0 && !t; i--)
        if (!strcmp(names[i].name, "tracee.clone")) t = names[i].pid;
    W(t); /* the thread's first trap */
    PT(PTRACE_LISTEN, t, 0);
    PT(PTRACE_SETOPTIONS, t, 0);
    Wq(t);
    K(c, SIGKILL, "SIGKILL");
    W(t);
    W(c);
    close(go[0]);
    close(go[1]);
}

int main(int argc, char **argv) {
    if (argc > 2 && !strcmp(argv[1], "exitmask")) return 16 * atoi(argv[2]) + 5;
    setvbuf(stdout, NULL, _IOLBF, 0);
    self_exe = argv[0];
    name(getpid(), "tracer");
    alarm(60);
    case_sigcont();
    case_sigcont_threads();
    case_exit(1, SIGTERM, "SIGTERM");
    case_exit(1, SIGKILL, "SIGKILL");
    case_exit(2, SIGTERM, "SIGTERM");
    case_exit(2, SIGKILL, "SIGKILL");
    case_exit(2, 0, "");
    case_resume_events();
    case_resume_syscall();
    case_zombie_status();
    case_sigstop_cancelled(0);
    case_sigstop_cancelled(1);
    case_exit_in_stop();
    case_exit_tracer_gone();
    case_exit_stop_killed();
    case_exit_stop_killed_exit();
    case_exit_stop_zapped();
    case_stop_undequeued(SIGTERM);
    case_stop_undequeued(SIGSTOP);
    case_clone_ptrace_stop();
    case_syscall_kill();
    case_sigcont_syscall();
    case_listen_new_thread();
    return 0;
}
