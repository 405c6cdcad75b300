/* Under strace -f every descendant is already traced, so its own ptrace
 * calls fail with EPERM: PTRACE_TRACEME, PTRACE_ATTACH and PTRACE_SEIZE of
 * a sibling, and ESRCH for requests on a task it does not trace. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t target = fork();
    if (target == 0) {
        for (;;) pause();
    }
    pid_t c = fork();
    if (c == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        _exit(0);
    }
    waitpid(c, NULL, 0);
    long a = ptrace(PTRACE_ATTACH, target, 0, 0);
    long s = ptrace(PTRACE_SEIZE, target, 0, 0);
    long k = ptrace(PTRACE_CONT, target, 0, 0);
    long i = ptrace(PTRACE_INTERRUPT, target, 0, 0);
    kill(target, SIGKILL);
    waitpid(target, NULL, 0);
    printf("%ld %ld %ld %ld\n", a, s, k, i);
    return 0;
}
