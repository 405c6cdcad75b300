/* pidfd programs sending siginfo: pidfd_send_signal with a siginfo (SI_QUEUE
 * and an si_int), rt_sigqueueinfo, and pidfd_send_signal through a
 * /proc/PID directory fd; the child takes each signal with a handler and
 * exits with the count. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on(int s) { (void)s; got++; }

int main(void) {
    sigset_t m, old;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigaddset(&m, SIGUSR2);
    sigaddset(&m, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &m, &old);
    pid_t p = fork();
    if (p == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on;
        sigaction(SIGUSR1, &sa, NULL);
        sigaction(SIGUSR2, &sa, NULL);
        sigaction(SIGRTMIN, &sa, NULL);
        while (got < 3) sigsuspend(&old);
        _exit(got);
    }
    int pfd = syscall(SYS_pidfd_open, p, 0);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGUSR1;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = 42;
    if (syscall(SYS_pidfd_send_signal, pfd, SIGUSR1, &si, 0)) perror("pidfd_send_signal");
    memset(&si, 0, sizeof si);
    si.si_signo = SIGRTMIN;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = 7;
    if (syscall(SYS_rt_sigqueueinfo, p, SIGRTMIN, &si)) perror("rt_sigqueueinfo");
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", p);
    int dfd = open(path, O_RDONLY | O_DIRECTORY);
    if (syscall(SYS_pidfd_send_signal, dfd, SIGUSR2, NULL, 0)) perror("pidfd_send_signal /proc");
    int st;
    waitpid(p, &st, 0);
    printf("child exited %d\n", WEXITSTATUS(st));
    return 0;
}
