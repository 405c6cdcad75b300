/* Records prctl's name, pdeath signal and child-subreaper answers, and
 * where the name shows in /proc. Prints "<case> <answer>" lines.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void line_of(const char *path, const char *prefix, const char *key) {
    char buf[4096] = {0};
    int fd = open(path, O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return;
    char *l = buf;
    if (prefix) {
        l = strstr(buf, prefix);
        if (!l) return;
    }
    l[strcspn(l, "\n")] = 0;
    printf("%s %s\n", key, l);
}

int main(void) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        char name[32];
        memset(name, 'X', sizeof name);
        prctl(PR_SET_NAME, "a-very-long-thread-name");
        prctl(PR_GET_NAME, name);
        printf("get_name %s\n", name);
        printf("get_name_byte15 %d\n", name[15]);
        line_of("/proc/self/comm", NULL, "proc_comm");
        line_of("/proc/self/status", "Name:", "proc_status");
        char stat[256] = {0};
        int fd = open("/proc/self/stat", O_RDONLY);
        if (read(fd, stat, sizeof stat - 1) > 0) {
            char *a = strchr(stat, '('), *b = strrchr(stat, ')');
            printf("proc_stat_comm %.*s\n", (int)(b - a + 1), a);
        }
        int sig = -1;
        printf("pdeathsig_65 %s\n", prctl(PR_SET_PDEATHSIG, 65) ? (errno == EINVAL ? "EINVAL" : "OTHER") : "ok");
        prctl(PR_GET_PDEATHSIG, &sig);
        printf("pdeathsig_default %d\n", sig);
        prctl(PR_SET_PDEATHSIG, 10);
        prctl(PR_GET_PDEATHSIG, &sig);
        printf("pdeathsig_set %d\n", sig);
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) {
            prctl(PR_GET_PDEATHSIG, &sig);
            printf("pdeathsig_child %d\n", sig);
            fflush(stdout);
            _exit(0);
        }
        waitpid(c, NULL, 0);
        if (setresuid(0, 1000, 0)) _exit(9);
        prctl(PR_GET_PDEATHSIG, &sig);
        printf("pdeathsig_after_euid_change %d\n", sig);
        if (setresuid(0, 0, 0)) _exit(9);
        prctl(PR_SET_PDEATHSIG, 10);
        if (setresuid(1000, 0, 0)) _exit(9);
        prctl(PR_GET_PDEATHSIG, &sig);
        printf("pdeathsig_after_ruid_change %d\n", sig);
        int sr = -1;
        prctl(PR_GET_CHILD_SUBREAPER, &sr);
        printf("subreaper_default %d\n", sr);
        prctl(PR_SET_CHILD_SUBREAPER, 5);
        prctl(PR_GET_CHILD_SUBREAPER, &sr);
        printf("subreaper_set %d\n", sr);
        fflush(stdout);
        _exit(0);
    }
    waitpid(p, NULL, 0);
    return 0;
}
