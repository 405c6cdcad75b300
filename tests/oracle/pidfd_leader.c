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
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
/* The child's second thread writes a byte on `gone` once its leader is a
 * zombie, and answers each byte on `ping` with one on `pong` while it
 * lives (the child's death closes `pong`). */
static int gone[2], ping[2], pong[2];

static void *worker(void *a) {
    char b;
    (void)a;
    /* The leader's exit: its clear_child_tid wakes the join, then its
     * exit_notify() makes it a zombie (the process's /proc state). */
    pthread_join(*(pthread_t *)a, NULL);
    for (;;) {
        char st[256], *p;
        int fd = open("/proc/self/stat", O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, st, sizeof st - 1);
        if (fd >= 0) close(fd);
        st[n > 0 ? n : 0] = 0;
        if ((p = strrchr(st, ')')) && p[1] == ' ' && p[2] == 'Z') break;
        sched_yield();
    }
    if (write(gone[1], "z", 1) != 1) _exit(1);
    int watch_pfd = 1, watch_ping = 1;
    for (;;) {
        struct pollfd f[2] = {{.fd = watch_pfd ? pfd[0] : -1, .events = POLLIN},
                              {.fd = watch_ping ? ping[0] : -1, .events = POLLIN}};
        if (poll(f, 2, -1) < 0) continue;
        if (f[0].revents) {
            if (read(pfd[0], &b, 1) == 1) _exit(0);
            watch_pfd = 0;
        }
        if (f[1].revents) {
            if (read(ping[0], &b, 1) != 1) watch_ping = 0;
            else if (write(pong[1], "p", 1) != 1) _exit(1);
        }
    }
}

static pthread_t leader;

/* A child whose leader exits at once, its second thread waiting for a
 * byte on pfd (or forever once the pipe is closed). Returned once the
 * leader is a zombie. */
static pid_t zombie_leader(void) {
    if (pipe(gone) || pipe(ping) || pipe(pong)) _exit(1);
    pid_t c = fork();
    if (c == 0) {
        pthread_t t;
        leader = pthread_self();
        pthread_create(&t, NULL, worker, &leader);
        syscall(SYS_exit, 0);
    }
    /* ping's read end stays open here too: a write to a dead child's
     * ping must not raise SIGPIPE. */
    close(gone[1]);
    close(pong[1]);
    char b;
    if (read(gone[0], &b, 1) != 1) _exit(1);
    close(gone[0]);
    return c;
}

/* Whether child `c`'s second thread still lives: it answers a byte, or
 * the child's death closes `pong`. */
static int alive(void) {
    char b;
    int r = write(ping[1], "?", 1) == 1 && read(pong[0], &b, 1) == 1;
    close(ping[0]);
    close(ping[1]);
    close(pong[0]);
    return r;
}

static int ready(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n = poll(&p, 1, 0);
    return n < 0 ? -1 : p.revents;
}

static void report(const char *tag, pid_t c, int fd, int sig, unsigned flags) {
    long r = syscall(SYS_pidfd_send_signal, fd, sig, NULL, flags);
    int e = r < 0 ? errno : 0;
    int st;
    pid_t w = alive() ? waitpid(c, &st, WNOHANG) : waitpid(c, &st, 0);
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
    /* A continue is reported from the SIGCONT's generation on
     * (prepare_signal()): nothing of the child's to wait for. */
    w = waitpid(c, &st, WCONTINUED | WNOHANG);
    printf("%s stopped=%d ret=%ld errno=%d continued=%d\n", tag, stopped, r, e,
           w == c && WIFCONTINUED(st));
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    close(ping[0]);
    close(ping[1]);
    close(pong[0]);
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
    struct pollfd exited = {.fd = proc, .events = POLLIN};
    poll(&exited, 1, 10000);
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
