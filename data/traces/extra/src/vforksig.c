/* Signals that reach a task while it waits in vfork, and PR_SET_PDEATHSIG
 * from an exiting parent *thread*, for strace recording (held-out replay
 * tests). Build: gcc -O1 -Wall -pthread -o vforksig vforksig.c
 *
 * 1. vfork_usr1: a helper process sends SIGUSR1 (handled) to the parent
 *    while the parent waits in vfork and its child sleeps; the child then
 *    execs /bin/true. Linux delivers the signal only once vfork returns.
 * 2. vfork_stop: the same with SIGSTOP then SIGCONT from the helper, and
 *    the child ending with _exit: the waiter stops (if at all) only after
 *    its vfork is done.
 * 3. vfork_term: SIGTERM (default action) to the waiter of a sleeping
 *    vfork child run in a forked process: the waiter dies (fatal signals
 *    interrupt the killable wait), the child goes on, is reparented to
 *    the main process (a subreaper) and reaped by it.
 * 4. pdeath_thread: a thread forks a child that sets PR_SET_PDEATHSIG
 *    (SIGUSR2, handled) and reads it back; the thread exits while the
 *    process lives: the child gets SIGUSR2 and is reparented to the
 *    main thread, which reaps it.
 * 5. pdeath_fork: the pdeath signal is not inherited by a fork child.
 * Exit status 0; each step's name goes to stderr. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t got;
static void h(int s) { got |= s == SIGUSR1 ? 1 : s == SIGUSR2 ? 2 : 4; }

static void step(const char *name) { fprintf(stderr, "== %s\n", name); }

static void nap(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A helper process that sends sig1 (then sig2 if nonzero) to `to` after
 * `ms` milliseconds. */
static pid_t helper(pid_t to, int sig1, int sig2, long ms) {
    pid_t p = fork();
    if (p == 0) {
        nap(ms);
        kill(to, sig1);
        if (sig2) {
            nap(ms);
            kill(to, sig2);
        }
        _exit(0);
    }
    return p;
}

static void vfork_usr1(void) {
    step("vfork_usr1");
    pid_t h1 = helper(getpid(), SIGUSR1, 0, 50);
    pid_t c = vfork();
    if (c == 0) {
        nap(300);
        char *av[] = {"true", NULL};
        execve("/bin/true", av, environ);
        _exit(127);
    }
    waitpid(c, NULL, 0);
    waitpid(h1, NULL, 0);
}

static void vfork_stop(void) {
    step("vfork_stop");
    pid_t h1 = helper(getpid(), SIGSTOP, SIGCONT, 50);
    pid_t c = vfork();
    if (c == 0) {
        nap(300);
        _exit(3);
    }
    waitpid(c, NULL, 0);
    waitpid(h1, NULL, 0);
}

static void vfork_term(void) {
    step("vfork_term");
    pid_t w = fork();
    if (w == 0) {
        pid_t c = vfork();
        if (c == 0) {
            nap(300);
            _exit(4);
        }
        _exit(5); /* not reached: SIGTERM kills the waiter */
    }
    nap(100);
    kill(w, SIGTERM);
    waitpid(w, NULL, 0);
    /* the vfork child, orphaned, is reparented to this subreaper */
    int st;
    while (waitpid(-1, &st, 0) > 0) {}
}

static int pdeath_pipe[2];

static void *pdeath_thread_main(void *a) {
    (void)a;
    pid_t c = fork();
    if (c == 0) {
        prctl(PR_SET_PDEATHSIG, SIGUSR2);
        int sig = 0;
        prctl(PR_GET_PDEATHSIG, &sig);
        if (write(pdeath_pipe[1], "x", 1) != 1) _exit(9);
        for (int i = 0; i < 100 && !(got & 2); i++) nap(10);
        _exit(got & 2 ? 6 : 7);
    }
    char b;
    if (read(pdeath_pipe[0], &b, 1) != 1) exit(1);
    return NULL; /* the thread exits: the child's pdeath signal */
}

static void pdeath_thread(void) {
    step("pdeath_thread");
    if (pipe(pdeath_pipe)) exit(1);
    pthread_t t;
    pthread_create(&t, NULL, pdeath_thread_main, NULL);
    pthread_join(t, NULL);
    int st;
    while (waitpid(-1, &st, 0) > 0) {}
}

static void pdeath_fork(void) {
    step("pdeath_fork");
    pid_t c = fork();
    if (c == 0) {
        prctl(PR_SET_PDEATHSIG, SIGUSR2);
        pid_t g = fork();
        if (g == 0) {
            int sig = -1;
            prctl(PR_GET_PDEATHSIG, &sig);
            _exit(sig == 0 ? 0 : 1);
        }
        waitpid(g, NULL, 0);
        _exit(0);
    }
    waitpid(c, NULL, 0);
}

int main(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    vfork_usr1();
    vfork_stop();
    vfork_term();
    pdeath_thread();
    pdeath_fork();
    return 0;
}
