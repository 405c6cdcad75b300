/* Records pidfd answers: pidfd_open, CLONE_PIDFD in clone and clone3,
 * pidfd_send_signal, waitid(P_PIDFD), poll readiness and fdinfo.
 * Prints "<case> <answer>" lines; pids are printed as names (SELF, CHILD,
 * NS1...) so that the output does not depend on the pids Linux gave.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK O_NONBLOCK
#endif
#define PIDFD_SIGNAL_THREAD (1UL << 0)
#define PIDFD_SIGNAL_THREAD_GROUP (1UL << 1)
#define PIDFD_SIGNAL_PROCESS_GROUP (1UL << 2)
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static const char *en(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    case EBADF: return "EBADF";
    case EPERM: return "EPERM";
    case EAGAIN: return "EAGAIN";
    case ECHILD: return "ECHILD";
    case ENOENT: return "ENOENT";
    case ENOMEM: return "ENOMEM";
    default: return "OTHER";
    }
}

static void out(const char *name, long r) {
    if (r < 0)
        printf("%s %s\n", name, en(errno));
    else
        printf("%s ok\n", name);
    fflush(stdout);
}

static int pidfd_open(pid_t pid, unsigned flags) { return syscall(SYS_pidfd_open, pid, flags); }
static int send_sig(int fd, int sig, siginfo_t *info, unsigned flags) {
    return syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

static pid_t sleeper(void) {
    pid_t p = fork();
    if (p == 0) {
        for (;;) pause();
    }
    return p;
}

/* fdinfo Pid/NSpid lines of fd with pid numbers replaced by names. */
static void fdinfo(const char *name, int fd, pid_t host, const char *hname) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(path, "r");
    if (!f) { printf("%s unreadable\n", name); return; }
    while (fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "Pid:", 4) && strncmp(buf, "NSpid:", 6)) continue;
        buf[strcspn(buf, "\n")] = 0;
        printf("%s ", name);
        char *save, *tok = strtok_r(buf, "\t", &save);
        printf("%s", tok);
        while ((tok = strtok_r(NULL, "\t", &save))) {
            long v = atol(tok);
            if (v == host) printf(" %s", hname);
            else printf(" %ld", v);
        }
        printf("\n");
    }
    fclose(f);
    fflush(stdout);
}

static void pollfd(const char *name, int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, 0);
    printf("%s %d 0x%x\n", name, r, p.revents);
    fflush(stdout);
}

static void *thread_exit_later(void *arg) {
    (void)arg;
    usleep(300000);
    exit(0);
}

static int thread_fn(void *arg) {
    (void)arg;
    syscall(SYS_exit, 0);
    return 0;
}

/* clone3 for a thread that exits at once, without touching its stack. */
static long clone3_exiting_thread(struct clone_args *a) {
    long ret;
    register long rdi asm("rdi") = (long)a;
    register long rsi asm("rsi") = sizeof *a;
    asm volatile("syscall\n\t"
                 "test %%rax, %%rax\n\t"
                 "jnz 1f\n\t"
                 "mov $60, %%eax\n\t"
                 "xor %%edi, %%edi\n\t"
                 "syscall\n\t"
                 "1:"
                 : "=a"(ret)
                 : "0"((long)SYS_clone3), "r"(rdi), "r"(rsi)
                 : "rcx", "r11", "memory");
    if (ret < 0) {
        errno = -ret;
        return -1;
    }
    return ret;
}

static char stack[65536] __attribute__((aligned(16)));

int main(void) {
    signal(SIGUSR1, SIG_IGN);
    /* pidfd_open's rules. */
    out("open_bad_flags", pidfd_open(getpid(), 1));
    out("open_pid_0", pidfd_open(0, 0));
    out("open_pid_neg", pidfd_open(-1, 0));
    pid_t gone = fork();
    if (gone == 0) _exit(0);
    waitpid(gone, NULL, 0);
    out("open_reaped", pidfd_open(gone, 0));
    out("open_self", pidfd_open(getpid(), 0));
    out("open_self_thread_flag", pidfd_open(getpid(), PIDFD_THREAD));
    out("open_self_nonblock", pidfd_open(getpid(), PIDFD_NONBLOCK));

    /* A thread that is not the leader. */
    {
        int ready[2];
        if (pipe(ready)) return 1;
        pid_t c = fork();
        if (c == 0) {
            pthread_t th;
            pthread_create(&th, NULL, thread_exit_later, NULL);
            for (;;) pause();
        }
        usleep(100000);
        /* Find the thread's tid from /proc/c/task. */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", c);
        pid_t tid = 0;
        FILE *ls = popen("true", "r");
        pclose(ls);
        for (pid_t t = c + 1; t < c + 50; t++) {
            char p2[96];
            snprintf(p2, sizeof p2, "%s/%d", path, t);
            if (access(p2, F_OK) == 0) { tid = t; break; }
        }
        out("open_thread_no_flag", pidfd_open(tid, 0));
        int tfd = pidfd_open(tid, PIDFD_THREAD);
        out("open_thread_with_flag", tfd);
        out("send_thread_fd_scope_group", send_sig(tfd, 0, NULL, PIDFD_SIGNAL_THREAD_GROUP));
        out("send_thread_fd_default", send_sig(tfd, 0, NULL, 0));
        out("send_thread_fd_scope_thread", send_sig(tfd, 0, NULL, PIDFD_SIGNAL_THREAD));
        kill(c, SIGKILL);
        waitpid(c, NULL, 0);
        close(tfd);
    }

    /* CLONE_PIDFD in clone(2). */
    {
        int pfd = -1;
        long r = syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &pfd, NULL, 0);
        if (r == 0) _exit(0);
        out("clone_pidfd_parent_settid", r);
        if (r > 0) waitpid(r, NULL, 0);
        r = syscall(SYS_clone, CLONE_PIDFD | CLONE_DETACHED | SIGCHLD, 0, &pfd, NULL, 0);
        if (r == 0) _exit(0);
        out("clone_pidfd_detached", r);
        if (r > 0) waitpid(r, NULL, 0);
        pfd = -1;
        r = clone(thread_fn, stack + sizeof stack,
                  CLONE_PIDFD | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, NULL, &pfd);
        out("clone_pidfd_thread", r);
        if (r > 0) {
            printf("clone_pidfd_thread_fd_is_thread %d\n", (fcntl(pfd, F_GETFL) & PIDFD_THREAD) != 0);
            usleep(100000);
            pollfd("poll_exited_thread", pfd);
            close(pfd);
        }
        pfd = -1;
        r = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pfd, NULL, 0);
        if (r == 0) _exit(3);
        out("clone_pidfd", r);
        printf("clone_pidfd_flags_thread %d nonblock %d\n", (fcntl(pfd, F_GETFL) & PIDFD_THREAD) != 0,
               (fcntl(pfd, F_GETFL) & O_NONBLOCK) != 0);
        siginfo_t si = {0};
        out("waitid_clone_pidfd", syscall(SYS_waitid, P_PIDFD, pfd, &si, WEXITED, NULL));
        printf("waitid_clone_pidfd_info pid_is_child %d code %d status %d\n", si.si_pid == r,
               si.si_code, si.si_status);
        close(pfd);
    }

    /* clone3 with CLONE_PIDFD. */
    {
        int pfd = -1;
        struct clone_args a = {0};
        a.flags = CLONE_PIDFD;
        a.pidfd = (uintptr_t)&pfd;
        a.exit_signal = SIGCHLD;
        long r = syscall(SYS_clone3, &a, sizeof a);
        if (r == 0) _exit(0);
        out("clone3_pidfd", r);
        waitpid(r, NULL, 0);
        close(pfd);
        memset(&a, 0, sizeof a);
        a.flags = CLONE_PIDFD | CLONE_PARENT_SETTID;
        a.pidfd = (uintptr_t)&pfd;
        pid_t ptid;
        a.parent_tid = (uintptr_t)&ptid;
        a.exit_signal = SIGCHLD;
        r = syscall(SYS_clone3, &a, sizeof a);
        if (r == 0) _exit(0);
        out("clone3_pidfd_parent_settid", r);
        if (r > 0) { waitpid(r, NULL, 0); close(pfd); }
        memset(&a, 0, sizeof a);
        a.flags = CLONE_PIDFD | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM;
        a.pidfd = (uintptr_t)&pfd;
        a.stack = (uintptr_t)stack;
        a.stack_size = sizeof stack;
        r = clone3_exiting_thread(&a);
        out("clone3_pidfd_thread", r);
        if (r > 0) { usleep(100000); close(pfd); }
    }

    /* pidfd_send_signal's rules. */
    {
        pid_t c = sleeper();
        int fd = pidfd_open(c, 0);
        out("send_bad_flags", send_sig(fd, 0, NULL, 8));
        out("send_two_scopes", send_sig(fd, 0, NULL, PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP));
        out("send_bad_fd", send_sig(-1, 0, NULL, 0));
        int pp[2];
        if (pipe(pp)) return 1;
        out("send_not_pidfd", send_sig(pp[0], 0, NULL, 0));
        out("send_sig0", send_sig(fd, 0, NULL, 0));
        out("send_sig65", send_sig(fd, 65, NULL, 0));
        out("send_sig_neg", send_sig(fd, -1, NULL, 0));
        siginfo_t si;
        memset(&si, 0, sizeof si);
        si.si_signo = SIGUSR2;
        si.si_code = SI_QUEUE;
        out("send_info_signo_mismatch", send_sig(fd, SIGUSR1, &si, 0));
        si.si_signo = SIGUSR1;
        si.si_code = SI_USER;
        out("send_info_si_user_other", send_sig(fd, SIGUSR1, &si, 0));
        si.si_code = SI_TKILL;
        out("send_info_si_tkill_other", send_sig(fd, SIGUSR1, &si, 0));
        si.si_code = SI_QUEUE;
        out("send_info_si_queue_other", send_sig(fd, SIGUSR1, &si, 0));
        out("send_info_si_queue_other_thread_scope", send_sig(fd, SIGUSR1, &si, PIDFD_SIGNAL_THREAD));
        int self = pidfd_open(getpid(), 0);
        si.si_code = SI_USER;
        out("send_info_si_user_self", send_sig(self, SIGUSR1, &si, 0));
        out("send_info_si_user_self_thread_scope", send_sig(self, SIGUSR1, &si, PIDFD_SIGNAL_THREAD));
        out("send_info_si_user_self_pgrp_scope", send_sig(self, SIGUSR1, &si, PIDFD_SIGNAL_PROCESS_GROUP));
        close(self);
        out("send_scope_thread", send_sig(fd, 0, NULL, PIDFD_SIGNAL_THREAD));
        out("send_scope_group", send_sig(fd, 0, NULL, PIDFD_SIGNAL_THREAD_GROUP));
        out("send_scope_pgrp_not_leader", send_sig(fd, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP));
        pid_t l = fork();
        if (l == 0) {
            setpgid(0, 0);
            signal(SIGUSR1, SIG_IGN);
            for (;;) pause();
        }
        setpgid(l, l);
        usleep(50000);
        int lfd = pidfd_open(l, 0);
        out("send_scope_pgrp_leader", send_sig(lfd, SIGUSR1, NULL, PIDFD_SIGNAL_PROCESS_GROUP));
        kill(l, SIGKILL);
        usleep(50000);
        out("send_zombie_sig0", send_sig(lfd, 0, NULL, 0));
        out("send_zombie_scope_thread", send_sig(lfd, 0, NULL, PIDFD_SIGNAL_THREAD));
        out("send_zombie_scope_pgrp", send_sig(lfd, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP));
        pollfd("poll_zombie", lfd);
        fdinfo("fdinfo_zombie", lfd, l, "CHILD");
        waitpid(l, NULL, 0);
        out("send_reaped_sig0", send_sig(lfd, 0, NULL, 0));
        out("send_reaped_sig65", send_sig(lfd, 65, NULL, 0));
        pollfd("poll_reaped", lfd);
        fdinfo("fdinfo_reaped", lfd, l, "CHILD");
        close(lfd);

        pollfd("poll_running", fd);
        fdinfo("fdinfo_running", fd, c, "CHILD");
        /* waitid(P_PIDFD). */
        siginfo_t wi;
        memset(&wi, 0, sizeof wi);
        out("waitid_neg_id", syscall(SYS_waitid, P_PIDFD, -1, &wi, WEXITED, NULL));
        out("waitid_bad_fd", syscall(SYS_waitid, P_PIDFD, 1000, &wi, WEXITED, NULL));
        out("waitid_not_pidfd", syscall(SYS_waitid, P_PIDFD, pp[0], &wi, WEXITED, NULL));
        wi.si_pid = 77;
        out("waitid_running_wnohang", syscall(SYS_waitid, P_PIDFD, fd, &wi, WEXITED | WNOHANG, NULL));
        printf("waitid_running_wnohang_si_pid %d\n", wi.si_pid);
        int nb = pidfd_open(c, PIDFD_NONBLOCK);
        out("waitid_running_nonblock", syscall(SYS_waitid, P_PIDFD, nb, &wi, WEXITED, NULL));
        out("waitid_running_nonblock_wnohang", syscall(SYS_waitid, P_PIDFD, nb, &wi, WEXITED | WNOHANG, NULL));
        int selfnb = pidfd_open(getpid(), PIDFD_NONBLOCK);
        out("waitid_self", syscall(SYS_waitid, P_PIDFD, selfnb, &wi, WEXITED, NULL));
        close(selfnb);
        kill(c, SIGTERM);
        usleep(50000);
        memset(&wi, 0, sizeof wi);
        out("waitid_nonblock_zombie", syscall(SYS_waitid, P_PIDFD, nb, &wi, WEXITED, NULL));
        printf("waitid_nonblock_zombie_info child %d code %d status %d\n", wi.si_pid == c, wi.si_code,
               wi.si_status);
        out("waitid_after_reap", syscall(SYS_waitid, P_PIDFD, fd, &wi, WEXITED, NULL));
        close(fd);
        close(nb);
    }

    /* Readiness of a leader that exited while another thread lives. */
    {
        pid_t c = fork();
        if (c == 0) {
            pthread_t th;
            pthread_create(&th, NULL, thread_exit_later, NULL);
            syscall(SYS_exit, 0);
        }
        usleep(100000);
        int fd = pidfd_open(c, 0);
        out("open_exited_leader_live_thread", fd);
        if (fd >= 0) {
            pollfd("poll_exited_leader_live_thread", fd);
            int tfd = pidfd_open(c, PIDFD_THREAD);
            if (tfd >= 0) { pollfd("poll_exited_leader_thread_fd", tfd); close(tfd); }
        }
        waitpid(c, NULL, 0);
        if (fd >= 0) close(fd);
    }

    /* Permission: a child dropped to uid 1000 signals its root parent. */
    {
        pid_t parent = getpid();
        pid_t c = fork();
        if (c == 0) {
            int fd = pidfd_open(parent, 0);
            if (setresgid(100, 100, 100) || setresuid(1000, 1000, 1000)) _exit(9);
            out("send_unprivileged_to_root", send_sig(fd, 0, NULL, 0));
            out("send_unprivileged_to_root_sigcont_other_session", (setsid(), send_sig(fd, SIGCONT, NULL, 0)));
            _exit(0);
        }
        waitpid(c, NULL, 0);
    }

    /* Namespaces: fdinfo from outside and inside, and a pidfd of an
     * ancestor namespace's process used from inside. */
    {
        int outer = pidfd_open(getpid(), 0);
        int sync[2];
        if (pipe(sync)) return 1;
        pid_t c = fork();
        if (c == 0) {
            if (unshare(CLONE_NEWPID)) _exit(8);
            pid_t in = fork();
            if (in == 0) {
                out("ns_send_to_outer", send_sig(outer, 0, NULL, 0));
                /* fdinfo numbers are in the namespace of the procfs read:
                 * mount one of this namespace. */
                if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
                    mount("proc", "/proc", "proc", 0, NULL))
                    _exit(6);
                int selffd = pidfd_open(getpid(), 0);
                fdinfo("ns_fdinfo_self_inside", selffd, -12345, "");
                fdinfo("ns_fdinfo_outer_inside", outer, -12345, "");
                pid_t g = sleeper();
                int gfd = pidfd_open(g, 0);
                fdinfo("ns_fdinfo_child_inside", gfd, g, "NSCHILD");
                char b = 0;
                kill(g, SIGKILL);
                waitpid(g, NULL, 0);
                if (write(sync[1], &b, 1) != 1) _exit(7);
                _exit(0);
            }
            int fd = pidfd_open(in, 0);
            fdinfo("ns_fdinfo_from_parent", fd, in, "HOSTPID");
            waitpid(in, NULL, 0);
            _exit(0);
        }
        waitpid(c, NULL, 0);
        close(outer);
    }
    return 0;
}
