/* Records what Linux does when it delivers a handled signal: the mask while
 * the handler runs (sa_mask, SA_NODEFER), SA_RESETHAND, the mask after
 * rt_sigreturn, and the result a program sees from wait4/waitid/pause/
 * rt_sigsuspend/rt_sigtimedwait/nanosleep/read interrupted by a handler with
 * and without SA_RESTART. Prints "<case> key=value ..." lines; masks are the
 * kernel's 64-bit sigset (bit sig-1) in hex; pids are "child"/"other".
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long u64;
#define BIT(s) (1ULL << ((s) - 1))

static const char *en(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case EAGAIN: return "EAGAIN";
    case EINTR: return "EINTR";
    case ECHILD: return "ECHILD";
    default: return "OTHER";
    }
}

static u64 cur_mask(void) {
    u64 m = 0;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
    return m;
}

static void set_mask(u64 m) { syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, 8); }

static volatile u64 in_handler_mask;
static volatile int handler_runs;
static volatile int handler_sig;

static int pipe_w = -1;

static void handler(int sig) {
    handler_runs++;
    if (pipe_w >= 0) {
        char b = 'x';
        if (write(pipe_w, &b, 1) != 1) _exit(7);
    }
    handler_sig = sig;
    in_handler_mask = cur_mask();
}

static void install(int sig, int flags, u64 sa_mask) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    for (int s = 1; s <= 64; s++)
        if (sa_mask & BIT(s)) sigaddset(&sa.sa_mask, s);
    sigaction(sig, &sa, NULL);
}

static const char *disp(int sig) {
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    if (sa.sa_handler == SIG_DFL) return "SIG_DFL";
    if (sa.sa_handler == SIG_IGN) return "SIG_IGN";
    return "handler";
}

static void masks_in_handler(void) {
    set_mask(BIT(SIGHUP));
    install(SIGUSR1, 0, BIT(SIGUSR2) | BIT(SIGRTMIN));
    handler_runs = 0;
    kill(getpid(), SIGUSR1);
    printf("handler_mask plain runs=%d in=0x%016llx after=0x%016llx\n", handler_runs,
           in_handler_mask, cur_mask());
    install(SIGUSR1, SA_NODEFER, BIT(SIGUSR2));
    handler_runs = 0;
    kill(getpid(), SIGUSR1);
    printf("handler_mask nodefer runs=%d in=0x%016llx after=0x%016llx\n", handler_runs,
           in_handler_mask, cur_mask());
    install(SIGUSR1, 0, BIT(SIGKILL) | BIT(SIGSTOP) | BIT(SIGUSR1));
    handler_runs = 0;
    kill(getpid(), SIGUSR1);
    printf("handler_mask sa_mask_kill_stop runs=%d in=0x%016llx after=0x%016llx\n",
           handler_runs, in_handler_mask, cur_mask());
    /* SA_RESETHAND: reset at delivery, not at send */
    install(SIGUSR1, SA_RESETHAND, BIT(SIGUSR2));
    set_mask(BIT(SIGUSR1));
    handler_runs = 0;
    kill(getpid(), SIGUSR1);
    printf("resethand after_send_blocked disp=%s runs=%d\n", disp(SIGUSR1), handler_runs);
    set_mask(0);
    struct sigaction sa;
    sigaction(SIGUSR1, NULL, &sa);
    printf("resethand after_delivery disp=%s runs=%d in=0x%016llx flags_resethand=%d "
           "after=0x%016llx\n",
           disp(SIGUSR1), handler_runs, in_handler_mask, !!(sa.sa_flags & SA_RESETHAND),
           cur_mask());
    /* a handled signal sent while the same handler runs: delivered after return */
    set_mask(0);
}

static volatile int nested_in, nested_max, nested_runs;
static void nested_handler(int sig) {
    nested_in++;
    nested_runs++;
    if (nested_in > nested_max) nested_max = nested_in;
    if (nested_runs == 1) kill(getpid(), sig);
    nested_in--;
}

static void nesting(int flags, const char *name) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = nested_handler;
    sa.sa_flags = flags;
    sigaction(SIGUSR2, &sa, NULL);
    nested_in = nested_max = nested_runs = 0;
    kill(getpid(), SIGUSR2);
    printf("nesting %s runs=%d max_depth=%d\n", name, nested_runs, nested_max);
}

static void itimer_ms(int ms) {
    struct itimerval it = {{0, 0}, {0, ms * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

/* A child that exits (status 3) once a byte comes on its pipe: the
 * handler writes it when `pipe_w` is set to `*release` (the caller
 * keeps the read end open too, so that no write raises SIGPIPE), or the
 * caller. */
static pid_t held(int *release) {
    int p[2];
    if (pipe(p)) _exit(8);
    pid_t c = fork();
    if (c == 0) {
        char b;
        close(p[1]);
        if (read(p[0], &b, 1) != 1) _exit(1);
        _exit(3);
    }
    release[0] = p[1];
    release[1] = p[0];
    return c;
}

static void release(int *release) {
    if (write(release[0], "x", 1) != 1) _exit(7);
}

static void done_with(int *release) {
    close(release[0]);
    close(release[1]);
}

/* A child that, once its parent sleeps (in the wait it makes next: its
 * state in its own /proc stat file, opened before the fork), sends it
 * `sig` (if not 0) and exits (status 3). */
static pid_t once_parent_sleeps(int sig) {
    int fd = open("/proc/self/stat", O_RDONLY);
    if (fd < 0) _exit(8);
    pid_t c = fork();
    if (c == 0) {
        for (;;) {
            char st[512], *p;
            ssize_t n = pread(fd, st, sizeof st - 1, 0);
            st[n > 0 ? n : 0] = 0;
            if ((p = strrchr(st, ')')) && p[1] == ' ' && p[2] == 'S') break;
            sched_yield();
        }
        if (sig) kill(getppid(), sig);
        _exit(3);
    }
    close(fd);
    return c;
}

static void report(const char *name, long r, pid_t child, int status) {
    if (r > 0 && child == 0) {
        printf("%s ret=%ld handler_runs=%d mask=0x%016llx\n", name, r, handler_runs, cur_mask());
        return;
    }
    if (r < 0)
        printf("%s ret=-1 errno=%s handler_runs=%d mask=0x%016llx\n", name, en(errno),
               handler_runs, cur_mask());
    else
        printf("%s ret=%s status=0x%x handler_runs=%d mask=0x%016llx\n", name,
               r == child ? "child" : r == 0 ? "0" : "other", status, handler_runs, cur_mask());
}

static void interrupted_waits(void) {
    for (int restart = 0; restart <= 1; restart++) {
        const char *sfx = restart ? "sa_restart" : "no_restart";
        char name[64];
        install(SIGALRM, restart ? SA_RESTART : 0, 0);

        /* The child exits once the timer's handler has run. */
        int rel[2];
        pid_t c = held(rel);
        pipe_w = rel[0];
        handler_runs = 0;
        itimer_ms(50);
        int st = 0;
        long r = wait4(c, &st, 0, NULL);
        pipe_w = -1;
        snprintf(name, sizeof name, "wait4_%s", sfx);
        report(name, r, c, st);
        if (r < 0) waitpid(c, NULL, 0);
        done_with(rel);

        c = held(rel);
        pipe_w = rel[0];
        handler_runs = 0;
        itimer_ms(50);
        siginfo_t si;
        memset(&si, 0, sizeof si);
        r = waitid(P_PID, c, &si, WEXITED);
        pipe_w = -1;
        snprintf(name, sizeof name, "waitid_%s", sfx);
        if (r < 0)
            report(name, r, c, 0);
        else
            printf("%s ret=%ld si_pid=%s si_code=%d si_status=%d handler_runs=%d\n", name, r,
                   si.si_pid == c ? "child" : "other", si.si_code, si.si_status, handler_runs);
        if (r < 0) waitpid(c, NULL, 0);
        done_with(rel);

        handler_runs = 0;
        itimer_ms(50);
        r = pause();
        snprintf(name, sizeof name, "pause_%s", sfx);
        report(name, r, 0, 0);

        handler_runs = 0;
        itimer_ms(50);
        struct timespec ts = {0, 200 * 1000 * 1000}, rem = {0, 0};
        r = nanosleep(&ts, &rem);
        snprintf(name, sizeof name, "nanosleep_%s", sfx);
        if (r < 0)
            printf("%s ret=-1 errno=%s rem_nonzero=%d handler_runs=%d\n", name, en(errno),
                   rem.tv_sec || rem.tv_nsec, handler_runs);
        else
            printf("%s ret=0 handler_runs=%d\n", name, handler_runs);

        int p[2];
        if (pipe(p)) return;
        /* the handler writes a byte: a restarted read returns it */
        handler_runs = 0;
        pipe_w = p[1];
        itimer_ms(50);
        char b;
        r = read(p[0], &b, 1);
        pipe_w = -1;
        snprintf(name, sizeof name, "pipe_read_%s", sfx);
        report(name, r, 0, 0);
        close(p[0]);
        close(p[1]);

        /* rt_sigtimedwait for another signal, interrupted by the handler */
        handler_runs = 0;
        itimer_ms(50);
        u64 set = BIT(SIGUSR2);
        struct timespec to = {0, 300 * 1000 * 1000};
        set_mask(BIT(SIGUSR2));
        r = syscall(SYS_rt_sigtimedwait, &set, NULL, &to, 8);
        snprintf(name, sizeof name, "sigtimedwait_%s", sfx);
        report(name, r, 0, 0);
        set_mask(0);

        /* rt_sigsuspend: pending blocked signal unblocked by the suspend mask */
        install(SIGUSR1, restart ? SA_RESTART : 0, BIT(SIGUSR2));
        set_mask(BIT(SIGUSR1) | BIT(SIGHUP));
        kill(getpid(), SIGUSR1);
        handler_runs = 0;
        u64 smask = BIT(SIGHUP) | BIT(SIGWINCH);
        r = syscall(SYS_rt_sigsuspend, &smask, 8);
        snprintf(name, sizeof name, "sigsuspend_%s", sfx);
        printf("%s ret=%ld errno=%s handler_runs=%d in=0x%016llx after=0x%016llx\n", name, r,
               r < 0 ? en(errno) : "none", handler_runs, in_handler_mask, cur_mask());
        /* rt_sigsuspend woken by a signal from the timer */
        handler_runs = 0;
        itimer_ms(50);
        smask = BIT(SIGUSR1);
        r = syscall(SYS_rt_sigsuspend, &smask, 8);
        snprintf(name, sizeof name, "sigsuspend_timer_%s", sfx);
        printf("%s ret=%ld errno=%s handler_runs=%d handler_sig=%d after=0x%016llx\n", name, r,
               r < 0 ? en(errno) : "none", handler_runs, handler_sig, cur_mask());
        set_mask(0);
    }
    long r = syscall(SYS_rt_sigsuspend, &(u64){0}, 4);
    printf("sigsuspend_size_4 ret=%ld errno=%s\n", r, r < 0 ? en(errno) : "none");
    /* an ignored SIGCHLD does not interrupt wait4 */
    signal(SIGALRM, SIG_IGN);
    pid_t c = once_parent_sleeps(SIGALRM);
    int st = 0;
    handler_runs = 0;
    r = wait4(c, &st, 0, NULL);
    report("wait4_ignored_alarm", r, c, st);
    /* a handled SIGCHLD from the awaited child's own exit: wait4 returns the child */
    install(SIGCHLD, 0, 0);
    c = once_parent_sleeps(0);
    handler_runs = 0;
    r = wait4(c, &st, 0, NULL);
    report("wait4_own_sigchld_no_restart", r, c, st);
    /* ... but a SIGCHLD from another child's exit interrupts wait4 for this one */
    int rel[2];
    c = held(rel);
    pid_t other = once_parent_sleeps(0);
    handler_runs = 0;
    r = wait4(c, &st, 0, NULL);
    report("wait4_other_sigchld_no_restart", r, c, st);
    release(rel);
    if (r < 0) wait4(c, &st, 0, NULL);
    waitpid(other, NULL, 0);
    done_with(rel);
    /* Restarted: the child exits once the other's SIGCHLD handler ran. */
    install(SIGCHLD, SA_RESTART, 0);
    c = held(rel);
    pipe_w = rel[0];
    other = once_parent_sleeps(0);
    handler_runs = 0;
    r = wait4(c, &st, 0, NULL);
    pipe_w = -1;
    report("wait4_other_sigchld_sa_restart", r, c, st);
    waitpid(other, NULL, 0);
    done_with(rel);
    signal(SIGCHLD, SIG_DFL);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    masks_in_handler();
    nesting(0, "defer");
    nesting(SA_NODEFER, "nodefer");
    interrupted_waits();
    return 0;
}
