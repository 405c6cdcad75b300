/* Records /proc/PID/task/TID/children: which thread lists which child, in
 * which order, zombies and adopted orphans included. Children are named
 * by letter (A, B, ... in fork order) so the output does not depend on
 * pid numbers; the raw format (each pid followed by a space, no newline)
 * is checked by "format". Must run as root (for the subreaper).
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t kids[8];
static int nkids;
static pid_t tid_of_thread;
static int go[2], done[2];

static pid_t spawn(void) {
    pid_t p = fork();
    if (p == 0) {
        pause();
        _exit(0);
    }
    kids[nkids++] = p;
    return p;
}

static void show(const char *who, pid_t tid) {
    char path[64], buf[256] = {0};
    snprintf(path, sizeof path, "/proc/self/task/%d/children", tid);
    int fd = open(path, O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    printf("%s", who);
    char *save, *tok = n > 0 ? strtok_r(buf, " ", &save) : NULL;
    for (; tok; tok = strtok_r(NULL, " ", &save)) {
        pid_t p = atoi(tok);
        char name = '?';
        for (int i = 0; i < nkids; i++)
            if (kids[i] == p) name = 'A' + i;
        printf(" %c", name);
    }
    printf("\n");
    fflush(stdout);
}

static void *thread(void *arg) {
    (void)arg;
    tid_of_thread = syscall(SYS_gettid);
    char c;
    if (read(go[0], &c, 1) != 1) return NULL;
    spawn(); /* D */
    if (write(done[1], &c, 1) != 1) return NULL;
    pause();
    return NULL;
}

int main(void) {
    if (pipe(go) || pipe(done)) return 1;
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pthread_t th;
    pthread_create(&th, NULL, thread, NULL);
    pid_t me = getpid();
    spawn();                /* A */
    pid_t b = fork();       /* B forks E, then exits */
    if (b == 0) {
        pid_t e = fork();
        if (e == 0) {
            pause();
            _exit(0);
        }
        if (write(done[1], &e, sizeof e) != sizeof e) _exit(1);
        _exit(0);
    }
    kids[nkids++] = b;
    pid_t e;
    if (read(done[0], &e, sizeof e) != sizeof e) return 1;
    siginfo_t si;
    /* B is a zombie, so E has been adopted (at the tail) before C. */
    waitid(P_PID, b, &si, WEXITED | WNOWAIT);
    spawn(); /* C */
    char c = 1;
    if (write(go[1], &c, 1) != 1) return 1;
    if (read(done[0], &c, 1) != 1) return 1; /* D exists */
    kids[nkids++] = e; /* E: B's child, named after D */
    show("main_with_zombie", me);
    show("thread", tid_of_thread);
    waitpid(b, NULL, 0);
    kill(kids[2], SIGKILL); /* C becomes a zombie */
    waitid(P_PID, kids[2], &si, WEXITED | WNOWAIT);
    show("main_after_reap", me);
    char raw[256] = {0}, path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", tid_of_thread);
    int fd = open(path, O_RDONLY);
    ssize_t n = read(fd, raw, sizeof raw - 1);
    close(fd);
    printf("format %s\n", n > 0 && raw[n - 1] == ' ' && !strchr(raw, '\n') ? "trailing-space-no-newline" : "other");
    for (int i = 0; i < nkids; i++) kill(kids[i], SIGKILL);
    while (wait(NULL) > 0) {
    }
    return 0;
}
