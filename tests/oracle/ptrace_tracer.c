/* A C tracer (run WITHOUT strace) that logs each of its own ptrace calls and
 * every wait status word: the event stops of PTRACE_O_TRACEFORK/VFORK/CLONE/
 * EXEC/EXIT/VFORKDONE with PTRACE_GETEVENTMSG and auto-attach of new
 * children, PTRACE_SEIZE + PTRACE_INTERRUPT, group-stop under ptrace and
 * PTRACE_LISTEN, signal-delivery-stop with injection and suppression,
 * PTRACE_SYSCALL with and without PTRACE_O_TRACESYSGOOD, PTRACE_O_EXITKILL
 * and a few error answers.
 * Lines: "<case> ptrace <REQ> pid=<name> data=<d> ret=<r> errno=<e>",
 * "<case> wait pid=<name> ret=<name> status=0x<hex>" and
 * "<case> eventmsg pid=<name> msg=<name or 0x hex>". Pids are names given
 * in order of appearance (tracee, tracee.fork, ...). Must run as root.
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
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer_log.h"

/* Waits for p and resumes it with PTRACE_CONT until it exits, injecting every
 * signal of a signal-delivery-stop back. */
static void run_out(pid_t p) {
    for (int i = 0; i < 20; i++) {
        int st = W(p);
        if (st < 0 || WIFEXITED(st) || WIFSIGNALED(st)) return;
        int ev = (st >> 16) & 0xff;
        int sig = (!ev && WSTOPSIG(st) != (SIGTRAP | 0x80) && WSTOPSIG(st) != SIGTRAP)
                      ? WSTOPSIG(st)
                      : 0;
        PT(PTRACE_CONT, p, sig);
    }
}

static char *self_exe;

static void *thread_fn(void *a) { return a; }

static void events_tracee(int go) {
    char b;
    if (read(go, &b, 1) != 1) _exit(9);
    pid_t f = fork();
    if (f == 0) _exit(1);
    waitpid(f, NULL, 0);
    pid_t v = vfork();
    if (v == 0) _exit(2);
    waitpid(v, NULL, 0);
    pthread_t t;
    pthread_create(&t, NULL, thread_fn, NULL);
    pthread_join(t, NULL);
    char *argv[] = {self_exe, "exit5", NULL};
    execv("/proc/self/exe", argv);
    _exit(8);
}

static void case_events(void) {
    cs = "events";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) events_tracee(go[0]);
    name(c, "tracee");
    PT(PTRACE_SEIZE, c,
       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
           PTRACE_O_TRACEEXIT | PTRACE_O_TRACEVFORKDONE);
    if (write(go[1], "g", 1) != 1) exit(1);
    W(c); /* fork event */
    pid_t f = 0;
    for (int i = 0; i < nnames; i++)
        if (!strcmp(names[i].name, "tracee.fork")) f = names[i].pid;
    run_out(f);
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGCHLD from the fork child */
    PT(PTRACE_CONT, c, SIGCHLD);
    W(c); /* vfork event */
    pid_t v = 0;
    for (int i = 0; i < nnames; i++)
        if (!strcmp(names[i].name, "tracee.vfork")) v = names[i].pid;
    run_out(v);
    PT(PTRACE_CONT, c, 0);
    W(c); /* vfork done */
    PT(PTRACE_CONT, c, 0);
    W(c); /* SIGCHLD from the vfork child */
    PT(PTRACE_CONT, c, SIGCHLD);
    W(c); /* clone event */
    pid_t t = 0;
    for (int i = 0; i < nnames; i++)
        if (!strcmp(names[i].name, "tracee.clone")) t = names[i].pid;
    PT(PTRACE_CONT, c, 0);
    run_out(t);
    run_out(c); /* exec event, exit event, exit */
}

static volatile int n_usr1, n_usr2, n_hup;
static void h(int s) {
    if (s == SIGUSR1) n_usr1++;
    if (s == SIGUSR2) n_usr2++;
    if (s == SIGHUP) n_hup++;
}

static void case_signals(void) {
    cs = "signals";
    int go[2];
    if (pipe(go)) exit(1);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        signal(SIGUSR1, h);
        signal(SIGUSR2, h);
        signal(SIGHUP, h);
        char b;
        if (read(go[0], &b, 1) != 1) _exit(9);
        kill(getpid(), SIGUSR1);
        kill(getpid(), SIGUSR2);
        _exit(n_usr1 + 4 * n_usr2 + 16 * n_hup);
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, 0);
    if (write(go[1], "g", 1) != 1) exit(1);
    W(c); /* SIGUSR1 signal-delivery-stop */
    printf("%s kill SIGHUP to stopped tracee ret=%d\n", cs, kill(c, SIGHUP));
    PT(PTRACE_CONT, c, 0); /* suppress SIGUSR1 */
    W(c);                  /* SIGHUP, kept pending during the stop */
    PT(PTRACE_CONT, c, SIGHUP);
    W(c); /* SIGUSR2 */
    PT(PTRACE_CONT, c, SIGUSR1); /* replaced by SIGUSR1 */
    W(c);                        /* exit status: handler counts */
}

static void case_syscall(void) {
    cs = "syscall";
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        syscall(SYS_getppid);
        char *argv[] = {self_exe, "exit5", NULL};
        execv("/proc/self/exe", argv);
        _exit(8);
    }
    name(c, "tracee");
    W(c); /* SIGSTOP */
    for (int i = 0; i < 4; i++) {
        if (i == 2) PT(PTRACE_SETOPTIONS, c, PTRACE_O_TRACESYSGOOD);
        PT(PTRACE_SYSCALL, c, 0);
        W(c);
        struct __ptrace_syscall_info info;
        memset(&info, 0, sizeof info);
        long n = ptrace(PTRACE_GET_SYSCALL_INFO, c, sizeof info, &info);
        printf("%s syscall_info ret_positive=%d op=%d nr=%llu\n", cs, n > 0, info.op,
               info.op == PTRACE_SYSCALL_INFO_ENTRY ? (unsigned long long)info.entry.nr : 0ULL);
    }
    PT(PTRACE_SETOPTIONS, c, 0);
    PT(PTRACE_CONT, c, 0);
    W(c); /* legacy SIGTRAP after execve */
    PT(PTRACE_CONT, c, 0);
    W(c);
}

static void case_interrupt_listen(void) {
    cs = "listen";
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        for (;;) pause();
    }
    name(c, "tracee");
    PT(PTRACE_SEIZE, c, 0);
    PT(PTRACE_LISTEN, c, 0); /* not in a stop */
    PT(PTRACE_INTERRUPT, c, 0);
    W(c); /* PTRACE_EVENT_STOP */
    PT(PTRACE_LISTEN, c, 0); /* an event stop, not a group stop */
    PT(PTRACE_CONT, c, 0);   /* listening: not in a ptrace stop */
    W(c);
    PT(PTRACE_INTERRUPT, c, 0);
    W(c);
    PT(PTRACE_CONT, c, 0);
    usleep(50000);
    printf("%s kill SIGSTOP ret=%d\n", cs, kill(c, SIGSTOP));
    W(c);                       /* signal-delivery-stop SIGSTOP */
    PT(PTRACE_CONT, c, SIGSTOP); /* let it stop the group */
    W(c);                       /* group-stop */
    PT(PTRACE_LISTEN, c, 0);
    usleep(50000);
    int st = 0;
    printf("%s wait_wnohang_while_listening ret=%s\n", cs,
           pn(waitpid(c, &st, __WALL | WNOHANG)));
    printf("%s kill SIGCONT ret=%d\n", cs, kill(c, SIGCONT));
    W(c);
    PT(PTRACE_CONT, c, 0);
    W(c);
    PT(PTRACE_CONT, c, SIGCONT);
    usleep(50000);
    printf("%s kill SIGKILL ret=%d\n", cs, kill(c, SIGKILL));
    W(c);
}

static void case_attach(void) {
    cs = "attach";
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        for (;;) pause();
    }
    name(c, "tracee");
    PT(PTRACE_CONT, c, 0); /* not traced */
    PT(PTRACE_ATTACH, c, 0);
    PT(PTRACE_ATTACH, c, 0); /* already traced */
    W(c);                    /* SIGSTOP signal-delivery-stop */
    PT(PTRACE_CONT, c, 0);   /* suppress: keeps running */
    PT(PTRACE_CONT, c, 0);   /* running: not in a stop */
    PT(PTRACE_INTERRUPT, c, 0); /* only for SEIZE */
    printf("%s kill SIGSTOP ret=%d\n", cs, kill(c, SIGSTOP));
    W(c);
    PT(PTRACE_CONT, c, SIGSTOP);
    W(c); /* group-stop of a non-seized tracee */
    PT(PTRACE_DETACH, c, 0);
    usleep(50000);
    int st = 0;
    pid_t wr = waitpid(c, &st, WUNTRACED | WNOHANG);
    printf("%s waitpid_wuntraced_after_detach ret=%s status=0x%x\n", cs, pn(wr), st);
    PT(PTRACE_SEIZE, c, 0x80000000UL); /* unknown option bit */
    PT(PTRACE_ATTACH, getpid(), 0);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    PT(PTRACE_CONT, c, 0); /* gone */
    fflush(stdout);
    pid_t t = fork();
    if (t == 0) {
        name(getpid(), "traceme_child");
        long r1 = ptrace(PTRACE_TRACEME, 0, 0, 0);
        long r2 = ptrace(PTRACE_TRACEME, 0, 0, 0);
        int e2 = errno;
        printf("%s traceme first ret=%ld second ret=%ld errno=%s\n", cs, r1, r2, en(e2));
        fflush(stdout);
        _exit(0);
    }
    name(t, "traceme_child");
    W(t);
}

static void case_exitkill(void) {
    cs = "exitkill";
    for (int opt = 0; opt <= 1; opt++) {
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) {
            for (;;) pause();
        }
        name(c, opt ? "tracee_exitkill" : "tracee_plain");
        pid_t x = fork();
        if (x == 0) {
            long r = ptrace(PTRACE_SEIZE, c, 0, opt ? PTRACE_O_EXITKILL : 0);
            printf("%s tracer seize option=%s ret=%ld\n", cs, opt ? "EXITKILL" : "none", r);
            fflush(stdout);
            _exit(0);
        }
        waitpid(x, NULL, 0);
        usleep(100000);
        int st = 0;
        pid_t r = waitpid(c, &st, WNOHANG);
        printf("%s after_tracer_exit option=%s wait ret=%s status=0x%x\n", cs,
               opt ? "EXITKILL" : "none", pn(r), st);
        if (r == 0) {
            kill(c, SIGKILL);
            waitpid(c, NULL, 0);
        }
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "exit5")) return 5;
    setvbuf(stdout, NULL, _IOLBF, 0);
    self_exe = argv[0];
    name(getpid(), "tracer");
    alarm(30);
    case_events();
    case_signals();
    case_syscall();
    case_interrupt_listen();
    case_attach();
    case_exitkill();
    return 0;
}
