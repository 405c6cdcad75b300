/* Records the owner of /proc/PID and of /proc/PID/status (task_dump_owner):
 * a process that changed its ids is not dumpable, so its files belong to
 * root while its directory keeps its effective ids; a zombie's files too;
 * an exec that leaves real and effective ids equal makes it dumpable
 * again. Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *tag, pid_t p) {
    char a[64], b[64];
    struct stat s1, s2;
    snprintf(a, sizeof a, "/proc/%d", p);
    snprintf(b, sizeof b, "/proc/%d/status", p);
    if (stat(a, &s1) || stat(b, &s2)) {
        printf("%s stat failed\n", tag);
        return;
    }
    printf("%s dir=%u:%u status=%u:%u\n", tag, s1.st_uid, s1.st_gid, s2.st_uid, s2.st_gid);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int pfd[2];
    if (pipe(pfd)) return 1;
    show("root_process", getpid());
    pid_t c = fork();
    if (c == 0) {
        if (setresgid(2000, 2000, 2000) || setresuid(1000, 1000, 1000)) _exit(2);
        char b;
        if (read(pfd[0], &b, 1) != 1) _exit(3);
        _exit(0);
    }
    usleep(100000);
    show("after_setuid", c);
    if (write(pfd[1], "x", 1) != 1) return 1;
    usleep(100000);
    show("zombie", c);
    waitpid(c, NULL, 0);
    c = fork();
    if (c == 0) {
        if (setresgid(2000, 2000, 2000) || setresuid(1000, 1000, 1000)) _exit(2);
        execl("/bin/sleep", "sleep", "1", (char *)NULL);
        _exit(1);
    }
    usleep(200000);
    show("after_exec", c);
    waitpid(c, NULL, 0);
    return 0;
}
