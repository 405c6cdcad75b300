/* Records kill(2)'s permission check, si_uid and the id lines of
 * /proc/PID/status. Prints "<case> <answer>" lines.
 * A root parent forks B (own session, uid 1001) and A (own session,
 * uid 1000), and A forks D (A's session, uid 1001) before dropping root.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *res(long r) {
    if (r == 0) return "ok";
    return errno == EPERM ? "EPERM" : errno == EINVAL ? "EINVAL" : errno == ESRCH ? "ESRCH"
                                                                                 : "OTHER";
}

static void user(uid_t r, uid_t e, uid_t s) {
    gid_t g[] = {20, 5};
    if (setgroups(2, g) || setresgid(100, 100, 100) || setresuid(r, e, s)) _exit(9);
}

static void out(const char *name, long r) {
    printf("%s %s\n", name, res(r));
    fflush(stdout);
}

int main(void) {
    /* Each child says on a pipe when its session and uids are set: a
     * sleep instead once let A's kill(-b) run before B's setsid() on a
     * loaded machine (ESRCH, no such group yet). */
    int a_done[2], b_ready[2], d_ready[2];
    char c;
    if (pipe(a_done) || pipe(b_ready) || pipe(d_ready)) return 1;
    signal(SIGUSR1, SIG_IGN);
    pid_t b = fork();
    if (b == 0) {
        signal(SIGUSR1, SIG_IGN);
        setsid();
        user(1001, 1001, 1001);
        if (write(b_ready[1], "b", 1) != 1) _exit(1);
        for (;;) pause();
    }
    if (read(b_ready[0], &c, 1) != 1) return 1;
    pid_t a = fork();
    if (a == 0) {
        setsid();
        pid_t d = fork();
        if (d == 0) {
            user(1001, 1001, 1001);
            if (write(d_ready[1], "d", 1) != 1) _exit(1);
            for (;;) pause();
        }
        if (read(d_ready[0], &c, 1) != 1) _exit(1);
        user(1000, 1000, 1000);
        out("a_kills_b_sig0", kill(b, 0));
        out("a_kills_b_term", kill(b, SIGTERM));
        out("a_cont_b_other_session", kill(b, SIGCONT));
        out("a_cont_d_same_session", kill(d, SIGCONT));
        out("a_tkill_b", syscall(SYS_tkill, b, SIGUSR1));
        out("a_kills_pgrp_b", kill(-b, 0));
        out("a_kills_bad_sig_b", kill(b, 65));
        if (write(a_done[1], "a", 1) != 1) _exit(1);
        for (;;) pause();
    }
    if (read(a_done[0], &c, 1) != 1) return 1;
    /* A process with real uid 1000, effective 1001 signals A. */
    pid_t e = fork();
    if (e == 0) {
        user(1000, 1001, 1001);
        out("b_kills_a_usr1_after_setreuid", kill(a, 0));
        _exit(0);
    }
    waitpid(e, NULL, 0);
    out("root_kills_a", kill(a, 0));
    kill(b, SIGKILL);
    kill(-a, SIGKILL); /* A's process group holds D too */
    kill(a, SIGKILL);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);

    /* Status lines and si_uid of a child with distinct ids. */
    pid_t s = fork();
    if (s == 0) {
        gid_t g[] = {27, 4, 1000};
        if (setgroups(3, g) || setresgid(1000, 1001, 1002) || setresuid(1000, 1001, 0)) _exit(9);
        FILE *f = fopen("/proc/self/status", "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            const char *keys[] = {"Uid:", "Gid:", "Groups:", "CapPrm:", "CapEff:"};
            for (int i = 0; i < 5; i++) {
                size_t n = strlen(keys[i]);
                if (!strncmp(line, keys[i], n))
                    printf("status_%.*s %s\n", (int)(n - 1), keys[i], line);
            }
        }
        fflush(stdout);
        _exit(0);
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    waitid(P_PID, s, &si, WEXITED);
    printf("si_uid %u\n", si.si_uid);
    return 0;
}
