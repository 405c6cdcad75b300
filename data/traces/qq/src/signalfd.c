/* A signalfd user: SIGCHLD and SIGUSR1 are blocked and read through a
 * signalfd (read() is outside the trace filter); children exit and one
 * signals its parent; the parent reaps them and unblocks at the end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGCHLD);
    sigaddset(&m, SIGUSR1);
    sigprocmask(SIG_BLOCK, &m, NULL);
    int fd = signalfd(-1, &m, SFD_CLOEXEC);
    if (fd < 0) return 1;
    for (int i = 0; i < 3; i++) {
        pid_t p = fork();
        if (p == 0) {
            if (i == 1) kill(getppid(), SIGUSR1);
            _exit(10 + i);
        }
        struct signalfd_siginfo si;
        if (read(fd, &si, sizeof si) != sizeof si) return 2;
        if (si.ssi_signo == SIGUSR1 && read(fd, &si, sizeof si) != sizeof si) return 3;
        int st;
        if (waitpid(p, &st, 0) != p) return 4;
    }
    /* Nothing is pending any more: unblocking delivers nothing. */
    sigprocmask(SIG_UNBLOCK, &m, NULL);
    return 0;
}
