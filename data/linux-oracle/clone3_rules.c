/* clone3() and legacy clone() argument rules as this kernel applies them.
 * Prints "CASE RESULT" per line: RESULT is 0 for success (the child exits
 * at once) or the errno name. The test crates/taskcore/tests/clone3.rs runs
 * the same cases through Kernel::clone3 / Kernel::clone and compares.
 * Build and run: see record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

static void report(const char *name, long r) {
    if (r == 0) {
        /* the child */
        _exit(0);
    }
    if (r < 0) {
        printf("%s %s\n", name, strerrorname_np(errno));
    } else {
        printf("%s 0\n", name);
        waitpid((pid_t)r, NULL, __WALL);
    }
    fflush(stdout);
}

static long c3(uint64_t flags, uint64_t exit_signal, pid_t *set_tid, size_t n) {
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = flags;
    a.exit_signal = exit_signal;
    a.set_tid = (uint64_t)(uintptr_t)set_tid;
    a.set_tid_size = n;
    return syscall(SYS_clone3, &a, sizeof a);
}

static void h(int s) { (void)s; }

int main(void) {
    pid_t tids[40] = {0};
    /* Children with exit signals 64 and SIGUSR1 must not kill us. */
    signal(64, SIG_IGN);
    signal(SIGUSR1, SIG_IGN);
    report("fork_like", c3(0, SIGCHLD, NULL, 0));
    report("thread_with_exit_signal", c3(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, SIGCHLD, NULL, 0));
    report("parent_with_exit_signal", c3(CLONE_PARENT, SIGCHLD, NULL, 0));
    report("parent_without_exit_signal", c3(CLONE_PARENT, 0, NULL, 0));
    report("exit_signal_65", c3(0, 65, NULL, 0));
    report("exit_signal_above_byte", c3(0, 0x100 | SIGCHLD, NULL, 0));
    report("exit_signal_64", c3(0, 64, NULL, 0));
    report("detached", c3(CLONE_DETACHED, SIGCHLD, NULL, 0));
    report("signal_in_flags", c3(SIGCHLD, 0, NULL, 0));
    report("sighand_and_clear_sighand", c3(CLONE_SIGHAND | CLONE_VM | CLONE_CLEAR_SIGHAND, SIGCHLD, NULL, 0));
    report("unknown_high_flag", c3(1ULL << 40, SIGCHLD, NULL, 0));
    report("set_tid_size_33", c3(0, SIGCHLD, tids, 33));
    report("clear_sighand", c3(CLONE_CLEAR_SIGHAND, SIGCHLD, NULL, 0));
    /* Legacy clone ignores the exit signal with CLONE_PARENT. */
    report("legacy_parent_with_exit_signal", syscall(SYS_clone, CLONE_PARENT | SIGUSR1, 0, 0, 0, 0));
    /* What CLONE_CLEAR_SIGHAND leaves: a handled signal is SIG_DFL, an
     * ignored one stays SIG_IGN. */
    signal(SIGUSR1, h);
    signal(SIGUSR2, SIG_IGN);
    int p[2];
    if (pipe(p) != 0) return 1;
    long r = c3(CLONE_CLEAR_SIGHAND, SIGCHLD, NULL, 0);
    if (r == 0) {
        struct sigaction a1, a2;
        sigaction(SIGUSR1, NULL, &a1);
        sigaction(SIGUSR2, NULL, &a2);
        char buf[64];
        int n = snprintf(buf, sizeof buf, "%s %s\n",
                         a1.sa_handler == SIG_DFL ? "DFL" : a1.sa_handler == SIG_IGN ? "IGN" : "HANDLER",
                         a2.sa_handler == SIG_DFL ? "DFL" : a2.sa_handler == SIG_IGN ? "IGN" : "HANDLER");
        if (write(p[1], buf, n) != n) _exit(1);
        _exit(0);
    }
    char buf[64] = {0};
    if (read(p[0], buf, sizeof buf - 1) <= 0) return 1;
    waitpid((pid_t)r, NULL, 0);
    printf("clear_sighand_child_sees %s", buf);
    return 0;
}
