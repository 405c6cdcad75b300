/* pidfds on a process whose leader exited (syscall exit) while another
 * thread runs. Poll: neither a PIDFD_THREAD pidfd on the leader's pid nor
 * a process pidfd is readable until the whole group has exited (Linux
 * 6.15+ pidfd_poll(): exit_state and not delay_group_leader(), whatever
 * PIDFD_THREAD says); POLLHUP joins once reaped. pidfd_send_signal: a
 * group-scope signal goes to the thread group as kill(2) sends it (a
 * fatal one kills the remaining thread); one aimed at the zombie leader
 * thread does nothing. tgkill(2) to the zombie leader thread does nothing
 * either, not even SIGCONT's group-wide continue of a stopped group
 * (kill(2) of the same SIGCONT continues it). Re-record with
 * tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifndef PIDFD_THREAD
#define PIDFD_THREAD 0200
#endif
#ifndef PIDFD_SIGNAL_THREAD
#define PIDFD_SIGNAL_THREAD 1
#endif

static int pfd[2];

static void *worker(void *a) {
    char b;
    (void)a;
    if (read(pfd[0], &b, 1) != 1) for (;;) pause();
    _exit(0);
}

/* A child whose leader exits at once, its second thread waiting for a
 * byte on pfd (or forever once the pipe is closed). */
static pid_t zombie_leader(void) {
    pid_t c = fork();
    if (c == 0) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        syscall(SYS_exit, 0);
    }
    usleep(100000);
    return c;
}

static int ready(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n = poll(&p, 1, 0);
    return n < 0 ? -1 : p.revents;
}

static void report(const char *tag, pid_t c, int fd, int sig, unsigned flags) {
    long r = syscall(SYS_pidfd_send_signal, fd, sig, NULL, flags);
    int e = r < 0 ? errno : 0;
    usleep(100000);
    int st;
    pid_t w = waitpid(c, &st, WNOHANG);
    printf("%s ret=%ld errno=%d reaped=%d termsig=%d\n", tag, r, e, w == c,
           w == c && WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    if (w != c) {
        kill(c, SIGKILL);
        waitpid(c, NULL, 0);
    }
}

/* A zombie-leader child stopped by SIGSTOP, then sent SIGCONT by
 * tgkill(c, c) (the zombie thread) or kill(c): whether it continued. */
static void cont(const char *tag, int by_tgkill) {
    pid_t c = zombie_leader();
    int st;
    kill(c, SIGSTOP);
    pid_t w = waitpid(c, &st, WUNTRACED);
    int stopped = w == c && WIFSTOPPED(st);
    long r = by_tgkill ? syscall(SYS_tgkill, c, c, SIGCONT) : kill(c, SIGCONT);
    int e = r < 0 ? errno : 0;
    usleep(100000);
    w = waitpid(c, &st, WCONTINUED | WNOHANG);
    printf("%s stopped=%d ret=%ld errno=%d continued=%d\n", tag, stopped, r, e,
           w == c && WIFCONTINUED(st));
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pipe(pfd)) return 1;
    pid_t c = zombie_leader();
    int thr = syscall(SYS_pidfd_open, c, PIDFD_THREAD);
    int proc = syscall(SYS_pidfd_open, c, 0);
    printf("leader_exited thread_pidfd=%d process_pidfd=%d\n", ready(thr), ready(proc));
    if (write(pfd[1], "x", 1) != 1) return 1;
    /* until the group has exited (the process pidfd readable; 10 s at
     * most): a fixed sleep was too short under a loaded tracer */
    struct pollfd gone = {.fd = proc, .events = POLLIN};
    poll(&gone, 1, 10000);
    printf("group_exited thread_pidfd=%d process_pidfd=%d\n", ready(thr), ready(proc));
    waitpid(c, NULL, 0);
    printf("reaped thread_pidfd=%d process_pidfd=%d\n", ready(thr), ready(proc));
    close(pfd[1]);
    c = zombie_leader();
    report("signal_group_scope", c, syscall(SYS_pidfd_open, c, 0), SIGTERM, 0);
    c = zombie_leader();
    report("signal_thread_pidfd", c, syscall(SYS_pidfd_open, c, PIDFD_THREAD), SIGTERM, 0);
    c = zombie_leader();
    report("signal_thread_scope", c, syscall(SYS_pidfd_open, c, 0), SIGTERM, PIDFD_SIGNAL_THREAD);
    c = zombie_leader();
    report("signal_0", c, syscall(SYS_pidfd_open, c, 0), 0, 0);
    cont("tgkill_sigcont_zombie_leader", 1);
    cont("kill_sigcont_zombie_leader", 0);
    return 0;
}
