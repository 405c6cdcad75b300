/* Bad user pointers on the rt_sig*, wait and clone3 paths: each call gets
 * EFAULT from Linux (copy_from_user() of an argument, or copy_to_user() of
 * a result after the call acted). Three kinds of bad pointer:
 *   none    a PROT_NONE page the program mapped,
 *   hole    a page the program unmapped (a read-write page below it;
 *           "straddle" is 2 bytes below the hole, so a 4-byte int and an
 *           8-byte sigset run into it; 4 bytes below it an int fits),
 *   kernel  an address in the kernel half (access_ok()).
 * Where the call acts before its output is refused (rt_sigaction's old
 * action, rt_sigprocmask's old mask, rt_sigtimedwait's siginfo, wait4's
 * status, waitid's siginfo, clone3's pidfd), a later call shows what the
 * failed one left behind. Recorded by data/traces/memory/record.sh. */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096L

static void handler(int s) { (void)s; }

static pid_t child(int code) {
    pid_t p = fork();
    if (p == 0) _exit(code);
    return p;
}

int main(void) {
    char *rw = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *hole = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rw == MAP_FAILED || hole == MAP_FAILED) return 1;
    char *none = rw + PAGE;
    mprotect(none, PAGE, PROT_NONE);
    munmap(hole + PAGE, PAGE);
    char *gap = hole + PAGE, *straddle = hole + PAGE - 2;
    char *kernel = (char *)0xffff888000000000UL;
    char *bad[] = {none, gap, straddle, kernel};
    int nbad = sizeof bad / sizeof bad[0];

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    struct timespec zero = {0, 0};
    siginfo_t si;
    int st;

    for (int i = 0; i < nbad; i++) {
        /* Inputs refused before the call acts. */
        syscall(SYS_rt_sigaction, SIGUSR1, bad[i], NULL, 8);
        syscall(SYS_rt_sigprocmask, SIG_BLOCK, bad[i], NULL, 8);
        syscall(SYS_rt_sigsuspend, bad[i], 8);
        syscall(SYS_rt_sigtimedwait, bad[i], NULL, &zero, 8);
        syscall(SYS_rt_sigtimedwait, &set, NULL, bad[i], 8);
        syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, bad[i]);
        syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGUSR2, bad[i]);
        syscall(SYS_clone3, bad[i], 88);
        /* Outputs refused with nothing done. */
        syscall(SYS_rt_sigaction, SIGUSR1, NULL, bad[i], 8);
        syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, bad[i], 8);
        syscall(SYS_rt_sigpending, bad[i], 8);
    }
    for (int i = 0; i < nbad; i++) {
        /* The call acts, then its output is refused. */
        sa.sa_handler = (i & 1) ? SIG_IGN : handler;
        syscall(SYS_rt_sigaction, SIGUSR1, &sa, bad[i], 8);
        syscall(SYS_rt_sigaction, SIGUSR1, NULL, &sa, 8);
        syscall(SYS_rt_sigprocmask, (i & 1) ? SIG_UNBLOCK : SIG_BLOCK, &set, bad[i], 8);
        syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &old, 8);
        /* A blocked SIGUSR2 taken by rt_sigtimedwait, whose siginfo is
         * refused: the signal is gone. */
        sigprocmask(SIG_BLOCK, &set, NULL);
        kill(getpid(), SIGUSR2);
        syscall(SYS_rt_sigtimedwait, &set, bad[i], &zero, 8);
        syscall(SYS_rt_sigpending, &old, 8);
        syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, 8);
        /* wait4 reaps, then its status (or rusage) is refused. */
        pid_t p = child(i);
        syscall(SYS_wait4, p, bad[i], 0, NULL);
        syscall(SYS_wait4, p, &st, WNOHANG, NULL);
        p = child(10 + i);
        syscall(SYS_wait4, -1, &st, 0, bad[i]);
        syscall(SYS_wait4, -1, &st, WNOHANG, NULL);
        /* Nothing to report (a child in pause()): wait4 writes nothing,
         * waitid a zeroed siginfo. */
        p = fork();
        if (p == 0) {
            pause();
            _exit(1);
        }
        syscall(SYS_wait4, p, bad[i], WNOHANG, NULL);
        syscall(SYS_waitid, P_PID, p, bad[i], WEXITED | WNOHANG, NULL);
        kill(p, SIGKILL);
        syscall(SYS_waitid, P_PID, p, &si, WEXITED | WNOWAIT, NULL);
        /* waitid reaps, then its siginfo is refused. */
        syscall(SYS_waitid, P_PID, p, bad[i], WEXITED, NULL);
        syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | WNOHANG, NULL);
        /* No child at all: waitid still writes its siginfo. */
        syscall(SYS_waitid, P_ALL, 0, bad[i], WEXITED | WNOHANG, NULL);
        /* clone3 whose pidfd is refused: no child (its pid is used up). */
        struct clone_args ca;
        memset(&ca, 0, sizeof ca);
        ca.flags = CLONE_PIDFD;
        ca.exit_signal = SIGCHLD;
        ca.pidfd = (uint64_t)(uintptr_t)bad[i];
        long r = syscall(SYS_clone3, &ca, sizeof ca);
        if (r == 0) _exit(99);
        syscall(SYS_wait4, -1, &st, WNOHANG, NULL);
        /* set_tid read from a bad pointer. */
        memset(&ca, 0, sizeof ca);
        ca.exit_signal = SIGCHLD;
        ca.set_tid = (uint64_t)(uintptr_t)bad[i];
        ca.set_tid_size = 1;
        r = syscall(SYS_clone3, &ca, sizeof ca);
        if (r == 0) _exit(98);
        p = child(30 + i);
        syscall(SYS_wait4, p, &st, 0, NULL);
    }
    /* Four bytes below the hole, an int fits: wait4 and clone3's pidfd
     * succeed. */
    pid_t p = child(40);
    syscall(SYS_wait4, p, hole + PAGE - 4, 0, NULL);
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.flags = CLONE_PIDFD;
    ca.exit_signal = SIGCHLD;
    ca.pidfd = (uint64_t)(uintptr_t)(hole + PAGE - 4);
    if (syscall(SYS_clone3, &ca, sizeof ca) == 0) _exit(41);
    syscall(SYS_wait4, -1, &st, 0, NULL);
    return 0;
}
