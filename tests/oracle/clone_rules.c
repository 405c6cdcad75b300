/* Records how real Linux answers clone(2) and clone3(2) argument checks.
 * Prints one line per case: "<name> ok" or "<name> <ERRNO>".
 * For cases that succeed, the child exits at once and is reaped.
 * The clear_sighand case also prints the child's dispositions.
 * Must run as root in the initial pid namespace (set_tid needs privilege).
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case EEXIST: return "EEXIST";
    case EBADF: return "EBADF";
    case EPERM: return "EPERM";
    case ENOSPC: return "ENOSPC";
    case EAGAIN: return "EAGAIN";
    case EFAULT: return "EFAULT";
    case E2BIG: return "E2BIG";
    default: return "OTHER";
    }
}

static void report(const char *name, long r) {
    if (r < 0) {
        printf("%s %s\n", name, ename(errno));
    } else {
        printf("%s ok\n", name);
        if (r > 0) waitpid((pid_t)r, NULL, __WALL);
    }
    fflush(stdout);
}

static long c3(uint64_t flags, uint64_t exit_signal, pid_t *set_tid, uint64_t set_tid_size,
               uint64_t cgroup, uint64_t stack, uint64_t stack_size) {
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = flags;
    a.exit_signal = exit_signal;
    a.set_tid = (uint64_t)(uintptr_t)set_tid;
    a.set_tid_size = set_tid_size;
    a.cgroup = cgroup;
    a.stack = stack;
    a.stack_size = stack_size;
    fflush(stdout);
    long r = syscall(SYS_clone3, &a, sizeof a);
    if (r == 0) _exit(0);
    return r;
}

static long cl(unsigned long flags) {
    int ptid = 0;
    fflush(stdout);
    /* x86-64 argument order: flags, stack, parent_tid, child_tid, tls. */
    long r = syscall(SYS_clone, flags, 0, &ptid, 0, 0);
    if (r == 0) _exit(0);
    return r;
}

int main(void) {
    pid_t one[1] = {1};
    pid_t zero[1] = {0};
    pid_t big[1] = {1 << 30};
    pid_t two[2] = {0, 0};
    signal(64, SIG_IGN); /* the c3_exitsig_64 child's exit signal */
    report("c3_plain", c3(0, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_parent_exitsig", c3(CLONE_PARENT, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_parent_noexitsig", c3(CLONE_PARENT, 0, 0, 0, 0, 0, 0));
    report("c3_thread_exitsig",
           c3(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_exitsig_65", c3(0, 65, 0, 0, 0, 0, 0));
    report("c3_exitsig_64", c3(0, 64, 0, 0, 0, 0, 0));
    report("c3_exitsig_high32", c3(0, (1ULL << 32) | SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_exitsig_256", c3(0, 256 | SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_settid_size_33", c3(0, SIGCHLD, two, 33, 0, 0, 0));
    report("c3_settid_null_size1", c3(0, SIGCHLD, 0, 1, 0, 0, 0));
    report("c3_settid_ptr_size0", c3(0, SIGCHLD, two, 0, 0, 0, 0));
    report("c3_settid_size2_level0", c3(0, SIGCHLD, two, 2, 0, 0, 0));
    report("c3_settid_1_taken", c3(0, SIGCHLD, one, 1, 0, 0, 0));
    report("c3_settid_0", c3(0, SIGCHLD, zero, 1, 0, 0, 0));
    report("c3_settid_over_pid_max", c3(0, SIGCHLD, big, 1, 0, 0, 0));
    report("c3_sighand_clear_sighand",
           c3(CLONE_SIGHAND | CLONE_VM | CLONE_CLEAR_SIGHAND, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_detached", c3(CLONE_DETACHED, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_csignal_bits", c3(0x11, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_unknown_flag_40", c3(1ULL << 40, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_cgroup_over_intmax",
           c3(CLONE_INTO_CGROUP, SIGCHLD, 0, 0, 1ULL << 32, 0, 0));
    report("c3_cgroup_bad_fd", c3(CLONE_INTO_CGROUP, SIGCHLD, 0, 0, 999, 0, 0));
    report("c3_stack0_size", c3(0, SIGCHLD, 0, 0, 0, 0, 4096));
    /* The cgroup fd is looked at last (cgroup_can_fork(), after alloc_pid()). */
    report("c3_cgroup_bad_fd_settid_taken", c3(CLONE_INTO_CGROUP, SIGCHLD, one, 1, 999, 0, 0));
    report("c3_cgroup_bad_fd_thread_nosighand",
           c3(CLONE_INTO_CGROUP | CLONE_THREAD | CLONE_VM, 0, 0, 0, 999, 0, 0));
    report("c3_thread_nosighand", c3(CLONE_THREAD | CLONE_VM, 0, 0, 0, 0, 0, 0));
    report("c3_sighand_novm", c3(CLONE_SIGHAND, SIGCHLD, 0, 0, 0, 0, 0));
    report("c3_thread_newpid",
           c3(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_NEWPID, 0, 0, 0, 0, 0, 0));
    report("cl_plain", cl(SIGCHLD));
    report("cl_parent_exitsig", cl(CLONE_PARENT | SIGCHLD));
    report("cl_exitsig_100", cl(100));
    report("cl_exitsig_65", cl(65));
    report("cl_pidfd_parent_settid", cl(CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD));
    report("cl_detached", cl(CLONE_DETACHED | SIGCHLD));
    report("cl_thread_nosighand", cl(CLONE_THREAD | CLONE_VM));
    report("cl_sighand_novm", cl(CLONE_SIGHAND | SIGCHLD));

    /* New namespaces need CAP_SYS_ADMIN (copy_namespaces()), unless
     * CLONE_NEWUSER gives it in the new user namespace: asked by a child
     * that dropped root. */
    fflush(stdout);
    pid_t u = fork();
    if (u == 0) {
        if (setresuid(1000, 1000, 1000)) _exit(1);
        report("cl_newpid_unprivileged", cl(CLONE_NEWPID | SIGCHLD));
        report("cl_newuts_unprivileged", cl(CLONE_NEWUTS | SIGCHLD));
        report("c3_newpid_unprivileged", c3(CLONE_NEWPID, SIGCHLD, 0, 0, 0, 0, 0));
        report("c3_newpid_pidfd_unprivileged",
               c3(CLONE_NEWPID | CLONE_PIDFD, SIGCHLD, 0, 0, 0, 0, 0));
        report("c3_cgroup_bad_fd_newpid_unprivileged",
               c3(CLONE_INTO_CGROUP | CLONE_NEWPID, SIGCHLD, 0, 0, 999, 0, 0));
        report("c3_newpid_newuser_unprivileged",
               c3(CLONE_NEWPID | CLONE_NEWUSER, SIGCHLD, 0, 0, 0, 0, 0));
        _exit(0);
    }
    waitpid(u, NULL, 0);

    /* A thread after unshare(CLONE_NEWPID) is refused (EINVAL) before the
     * RLIMIT_NPROC check (EAGAIN) that refuses a fork there. */
    fflush(stdout);
    u = fork();
    if (u == 0) {
        if (unshare(CLONE_NEWPID)) _exit(2);
        if (setresuid(1000, 1000, 1000)) _exit(1);
        struct rlimit rl = {1, 1};
        if (setrlimit(RLIMIT_NPROC, &rl)) _exit(3);
        report("cl_thread_newpid_for_children_over_nproc",
               cl(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM));
        report("cl_fork_newpid_for_children_over_nproc", cl(SIGCHLD));
        _exit(0);
    }
    waitpid(u, NULL, 0);

    /* CLONE_CLEAR_SIGHAND: handlers reset to SIG_DFL, SIG_IGN kept. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGUSR2, &sa, NULL);
    sa.sa_handler = (void (*)(int))report; /* a "handler" address; never delivered */
    sigaction(SIGUSR1, &sa, NULL);
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = CLONE_CLEAR_SIGHAND;
    a.exit_signal = SIGCHLD;
    fflush(stdout);
    long r = syscall(SYS_clone3, &a, sizeof a);
    if (r == 0) {
        struct sigaction o1, o2;
        sigaction(SIGUSR1, NULL, &o1);
        sigaction(SIGUSR2, NULL, &o2);
        printf("clear_sighand_child usr1=%s usr2=%s\n",
               o1.sa_handler == SIG_DFL ? "dfl" : o1.sa_handler == SIG_IGN ? "ign" : "handler",
               o2.sa_handler == SIG_DFL ? "dfl" : o2.sa_handler == SIG_IGN ? "ign" : "handler");
        fflush(stdout);
        _exit(0);
    }
    waitpid((pid_t)r, NULL, 0);
    return 0;
}
