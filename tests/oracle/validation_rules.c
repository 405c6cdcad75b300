/* Records Linux's argument validation of the syscall layer: sigsetsize on
 * the rt_sig* calls, wait4's INT_MIN, clone3's checks in Linux's order
 * (copy_clone_args_from_user(), clone3_args_valid(), copy_process()'s flag
 * pairs), and user pointers in the kernel half (access_ok: EFAULT).
 * Prints one line per case: "<name> ok", "<name> <ERRNO>" or
 * "<name> <value>". A child that is created exits at once and is reaped.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case ESRCH: return "ESRCH";
    case ECHILD: return "ECHILD";
    case EFAULT: return "EFAULT";
    case E2BIG: return "E2BIG";
    default: return "OTHER";
    }
}

static void report(const char *name, long r) {
    if (r == 0 && getpid() != 0) {
        /* the child of a clone that succeeded returns 0 too: handled by
         * the callers, which _exit in the child */
    }
    if (r < 0) printf("%s %s\n", name, ename(errno));
    else printf("%s ok\n", name);
    fflush(stdout);
}

static void c3(const char *name, uint64_t flags, uint64_t stack, uint64_t stack_size, void *ptr) {
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = flags;
    a.exit_signal = SIGCHLD;
    a.stack = stack;
    a.stack_size = stack_size;
    fflush(stdout);
    long r = syscall(SYS_clone3, ptr ? ptr : &a, sizeof a);
    if (r == 0) _exit(0);
    if (r > 0) waitpid(r, NULL, 0);
    report(name, r);
}

static void cl(const char *name, unsigned long flags) {
    fflush(stdout);
    long r = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
    if (r == 0) _exit(0);
    if (r > 0) waitpid(r, NULL, 0);
    report(name, r);
}

/* struct kernel_sigaction for x86_64 */
struct ksa {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};

static void handler(int s) { (void)s; }

int main(void) {
    void *kernel_ptr = (void *)0xffff880000000000ul;
    c3("c3_newns_fs", CLONE_NEWNS | CLONE_FS, 0, 0, NULL);
    c3("c3_newuser_fs", CLONE_NEWUSER | CLONE_FS, 0, 0, NULL);
    c3("c3_newns_fs_thread_nosighand", CLONE_NEWNS | CLONE_FS | CLONE_THREAD, 0, 0, NULL);
    c3("c3_thread_nosighand_newns", CLONE_THREAD | CLONE_NEWNS, 0, 0, NULL);
    cl("cl_newns_fs", CLONE_NEWNS | CLONE_FS);
    cl("cl_newuser_fs", CLONE_NEWUSER | CLONE_FS);
    c3("c3_stack_nosize", 0, 0x10000, 0, NULL);
    c3("c3_size_nostack", 0, 0, 0x10000, NULL);
    c3("c3_stack_end_at_task_size", 0, 0x7ffffffff000ul - 0x1000, 0x1000, NULL);
    c3("c3_stack_past_task_size", 0, 0x7ffffffff000ul - 0x1000, 0x2000, NULL);
    c3("c3_stack_kernel", 0, 0xffff880000000000ul, 0x1000, NULL);
    c3("c3_stack_wraps", 0, 0x1000, 0xfffffffffffff000ul, NULL);
    c3("c3_stack_nosize_newns_fs", CLONE_NEWNS | CLONE_FS, 0x10000, 0, NULL);
    c3("c3_args_kernel_ptr", 0, 0, 0, kernel_ptr);
    {
        long r = syscall(SYS_wait4, (int)0x80000000, NULL, 0, NULL);
        report("wait4_intmin", r);
        r = syscall(SYS_wait4, (int)0x80000000, NULL, 0x4000, NULL);
        report("wait4_intmin_badopts", r);
    }
    struct ksa act = {handler, 0x04000000 /* SA_RESTORER */, NULL, 0}, old;
    memset(&old, 0, sizeof old);
    report("rt_sigaction_size4", syscall(SYS_rt_sigaction, SIGUSR1, &act, NULL, 4));
    report("rt_sigaction_size16", syscall(SYS_rt_sigaction, SIGUSR1, &act, NULL, 16));
    report("rt_sigaction_size0_query", syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 0));
    syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 8);
    printf("rt_sigaction_after_bad_size %s\n", old.handler == SIG_DFL ? "SIG_DFL" : "changed");
    report("rt_sigaction_act_kernel_ptr", syscall(SYS_rt_sigaction, SIGUSR1, kernel_ptr, NULL, 8));
    uint64_t set = 0;
    report("rt_sigprocmask_size4", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 4));
    report("rt_sigprocmask_size16_noset", syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, NULL, 16));
    report("rt_sigprocmask_set_kernel_ptr", syscall(SYS_rt_sigprocmask, SIG_BLOCK, kernel_ptr, NULL, 8));
    report("rt_sigpending_size4", syscall(SYS_rt_sigpending, &set, 4));
    report("rt_sigpending_size9", syscall(SYS_rt_sigpending, &set, 9));
    struct timespec ts = {0, 0};
    report("rt_sigtimedwait_size4", syscall(SYS_rt_sigtimedwait, &set, NULL, &ts, 4));
    report("rt_sigtimedwait_set_kernel_ptr", syscall(SYS_rt_sigtimedwait, kernel_ptr, NULL, &ts, 8));
    report("rt_sigsuspend_size4", syscall(SYS_rt_sigsuspend, &set, 4));
    report("rt_sigsuspend_kernel_ptr", syscall(SYS_rt_sigsuspend, kernel_ptr, 8));
    siginfo_t si;
    memset(&si, 0, sizeof si);
    report("rt_sigqueueinfo_kernel_ptr", syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, kernel_ptr));
    return 0;
}
