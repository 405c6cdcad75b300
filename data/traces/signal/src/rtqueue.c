/* Blocks, queues and waits for real-time signals: sigqueue to itself and
 * from a child, rt_tgsigqueueinfo from a thread, sigwaitinfo/sigtimedwait
 * (incl. the zero-timeout EAGAIN), sigpending, a SA_SIGINFO handler run by
 * unblocking (rt_sigreturn), rt_sigsuspend, and RLIMIT_SIGPENDING EAGAIN. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int got;
static void h(int s, siginfo_t *si, void *u) {
    (void)s;
    (void)u;
    got += si->si_value.sival_int;
}

static void *thr(void *a) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGRTMIN + 2;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_value.sival_int = 77;
    syscall(SYS_rt_tgsigqueueinfo, getpid(), *(pid_t *)a, SIGRTMIN + 2, &si);
    return NULL;
}

int main(void) {
    sigset_t set, old;
    sigemptyset(&set);
    for (int s = SIGRTMIN; s <= SIGRTMIN + 3; s++) sigaddset(&set, s);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, &old);
    sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = 1});
    sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 2});
    sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = 3});
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGUSR1);
    sigset_t pend;
    sigpending(&pend);
    siginfo_t si;
    for (int i = 0; i < 4; i++) sigwaitinfo(&set, &si);
    struct timespec zero = {0, 0}, short_to = {0, 20000000};
    sigtimedwait(&set, &si, &zero);
    sigtimedwait(&set, &si, &short_to);
    /* from a child */
    pid_t parent = getpid();
    pid_t c = fork();
    if (c == 0) {
        for (int i = 0; i < 3; i++) sigqueue(parent, SIGRTMIN + 3, (union sigval){.sival_int = 10 + i});
        _exit(0);
    }
    waitpid(c, NULL, 0);
    for (int i = 0; i < 3; i++) sigwaitinfo(&set, &si);
    /* from a thread, to the main thread */
    pid_t me = gettid();
    pthread_t t;
    pthread_create(&t, NULL, thr, &me);
    pthread_join(t, NULL);
    sigwaitinfo(&set, &si);
    /* a SA_SIGINFO handler, run when the signal is unblocked */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGRTMIN, &sa, NULL);
    sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 5});
    sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 6});
    sigset_t un;
    sigemptyset(&un);
    sigaddset(&un, SIGRTMIN);
    sigprocmask(SIG_UNBLOCK, &un, NULL);
    sigprocmask(SIG_BLOCK, &un, NULL);
    /* rt_sigsuspend with a pending blocked signal */
    sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 7});
    sigset_t susp = set;
    sigdelset(&susp, SIGRTMIN);
    sigsuspend(&susp);
    /* RLIMIT_SIGPENDING: a child with its own uid */
    c = fork();
    if (c == 0) {
        struct rlimit rl = {2, 2};
        setrlimit(RLIMIT_SIGPENDING, &rl);
        if (setresuid(54323, 54323, 54323)) _exit(9);
        for (int i = 0; i < 4; i++) sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = i});
        kill(getpid(), SIGRTMIN + 1);
        while (sigtimedwait(&set, &si, &zero) > 0) {
        }
        _exit(0);
    }
    waitpid(c, NULL, 0);
    sigprocmask(SIG_SETMASK, &old, NULL);
    printf("got %d\n", got);
    return 0;
}
