/* A thread waiting in vfork (issue 10), run WITHOUT strace, as root: the
 * vfork caller sleeps in wait_for_vfork_done(), a TASK_KILLABLE sleep, until
 * its child execs or exits. What it is sent meanwhile waits:
 * - stop: SIGSTOP to an untraced waiter stops it only once the vfork
 *   child has exited (WUNTRACED reports nothing before);
 * - handler: a SIGUSR1 handler runs only after the vfork completes;
 * - fatal: SIGTERM (default action) kills the waiter at once (the fatal
 *   fast path sends SIGKILL, which wakes a killable sleep);
 * - core: SIGQUIT, whose default action dumps core, takes no fast path: it
 *   kills the waiter only once the vfork completes (RLIMIT_CORE 0, so no
 *   core is written and the status has no 0x80);
 * - traced: a seized waiter (PTRACE_O_TRACEVFORKDONE) sent SIGUSR1 and
 *   PTRACE_INTERRUPT takes no stop before the vfork completes; then its
 *   PTRACE_EVENT_VFORK_DONE stop (which takes the interrupt's place: any
 *   ptrace_stop() clears JOBCTL_TRAP_STOP), then the signal-delivery-stops
 *   of SIGUSR1 and of the vfork child's SIGCHLD, lowest number first;
 * - traced_stop: a seized waiter, SIGCHLD blocked, sent SIGSTOP stops for
 *   it after the vfork; resumed with SIGSTOP, a group-stop trap. (With
 *   SIGCHLD not blocked, which stop comes first is a race: the waiter
 *   wakes in the child's mm_release(), before the child's exit_notify()
 *   sends SIGCHLD.)
 * - killed_traced: SIGKILL to a seized waiter (PTRACE_O_TRACEVFORKDONE |
 *   PTRACE_O_TRACEEXIT) ends its wait: its PTRACE_EVENT_EXIT stop at once;
 *   its child's exit then completes nothing (no PTRACE_EVENT_VFORK_DONE,
 *   the event message stays the exit code);
 * - sibling_wait: SIGCHLD for a child of a thread asleep in vfork goes to
 *   that thread (complete_signal(): it wants the signal), which alone gets
 *   TIF_SIGPENDING: a sibling thread blocked in waitpid() for another
 *   child is not interrupted (no EINTR), and that other child's SIGCHLD,
 *   coalesced with the pending one, changes nothing; the handler runs in
 *   the vfork caller once its vfork completes;
 * - attach: PTRACE_ATTACH to a waiter: its SIGSTOP stop comes after the
 *   vfork, before SIGCHLD (the attach's SIGSTOP is pending on the thread,
 *   which is dequeued before the process's).
 * Lines: as tracer_log.h prints them, plus "<case> waitu ..." for
 * waitpid(p, __WALL | WNOHANG | WUNTRACED | WCONTINUED) and "<case> handler
 * ran=<yes|no>". Pids by name: tracee (the vfork caller), tracee.vfork.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer_log.h"

static int hpipe[2];
static void h(int s) {
    (void)s;
    if (write(hpipe[1], "h", 1) != 1) _exit(3);
}

/* The pipes of one case: go (the tracer tells the vfork child to exit),
 * ready (the vfork child tells its pid), seized (the tracer tells the
 * tracee it may vfork). */
static int go[2], ready[2], seized[2];

/* Forks the tracee: it installs the SIGUSR1 handler (and blocks SIGCHLD
 * if block_chld), waits for the word
 * to go on, then vforks a child that reports its pid and exits(7) when
 * told; the tracee then pauses for ever. Names both; returns the tracee. */
static pid_t spawn(int block_chld) {
    if (pipe(go) || pipe(ready) || pipe(seized) || pipe(hpipe)) exit(1);
    fcntl(hpipe[0], F_SETFL, O_NONBLOCK);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        signal(SIGUSR1, h);
        if (block_chld) {
            sigset_t m;
            sigemptyset(&m);
            sigaddset(&m, SIGCHLD);
            sigprocmask(SIG_BLOCK, &m, NULL);
        }
        char b;
        if (read(seized[0], &b, 1) != 1) _exit(2);
        pid_t v = vfork();
        if (v == 0) {
            pid_t me = getpid();
            if (write(ready[1], &me, sizeof me) != sizeof me) _exit(2);
            if (read(go[0], &b, 1) != 1) _exit(2);
            _exit(7);
        }
        for (;;) pause();
    }
    name(c, "tracee");
    return c;
}

/* Lets the tracee vfork; waits until its vfork child runs (the tracee is
 * then in, or about to enter, wait_for_vfork_done()). */
static void start_vfork(pid_t *vchild) {
    if (write(seized[1], "s", 1) != 1) exit(1);
    if (read(ready[0], vchild, sizeof *vchild) != sizeof *vchild) exit(1);
    name(*vchild, "tracee.vfork");
    usleep(50000);
}

/* The vfork child exits. */
static void release(void) {
    if (write(go[1], "g", 1) != 1) exit(1);
    usleep(50000);
}

static void close_case(void) {
    close(go[0]);
    close(go[1]);
    close(ready[0]);
    close(ready[1]);
    close(seized[0]);
    close(seized[1]);
    close(hpipe[0]);
    close(hpipe[1]);
}

/* waitpid(p, __WALL | WNOHANG | WUNTRACED | WCONTINUED), polled up to ms
 * milliseconds, logged as a "waitu" line. */
static int Wut(pid_t p, int ms) { return Wx(p, ms, WUNTRACED | WCONTINUED, "waitu"); }

/* Whether the tracee's handler ran (within ms milliseconds), logged. */
static void handler_ran(int ms) {
    char b;
    int ran = 0;
    for (int i = 0; i <= ms / 5 && !ran; i++) {
        ran = read(hpipe[0], &b, 1) == 1;
        if (!ran) usleep(5000);
    }
    printf("%s handler ran=%s\n", cs, ran ? "yes" : "no");
}

static void case_stop(void) {
    cs = "stop";
    pid_t v;
    pid_t c = spawn(0);
    start_vfork(&v);
    K(c, SIGSTOP, "SIGSTOP");
    Wut(c, 200); /* not stopped while it waits */
    release();
    Wut(c, 2000); /* stopped now */
    K(c, SIGCONT, "SIGCONT");
    Wut(c, 2000); /* continued */
    K(c, SIGKILL, "SIGKILL");
    Wut(c, 2000);
    close_case();
}

static void case_handler(void) {
    cs = "handler";
    pid_t v;
    pid_t c = spawn(0);
    start_vfork(&v);
    K(c, SIGUSR1, "SIGUSR1");
    handler_ran(200);
    release();
    handler_ran(2000);
    K(c, SIGKILL, "SIGKILL");
    Wut(c, 2000);
    close_case();
}

static void case_fatal(void) {
    cs = "fatal";
    pid_t v;
    pid_t c = spawn(0);
    start_vfork(&v);
    K(c, SIGTERM, "SIGTERM");
    Wut(c, 2000); /* killed while it waits */
    release();
    close_case();
}

static void case_core(void) {
    cs = "core";
    struct rlimit no = {0, 0};
    setrlimit(RLIMIT_CORE, &no);
    pid_t v;
    pid_t c = spawn(0);
    start_vfork(&v);
    K(c, SIGQUIT, "SIGQUIT");
    Wut(c, 200); /* alive while it waits */
    release();
    Wut(c, 2000); /* killed now */
    close_case();
}

static void case_traced(void) {
    cs = "traced";
    pid_t v;
    pid_t c = spawn(0);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEVFORKDONE);
    start_vfork(&v);
    K(c, SIGUSR1, "SIGUSR1");
    PT(PTRACE_INTERRUPT, c, 0);
    Wq(c); /* no stop while it waits */
    release();
    W(c); /* PTRACE_EVENT_VFORK_DONE */
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGUSR1 signal-delivery-stop */
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGCHLD signal-delivery-stop */
    PT(PTRACE_CONT, c, SIGUSR1); /* the handler runs */
    handler_ran(2000);
    Wq(c);
    K(c, SIGKILL, "SIGKILL");
    W(c);
    close_case();
}

static void case_traced_stop(void) {
    cs = "traced_stop";
    pid_t v;
    pid_t c = spawn(1);
    PT(PTRACE_SEIZE, c, 0);
    start_vfork(&v);
    K(c, SIGSTOP, "SIGSTOP");
    Wq(c); /* no stop while it waits */
    release();
    W(c); /* SIGSTOP signal-delivery-stop */
    PT(PTRACE_CONT, c, SIGSTOP);
    W(c); /* group-stop trap */
    K(c, SIGKILL, "SIGKILL");
    W(c);
    close_case();
}

static void case_killed_traced(void) {
    cs = "killed_traced";
    pid_t v;
    pid_t c = spawn(0);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXIT);
    start_vfork(&v);
    K(c, SIGKILL, "SIGKILL");
    W(c); /* PTRACE_EVENT_EXIT */
    release();
    Wq(c);
    unsigned long msg = 0;
    errno = 0;
    long r = ptrace(PTRACE_GETEVENTMSG, c, 0, &msg);
    printf("%s geteventmsg pid=%s ret=%ld msg=0x%lx\n", cs, pn(c), r, msg);
    PT(PTRACE_CONT, c, 0);
    W(c);
    close_case();
}

/* sibling_wait: the SIGCHLD handler writes the tid that ran it. */
static int tpipe[2];
static void tid_handler(int s) {
    (void)s;
    pid_t t = syscall(SYS_gettid);
    if (write(tpipe[1], &t, sizeof t) != sizeof t) _exit(3);
}

/* The vforking thread: forks X (exits after 100 ms), then vforks V
 * (reports its pid on ready, exits(7) when told on go). */
static void *vforker(void *a) {
    (void)a;
    pid_t me = syscall(SYS_gettid);
    if (write(ready[1], &me, sizeof me) != sizeof me) _exit(2);
    pid_t x = fork();
    if (x == 0) {
        usleep(100000);
        _exit(0);
    }
    if (write(ready[1], &x, sizeof x) != sizeof x) _exit(2);
    pid_t v = vfork();
    if (v == 0) {
        pid_t vp = getpid();
        char b;
        if (write(ready[1], &vp, sizeof vp) != sizeof vp) _exit(2);
        if (read(go[0], &b, 1) != 1) _exit(2);
        _exit(7);
    }
    for (;;) pause();
    return NULL;
}

static void case_sibling_wait(void) {
    cs = "sibling_wait";
    if (pipe(go) || pipe(ready) || pipe(tpipe)) exit(1);
    fcntl(tpipe[0], F_SETFL, O_NONBLOCK);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        /* the tracee: main thread B, thread A (vforker) */
        struct sigaction sa = {0};
        sa.sa_handler = tid_handler; /* no SA_RESTART */
        sigaction(SIGCHLD, &sa, NULL);
        pid_t y = fork();
        if (y == 0) {
            usleep(400000);
            _exit(0);
        }
        pthread_t t;
        pthread_create(&t, NULL, vforker, NULL);
        pid_t a, x, v;
        if (read(ready[0], &a, sizeof a) != sizeof a) _exit(2);
        if (read(ready[0], &x, sizeof x) != sizeof x) _exit(2);
        if (read(ready[0], &v, sizeof v) != sizeof v) _exit(2);
        name(a, "tracee.vforker");
        name(y, "tracee.y");
        name(x, "tracee.vforker.x");
        name(v, "tracee.vforker.vfork");
        int st = 0;
        errno = 0;
        pid_t r = waitpid(y, &st, 0);
        printf("%s waitpid pid=%s ret=%s errno=%s\n", cs, pn(y), pn(r), r < 0 ? (errno == EINTR ? "EINTR" : "OTHER") : "none");
        pid_t h;
        usleep(100000);
        printf("%s handler ran in=%s\n", cs, read(tpipe[0], &h, sizeof h) == sizeof h ? pn(h) : "none");
        if (write(go[1], "g", 1) != 1) _exit(2);
        for (int i = 0; i < 400 && read(tpipe[0], &h, sizeof h) != sizeof h; i++) {
            h = 0;
            usleep(5000);
        }
        printf("%s handler ran in=%s\n", cs, h ? pn(h) : "none");
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    close(go[0]);
    close(go[1]);
    close(ready[0]);
    close(ready[1]);
    close(tpipe[0]);
    close(tpipe[1]);
}

static void case_attach(void) {
    cs = "attach";
    pid_t v;
    pid_t c = spawn(0);
    start_vfork(&v);
    PT(PTRACE_ATTACH, c, 0);
    Wq(c); /* the attach's SIGSTOP waits too */
    release();
    W(c); /* SIGSTOP signal-delivery-stop */
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGCHLD signal-delivery-stop */
    K(c, SIGKILL, "SIGKILL");
    W(c);
    close_case();
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    name(getpid(), "tracer");
    alarm(60);
    case_stop();
    case_handler();
    case_fatal();
    case_core();
    case_traced();
    case_traced_stop();
    case_killed_traced();
    case_sibling_wait();
    case_attach();
    return 0;
}
