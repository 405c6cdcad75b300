/* Process-lifecycle corner cases for strace recording (held-out replay tests).
 * Build: gcc -O1 -pthread -o procmix procmix.c */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void step(const char *name) { fprintf(stderr, "== %s\n", name); }

static void reap_all(void) {
    int st;
    while (waitpid(-1, &st, __WALL) > 0) {}
}

/* 1. vfork: child exits, child execs. */
static void t_vfork(void) {
    step("vfork");
    pid_t p = vfork();
    if (p == 0) _exit(11);
    waitpid(p, NULL, 0);
    p = vfork();
    if (p == 0) {
        char *av[] = {"true", NULL};
        execve("/bin/true", av, environ);
        _exit(127);
    }
    waitpid(p, NULL, 0);
    p = vfork();
    if (p == 0) {
        char *av[] = {"nonexistent", NULL};
        execve("/nonexistent/prog", av, environ); /* ENOENT */
        _exit(127);
    }
    waitpid(p, NULL, 0);
}

/* 2. posix_spawn / posix_spawnp. */
static void t_spawn(void) {
    step("posix_spawn");
    pid_t p;
    char *av1[] = {"true", NULL};
    posix_spawn(&p, "/bin/true", NULL, NULL, av1, environ);
    waitpid(p, NULL, 0);
    char *av2[] = {"sh", "-c", "exit 2", NULL};
    posix_spawnp(&p, "sh", NULL, NULL, av2, environ);
    waitpid(p, NULL, 0);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSID);
    posix_spawnattr_setpgroup(&at, 0);
    char *av3[] = {"sh", "-c", "kill -TERM $$", NULL};
    posix_spawnp(&p, "sh", NULL, &at, av3, environ);
    waitpid(p, NULL, 0);
    posix_spawnattr_destroy(&at);
}

/* 3. threads that fork; waits from sibling threads; __WNOTHREAD. */
static pid_t forked[4];
static void *fork_thread(void *arg) {
    long i = (long)arg;
    pid_t p = fork();
    if (p == 0) { usleep(1000 * (int)i); _exit(20 + (int)i); }
    forked[i] = p;
    return NULL;
}
static void *wait_other(void *arg) {
    (void)arg;
    int st;
    /* child forked by another thread: visible to __WNOTHREAD? no -> ECHILD */
    waitpid(forked[0], &st, __WNOTHREAD);
    /* without __WNOTHREAD the sibling's child is ours too */
    waitpid(forked[0], &st, 0);
    return NULL;
}
static void t_thread_fork(void) {
    step("threads fork");
    pthread_t th[4];
    for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, fork_thread, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    pthread_t w;
    pthread_create(&w, NULL, wait_other, NULL);
    pthread_join(w, NULL);
    int st;
    for (int i = 1; i < 4; i++) waitpid(forked[i], &st, 0);
}

/* 4. waitid flavours: WNOWAIT, stop/continue, P_PGID, P_PIDFD. */
static void t_waitid(void) {
    step("waitid");
    siginfo_t si;
    pid_t p = fork();
    if (p == 0) { pause(); _exit(0); }
    kill(p, SIGSTOP);
    memset(&si, 0, sizeof si);
    waitid(P_PID, p, &si, WSTOPPED | WNOWAIT);
    waitid(P_PID, p, &si, WSTOPPED);
    kill(p, SIGCONT);
    waitid(P_PID, p, &si, WCONTINUED);
    waitpid(p, NULL, WNOHANG);
    kill(p, SIGKILL);
    waitid(P_ALL, 0, &si, WEXITED | WNOWAIT);
    waitid(P_ALL, 0, &si, WEXITED | WNOWAIT);
    waitid(P_PID, p, &si, WEXITED);
    waitid(P_PID, p, &si, WEXITED | WNOHANG); /* ECHILD */

    p = fork();
    if (p == 0) { setpgid(0, 0); usleep(2000); _exit(9); }
    setpgid(p, p);
    waitid(P_PGID, p, &si, WEXITED | WNOHANG);
    waitid(P_PGID, p, &si, WEXITED);

    p = fork();
    if (p == 0) { usleep(1000); _exit(33); }
    int fd = (int)syscall(SYS_pidfd_open, p, 0);
    if (fd >= 0) {
        waitid(P_PIDFD, fd, &si, WEXITED);
        close(fd);
    } else {
        waitpid(p, NULL, 0);
    }
    /* wait4 for a stopped child with WUNTRACED, then WCONTINUED */
    p = fork();
    if (p == 0) { raise(SIGSTOP); _exit(4); }
    int st;
    waitpid(p, &st, WUNTRACED);
    ptrace(PTRACE_DETACH, p, NULL, (void *)(long)SIGCONT); /* ESRCH unless we trace it */
    kill(p, SIGCONT);
    waitpid(p, &st, WCONTINUED);
    waitpid(p, &st, 0);
}

/* 5. SIGCHLD ignored -> autoreap; SA_NOCLDWAIT with a handler. */
static void on_chld(int s, siginfo_t *si, void *u) { (void)s; (void)si; (void)u; }
static void t_autoreap(void) {
    step("autoreap");
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGCHLD, &sa, &old);
    pid_t p = fork();
    if (p == 0) _exit(1);
    int st;
    waitpid(-1, &st, 0); /* blocks until the child is gone, then ECHILD */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_chld;
    sa.sa_flags = SA_SIGINFO | SA_NOCLDWAIT | SA_RESTART;
    sigaction(SIGCHLD, &sa, NULL);
    p = fork();
    if (p == 0) _exit(2);
    waitpid(p, &st, 0); /* ECHILD after autoreap */
    sa.sa_flags = SA_NOCLDSTOP | SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_ONSTACK;
    sigaction(SIGCHLD, &sa, NULL);
    sigaction(SIGCHLD, &old, NULL);
    sigaction(SIGRTMIN + 3, &sa, NULL);
    sigaction(SIGKILL, &sa, NULL); /* EINVAL */
}

/* 6. child subreaper with orphans; pdeathsig. */
static void t_subreaper(void) {
    step("subreaper");
    pid_t mid = fork();
    if (mid == 0) {
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        int v = -1;
        prctl(PR_GET_CHILD_SUBREAPER, &v);
        pid_t a = fork();
        if (a == 0) {
            /* grandchildren become orphans when a exits */
            for (int i = 0; i < 3; i++) {
                if (fork() == 0) { usleep(3000 * (i + 1)); _exit(40 + i); }
            }
            pid_t parent = getpid();
            if (fork() == 0) {
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (getppid() != parent) _exit(0); /* parent already gone */
                pause();
                _exit(0);
            }
            usleep(1000);
            _exit(0);
        }
        int st;
        while (waitpid(-1, &st, 0) > 0) {}
        _exit(0);
    }
    waitpid(mid, NULL, 0);
}

/* 7. a non-leader thread calls execve. */
static void *exec_thread(void *arg) {
    (void)arg;
    char *av[] = {"true", "from-thread", NULL};
    execve("/bin/true", av, environ);
    return NULL;
}
static void *sleeper(void *arg) { (void)arg; pause(); return NULL; }
static void t_thread_exec(void) {
    step("thread execve");
    pid_t p = fork();
    if (p == 0) {
        pthread_t a, b;
        pthread_create(&b, NULL, sleeper, NULL);
        usleep(1000);
        pthread_create(&a, NULL, exec_thread, NULL);
        pause();
        _exit(1);
    }
    waitpid(p, NULL, 0);
}

/* 8. exit vs exit_group from threads; the leader exits first. */
static void *late_group_exit(void *arg) {
    (void)arg;
    usleep(3000);
    syscall(SYS_exit_group, 17);
    return NULL;
}
static void *thread_exit_only(void *arg) {
    (void)arg;
    syscall(SYS_exit, 3); /* only this thread */
    return NULL;
}
static void t_thread_exit(void) {
    step("thread exit");
    pid_t p = fork();
    if (p == 0) {
        pthread_t a, b;
        pthread_create(&a, NULL, thread_exit_only, NULL);
        pthread_create(&b, NULL, late_group_exit, NULL);
        usleep(500);
        syscall(SYS_exit, 0); /* leader becomes a zombie, group lives on */
    }
    int st;
    waitpid(p, &st, 0);
    /* a thread killed group-wide by a signal while others block */
    p = fork();
    if (p == 0) {
        pthread_t b;
        pthread_create(&b, NULL, sleeper, NULL);
        pause();
        _exit(0);
    }
    usleep(2000);
    kill(p, SIGKILL);
    waitpid(p, &st, 0);
}

/* 9. process groups, sessions, signals to threads and groups. */
static volatile sig_atomic_t got;
static void on_usr(int s) { got = s; }
static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }
static void *tkill_target(void *arg) {
    pid_t *out = arg;
    *out = gettid_();
    while (!got) usleep(100);
    return NULL;
}
static void t_groups(void) {
    step("groups");
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphans below come back to us */
    signal(SIGUSR1, on_usr);
    signal(SIGUSR2, on_usr);
    pid_t tid = 0;
    pthread_t th;
    pthread_create(&th, NULL, tkill_target, &tid);
    while (!tid) usleep(100);
    syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
    pthread_join(th, NULL);
    got = 0;
    syscall(SYS_tkill, gettid_(), SIGUSR2);
    syscall(SYS_tgkill, getpid(), 999999, 0); /* ESRCH */
    kill(getpid(), 0);
    getpgrp();
    getppid();
    getpgid(0);
    getsid(0);
    setsid(); /* EPERM if group leader */
    pid_t p = fork();
    if (p == 0) {
        setsid();
        getsid(0);
        setpgid(0, 0); /* EPERM: session leader */
        pid_t other = fork();
        if (other == 0) { setpgid(0, 0); pause(); _exit(0); }
        if (fork() == 0) { pause(); _exit(0); }
        usleep(2000);
        kill(other, SIGKILL);
        kill(0, SIGTERM); /* own group (includes ourselves: ignore first) */
        _exit(0);
    }
    setpgid(p, 0); /* may race with setsid */
    waitpid(p, NULL, 0);
    reap_all();
    p = fork();
    if (p == 0) { setpgid(0, 0); if (fork() == 0) pause(); pause(); _exit(0); }
    setpgid(p, p);
    usleep(2000);
    kill(-p, SIGKILL); /* whole group; the grandchild is an orphan */
    waitpid(p, NULL, 0);
    kill(-p, 0);
    signal(SIGUSR1, SIG_DFL);
    signal(SIGUSR2, SIG_DFL);
}

/* 10. raw clone flavours: CLONE_PARENT, odd exit signal, ptrace refusals. */
static char stack1[65536] __attribute__((aligned(16)));
static int clone_child(void *arg) { (void)arg; return 5; }
static void t_clone(void) {
    step("clone");
    signal(SIGUSR1, on_usr); /* the exit signal of the odd clone child */
    pid_t p = clone(clone_child, stack1 + sizeof stack1, SIGUSR1, NULL);
    int st;
    waitpid(p, &st, 0);          /* not a SIGCHLD child: ECHILD */
    waitpid(p, &st, __WCLONE);   /* reaped with __WCLONE */
    p = fork();
    if (p == 0) {
        pid_t s = clone(clone_child, stack1 + sizeof stack1, CLONE_PARENT | SIGCHLD, NULL);
        (void)s;
        _exit(6);
    }
    waitpid(p, &st, 0);
    reap_all(); /* the CLONE_PARENT sibling is our child */
    p = fork();
    if (p == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0) /* EPERM under strace */
            _exit(0);
        raise(SIGSTOP);
        _exit(0);
    }
    ptrace(PTRACE_ATTACH, p, NULL, NULL);
    ptrace(PTRACE_SEIZE, p, NULL, (void *)(long)PTRACE_O_TRACEFORK);
    waitpid(p, &st, WUNTRACED);
    ptrace(PTRACE_DETACH, p, NULL, (void *)(long)SIGCONT); /* ESRCH unless we trace it */
    kill(p, SIGCONT);
    waitpid(p, &st, 0);
}

int main(void) {
    setvbuf(stderr, NULL, _IONBF, 0);
    prctl(PR_SET_NAME, "procmix");
    t_vfork();
    t_spawn();
    t_thread_fork();
    t_waitid();
    t_autoreap();
    t_subreaper();
    t_thread_exec();
    t_thread_exit();
    t_groups();
    t_clone();
    reap_all();
    return 0;
}
