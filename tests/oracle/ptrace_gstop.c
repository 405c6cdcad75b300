/* Group stop under ptrace when a thread is already in a ptrace stop
 * (do_signal_stop(): a TASK_TRACED thread is not task_is_stopped(), so it
 * gets JOBCTL_STOP_PENDING and group_stop_count counts it; resumed, its
 * get_signal() first takes part in the group stop through do_jobctl_trap()
 * before dequeueing another pending signal), and the restart signal of a
 * group-stop trap (ignored by do_jobctl_trap()). Run WITHOUT strace, as
 * root. The tracer is the tracee's real parent.
 * Lines: "<case> <step> ..." with wait status words in hex, thread states
 * from /proc/PID/task/TID/stat, and PTRACE_GETSIGINFO's si_signo/si_code
 * or errno (EINVAL: a group-stop trap has no siginfo).
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int pipefd[2];

static char state(pid_t pid, pid_t tid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
    FILE *f = fopen(path, "r");
    if (!f) return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] && p[2] ? p[2] : '?';
}

/* Waits (bounded) until thread tid of pid is in state s. */
static void await_state(pid_t pid, pid_t tid, char s) {
    for (int i = 0; i < 2000 && state(pid, tid) != s; i++) usleep(1000);
}

static unsigned long long shdpnd(pid_t pid) {
    char path[64], line[256];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "ShdPnd: %llx", &v) == 1) break;
    fclose(f);
    return v;
}

static void siginfo(const char *c, pid_t pid) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0)
        printf("%s getsiginfo errno=%s\n", c, errno == EINVAL ? "EINVAL" : "OTHER");
    else
        printf("%s getsiginfo si_signo=%d si_code=%d\n", c, si.si_signo, si.si_code);
}

static void wait_any(const char *c, pid_t pid, int flags) {
    int st = 0;
    pid_t r = waitpid(-1, &st, __WALL | flags);
    printf("%s wait ret=%s status=0x%x\n", c, r == pid ? "child" : r == 0 ? "0" : "other", st);
}

static void *thread_main(void *arg) {
    (void)arg;
    pid_t tid = syscall(SYS_gettid);
    if (write(pipefd[1], &tid, sizeof tid) != sizeof tid) _exit(3);
    for (;;) pause();
}

/* P = leader L + thread T; L is in its attach stop when SIGSTOP and then
 * SIGTERM are sent to P. */
static void traced_leader(void) {
    const char *c = "traced_leader";
    if (pipe(pipefd) < 0) exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t th;
        pthread_create(&th, NULL, thread_main, NULL);
        for (;;) pause();
    }
    pid_t tid;
    if (read(pipefd[0], &tid, sizeof tid) != sizeof tid) exit(1);
    printf("%s attach ret=%ld\n", c, ptrace(PTRACE_ATTACH, pid, 0, 0));
    int st = 0;
    pid_t r = waitpid(pid, &st, __WALL);
    printf("%s wait ret=%s status=0x%x\n", c, r == pid ? "child" : "other", st);
    siginfo(c, pid);
    kill(pid, SIGSTOP);
    await_state(pid, tid, 'T');
    printf("%s after_sigstop leader=%c thread=%c\n", c, state(pid, pid), state(pid, tid));
    wait_any(c, pid, WNOHANG);
    kill(pid, SIGTERM);
    printf("%s after_sigterm shdpnd=0x%llx\n", c, shdpnd(pid));
    printf("%s cont data=0 ret=%ld\n", c, ptrace(PTRACE_CONT, pid, 0, 0));
    wait_any(c, pid, 0);
    siginfo(c, pid);
    printf("%s trapped leader=%c thread=%c shdpnd=0x%llx\n", c, state(pid, pid), state(pid, tid),
           shdpnd(pid));
    printf("%s cont data=0 ret=%ld\n", c, ptrace(PTRACE_CONT, pid, 0, 0));
    wait_any(c, pid, 0);
    siginfo(c, pid);
    printf("%s cont data=%d ret=%ld\n", c, SIGTERM, ptrace(PTRACE_CONT, pid, 0, SIGTERM));
    wait_any(c, pid, 0);
}

/* A stopped single-threaded process is attached; the restart's signal of
 * the group-stop trap is ignored and the attach's SIGSTOP comes next. */
static void attach_stopped(void) {
    const char *c = "attach_stopped";
    pid_t pid = fork();
    if (pid == 0) {
        for (;;) pause();
    }
    kill(pid, SIGSTOP);
    await_state(pid, pid, 'T');
    int st = 0;
    pid_t r = waitpid(pid, &st, WUNTRACED);
    printf("%s wuntraced ret=%s status=0x%x\n", c, r == pid ? "child" : "other", st);
    printf("%s attach ret=%ld\n", c, ptrace(PTRACE_ATTACH, pid, 0, 0));
    wait_any(c, pid, 0);
    siginfo(c, pid);
    printf("%s cont data=%d ret=%ld\n", c, SIGUSR1, ptrace(PTRACE_CONT, pid, 0, SIGUSR1));
    wait_any(c, pid, 0);
    siginfo(c, pid);
    printf("%s cont data=%d ret=%ld\n", c, SIGUSR1, ptrace(PTRACE_CONT, pid, 0, SIGUSR1));
    wait_any(c, pid, 0);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    traced_leader();
    attach_stopped();
    return 0;
}
