/* Records which pid namespace /proc/loadavg's last-pid field follows.
 * The caller unshares a new pid namespace; its first child is that
 * namespace's init (pid 1), which forks one child (pid 2) and reaps it,
 * then reads the host's /proc/loadavg (the mount of the initial namespace).
 * Prints "init_reads_last_pid N" with N the last field: Linux reports the
 * reader's namespace, so N is 2 however many pids the host has used.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    if (unshare(CLONE_NEWPID) != 0) {
        perror("unshare");
        return 1;
    }
    pid_t init = fork();
    if (init == 0) {
        pid_t c = fork();
        if (c == 0) _exit(0);
        waitpid(c, NULL, 0);
        FILE *f = fopen("/proc/loadavg", "r");
        char line[256] = {0};
        if (!f || !fgets(line, sizeof line, f)) _exit(2);
        char *last = strrchr(line, ' ');
        printf("init_pid %d\nchild_pid %d\ninit_reads_last_pid %ld\n", getpid(), c,
               strtol(last + 1, NULL, 10));
        fflush(stdout);
        _exit(0);
    }
    waitpid(init, NULL, 0);
    return 0;
}
