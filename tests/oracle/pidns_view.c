/* Records what the tasks of a nested pid namespace see of process
 * numbers: their own (getpid, gettid, getppid, getpgrp, getsid), their
 * children's (fork, wait4, waitid, the SIGCHLD siginfo), the senders of
 * the signals they take (si_pid in the receiver's namespace: 0 for a
 * sender outside), kill, setpgid and getpgid by nested numbers, kill(-1)
 * inside, an orphan reparented to the namespace's init, a pthread's tid
 * (pthread_kill), a second level, the end of the namespace when its init
 * exits (zap_pid_ns_processes()), and setns(CLONE_NEWPID) there and
 * back. Each namespace is fresh, so its numbers (1, 2, 3...) are
 * deterministic; numbers of the outer namespace are printed only as
 * comparisons. Prints "KEY VALUE..." lines.
 * Must run as root (unshare(CLONE_NEWPID)). Re-record with
 * tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static const char *en(int e) {
    switch (e) {
    case ENOMEM: return "ENOMEM";
    case ESRCH: return "ESRCH";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case ECHILD: return "ECHILD";
    default: return "OTHER";
    }
}

static pid_t tid(void) { return (pid_t)syscall(SYS_gettid); }

/* Takes signal sig (blocked) and returns its siginfo. */
static siginfo_t take(int sig) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (sigwaitinfo(&s, &si) < 0 && errno == EINTR) {
    }
    return si;
}

/* Drops a pending SIGCHLD, if any (children's deaths coalesce). */
static void drain_sigchld(void) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGCHLD);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&s, NULL, &zero) > 0) {
    }
}

static void show_status(const char *key, pid_t w, int st) {
    if (w < 0) say("%s %s", key, en(errno));
    else if (WIFEXITED(st)) say("%s pid %d exit %d", key, w, WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) say("%s pid %d killed %d", key, w, WTERMSIG(st));
    else say("%s pid %d status %#x", key, w, st);
}

static int thread_ready[2];

static void *thread_body(void *a) {
    (void)a;
    say("thread gettid %d getpid %d", tid(), getpid());
    if (write(thread_ready[1], "t", 1) != 1) _exit(92);
    siginfo_t si = take(SIGUSR1);
    say("thread sigusr1 si_pid %d si_code %d", si.si_pid, si.si_code);
    return NULL;
}

/* The namespace's init (pid 1): SIGCHLD, SIGUSR1 and SIGUSR2 blocked. */
static void init_body(int ready_w, int go_r, int hold_w) {
    say("init getpid %d gettid %d getppid %d getpgrp %d getsid %d", getpid(), tid(), getppid(),
        getpgrp(), getsid(0));
    /* A signal from outside the namespace: its sender has no number here. */
    if (write(ready_w, "r", 1) != 1) _exit(90);
    siginfo_t si = take(SIGUSR1);
    say("init outside_sender si_pid %d si_code %d", si.si_pid, si.si_code);

    /* A child: its number, its parent's, and its death as the init sees it. */
    pid_t c = fork();
    if (c == 0) {
        say("child getpid %d getppid %d getpgrp %d", getpid(), getppid(), getpgrp());
        _exit(5);
    }
    si = take(SIGCHLD);
    say("init fork %d", c);
    say("init sigchld si_pid %d si_code %d si_status %d", si.si_pid, si.si_code, si.si_status);
    int st;
    pid_t w = wait4(-1, &st, 0, NULL);
    show_status("init wait4", w, st);
    w = wait4(c, &st, WNOHANG, NULL);
    show_status("init wait4_again", w, st);

    c = fork();
    if (c == 0) _exit(6);
    siginfo_t wi;
    memset(&wi, 0, sizeof wi);
    int r = waitid(P_PID, c, &wi, WEXITED);
    say("init waitid %d fork %d si_pid %d si_status %d", r, c, wi.si_pid, wi.si_status);
    drain_sigchld();

    /* Signals both ways by nested numbers: each siginfo names its sender. */
    int p[2];
    if (pipe(p)) _exit(91);
    c = fork();
    if (c == 0) {
        close(p[0]);
        if (write(p[1], "r", 1) != 1) _exit(1);
        siginfo_t s2 = take(SIGUSR1);
        int k = kill(1, SIGUSR2);
        say("child sigusr1 si_pid %d kill_init %d", s2.si_pid, k);
        _exit(0);
    }
    close(p[1]);
    char x;
    if (read(p[0], &x, 1) != 1) _exit(92);
    close(p[0]);
    r = kill(c, SIGUSR1);
    si = take(SIGUSR2);
    w = waitpid(c, &st, 0);
    say("init kill_child %d sigusr2 si_pid %d is_child %d", r, si.si_pid, si.si_pid == c);
    show_status("init waitpid", w, st);
    drain_sigchld();
    say("init kill_unknown %s", kill(999, 0) < 0 ? en(errno) : "ok");
    say("init getpgid_unknown %s", getpgid(999) < 0 ? en(errno) : "ok");

    /* An orphan goes to the namespace's init. */
    if (pipe(p)) _exit(95);
    c = fork();
    if (c == 0) {
        pid_t g = fork();
        if (g == 0) {
            pid_t was = getppid();
            /* Its parent's death signal (SIGUSR2, blocked) comes once
             * forget_original_parent() has given it its new parent. */
            prctl(PR_SET_PDEATHSIG, SIGUSR2);
            if (write(p[1], "r", 1) != 1) _exit(1);
            if (getppid() == was) take(SIGUSR2);
            say("orphan getpid %d parent_was %d getppid %d", getpid(), was, getppid());
            _exit(7);
        }
        if (read(p[0], &x, 1) != 1) _exit(1);
        say("middle fork %d", g);
        _exit(0);
    }
    close(p[0]);
    close(p[1]);
    w = waitpid(c, &st, 0);
    int st2;
    pid_t w2 = waitpid(-1, &st2, 0);
    show_status("init waitpid_middle", w, st);
    show_status("init waitpid_orphan", w2, st2);
    drain_sigchld();

    /* Process groups by nested numbers. */
    pid_t a = fork();
    if (a == 0) {
        for (;;) pause();
    }
    pid_t b = fork();
    if (b == 0) {
        for (;;) pause();
    }
    say("init setpgid_a %d", setpgid(a, a));
    say("init setpgid_b %d", setpgid(b, a));
    say("init getpgid_b %d is_a %d getsid_b %d", getpgid(b), getpgid(b) == a, getsid(b));
    say("init kill_group %d", kill(-a, SIGTERM));
    w = waitpid(a, &st, 0);
    show_status("init waitpid_a", w, st);
    w = waitpid(b, &st, 0);
    show_status("init waitpid_b", w, st);
    drain_sigchld();

    /* kill(-1) inside reaches every process of the namespace but its init. */
    a = fork();
    if (a == 0) {
        for (;;) pause();
    }
    b = fork();
    if (b == 0) {
        for (;;) pause();
    }
    say("init kill_all %d", kill(-1, SIGKILL));
    w = waitpid(a, &st, 0);
    show_status("init waitpid_all_a", w, st);
    w = waitpid(b, &st, 0);
    show_status("init waitpid_all_b", w, st);
    drain_sigchld();

    /* A thread: its tid (glibc's, from CLONE_PARENT_SETTID) names it. */
    pthread_t th;
    if (pipe(thread_ready) || pthread_create(&th, NULL, thread_body, NULL)) _exit(93);
    if (read(thread_ready[0], &x, 1) != 1) _exit(93);
    r = pthread_kill(th, SIGUSR1);
    pthread_join(th, NULL);
    say("init pthread_kill %d", r);

    /* A second level, below this one. */
    c = fork();
    if (c == 0) {
        if (unshare(CLONE_NEWPID)) _exit(94);
        pid_t i2 = fork();
        if (i2 == 0) {
            say("level2 getpid %d getppid %d getpgrp %d", getpid(), getppid(), getpgrp());
            _exit(3);
        }
        w = waitpid(i2, &st, 0);
        show_status("level1 waitpid_level2", w, st);
        say("level1 fork_after_level2_init_exit %s", fork() < 0 ? en(errno) : "ok");
        _exit(0);
    }
    w = waitpid(c, &st, 0);
    show_status("init waitpid_level1", w, st);
    drain_sigchld();

    /* Processes still there when the init exits are killed. */
    int started[2];
    if (pipe(started)) _exit(91);
    c = fork();
    if (c == 0) {
        char y;
        /* Holds hold_w open; waits for nothing that will come. */
        if (write(started[1], "s", 1) != 1) _exit(1);
        if (read(go_r, &y, 1) < 0) _exit(1);
        _exit(8);
    }
    close(hold_w);
    if (read(started[0], &x, 1) != 1) _exit(91);
    say("init exits");
    _exit(4);
}

int main(void) {
    /* unshare(CLONE_NEWPID): the caller stays, its next child is pid 1. */
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGCHLD);
        sigaddset(&s, SIGUSR1);
        sigaddset(&s, SIGUSR2);
        sigprocmask(SIG_BLOCK, &s, NULL);
        pid_t before = getpid();
        say("unshare %d", unshare(CLONE_NEWPID));
        say("caller_pid_unchanged %d getppid_unchanged %d", getpid() == before, getppid() > 0);
        int ready[2], go[2], hold[2];
        if (pipe(ready) || pipe(go) || pipe(hold)) _exit(80);
        pid_t i = fork();
        if (i == 0) {
            close(ready[0]);
            close(go[1]);
            close(hold[0]);
            init_body(ready[1], go[0], hold[1]);
        }
        close(ready[1]);
        close(go[0]);
        close(hold[1]);
        char x;
        if (read(ready[0], &x, 1) != 1) _exit(81);
        int killed = kill(i, SIGUSR1);
        /* EOF once every process of the namespace is gone. */
        say("parent namespace_gone %d kill_init %d", (int)read(hold[0], &x, 1), killed);
        siginfo_t si = take(SIGCHLD);
        say("parent sigchld is_init %d si_status %d", si.si_pid == i, si.si_status);
        int st;
        pid_t w = waitpid(i, &st, 0);
        say("parent waitpid_is_init %d exit %d", w == i, WEXITSTATUS(st));
        pid_t f = fork();
        if (f == 0) _exit(0);
        say("parent fork_after_init_exit %s", f < 0 ? en(errno) : "ok");
        close(go[1]);
        _exit(0);
    }
    waitpid(p, NULL, 0);

    /* clone(CLONE_NEWPID): the child is pid 1 of a new namespace. */
    fflush(stdout);
    pid_t d = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);
    if (d == 0) {
        say("clone_child getpid %d getppid %d getpgid0 %d", getpid(), getppid(), getpgid(0));
        _exit(9);
    }
    int st;
    pid_t w = waitpid(-1, &st, 0);
    say("clone_parent waitpid_is_child %d exit %d", w == d, WEXITSTATUS(st));

    /* setns(CLONE_NEWPID) into a child namespace (by a pidfd of its init)
     * and back (by this process's own namespace file): the caller stays,
     * its next child is numbered there. */
    int go[2];
    if (pipe(go)) return 1;
    fflush(stdout);
    d = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);
    if (d == 0) {
        char x;
        close(go[1]);
        if (read(go[0], &x, 1) < 0) _exit(1);
        _exit(0);
    }
    close(go[0]);
    int rootfd = open("/proc/self/ns/pid", O_RDONLY);
    int dfd = (int)syscall(SYS_pidfd_open, d, 0);
    pid_t e = fork();
    if (e == 0) {
        pid_t before = getpid();
        say("setns_pidfd %d", setns(dfd, CLONE_NEWPID));
        say("setns_caller_pid_unchanged %d", getpid() == before);
        say("unshare_after_setns %s", unshare(CLONE_NEWPID) < 0 ? en(errno) : "ok");
        pid_t g = fork();
        if (g == 0) {
            say("setns_child getpid %d getppid %d", getpid(), getppid());
            _exit(2);
        }
        w = waitpid(g, &st, 0);
        say("setns_parent waitpid_is_child %d exit %d", w == g, WEXITSTATUS(st));
        say("setns_back %d", setns(rootfd, CLONE_NEWPID));
        g = fork();
        if (g == 0) _exit(3);
        w = waitpid(g, &st, 0);
        say("setns_back_child waitpid_is_child %d exit %d", w == g, WEXITSTATUS(st));
        _exit(0);
    }
    waitpid(e, NULL, 0);
    close(go[1]);
    w = waitpid(d, &st, 0);
    say("setns_ns_init waitpid_is_child %d exit %d", w == d, WEXITSTATUS(st));
    return 0;
}
