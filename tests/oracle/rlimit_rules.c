/* Records Linux's resource-limit rules and /proc/PID/limits.
 * Prints "<case> <answer>" lines, and the limits file of a process with
 * set limits between "limits_begin" and "limits_end".
 * Must run as root, with no other process of uid 1000 running.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *res(long r) {
    if (r == 0) return "ok";
    return errno == EPERM ? "EPERM" : errno == EINVAL ? "EINVAL" : errno == ESRCH ? "ESRCH"
           : errno == EAGAIN ? "EAGAIN" : "OTHER";
}

static void out(const char *name, long r) {
    printf("%s %s\n", name, res(r));
    fflush(stdout);
}

static long set(int r, rlim_t cur, rlim_t max) {
    struct rlimit l = {cur, max};
    return setrlimit(r, &l);
}

static void user(void) {
    if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000)) _exit(9);
}

int main(void) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        /* Every resource set below its current hard limit (root here may
         * lack CAP_SYS_RESOURCE): with an unlimited hard limit, soft
         * (i+1)*10^9 (unlimited for 3 and 11) and hard unlimited for even
         * i, else soft + 7; with a finite one, soft half and hard one less
         * (0 stays 0). */
        for (int i = 0; i < 16; i++) {
            struct rlimit l;
            getrlimit(i, &l);
            rlim_t cur, max;
            if (l.rlim_max == RLIM_INFINITY) {
                cur = (rlim_t)(i + 1) * 1000000000ULL;
                if (i == 3 || i == 11) cur = RLIM_INFINITY;
                max = i % 2 == 0 || cur == RLIM_INFINITY ? RLIM_INFINITY : cur + 7;
            } else {
                max = l.rlim_max ? l.rlim_max - 1 : 0;
                cur = max / 2;
            }
            if (set(i, cur, max)) printf("set %d failed %s\n", i, res(-1));
        }
        char buf[4096];
        int fd = open("/proc/self/limits", O_RDONLY);
        ssize_t n = read(fd, buf, sizeof buf);
        printf("limits_begin\n");
        fflush(stdout);
        if (n > 0 && write(1, buf, n) != n) _exit(1);
        printf("limits_end\n");
        fflush(stdout);
        _exit(0);
    }
    waitpid(p, NULL, 0);

    p = fork();
    if (p == 0) {
        out("root_nofile_over_nr_open", set(RLIMIT_NOFILE, 100, 1024 * 1024 + 1));
        set(RLIMIT_NOFILE, 100, 200);
        user();
        out("user_raise_hard", set(RLIMIT_NOFILE, 100, 300));
        out("user_cur_gt_max", set(RLIMIT_NOFILE, 300, 200));
        out("user_lower_hard", set(RLIMIT_NOFILE, 100, 150));
        out("user_raise_back", set(RLIMIT_NOFILE, 100, 200));
        out("user_soft_to_hard", set(RLIMIT_NOFILE, 150, 150));
        struct rlimit l;
        out("get_resource_16", getrlimit(16, &l));
        out("set_resource_16", set(16, 1, 1));
        out("prlimit_root_parent", syscall(SYS_prlimit64, getppid(), RLIMIT_NOFILE, NULL, &l));
        out("prlimit_missing_pid", syscall(SYS_prlimit64, 99999999, RLIMIT_NOFILE, NULL, &l));
        out("prlimit_self_pid", syscall(SYS_prlimit64, getpid(), RLIMIT_NOFILE, NULL, &l));
        printf("prlimit_self_values %lu %lu\n", (unsigned long)l.rlim_cur,
               (unsigned long)l.rlim_max);
        /* Inherited at fork. */
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) {
            getrlimit(RLIMIT_NOFILE, &l);
            printf("inherited %lu %lu\n", (unsigned long)l.rlim_cur, (unsigned long)l.rlim_max);
            fflush(stdout);
            _exit(0);
        }
        waitpid(c, NULL, 0);
        /* RLIMIT_NPROC: this process counts, forks until refused. */
        set(RLIMIT_NPROC, 3, 3);
        int ok = 0;
        long r;
        pid_t kids[8];
        for (;;) {
            fflush(stdout);
            r = fork();
            if (r == 0) {
                pause();
                _exit(0);
            }
            if (r < 0 || ok == 8) break;
            kids[ok++] = r;
        }
        printf("nproc_forks %d\n", ok);
        out("nproc_refused", r < 0 ? -1 : 0);
        for (int i = 0; i < ok; i++) kill(kids[i], SIGKILL);
        _exit(0);
    }
    waitpid(p, NULL, 0);

    p = fork();
    if (p == 0) {
        set(RLIMIT_NPROC, 1, 1);
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) _exit(0);
        out("nproc_root_exempt", c < 0 ? -1 : 0);
        waitpid(c, NULL, 0);
        _exit(0);
    }
    waitpid(p, NULL, 0);
    return 0;
}
