/* Records whether a pid namespace's init dies of a default-fatal signal
 * that one of its threads blocks (so it is queued, not ignored at send)
 * while another thread can take it: Linux keeps init alive (the fatal fast
 * path of complete_signal() does not apply to SIGNAL_UNKILLABLE, and
 * get_signal() drops what init does not handle), while SIGKILL from the
 * parent namespace kills it at once, even in a ptrace stop with a lower
 * signal pending. Must run as root.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int pfd[2];

static void *blocker(void *a) {
    (void)a;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    char b = 'r';
    if (write(pfd[1], &b, 1) != 1) _exit(2);
    for (;;) pause();
}

static int init_main(void *a) {
    (void)a;
    pthread_t t;
    pthread_create(&t, NULL, blocker, NULL);
    for (;;) pause();
    return 0;
}

static char stack[1 << 20];

static pid_t other_thread(pid_t c) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", c);
    DIR *d = opendir(path);
    struct dirent *e;
    pid_t t = 0;
    while (d && (e = readdir(d)))
        if (atoi(e->d_name) > 0 && atoi(e->d_name) != c) t = atoi(e->d_name);
    if (d) closedir(d);
    return t;
}

static const char *state(pid_t c) {
    int st;
    pid_t w = waitpid(c, &st, WNOHANG);
    if (w != c) return "alive";
    return WIFSIGNALED(st) ? "killed" : "exited";
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pipe(pfd)) return 1;
    pid_t c = clone(init_main, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    char b;
    if (read(pfd[0], &b, 1) != 1) return 1;
    pid_t t = other_thread(c);
    printf("kill_blocking_thread ret=%d\n", kill(t, SIGTERM));
    usleep(200000);
    printf("after_kill init=%s\n", state(c));
    printf("tgkill_blocking_thread ret=%ld\n", syscall(SYS_tgkill, c, t, SIGTERM));
    usleep(200000);
    printf("after_tgkill init=%s\n", state(c));
    printf("kill_init_sigkill ret=%d\n", kill(c, SIGKILL));
    usleep(200000);
    printf("after_sigkill init=%s\n", state(c));
    /* A traced namespace init, in its attach stop, SIGHUP then SIGKILL. */
    c = clone(init_main, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (read(pfd[0], &b, 1) != 1) return 1;
    ptrace(PTRACE_ATTACH, c, 0, 0);
    int st;
    waitpid(c, &st, __WALL);
    printf("traced_attach_stop status=%#x\n", st);
    kill(c, SIGHUP);
    printf("traced_kill_sigkill ret=%d\n", kill(c, SIGKILL));
    usleep(200000);
    pid_t w = waitpid(c, &st, __WALL | WNOHANG);
    printf("traced_after_sigkill reported=%d status=%#x\n", w == c, w == c ? st : 0);
    return 0;
}
