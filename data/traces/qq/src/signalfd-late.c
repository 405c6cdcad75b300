/* A signal consumed where the trace cannot see, then the same signals
 * again: SIGUSR1 and SIGCHLD have handlers and are blocked; a child sends
 * SIGUSR1 and exits, and the parent reads both through a signalfd (read()
 * is outside the trace filter). Unblocking then delivers nothing (no
 * `--- SIG` line: they were consumed). Later the parent signals itself and
 * a second child exits while they are unblocked: those are delivered with
 * their own siginfo (a stale pending signal would have taken their place),
 * and rt_sigpending shows nothing left. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on(int sig) { got += sig; }

int main(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t m, p;
    sigemptyset(&m);
    sigaddset(&m, SIGCHLD);
    sigaddset(&m, SIGUSR1);
    sigprocmask(SIG_BLOCK, &m, NULL);
    int fd = signalfd(-1, &m, SFD_CLOEXEC);
    if (fd < 0) return 1;
    pid_t c = fork();
    if (c == 0) {
        kill(getppid(), SIGUSR1);
        _exit(5);
    }
    struct signalfd_siginfo si;
    int seen = 0;
    while (seen != 3) {
        if (read(fd, &si, sizeof si) != sizeof si) return 2;
        seen |= si.ssi_signo == SIGUSR1 ? 1 : si.ssi_signo == SIGCHLD ? 2 : 0;
    }
    int st;
    if (waitpid(c, &st, 0) != c) return 3;
    sigprocmask(SIG_UNBLOCK, &m, NULL);
    sigpending(&p);
    kill(getpid(), SIGUSR1);
    c = fork();
    if (c == 0) _exit(6);
    while (waitpid(c, &st, 0) != c) {
    }
    sigpending(&p);
    printf("got %d\n", (int)got);
    return 0;
}
