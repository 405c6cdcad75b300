/* A /proc/PID directory as a pidfd for pidfd_send_signal(2)
 * (tgid_pidfd_to_pid()): the caller's own, a child's (killed, then
 * reaped: ESRCH), with a siginfo (SI_QUEUE to oneself), with each flag
 * (PIDFD_SIGNAL_THREAD, _THREAD_GROUP, _PROCESS_GROUP to a group leader,
 * an unknown one), and a directory that is no process's (EBADF). Prints no pid. Under
 * `taskcore run --proc` the directories are the emulated /proc's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got, got_code, got_value;
static void on_usr1(int sig, siginfo_t *si, void *uc) {
    (void)sig; (void)uc;
    got++; got_code = si->si_code; got_value = si->si_value.sival_int;
}
static int send(int fd, int sig, siginfo_t *si, unsigned flags) {
    return syscall(SYS_pidfd_send_signal, fd, sig, si, flags);
}
static void show(const char *what, int r) {
    printf("%s: %s\n", what, r < 0 ? strerrorname_np(errno) : "0");
}
static int dir_of(pid_t pid) {
    char path[32];
    snprintf(path, sizeof path, "/proc/%d", pid);
    return open(path, O_RDONLY | O_DIRECTORY);
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
    sigaction(SIGUSR1, &sa, NULL);
    int self = dir_of(getpid());
    show("self SIGUSR1", send(self, SIGUSR1, NULL, 0));
    printf("handled %d, si_code SI_USER %d\n", got, got_code == SI_USER);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGUSR1;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = 42;
    show("self SIGUSR1 with SI_QUEUE siginfo", send(self, SIGUSR1, &si, 0));
    printf("handled %d, si_code SI_QUEUE %d, value %d\n", got, got_code == SI_QUEUE, got_value);
    si.si_signo = SIGUSR2;
    show("siginfo for another signal", send(self, SIGUSR1, &si, 0));
    show("PIDFD_SIGNAL_THREAD SIGUSR1", send(self, SIGUSR1, NULL, 1));
    show("PIDFD_SIGNAL_THREAD with siginfo", send(self, SIGUSR1, &si, 1));
    si.si_signo = SIGUSR1;
    show("PIDFD_SIGNAL_THREAD with siginfo", send(self, SIGUSR1, &si, 1));
    show("PIDFD_SIGNAL_THREAD_GROUP SIGUSR1", send(self, SIGUSR1, NULL, 2));
    printf("handled %d\n", got);
    show("unknown flag", send(self, 0, NULL, 1u << 30));
    show("signal 0", send(self, 0, NULL, 0));
    int p[2];
    if (pipe(p) < 0) return 1;
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        setpgid(0, 0);
        write(p[1], "x", 1);
        for (;;) pause();
    }
    close(p[1]);
    char c;
    read(p[0], &c, 1);
    int cfd = dir_of(child);
    show("child's group signal 0", send(cfd, 0, NULL, 4));
    show("child SIGTERM", send(cfd, SIGTERM, NULL, 0));
    int st;
    waitpid(child, &st, 0);
    printf("child killed by SIGTERM %d\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    show("reaped child signal 0", send(cfd, 0, NULL, 0));
    int root = open("/proc", O_RDONLY | O_DIRECTORY);
    show("/proc itself", send(root, 0, NULL, 0));
    show("closed fd", send(1000, 0, NULL, 0));
    return 0;
}
