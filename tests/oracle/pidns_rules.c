/* Records unshare(CLONE_NEWPID) and setns(CLONE_NEWPID) answers, the
 * /proc/PID/ns/pid and pid_for_children links (inode numbers printed as
 * names: ROOT for the initial namespace, NS1, NS2... in order of first
 * sight) and the NS* lines of /proc/PID/status (pids as names).
 * Must run as root in the initial pid namespace. Re-record with
 * tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *en(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    case EBADF: return "EBADF";
    case EPERM: return "EPERM";
    case ENOMEM: return "ENOMEM";
    case ENOENT: return "ENOENT";
    case ENOSPC: return "ENOSPC";
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

/* pid 0 reads /proc/self (a namespace init's own number names another
 * process in the host's /proc). The shared page of inode names, so that children name them alike. */
static unsigned long *inos;

static void link_of(const char *name, pid_t pid, const char *which) {
    char path[96], buf[128];
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/ns/%s", which);
    else
        snprintf(path, sizeof path, "/proc/%d/ns/%s", pid, which);
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n < 0) {
        printf("%s %s\n", name, en(errno));
        fflush(stdout);
        return;
    }
    buf[n] = 0;
    unsigned long ino = strtoul(strchr(buf, '[') + 1, NULL, 10);
    int i;
    for (i = 0; inos[i] && inos[i] != ino; i++)
        ;
    inos[i] = ino;
    if (i == 0)
        printf("%s %.4s[ROOT] ino_is_0xeffffffc %d\n", name, buf, ino == 0xeffffffcUL);
    else
        printf("%s %.4s[NS%d]\n", name, buf, i);
    fflush(stdout);
}

static int pidfd_open(pid_t pid, unsigned flags) { return syscall(SYS_pidfd_open, pid, flags); }

static void status_ns(const char *name, pid_t pid, pid_t *names, int n) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "NS", 2)) continue;
        buf[strcspn(buf, "\n")] = 0;
        char *save, *tok = strtok_r(buf, "\t", &save);
        printf("%s %s", name, tok);
        while ((tok = strtok_r(NULL, "\t", &save))) {
            long v = atol(tok);
            int i;
            for (i = 0; i < n && names[i] != v; i++)
                ;
            if (i < n) printf(" P%d", i);
            else printf(" %ld", v);
        }
        printf("\n");
    }
    fclose(f);
    fflush(stdout);
}

static void *spin(void *a) {
    (void)a;
    for (;;) pause();
    return NULL;
}

static char stack[65536] __attribute__((aligned(16)));
static int thread_fn(void *a) {
    (void)a;
    syscall(SYS_exit, 0);
    return 0;
}

/* Each level unshares and forks the next: reports where it stops. */
static void nest(void) {
    for (int depth = 1; depth <= 40; depth++) {
        if (unshare(CLONE_NEWPID)) {
            printf("unshare_nested_fails_at_level %d %s\n", depth, en(errno));
            fflush(stdout);
            _exit(0);
        }
        pid_t c = fork();
        if (c != 0) {
            waitpid(c, NULL, 0);
            _exit(0);
        }
    }
    _exit(1);
}

int main(void) {
    inos = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    link_of("root_pid", getpid(), "pid");
    link_of("root_pid_for_children", getpid(), "pid_for_children");
    out("unshare_clone_parent", unshare(CLONE_PARENT));
    out("unshare_csignal_bit", unshare(1));
    out("unshare_thread_single", unshare(CLONE_THREAD));

    /* unshare(CLONE_NEWPID). */
    pid_t a = fork();
    if (a == 0) {
        setpgid(0, 0);
        {
            pthread_t th;
            pthread_create(&th, NULL, spin, NULL);
            out("unshare_thread_multi", unshare(CLONE_THREAD));
            out("unshare_newpid_multi_thread", unshare(CLONE_NEWPID));
            link_of("multi_thread_pid_for_children", getpid(), "pid_for_children");
        }
        _exit(0);
    }
    waitpid(a, NULL, 0);
    a = fork();
    if (a == 0) {
        out("unshare_newpid", unshare(CLONE_NEWPID));
        link_of("after_unshare_pid", getpid(), "pid");
        link_of("after_unshare_pid_for_children", getpid(), "pid_for_children");
        out("unshare_newpid_again", unshare(CLONE_NEWPID));
        long r = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);
        if (r == 0) _exit(0);
        out("clone_newpid_after_unshare", r);
        r = clone(thread_fn, stack + sizeof stack, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, NULL);
        out("clone_thread_after_unshare", r);
        int go[2];
        if (pipe(go)) _exit(1);
        pid_t b = fork();
        if (b == 0) {
            printf("first_child_getpid %d\n", getpid());
            fflush(stdout);
            char c;
            if (read(go[0], &c, 1) != 1) _exit(1);
            for (;;) pause();
        }
        usleep(50000);
        link_of("first_child_pid", b, "pid");
        link_of("first_child_pid_for_children", b, "pid_for_children");
        link_of("after_fork_pid_for_children", getpid(), "pid_for_children");
        pid_t names[] = {b, getpid(), getpgrp(), getsid(0)};
        status_ns("first_child_status", b, names, 4);
        pid_t c = fork();
        if (c == 0) {
            printf("second_child_getpid %d\n", getpid());
            fflush(stdout);
            setpgid(0, 0);
            _exit(0);
        }
        waitpid(c, NULL, 0);
        out("unshare_newpid_after_fork", unshare(CLONE_NEWPID));
        kill(b, SIGKILL);
        usleep(50000);
        link_of("zombie_init_pid", b, "pid");
        link_of("zombie_init_pid_for_children", b, "pid_for_children");
        waitpid(b, NULL, 0);
        r = fork();
        if (r == 0) _exit(0);
        out("fork_after_ns_init_died", r);
        _exit(0);
    }
    waitpid(a, NULL, 0);

    /* setns(CLONE_NEWPID). */
    int rootfd = open("/proc/self/ns/pid", O_RDONLY);
    out("setns_current_newpid", setns(rootfd, CLONE_NEWPID));
    out("setns_current_0", setns(rootfd, 0));
    out("setns_current_wrong_type", setns(rootfd, CLONE_NEWNS));
    int pp[2];
    if (pipe(pp)) return 1;
    out("setns_pipe", setns(pp[0], CLONE_NEWPID));
    out("setns_bad_fd", setns(-1, CLONE_NEWPID));
    int dgo[2];
    if (pipe(dgo)) return 1;
    pid_t d = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);
    if (d == 0) {
        out("ns_init_setns_to_parent_ns", setns(rootfd, CLONE_NEWPID));
        link_of("ns_init_pid_for_children_after_failed_setns", 0, "pid_for_children");
        char c;
        if (read(dgo[0], &c, 1) != 1) _exit(1);
        for (;;) pause();
    }
    usleep(50000);
    int dfd = pidfd_open(d, 0);
    int dns = open("/proc/self/ns/pid", O_RDONLY);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/pid", d);
    close(dns);
    dns = open(path, O_RDONLY);
    link_of("clone_newpid_child_pid", d, "pid");
    out("setns_pidfd_0", setns(dfd, 0));
    out("setns_pidfd_bad_flag", setns(dfd, 1));
    pid_t e = fork();
    if (e == 0) {
        out("setns_pidfd_descendant", setns(dfd, CLONE_NEWPID));
        link_of("after_setns_pid", getpid(), "pid");
        link_of("after_setns_pid_for_children", getpid(), "pid_for_children");
        out("setns_back_to_current", setns(rootfd, CLONE_NEWPID));
        link_of("after_setns_back_pid_for_children", getpid(), "pid_for_children");
        out("setns_nsfd_descendant", setns(dns, CLONE_NEWPID));
        out("unshare_after_setns", unshare(CLONE_NEWPID));
        pid_t g = fork();
        if (g == 0) {
            printf("setns_child_getpid %d getppid %d\n", getpid(), getppid());
            fflush(stdout);
            _exit(0);
        }
        waitpid(g, NULL, 0);
        _exit(0);
    }
    waitpid(e, NULL, 0);
    e = fork();
    if (e == 0) {
        if (setresgid(100, 100, 100) || setresuid(1000, 1000, 1000)) _exit(9);
        out("setns_unprivileged", setns(dfd, CLONE_NEWPID));
        out("unshare_unprivileged", unshare(CLONE_NEWPID));
        _exit(0);
    }
    waitpid(e, NULL, 0);
    kill(d, SIGKILL);
    usleep(50000);
    e = fork();
    if (e == 0) {
        out("setns_pidfd_zombie", setns(dfd, CLONE_NEWPID));
        _exit(0);
    }
    waitpid(e, NULL, 0);
    waitpid(d, NULL, 0);
    out("setns_pidfd_reaped", setns(dfd, CLONE_NEWPID));
    e = fork();
    if (e == 0) {
        out("setns_nsfd_of_dead_ns", setns(dns, CLONE_NEWPID));
        long r = fork();
        if (r == 0) _exit(0);
        out("fork_into_dead_ns", r);
        _exit(0);
    }
    waitpid(e, NULL, 0);

    /* How deep namespaces nest. */
    pid_t n = fork();
    if (n == 0) nest();
    waitpid(n, NULL, 0);
    return 0;
}
