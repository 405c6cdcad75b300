/* Records Linux's argument-decoding rules of the signal and pidfd calls
 * that taskcore::sys decodes: sigset sizes, unreadable pointers, the
 * rt_sigtimedwait timeout checks, and the order of the flag, fd and
 * siginfo checks of pidfd_send_signal, waitid(P_PIDFD) and setns.
 * Prints "<case> <errno name or ok>" lines. Re-record with
 * tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* An address that is never mapped (the first page). */
#define BAD ((void *)8)

static void show(const char *name, long r) {
    const char *e = "OTHER";
    if (r >= 0) {
        printf("%s ok\n", name);
        return;
    }
    switch (errno) {
    case EINVAL: e = "EINVAL"; break;
    case EFAULT: e = "EFAULT"; break;
    case EBADF: e = "EBADF"; break;
    case EAGAIN: e = "EAGAIN"; break;
    case EPERM: e = "EPERM"; break;
    case ESRCH: e = "ESRCH"; break;
    }
    printf("%s %s\n", name, e);
}

int main(void) {
    unsigned long long set = 1ULL << (SIGUSR1 - 1), old;
    siginfo_t info;
    struct timespec ts;
    int devnull = open("/dev/null", O_RDONLY);
    int self = syscall(SYS_pidfd_open, getpid(), 0);
    int closed = 1000;

    show("sigprocmask_size16", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &old, 16));
    show("sigprocmask_set_efault", syscall(SYS_rt_sigprocmask, SIG_BLOCK, BAD, &old, 8));
    show("sigprocmask_null_set_bad_how", syscall(SYS_rt_sigprocmask, 99, NULL, &old, 8));
    show("sigpending_size4", syscall(SYS_rt_sigpending, &old, 4));
    show("sigpending_size16", syscall(SYS_rt_sigpending, &old, 16));
    show("sigsuspend_size16", syscall(SYS_rt_sigsuspend, &set, 16));
    show("sigsuspend_efault", syscall(SYS_rt_sigsuspend, BAD, 8));
    ts.tv_sec = 0;
    ts.tv_nsec = 0;
    show("sigtimedwait_size16", syscall(SYS_rt_sigtimedwait, &set, &info, &ts, 16));
    show("sigtimedwait_set_efault", syscall(SYS_rt_sigtimedwait, BAD, &info, &ts, 8));
    show("sigtimedwait_ts_efault", syscall(SYS_rt_sigtimedwait, &set, &info, BAD, 8));
    show("sigtimedwait_zero_nothing", syscall(SYS_rt_sigtimedwait, &set, &info, &ts, 8));
    ts.tv_nsec = 1000000000;
    show("sigtimedwait_nsec_1e9", syscall(SYS_rt_sigtimedwait, &set, &info, &ts, 8));
    ts.tv_sec = -1;
    ts.tv_nsec = 0;
    show("sigtimedwait_sec_neg", syscall(SYS_rt_sigtimedwait, &set, &info, &ts, 8));
    show("sigqueueinfo_efault", syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR1, BAD));
    show("tgsigqueueinfo_efault",
         syscall(SYS_rt_tgsigqueueinfo, getpid(), getpid(), SIGUSR1, BAD));
    show("pidfd_send_two_scopes_bad_fd", syscall(SYS_pidfd_send_signal, -1, 0, NULL, 3));
    show("pidfd_send_unknown_flag_bad_fd", syscall(SYS_pidfd_send_signal, -1, 0, NULL, 8));
    show("pidfd_send_bad_fd", syscall(SYS_pidfd_send_signal, -1, 0, NULL, 0));
    show("pidfd_send_closed_fd_bad_info", syscall(SYS_pidfd_send_signal, closed, 0, BAD, 0));
    show("pidfd_send_not_pidfd", syscall(SYS_pidfd_send_signal, devnull, 0, NULL, 0));
    show("pidfd_send_info_efault", syscall(SYS_pidfd_send_signal, self, 0, BAD, 0));
    show("waitid_pidfd_no_options_bad_fd", syscall(SYS_waitid, P_PIDFD, -1, &info, 0, NULL));
    show("waitid_pidfd_negative_fd", syscall(SYS_waitid, P_PIDFD, -1, &info, WEXITED, NULL));
    show("waitid_pidfd_closed_fd", syscall(SYS_waitid, P_PIDFD, closed, &info, WEXITED, NULL));
    show("waitid_pidfd_not_pidfd", syscall(SYS_waitid, P_PIDFD, devnull, &info, WEXITED, NULL));
    show("setns_bad_fd", syscall(SYS_setns, -1, 0));
    show("setns_not_ns", syscall(SYS_setns, devnull, 0));
    show("setns_pidfd_nstype_neg", syscall(SYS_setns, self, -1));
    return 0;
}
