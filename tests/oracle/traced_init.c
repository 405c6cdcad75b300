/* Records what a signal sent from inside a pid namespace to its init
 * (SIG_DFL for it) does, with and without a tracer: untraced, it is
 * dropped at send; traced, Linux queues it anyway (sig_ignored()'s ptrace
 * exception), the tracer sees a signal-delivery stop, and the signal is
 * dropped in get_signal() when the tracer resumes the init with it.
 * Prints "KEY VALUE" lines. Must run as root (unshare(CLONE_NEWPID)).
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the namespace's init: fork a child that sends sig to pid 1, reap it,
 * then exit with 7 (still alive: the signal was dropped). */
static void init_body(int sig) {
    pid_t c = fork();
    if (c == 0) {
        _exit(kill(1, sig) == 0 ? 0 : 1);
    }
    int st;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
    }
    _exit(WIFEXITED(st) ? 7 + WEXITSTATUS(st) : 99);
}

static void run(const char *key, int sig, int traced) {
    fflush(stdout);
    pid_t a = fork();
    if (a == 0) {
        /* A: unshare, then its first child is the namespace's init */
        if (unshare(CLONE_NEWPID)) _exit(90);
        pid_t b = fork();
        if (b == 0) {
            if (traced) {
                ptrace(PTRACE_TRACEME, 0, 0, 0);
                raise(SIGSTOP); /* ignored by an init: no stop */
            }
            init_body(sig);
        }
        int st;
        int stops = 0;
        for (;;) {
            if (waitpid(b, &st, __WALL) < 0) break;
            if (WIFSTOPPED(st)) {
                printf("%s stop=%d\n", key, WSTOPSIG(st));
                stops++;
                ptrace(PTRACE_CONT, b, 0, WSTOPSIG(st));
                continue;
            }
            if (WIFEXITED(st)) printf("%s exit=%d\n", key, WEXITSTATUS(st));
            else printf("%s killed=%d\n", key, WTERMSIG(st));
            break;
        }
        printf("%s stops=%d\n", key, stops);
        fflush(stdout);
        _exit(0);
    }
    waitpid(a, NULL, 0);
}

int main(void) {
    run("untraced_sigterm", SIGTERM, 0);
    run("traced_sigterm", SIGTERM, 1);
    run("traced_sigusr1", SIGUSR1, 1);
    run("traced_sigkill", SIGKILL, 1);
    return 0;
}
