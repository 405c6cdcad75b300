/* SIGCHLD handlers with SA_RESTART on and off around blocking waits
 * (wait4, waitid, pause, rt_sigsuspend), a child stopped and continued in
 * clock_nanosleep (restart_syscall), and an ignored SIGCHLD. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int n;
static void h(int s) { (void)s; n++; }

static pid_t kid(int ms, int code) {
    pid_t c = fork();
    if (c == 0) {
        usleep(ms * 1000);
        _exit(code);
    }
    return c;
}

static void with(int flags) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigaction(SIGCHLD, &sa, NULL);
    pid_t fast = kid(50, 1), slow = kid(300, 2);
    int st;
    if (wait4(slow, &st, 0, NULL) < 0) wait4(slow, &st, 0, NULL);
    wait4(fast, &st, 0, NULL);
    fast = kid(50, 3);
    slow = kid(300, 4);
    siginfo_t si;
    if (waitid(P_PID, slow, &si, WEXITED) < 0) waitid(P_PID, slow, &si, WEXITED);
    waitid(P_PID, fast, &si, WEXITED);
    fast = kid(50, 5);
    pause();
    wait4(fast, &st, 0, NULL);
}

int main(void) {
    with(0);
    with(SA_RESTART);
    /* rt_sigsuspend with SIGCHLD blocked outside */
    sigset_t b, o;
    sigemptyset(&b);
    sigaddset(&b, SIGCHLD);
    sigprocmask(SIG_BLOCK, &b, &o);
    pid_t c = kid(50, 6);
    sigsuspend(&o);
    sigprocmask(SIG_SETMASK, &o, NULL);
    waitpid(c, NULL, 0);
    /* stop/continue a sleeping child: restart_syscall */
    c = fork();
    if (c == 0) {
        struct timespec ts = {0, 400 * 1000 * 1000};
        nanosleep(&ts, NULL);
        _exit(7);
    }
    usleep(100000);
    kill(c, SIGSTOP);
    int st;
    waitpid(c, &st, WUNTRACED);
    kill(c, SIGCONT);
    waitpid(c, &st, WCONTINUED);
    waitpid(c, &st, 0);
    /* ignored SIGCHLD: autoreap, wait4 gets ECHILD */
    signal(SIGCHLD, SIG_IGN);
    c = kid(20, 8);
    wait4(c, &st, 0, NULL);
    signal(SIGCHLD, SIG_DFL);
    printf("handler ran %d times\n", n);
    return 0;
}
