// Signals sent from inside a pid namespace to its init: every one whose
// action is the default is dropped (SIGNAL_UNKILLABLE: sig_task_ignored()),
// SIGKILL and SIGSTOP included, and each send returns 0. By every sending
// call: kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and
// pidfd_send_signal on init's pidfd. Then pidfd_send_signal on a /proc
// directory fd of the caller (accepted as a pidfd: tgid_pidfd_to_pid()),
// of a process outside the namespace (EINVAL), and on a file that is
// neither (EBADF).
//
// Runs in a namespace of its own: as pid 2 under an init that is its
// parent (as under `taskcore run`, whose supervisor is pid 1), it tests at
// once; otherwise it makes one (unshare(CLONE_NEWPID), needs
// CAP_SYS_ADMIN) whose init installs no handler and waits, and runs the
// test as that init's first child. The output does not depend on pid
// numbers.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, long r) {
    printf("%s = %ld%s%s\n", what, r, r < 0 ? " " : "", r < 0 ? strerrorname_np(errno) : "");
}

static int test(void) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    int fd = syscall(SYS_pidfd_open, 1, 0);
    show("pidfd_open(1, 0) >= 0", fd >= 0 ? 0 : -1);
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD, SIGKILL, SIGSTOP, SIGCONT, 0};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        int s = sigs[i];
        char b[64];
        snprintf(b, sizeof b, "kill(1, %d)", s);
        show(b, kill(1, s));
        snprintf(b, sizeof b, "tkill(1, %d)", s);
        show(b, syscall(SYS_tkill, 1, s));
        snprintf(b, sizeof b, "tgkill(1, 1, %d)", s);
        show(b, syscall(SYS_tgkill, 1, 1, s));
        si.si_signo = s;
        snprintf(b, sizeof b, "rt_sigqueueinfo(1, %d)", s);
        show(b, syscall(SYS_rt_sigqueueinfo, 1, s, &si));
        snprintf(b, sizeof b, "rt_tgsigqueueinfo(1, 1, %d)", s);
        show(b, syscall(SYS_rt_tgsigqueueinfo, 1, 1, s, &si));
        snprintf(b, sizeof b, "pidfd_send_signal(init, %d)", s);
        show(b, syscall(SYS_pidfd_send_signal, fd, s, NULL, 0));
    }
    // Init is still there, still this process's parent.
    show("kill(1, 0) after", kill(1, 0));
    show("getppid() == 1", getppid() == 1 ? 0 : -1);
    int self = open("/proc/self", O_DIRECTORY | O_RDONLY);
    show("pidfd_send_signal(/proc/self, 0)", syscall(SYS_pidfd_send_signal, self, 0, NULL, 0));
    // /proc/1 of the procfs mounted here is not this namespace's init (the
    // namespace has no procfs of its own): a process outside, EINVAL
    // (access_pidfd_pidns()).
    show("pidfd_send_signal(/proc/1, 0)",
         syscall(SYS_pidfd_send_signal, open("/proc/1", O_DIRECTORY | O_RDONLY), 0, NULL, 0));
    show("pidfd_send_signal(/dev/null, 0)",
         syscall(SYS_pidfd_send_signal, open("/dev/null", O_RDONLY), 0, NULL, 0));
    return 0;
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (getpid() == 2 && getppid() == 1)
        return test();
    if (unshare(CLONE_NEWPID) != 0) {
        perror("unshare(CLONE_NEWPID)");
        return 1;
    }
    pid_t init = fork();
    if (init == 0) {
        // The namespace's init: no handler, waits for the test.
        pid_t t = fork();
        if (t == 0)
            _exit(test());
        int st;
        while (waitpid(t, &st, 0) != t)
            ;
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    int st;
    waitpid(init, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
