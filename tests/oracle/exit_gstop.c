/* A thread that exits while a group stop is pending for it takes part in
 * the stop on its way out (exit_signals(): PF_EXITING, then
 * task_participate_group_stop() for JOBCTL_STOP_PENDING; the last one
 * tells the real parent, CLD_STOPPED). The thread is held by a tracer
 * (its parent, PTRACE_O_TRACEEXIT) in its PTRACE_EVENT_EXIT stop, which
 * do_exit() reaches before exit_signals(): the group stop the other
 * thread makes meanwhile counts it (a TASK_TRACED thread is not
 * task_is_stopped()), and completes only when it is resumed and exits.
 * Run WITHOUT strace (it is a tracer), as root or with ptrace of one's
 * own child allowed.
 * Lines: "<case> <step> ..." with wait status words in hex, "ret=child"
 * for the child's pid. Re-record with tests/oracle/record.sh. */
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
#include <time.h>
#include <unistd.h>

static int go[2], tidp[2];

static void *thread_main(void *a) {
    pid_t tid = (pid_t)syscall(SYS_gettid);
    char c;
    if (write(tidp[1], &tid, sizeof tid) != sizeof tid) _exit(90);
    if (read(go[0], &c, 1) != 1) _exit(91);
    syscall(SYS_exit, 0);
    return a;
}

static const char *ret(pid_t r, pid_t child) {
    static char buf[32];
    if (r == child) return "child";
    snprintf(buf, sizeof buf, "%d", r);
    return buf;
}

static void msleep(int ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, 0);
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (pipe(go) || pipe(tidp)) return 1;
    pid_t c = fork();
    if (c == 0) {
        pthread_t t;
        pthread_create(&t, 0, thread_main, 0);
        for (;;) pause();
    }
    pid_t tid;
    if (read(tidp[0], &tid, sizeof tid) != sizeof tid) return 1;
    long r = ptrace(PTRACE_SEIZE, tid, 0, (void *)PTRACE_O_TRACEEXIT);
    printf("exit_gstop seize ret=%ld\n", r);
    if (write(go[1], "g", 1) != 1) return 1;
    int st = 0;
    pid_t w = waitpid(tid, &st, __WALL);
    printf("exit_gstop event_exit wait=%s status=%#x\n", w == tid ? "thread" : "other", st);
    kill(c, SIGSTOP);
    /* The main thread stops; the group stop waits for the held thread. */
    msleep(200);
    st = 0;
    w = waitpid(c, &st, WUNTRACED | WNOHANG);
    printf("exit_gstop held ret=%s status=%#x\n", ret(w, c), st);
    r = ptrace(PTRACE_CONT, tid, 0, 0);
    printf("exit_gstop cont ret=%ld\n", r);
    st = 0;
    w = waitpid(tid, &st, __WALL);
    printf("exit_gstop thread_gone wait=%s status=%#x\n", w == tid ? "thread" : "other", st);
    st = 0;
    w = waitpid(c, &st, WUNTRACED);
    printf("exit_gstop stopped ret=%s status=%#x\n", ret(w, c), st);
    kill(c, SIGCONT);
    st = 0;
    w = waitpid(c, &st, WCONTINUED);
    printf("exit_gstop continued ret=%s status=%#x\n", ret(w, c), st);
    kill(c, SIGKILL);
    st = 0;
    w = waitpid(c, &st, 0);
    printf("exit_gstop killed ret=%s status=%#x\n", ret(w, c), st);
    return 0;
}
