/* Records Linux's rules for signal masks, pending sets and queues:
 * rt_sigprocmask, rt_sigpending, coalescing and queueing, dequeue order,
 * RLIMIT_SIGPENDING, inheritance by fork/thread/execve, discard at send,
 * stop/continue flushing, rt_sigtimedwait and si_code values.
 * Prints "<case> key=value ..." lines; masks are the kernel's 64-bit sigset
 * (bit sig-1) in hex, errors are errno names, pids are "self", "parent",
 * "child" or "other". Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long u64;
#define BIT(s) (1ULL << ((s) - 1))
#define RT(n) (34 + (n))

static pid_t base_self, base_parent, base_child;

static const char *en(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case EAGAIN: return "EAGAIN";
    case EPERM: return "EPERM";
    case EINTR: return "EINTR";
    case EFAULT: return "EFAULT";
    case ESRCH: return "ESRCH";
    default: return "OTHER";
    }
}

static const char *who(pid_t p) {
    if (p == 0) return "zero";
    if (p == getpid()) return "self";
    if (p == base_parent) return "parent";
    if (p == base_child) return "child";
    if (p == base_self) return "top";
    return "other";
}

static long sys_mask(int how, const u64 *set, u64 *old, size_t size) {
    return syscall(SYS_rt_sigprocmask, how, set, old, size);
}

static u64 cur_mask(void) {
    u64 m = 0;
    sys_mask(SIG_BLOCK, NULL, &m, 8);
    return m;
}

static u64 pending(void) {
    u64 p = 0;
    syscall(SYS_rt_sigpending, &p, 8);
    return p;
}

static void set_mask(u64 m) { sys_mask(SIG_SETMASK, &m, NULL, 8); }

static void res(const char *name, long r) {
    if (r < 0)
        printf("%s ret=-1 errno=%s\n", name, en(errno));
    else
        printf("%s ret=%ld\n", name, r);
}

static long sys_timedwait(u64 set, siginfo_t *si, long ns) {
    struct timespec ts = {0, ns};
    return syscall(SYS_rt_sigtimedwait, &set, si, &ts, 8);
}

/* Dequeues everything in `set` with a zero timeout, printing each siginfo. */
static void drain(const char *name, u64 set) {
    for (int i = 0;; i++) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        long r = sys_timedwait(set, &si, 0);
        if (r < 0) {
            printf("%s[%d] ret=-1 errno=%s\n", name, i, en(errno));
            return;
        }
        printf("%s[%d] sig=%ld si_signo=%d si_code=%d si_pid=%s si_value=%d\n", name, i, r,
               si.si_signo, si.si_code, who(si.si_pid), si.si_value.sival_int);
    }
}

static long queue(pid_t pid, int sig, int code, int val) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = code;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = val;
    return syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
}

static long tgqueue(pid_t tgid, pid_t tid, int sig, int code, int val) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = code;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = val;
    return syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, &si);
}

static long tgkill_self(int sig) { return syscall(SYS_tgkill, getpid(), gettid(), sig); }

static void masks(void) {
    u64 s = BIT(SIGUSR1) | BIT(SIGKILL) | BIT(SIGSTOP), old = 0xdead;
    long r = sys_mask(SIG_BLOCK, &s, &old, 8);
    printf("block_usr1_kill_stop ret=%ld old=0x%016llx new=0x%016llx\n", r, old, cur_mask());
    s = BIT(SIGUSR2) | BIT(RT(0)) | BIT(64);
    r = sys_mask(SIG_BLOCK, &s, &old, 8);
    printf("block_usr2_rt0_64 ret=%ld old=0x%016llx new=0x%016llx\n", r, old, cur_mask());
    s = BIT(SIGUSR1) | BIT(SIGHUP);
    r = sys_mask(SIG_UNBLOCK, &s, &old, 8);
    printf("unblock_usr1_hup ret=%ld old=0x%016llx new=0x%016llx\n", r, old, cur_mask());
    s = ~0ULL;
    r = sys_mask(SIG_SETMASK, &s, &old, 8);
    printf("setmask_all ret=%ld old=0x%016llx new=0x%016llx\n", r, old, cur_mask());
    s = 0;
    r = sys_mask(SIG_SETMASK, &s, &old, 8);
    printf("setmask_none ret=%ld old=0x%016llx new=0x%016llx\n", r, old, cur_mask());
    s = BIT(SIGUSR1);
    old = 0xdead;
    r = sys_mask(3, &s, &old, 8);
    printf("bad_how_3 ret=%ld errno=%s old=%#llx new=0x%016llx\n", r, r ? en(errno) : "none",
           old, cur_mask());
    r = sys_mask(-1, &s, &old, 8);
    printf("bad_how_neg ret=%ld errno=%s new=0x%016llx\n", r, r ? en(errno) : "none", cur_mask());
    old = 0xdead;
    r = sys_mask(99, NULL, &old, 8);
    printf("bad_how_null_set ret=%ld errno=%s old=0x%016llx\n", r, r ? en(errno) : "none", old);
    r = sys_mask(SIG_BLOCK, &s, &old, 4);
    printf("sigsetsize_4 ret=%ld errno=%s new=0x%016llx\n", r, r ? en(errno) : "none", cur_mask());
    r = sys_mask(SIG_BLOCK, &s, &old, 16);
    printf("sigsetsize_16 ret=%ld errno=%s new=0x%016llx\n", r, r ? en(errno) : "none",
           cur_mask());
    r = sys_mask(SIG_BLOCK, NULL, NULL, 8);
    printf("both_null ret=%ld\n", r);
    u64 p = 0;
    r = syscall(SYS_rt_sigpending, &p, 4);
    printf("sigpending_size_4 ret=%ld errno=%s\n", r, r ? en(errno) : "none");
    r = syscall(SYS_rt_sigpending, &p, 16);
    printf("sigpending_size_16 ret=%ld errno=%s\n", r, r ? en(errno) : "none");
    r = syscall(SYS_rt_sigpending, &p, 8);
    printf("sigpending_empty ret=%ld pending=0x%016llx\n", r, p);
}

static void coalesce_and_queue(void) {
    set_mask(BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(RT(0)) | BIT(RT(1)) | BIT(RT(2)) | BIT(SIGHUP) |
             BIT(SIGSEGV) | BIT(SIGTRAP));
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGUSR1);
    printf("std_coalesce pending=0x%016llx\n", pending());
    drain("std_coalesce_dequeue", BIT(SIGUSR1));
    res("rt_queue_rt2_v1", queue(getpid(), RT(2), SI_QUEUE, 1));
    res("rt_queue_rt1_v2", queue(getpid(), RT(1), SI_QUEUE, 2));
    res("rt_queue_rt2_v3", queue(getpid(), RT(2), SI_QUEUE, 3));
    res("rt_queue_rt0_v4", queue(getpid(), RT(0), SI_QUEUE, 4));
    res("rt_kill_rt1", kill(getpid(), RT(1)));
    printf("rt_queue pending=0x%016llx\n", pending());
    drain("rt_order", BIT(RT(0)) | BIT(RT(1)) | BIT(RT(2)));
    /* synchronous signals first, then lowest number */
    kill(getpid(), SIGHUP);
    kill(getpid(), SIGSEGV);
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGTRAP);
    drain("sync_first", BIT(SIGHUP) | BIT(SIGSEGV) | BIT(SIGUSR1) | BIT(SIGTRAP));
    /* thread-pending before shared */
    kill(getpid(), SIGUSR1);
    tgkill_self(SIGUSR2);
    kill(getpid(), SIGHUP);
    drain("thread_before_shared", BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(SIGHUP));
    queue(getpid(), RT(0), SI_QUEUE, 10);
    tgqueue(getpid(), gettid(), RT(0), SI_QUEUE, 11);
    queue(getpid(), RT(0), SI_QUEUE, 12);
    drain("rt_thread_before_shared", BIT(RT(0)));
    /* si_code values */
    kill(getpid(), SIGUSR1);
    drain("si_code_kill", BIT(SIGUSR1));
    syscall(SYS_tkill, gettid(), SIGUSR1);
    drain("si_code_tkill", BIT(SIGUSR1));
    tgkill_self(SIGUSR1);
    drain("si_code_tgkill", BIT(SIGUSR1));
    sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 7});
    drain("si_code_sigqueue", BIT(SIGUSR1));
    queue(getpid(), SIGUSR1, SI_USER, 8);
    drain("si_code_self_queue_si_user", BIT(SIGUSR1));
    queue(getpid(), SIGUSR1, 5, 9);
    drain("si_code_self_queue_positive", BIT(SIGUSR1));
    /* queued std signal keeps the first siginfo */
    queue(getpid(), SIGUSR1, SI_QUEUE, 20);
    queue(getpid(), SIGUSR1, SI_QUEUE, 21);
    drain("std_keeps_first_info", BIT(SIGUSR1));
    /* rt_sigtimedwait with zero and short timeouts */
    siginfo_t si;
    res("timedwait_zero_empty", sys_timedwait(BIT(SIGUSR1), &si, 0));
    res("timedwait_10ms_empty", sys_timedwait(BIT(SIGUSR1), &si, 10000000));
    u64 bad = BIT(SIGUSR1);
    struct timespec ts = {0, 0};
    res("timedwait_size_4", syscall(SYS_rt_sigtimedwait, &bad, &si, &ts, 4));
    ts.tv_nsec = 1000000000;
    res("timedwait_bad_nsec", syscall(SYS_rt_sigtimedwait, &bad, &si, &ts, 8));
    kill(getpid(), SIGUSR1);
    res("timedwait_null_info", syscall(SYS_rt_sigtimedwait, &bad, NULL, &(struct timespec){0, 0}, 8));
    /* a signal not in the wait set but pending and blocked stays pending */
    kill(getpid(), SIGUSR2);
    res("timedwait_other_pending", sys_timedwait(BIT(SIGUSR1), &si, 0));
    printf("timedwait_other_pending pending=0x%016llx\n", pending());
    drain("cleanup", BIT(SIGUSR2));
    set_mask(0);
}

/* Sends to another process: which si_code values rt_sigqueueinfo allows. */
static void queue_perm(void) {
    u64 m = BIT(SIGUSR1);
    set_mask(m);
    fflush(stdout);
    int hold[2];
    if (pipe(hold)) _exit(1);
    pid_t c = fork();
    if (c == 0) {
        char b;
        base_parent = getppid();
        base_child = 0;
        /* Lives until it is killed (or its parent is gone). */
        close(hold[1]);
        if (read(hold[0], &b, 1) < 0) _exit(1);
        _exit(0);
    }
    close(hold[0]);
    base_child = c;
    res("queue_other_si_queue", queue(c, SIGUSR1, SI_QUEUE, 1));
    res("queue_other_si_user", queue(c, SIGUSR1, SI_USER, 1));
    res("queue_other_si_tkill", queue(c, SIGUSR1, SI_TKILL, 1));
    res("queue_other_positive", queue(c, SIGUSR1, 1, 1));
    res("queue_other_si_kernel", queue(c, SIGUSR1, SI_KERNEL, 1));
    res("tgqueue_other_si_tkill", tgqueue(c, c, SIGUSR1, SI_TKILL, 1));
    res("tgqueue_other_wrong_tgid", tgqueue(getpid(), c, SIGUSR1, SI_QUEUE, 1));
    res("queue_bad_sig_0", queue(c, 0, SI_QUEUE, 1));
    res("queue_bad_sig_65", queue(c, 65, SI_QUEUE, 1));
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    close(hold[1]);
    set_mask(0);
}

/* RLIMIT_SIGPENDING, counted per user: run as a dedicated uid. */
static void sigpending_limit(void) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        struct rlimit rl = {4, 4};
        setrlimit(RLIMIT_SIGPENDING, &rl);
        if (setresuid(54321, 54321, 54321)) _exit(9);
        set_mask(BIT(SIGUSR1) | BIT(RT(0)) | BIT(RT(1)));
        res("limit4_kill_std", kill(getpid(), SIGUSR1));
        for (int i = 0; i < 5; i++) {
            char n[64];
            snprintf(n, sizeof n, "limit4_queue_rt0[%d]", i);
            res(n, queue(getpid(), RT(0), SI_QUEUE, 100 + i));
        }
        res("limit4_tgqueue_rt0", tgqueue(getpid(), gettid(), RT(0), SI_QUEUE, 200));
        res("limit4_sigqueue_new_rt1", queue(getpid(), RT(1), SI_QUEUE, 300));
        res("limit4_kill_rt1", kill(getpid(), RT(1)));
        res("limit4_kill_rt1_again", kill(getpid(), RT(1)));
        res("limit4_tgkill_rt1", tgkill_self(RT(1)));
        printf("limit4 pending=0x%016llx\n", pending());
        drain("limit4_dequeue", BIT(SIGUSR1) | BIT(RT(0)) | BIT(RT(1)));
        fflush(stdout);
        _exit(0);
    }
    waitpid(c, NULL, 0);
}

static void *thread_fn(void *arg) {
    (void)arg;
    printf("thread_inherits mask=0x%016llx pending=0x%016llx\n", cur_mask(), pending());
    fflush(stdout);
    return NULL;
}

static void dummy_handler(int sig) { (void)sig; }

static void inherit(char *self) {
    set_mask(BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(RT(3)));
    kill(getpid(), SIGUSR1);          /* shared */
    tgkill_self(SIGUSR2);             /* thread */
    queue(getpid(), RT(3), SI_QUEUE, 33);
    printf("creator mask=0x%016llx pending=0x%016llx\n", cur_mask(), pending());
    fflush(stdout);
    pthread_t t;
    pthread_create(&t, NULL, thread_fn, NULL);
    pthread_join(t, NULL);
    pid_t c = fork();
    if (c == 0) {
        printf("fork_child mask=0x%016llx pending=0x%016llx\n", cur_mask(), pending());
        fflush(stdout);
        _exit(0);
    }
    waitpid(c, NULL, 0);
    /* execve keeps mask and pending (thread and shared), and queued siginfo */
    signal(SIGHUP, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = dummy_handler;
    fflush(stdout);
    c = fork();
    if (c == 0) {
        /* the forked child's pending set is empty: rebuild it before exec */
        kill(getpid(), SIGUSR1);
        tgkill_self(SIGUSR2);
        queue(getpid(), RT(3), SI_QUEUE, 34);
        sigaction(SIGUSR2, &sa, NULL);
        char *argv[] = {self, "exec-check", NULL};
        execv("/proc/self/exe", argv);
        _exit(8);
    }
    waitpid(c, NULL, 0);
    signal(SIGHUP, SIG_DFL);
    drain("creator_cleanup", BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(RT(3)));
    set_mask(0);
}

static void exec_check(void) {
    printf("after_exec mask=0x%016llx pending=0x%016llx\n", cur_mask(), pending());
    struct sigaction sa;
    sigaction(SIGUSR2, NULL, &sa);
    printf("after_exec usr2_handler=%s\n", sa.sa_handler == SIG_DFL ? "SIG_DFL" : "other");
    sigaction(SIGHUP, NULL, &sa);
    printf("after_exec hup_handler=%s\n", sa.sa_handler == SIG_IGN ? "SIG_IGN" : "other");
    drain("after_exec_dequeue", BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(RT(3)));
}

static void discard(void) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        set_mask(0);
        signal(SIGUSR1, SIG_IGN);
        kill(getpid(), SIGUSR1);
        printf("ignored_unblocked pending=0x%016llx\n", pending());
        set_mask(BIT(SIGUSR1));
        kill(getpid(), SIGUSR1);
        printf("ignored_blocked pending=0x%016llx\n", pending());
        signal(SIGUSR1, SIG_DFL);
        printf("ignored_blocked_then_dfl pending=0x%016llx\n", pending());
        signal(SIGUSR1, SIG_IGN);
        printf("ignored_blocked_then_ign_again pending=0x%016llx\n", pending());
        /* default-ignore signals (SIGCHLD, SIGURG, SIGWINCH) */
        set_mask(0);
        kill(getpid(), SIGWINCH);
        kill(getpid(), SIGURG);
        set_mask(BIT(SIGWINCH) | BIT(SIGURG));
        printf("dfl_ignore_unblocked pending=0x%016llx\n", pending());
        kill(getpid(), SIGWINCH);
        printf("dfl_ignore_blocked pending=0x%016llx\n", pending());
        /* setting SIG_IGN flushes a pending blocked signal */
        signal(SIGWINCH, SIG_IGN);
        printf("dfl_ignore_blocked_then_ign pending=0x%016llx\n", pending());
        /* stop signals flush SIGCONT and SIGCONT flushes stop signals */
        set_mask(BIT(SIGCONT) | BIT(SIGTSTP) | BIT(SIGTTIN) | BIT(SIGTTOU));
        kill(getpid(), SIGCONT);
        printf("stopflush_cont pending=0x%016llx\n", pending());
        kill(getpid(), SIGTSTP);
        printf("stopflush_then_tstp pending=0x%016llx\n", pending());
        kill(getpid(), SIGTTIN);
        kill(getpid(), SIGTTOU);
        printf("stopflush_then_ttin_ttou pending=0x%016llx\n", pending());
        kill(getpid(), SIGCONT);
        printf("stopflush_then_cont pending=0x%016llx\n", pending());
        signal(SIGCONT, SIG_IGN);
        kill(getpid(), SIGTSTP);
        printf("stopflush_cont_ignored_then_tstp pending=0x%016llx\n", pending());
        kill(getpid(), SIGCONT);
        printf("stopflush_then_ignored_cont pending=0x%016llx\n", pending());
        /* thread-pending stop signal is flushed by SIGCONT to the process too */
        tgkill_self(SIGTSTP);
        printf("stopflush_thread_tstp pending=0x%016llx\n", pending());
        kill(getpid(), SIGCONT);
        printf("stopflush_thread_tstp_then_cont pending=0x%016llx\n", pending());
        fflush(stdout);
        _exit(0);
    }
    waitpid(c, NULL, 0);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "exec-check") == 0) {
        base_parent = getppid();
        exec_check();
        return 0;
    }
    base_self = getpid();
    base_parent = getppid();
    masks();
    coalesce_and_queue();
    queue_perm();
    base_child = 0;
    sigpending_limit();
    inherit(argv[0]);
    discard();
    return 0;
}
