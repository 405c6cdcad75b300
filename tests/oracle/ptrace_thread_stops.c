/* A thread born into a stopped, seized group, resumed from its first trap
 * (issue 24, the model-vs-core case e94ab08), run WITHOUT strace, as root:
 * - syscall_from_first_trap: the tracee stops itself (SIGSTOP, untraced);
 *   it is seized (PTRACE_O_TRACECLONE) and resumed with PTRACE_CONT from
 *   the group-stop trap the seize puts it in; it makes a thread, which
 *   joins the group stop in its first trap (task_join_group_stop()). The
 *   tracer resumes the thread from that trap with PTRACE_SYSCALL; the
 *   thread (a raw clone(2)) spins without system calls. The lines show whether it stops
 *   again (a wait report, PTRACE_SETOPTIONS answered) or runs (nothing to
 *   wait for, ESRCH).
 * - cont_from_first_trap: the same with PTRACE_CONT.
 * Lines: as tracer_log.h prints them, pids by name.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer_log.h"

/* The thread: clone(2)'s glibc wrapper calls it straight after the
 * system call, so it spins with no system call of its own (pthreads would
 * make some, each a syscall stop under PTRACE_SYSCALL). */
static int spin(void *a) {
    (void)a;
    for (;;) {
        __asm__ volatile("" ::: "memory");
    }
    return 0;
}

static char stack[65536] __attribute__((aligned(16)));

static void nap(int ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void one_case(const char *name_, int syscall_resume) {
    cs = name_;
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
        clone(spin, stack + sizeof stack,
              CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD, NULL);
        for (;;) pause();
    }
    name(c, "tracee");
    int st;
    if (waitpid(c, &st, WUNTRACED) != c || !WIFSTOPPED(st)) exit(1);
    PT(PTRACE_SEIZE, c, PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT);
    PT(PTRACE_CONT, c, 0);
    W(c); /* the clone event; names tracee.clone */
    pid_t t = 0;
    for (int i = nnames - 1; i >= 0 && !t; i--)
        if (!strcmp(names[i].name, "tracee.clone")) t = names[i].pid;
    W(t); /* the thread's first trap */
    if (syscall_resume)
        PT(PTRACE_SYSCALL, t, 0);
    else
        PT(PTRACE_CONT, t, 0);
    nap(100);
    Wq(t);
    PT(PTRACE_SETOPTIONS, t, 0);
    kill(c, SIGKILL);
    pid_t w;
    /* PTRACE_O_TRACEEXIT: each thread stops in its exit event first. */
    while ((w = waitpid(-1, &st, __WALL)) > 0)
        if (WIFSTOPPED(st)) ptrace(PTRACE_CONT, w, 0, 0);
    nnames = 0;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    one_case("syscall_from_first_trap", 1);
    one_case("cont_from_first_trap", 0);
    return 0;
}
