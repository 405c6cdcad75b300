/* Records Linux's job-control rules: group stop of a multi-threaded process,
 * the parent's CLD_STOPPED/CLD_CONTINUED SIGCHLD siginfo, WUNTRACED/WSTOPPED/
 * WCONTINUED reports, SA_NOCLDSTOP, SIGTSTP/SIGTTIN/SIGTTOU discarded for an
 * orphaned process group (SIGSTOP not), SIGHUP+SIGCONT to a stopped group
 * that becomes orphaned, PR_SET_PDEATHSIG sent when the parent *thread*
 * exits and cleared by fork, and the signal lines of /proc/PID/status and
 * the signal fields of /proc/PID/stat in known states.
 * Prints "<case> key=value ..." lines, or "<case> <procfs line>"; statuses
 * in hex; pids as "child", "parent", "zero" or "other". Must run as root.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long u64;
#define BIT(s) (1ULL << ((s) - 1))

static void set_mask(u64 m) { syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, 8); }

static const char *who(pid_t p, pid_t child, pid_t parent) {
    if (p == 0) return "zero";
    if (p == child) return "child";
    if (p == parent) return "parent";
    return "other";
}

static const char *en(int e) {
    switch (e) {
    case EAGAIN: return "EAGAIN";
    case EINTR: return "EINTR";
    case ECHILD: return "ECHILD";
    default: return "OTHER";
    }
}

static void chld_info(const char *name, pid_t c) {
    u64 set = BIT(SIGCHLD);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    struct timespec ts = {1, 0};
    long r = syscall(SYS_rt_sigtimedwait, &set, &si, &ts, 8);
    if (r < 0)
        printf("%s ret=-1 errno=%s\n", name, en(errno));
    else
        printf("%s sig=%ld si_code=%d si_status=%d si_pid=%s\n", name, r, si.si_code,
               si.si_status, who(si.si_pid, c, getpid()));
}

static void no_chld(const char *name) {
    u64 set = BIT(SIGCHLD);
    struct timespec ts = {0, 200 * 1000 * 1000};
    long r = syscall(SYS_rt_sigtimedwait, &set, NULL, &ts, 8);
    printf("%s ret=%ld errno=%s\n", name, r, r < 0 ? en(errno) : "none");
}

static void wp(const char *name, pid_t c, int flags) {
    int st = 0;
    pid_t r = waitpid(c, &st, flags);
    if (r < 0)
        printf("%s ret=-1 errno=%s\n", name, en(errno));
    else
        printf("%s ret=%s status=0x%x\n", name, r == c ? "child" : r == 0 ? "0" : "other", st);
}

static void wid(const char *name, pid_t c, int flags) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    long r = waitid(P_PID, c, &si, flags);
    if (r < 0)
        printf("%s ret=-1 errno=%s\n", name, en(errno));
    else
        printf("%s ret=%ld si_pid=%s si_code=%d si_status=%d\n", name, r,
               who(si.si_pid, c, getpid()), si.si_code, si.si_status);
}

static char *slurp(const char *path, char *buf, size_t n) {
    memset(buf, 0, n);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return buf;
    ssize_t k = read(fd, buf, n - 1);
    close(fd);
    if (k < 0) buf[0] = 0;
    return buf;
}

static void status_lines(const char *key, const char *path) {
    static const char *want[] = {"State:", "SigQ:", "SigPnd:", "ShdPnd:", "SigBlk:",
                                 "SigIgn:", "SigCgt:"};
    char buf[8192];
    slurp(path, buf, sizeof buf);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char *l = strstr(buf, want[i]);
        if (!l) continue;
        size_t len = strcspn(l, "\n");
        printf("%s %.*s\n", key, (int)len, l);
    }
}

/* state (3) and the signal fields (31-34) of /proc/PID/stat */
static void stat_fields(const char *key, const char *path) {
    char buf[4096];
    slurp(path, buf, sizeof buf);
    char *p = strrchr(buf, ')');
    if (!p) return;
    p += 2;
    char *f[64];
    int n = 0;
    for (char *t = strtok(p, " \n"); t && n < 64; t = strtok(NULL, " \n")) f[n++] = t;
    if (n < 32) return;
    /* f[0] is field 3 */
    printf("%s state=%s signal=%s blocked=%s sigignore=%s sigcatch=%s exit_signal=%s\n", key,
           f[0], f[28], f[29], f[30], f[31], f[35]);
}

static void thread_states(const char *key, pid_t c) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task", c);
    DIR *d = opendir(path);
    int tids[16], n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 16)
        if (e->d_name[0] != '.') tids[n++] = atoi(e->d_name);
    if (d) closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (tids[j] < tids[i]) {
                int t = tids[i];
                tids[i] = tids[j];
                tids[j] = t;
            }
    printf("%s threads=%d states=", key, n);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", c, tids[i]);
        slurp(path, buf, sizeof buf);
        char *p = strrchr(buf, ')');
        printf("%c", p ? p[2] : '?');
    }
    printf("\n");
}

static void settle(void) { usleep(100 * 1000); }

static void hup_handler(int s) { (void)s; }
static void *idle_thread(void *arg) {
    if (arg) set_mask(BIT(SIGUSR1) | BIT(34)); /* unblocks SIGHUP only */
    for (;;) pause();
    return NULL;
}

static void group_stop(void) {
    int rdy[2];
    if (pipe(rdy)) exit(1);
    set_mask(BIT(SIGCHLD));
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        struct rlimit rl = {100, 100};
        setrlimit(RLIMIT_SIGPENDING, &rl);
        if (setresuid(54322, 54322, 54322)) _exit(9);
        signal(SIGPIPE, SIG_IGN);
        signal(SIGUSR2, hup_handler);
        set_mask(BIT(SIGUSR1) | BIT(SIGHUP) | BIT(34));
        pthread_t t;
        pthread_create(&t, NULL, idle_thread, NULL);
        pthread_create(&t, NULL, idle_thread, (void *)1);
        kill(getpid(), SIGUSR1);
        sigqueue(getpid(), 34, (union sigval){.sival_int = 1});
        sigqueue(getpid(), 34, (union sigval){.sival_int = 2});
        syscall(SYS_tgkill, getpid(), gettid(), SIGHUP);
        if (write(rdy[1], "r", 1) != 1) _exit(8);
        for (;;) pause();
    }
    char b;
    if (read(rdy[0], &b, 1) != 1) exit(1);
    settle();
    char path[64], tpath[64];
    snprintf(path, sizeof path, "/proc/%d/status", c);
    status_lines("proc_running_status", path);
    snprintf(path, sizeof path, "/proc/%d/stat", c);
    stat_fields("proc_running_stat", path);
    /* the second thread (unblocked all) */
    {
        char dpath[64];
        snprintf(dpath, sizeof dpath, "/proc/%d/task", c);
        DIR *d = opendir(dpath);
        struct dirent *e;
        int max = 0;
        while (d && (e = readdir(d)))
            if (atoi(e->d_name) > max) max = atoi(e->d_name);
        if (d) closedir(d);
        snprintf(tpath, sizeof tpath, "/proc/%d/task/%d/status", c, max);
        status_lines("proc_running_thread2_status", tpath);
        snprintf(tpath, sizeof tpath, "/proc/%d/task/%d/stat", c, max);
        stat_fields("proc_running_thread2_stat", tpath);
    }
    thread_states("running", c);

    kill(c, SIGSTOP);
    chld_info("stop_sigchld", c);
    thread_states("stopped", c);
    snprintf(path, sizeof path, "/proc/%d/status", c);
    status_lines("proc_stopped_status", path);
    snprintf(path, sizeof path, "/proc/%d/stat", c);
    stat_fields("proc_stopped_stat", path);
    wid("stop_waitid_wstopped_wnowait", c, WSTOPPED | WNOWAIT | WNOHANG);
    wp("stop_waitpid_no_flags_wnohang", c, WNOHANG);
    wp("stop_waitpid_wcontinued_wnohang", c, WCONTINUED | WNOHANG);
    wp("stop_waitpid_wuntraced", c, WUNTRACED | WNOHANG);
    wp("stop_waitpid_wuntraced_again", c, WUNTRACED | WNOHANG);
    wid("stop_waitid_wstopped_again", c, WSTOPPED | WNOHANG);

    kill(c, SIGSTOP);
    no_chld("stop_again_sigchld");
    snprintf(path, sizeof path, "/proc/%d/status", c);
    status_lines("proc_stopped_twice_status", path);
    wp("stop_again_waitpid_wuntraced", c, WUNTRACED | WNOHANG);

    kill(c, SIGCONT);
    chld_info("cont_sigchld", c);
    settle();
    thread_states("continued", c);
    status_lines("proc_continued_status", path);
    wp("cont_waitpid_wuntraced", c, WUNTRACED | WNOHANG);
    wid("cont_waitid_wcontinued_wnowait", c, WCONTINUED | WNOWAIT | WNOHANG);
    wp("cont_waitpid_wcontinued", c, WCONTINUED | WNOHANG);
    wp("cont_waitpid_wcontinued_again", c, WCONTINUED | WNOHANG);
    kill(c, SIGCONT);
    no_chld("cont_when_running_sigchld");
    wp("cont_when_running_waitpid_wcontinued", c, WCONTINUED | WNOHANG);

    kill(c, SIGTSTP);
    chld_info("tstp_sigchld", c);
    wid("tstp_waitid_wstopped", c, WSTOPPED | WNOHANG);
    kill(c, SIGCONT);
    chld_info("tstp_cont_sigchld", c);
    wid("tstp_cont_waitid_wcontinued", c, WCONTINUED | WNOHANG);

    kill(c, SIGTTIN);
    chld_info("ttin_sigchld", c);
    kill(c, SIGCONT);
    chld_info("ttin_cont_sigchld", c);
    /* stop then continue before the parent waits: only the continue is reported */
    kill(c, SIGTTOU);
    chld_info("ttou_sigchld", c);
    kill(c, SIGCONT);
    chld_info("ttou_cont_sigchld", c);
    wp("ttou_cont_waitpid_wuntraced_wcontinued", c, WUNTRACED | WCONTINUED | WNOHANG);
    wp("ttou_cont_waitpid_again", c, WUNTRACED | WCONTINUED | WNOHANG);

    /* SA_NOCLDSTOP: no SIGCHLD for stop or continue, waits still report */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hup_handler;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    kill(c, SIGSTOP);
    no_chld("nocldstop_stop_sigchld");
    settle();
    wp("nocldstop_stop_waitpid_wuntraced", c, WUNTRACED | WNOHANG);
    kill(c, SIGCONT);
    no_chld("nocldstop_cont_sigchld");
    wp("nocldstop_cont_waitpid_wcontinued", c, WCONTINUED | WNOHANG);
    signal(SIGCHLD, SIG_DFL);

    kill(c, SIGSTOP);
    chld_info("kill_stopped_stop_sigchld", c);
    kill(c, SIGKILL);
    chld_info("kill_stopped_sigchld", c);
    wp("kill_stopped_waitpid", c, WUNTRACED | WCONTINUED);
    set_mask(0);
}

static pid_t orphan_child(int rdy_w, int ignore_hup) {
    pid_t g = fork();
    if (g == 0) {
        setpgid(0, 0);
        if (ignore_hup) signal(SIGHUP, SIG_IGN);
        if (write(rdy_w, "r", 1) != 1) _exit(8);
        for (;;) pause();
    }
    return g;
}

static char state_of(pid_t p) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", p);
    slurp(path, buf, sizeof buf);
    char *q = strrchr(buf, ')');
    return q ? q[2] : '?';
}

static void orphaned(void) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int rdy[2], gp[2];
    if (pipe(rdy) || pipe(gp)) exit(1);
    fflush(stdout);
    pid_t m = fork();
    if (m == 0) {
        setsid();
        pid_t g = orphan_child(rdy[1], 0);
        if (write(gp[1], &g, sizeof g) != sizeof g) _exit(8);
        char b;
        /* exit when told */
        if (read(rdy[0], &b, 1) != 1) _exit(8);
        pause();
        _exit(0);
    }
    pid_t g;
    char b;
    if (read(gp[0], &g, sizeof g) != sizeof g) exit(1);
    settle();
    /* not orphaned yet: its parent m is in the same session, another pgrp */
    kill(g, SIGTSTP);
    settle();
    printf("not_orphaned_tstp state=%c\n", state_of(g));
    kill(g, SIGCONT);
    settle();
    printf("not_orphaned_cont state=%c\n", state_of(g));
    kill(m, SIGKILL);
    waitpid(m, NULL, 0);
    settle();
    {
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%d/stat", g);
        slurp(path, buf, sizeof buf);
        char *q = strrchr(buf, ')');
        int ppid = 0;
        if (q) sscanf(q + 2, "%*c %d", &ppid);
        printf("orphaned_reparented ppid=%s\n", ppid == getpid() ? "self_subreaper" : "other");
    }
    kill(g, SIGTSTP);
    settle();
    printf("orphaned_tstp state=%c\n", state_of(g));
    wp("orphaned_tstp_waitpid", g, WUNTRACED | WNOHANG);
    kill(g, SIGTTIN);
    kill(g, SIGTTOU);
    settle();
    printf("orphaned_ttin_ttou state=%c\n", state_of(g));
    kill(g, SIGSTOP);
    settle();
    printf("orphaned_stop state=%c\n", state_of(g));
    wp("orphaned_stop_waitpid", g, WUNTRACED | WNOHANG);
    kill(g, SIGKILL);
    wp("orphaned_kill_waitpid", g, 0);
    (void)b;

    /* a stopped pgrp that becomes orphaned gets SIGHUP then SIGCONT */
    for (int ign = 0; ign <= 1; ign++) {
        const char *k = ign ? "orphaning_stopped_hup_ignored" : "orphaning_stopped_hup_dfl";
        char key[96];
        m = fork();
        if (m == 0) {
            setsid();
            pid_t g2 = orphan_child(rdy[1], ign);
            if (write(gp[1], &g2, sizeof g2) != sizeof g2) _exit(8);
            pause();
            _exit(0);
        }
        if (read(gp[0], &g, sizeof g) != sizeof g) exit(1);
        if (read(rdy[0], &b, 1) != 1) exit(1);
        kill(g, SIGSTOP);
        settle();
        snprintf(key, sizeof key, "%s_before state=%c\n", k, state_of(g));
        printf("%s", key);
        kill(m, SIGKILL);
        waitpid(m, NULL, 0);
        settle();
        snprintf(key, sizeof key, "%s_wait", k);
        wp(key, g, WUNTRACED | WCONTINUED);
        if (ign) {
            printf("%s_after state=%c\n", k, state_of(g));
            kill(g, SIGKILL);
            waitpid(g, NULL, 0);
        }
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
}

struct pd {
    int rdy[2];
    pid_t c;
};

static void *pdeath_thread(void *arg) {
    struct pd *p = arg;
    pid_t parent = getpid();
    fflush(stdout);
    p->c = fork();
    if (p->c == 0) {
        set_mask(BIT(SIGUSR1));
        prctl(PR_SET_PDEATHSIG, SIGUSR1);
        pid_t d = fork();
        if (d == 0) {
            int s = -1;
            prctl(PR_GET_PDEATHSIG, &s);
            printf("pdeath_fork_child get=%d\n", s);
            fflush(stdout);
            _exit(0);
        }
        waitpid(d, NULL, 0);
        if (write(p->rdy[1], "r", 1) != 1) _exit(8);
        u64 set = BIT(SIGUSR1);
        siginfo_t si;
        memset(&si, 0, sizeof si);
        struct timespec ts = {2, 0};
        long r = syscall(SYS_rt_sigtimedwait, &set, &si, &ts, 8);
        if (r < 0)
            printf("pdeath_thread_exit ret=-1 errno=%s\n", en(errno));
        else
            printf("pdeath_thread_exit sig=%ld si_code=%d si_pid=%s ppid_after=%s\n", r,
                   si.si_code, who(si.si_pid, 0, parent), getppid() == parent ? "parent" : "other");
        fflush(stdout);
        _exit(0);
    }
    char b;
    if (read(p->rdy[0], &b, 1) != 1) exit(1);
    return NULL;
}

static void pdeath(void) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        struct pd d;
        if (pipe(d.rdy)) _exit(1);
        pthread_t t;
        pthread_create(&t, NULL, pdeath_thread, &d);
        pthread_join(t, NULL);
        waitpid(d.c, NULL, 0);
        _exit(0);
    }
    waitpid(p, NULL, 0);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    group_stop();
    orphaned();
    pdeath();
    return 0;
}
