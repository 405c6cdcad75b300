/* /proc/PID/task/TID/children as this kernel shows it, with pids replaced
 * by labels: the main thread forks c1 c2 c3, reaps c2, becomes a child
 * subreaper; c4 forks g and exits (g is adopted by the main thread, c4
 * stays a zombie child); a second thread forks t1. Prints the main
 * thread's and the second thread's children files, then the main
 * thread's again once the second thread has exited. The test
 * crates/taskcore/tests/it/procfs.rs builds the same scene in the core (oracle_children.rs covers the rest).
 * Built and run by record.sh. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t pids[8];
static const char *names[8] = {"c1", "c2", "c3", "c4", "g", "t1"};
static int npids;
static pid_t g_pid_pipe[2];

static pid_t sleeper(void) {
    pid_t p = fork();
    if (p == 0) {
        pause();
        _exit(0);
    }
    return p;
}

static void show(pid_t tid) {
    char path[64], buf[256] = {0};
    snprintf(path, sizeof path, "/proc/self/task/%d/children", tid);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, sizeof buf, f)) buf[0] = 0;
    if (f) fclose(f);
    char *save, *tok = strtok_r(buf, " ", &save);
    printf("[");
    while (tok) {
        pid_t p = atoi(tok);
        const char *n = "?";
        for (int i = 0; i < npids; i++)
            if (pids[i] == p) n = names[i];
        printf("%s ", n);
        tok = strtok_r(NULL, " ", &save);
    }
    printf("]\n");
}

static pid_t thread_tid;
static int go[2], done[2];
static void *thr(void *arg) {
    (void)arg;
    thread_tid = gettid();
    pids[5] = sleeper();
    npids = 6;
    char c = 1;
    if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1) return NULL;
    return NULL; /* exiting: t1 goes to the main thread */
}

int main(void) {
    pids[0] = sleeper();
    pids[1] = sleeper();
    pids[2] = sleeper();
    kill(pids[1], SIGKILL);
    waitpid(pids[1], NULL, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (pipe(g_pid_pipe) != 0) return 1;
    pids[3] = fork();
    if (pids[3] == 0) {
        pid_t g = sleeper();
        if (write(g_pid_pipe[1], &g, sizeof g) != sizeof g) _exit(1);
        _exit(0);
    }
    if (read(g_pid_pipe[0], &pids[4], sizeof pids[4]) != sizeof pids[4]) return 1;
    npids = 5;
    /* c4 exits: wait until it is a zombie (g then belongs to us). */
    siginfo_t si;
    waitid(P_PID, pids[3], &si, WEXITED | WNOWAIT);
    pthread_t t;
    if (pipe(go) != 0 || pipe(done) != 0) return 1;
    pthread_create(&t, NULL, thr, NULL);
    char c;
    if (read(go[0], &c, 1) != 1) return 1;
    printf("main ");
    show(gettid());
    printf("thread ");
    show(thread_tid);
    if (write(done[1], &c, 1) != 1) return 1;
    pthread_join(t, NULL);
    printf("main_after_thread_exit ");
    show(gettid());
    for (int i = 0; i < 6; i++)
        if (i != 1) kill(pids[i], SIGKILL);
    while (wait(NULL) > 0) {}
    return 0;
}
