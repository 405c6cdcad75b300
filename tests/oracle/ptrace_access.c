/* Records __ptrace_may_access() as PTRACE_ATTACH, PTRACE_SEIZE (real ids,
 * PTRACE_MODE_ATTACH_REALCREDS) and opening /proc/PID/maps (fs ids,
 * PTRACE_MODE_READ_FSCREDS) and reading /proc/PID/stat (startcode and
 * endcode show 1 to a reader not permitted) and readlink of
 * /proc/PID/ns/pid see it, and
 * prctl(PR_SET_DUMPABLE / PR_GET_DUMPABLE). For each target (a child of root that set its ids and
 * dumpability, then waits) and each caller (another child of root that set
 * its ids), a fresh pair tries one operation and prints its errno (0 for
 * success). Must run as root in the initial user namespace, without Yama.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

struct ids {
    const char *name;
    unsigned r, e, s;    /* uids */
    unsigned gr, ge, gs; /* gids */
    int fsuid;           /* -1: follows euid */
    int dumpable;        /* -1: left as the id change leaves it */
};

static const struct ids targets[] = {
    {"same_dumpable", 1000, 1000, 1000, 2000, 2000, 2000, -1, 1},
    {"same_undumpable", 1000, 1000, 1000, 2000, 2000, 2000, -1, -1},
    {"same_set_undumpable", 1000, 1000, 1000, 2000, 2000, 2000, -1, 0},
    {"suid_differs", 1000, 1000, 1001, 2000, 2000, 2000, -1, 1},
    {"ruid_differs", 1001, 1000, 1000, 2000, 2000, 2000, -1, 1},
    {"egid_differs", 1000, 1000, 1000, 2000, 2001, 2000, -1, 1},
    {"root", 0, 0, 0, 0, 0, 0, -1, -1},
    {"root_undumpable", 0, 0, 0, 0, 0, 0, -1, 0},
};

static const struct ids callers[] = {
    {"user", 1000, 1000, 1000, 2000, 2000, 2000, -1, -1},
    {"user_real_only", 1000, 1001, 1001, 2000, 2001, 2001, -1, -1},
    {"user_effective_only", 1001, 1000, 1000, 2001, 2000, 2000, -1, -1},
    {"user_fsuid_other", 1000, 1000, 1001, 2000, 2000, 2000, 1001, -1},
    {"other_user", 1002, 1002, 1002, 2000, 2000, 2000, -1, -1},
    {"euid_root", 1000, 0, 0, 2000, 2000, 2000, -1, -1},
    {"root", 0, 0, 0, 0, 0, 0, -1, -1},
};

static void set_ids(const struct ids *c) {
    if (c->r == 0 && c->e == 0 && c->s == 0) return;
    if (setresgid(c->gr, c->ge, c->gs) || setresuid(c->r, c->e, c->s)) _exit(90);
    if (c->fsuid >= 0) setfsuid(c->fsuid);
}

static const char *ops[] = {"attach", "seize", "maps", "stat_code_hidden", "ns_readlink"};

/* 1 if fields 26 and 27 (startcode, endcode) of /proc/PID/stat read 1,
 * as do_task_stat() shows them to a reader it does not permit. */
static int stat_code_hidden(pid_t t) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", t);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, sizeof buf, f)) return -1;
    fclose(f);
    char *p = strrchr(buf, ')');
    int field = 2;
    char *start = NULL, *end = NULL;
    for (; *p; p++)
        if (*p == ' ') {
            field++;
            if (field == 26) start = p + 1;
            if (field == 27) end = p + 1;
        }
    return start && end && strncmp(start, "1 ", 2) == 0 && strncmp(end, "1 ", 2) == 0;
}

static int try_op(int op, pid_t t) {
    char path[64];
    long r;
    switch (op) {
    case 0: r = ptrace(PTRACE_ATTACH, t, 0, 0); break;
    case 1: r = ptrace(PTRACE_SEIZE, t, 0, 0); break;
    case 3: return stat_code_hidden(t);
    case 4: {
        char link[64];
        snprintf(path, sizeof path, "/proc/%d/ns/pid", t);
        r = readlink(path, link, sizeof link);
        break;
    }
    default:
        snprintf(path, sizeof path, "/proc/%d/maps", t);
        r = open(path, O_RDONLY);
        if (r >= 0) close(r);
        break;
    }
    return r < 0 ? errno : 0;
}

static void pair(const struct ids *tg, const struct ids *cl, int op) {
    int ready[2], out[2];
    if (pipe(ready) || pipe(out)) exit(1);
    pid_t t = fork();
    if (t == 0) {
        set_ids(tg);
        if (tg->dumpable >= 0 && prctl(PR_SET_DUMPABLE, tg->dumpable)) _exit(91);
        if (write(ready[1], "r", 1) != 1) _exit(92);
        for (;;) pause();
    }
    char b;
    if (read(ready[0], &b, 1) != 1) exit(1);
    pid_t c = fork();
    if (c == 0) {
        set_ids(cl);
        int e = try_op(op, t);
        if (write(out[1], &e, sizeof e) != sizeof e) _exit(93);
        _exit(0);
    }
    int e = -1;
    if (read(out[0], &e, sizeof e) != sizeof e) exit(1);
    waitpid(c, NULL, 0);
    kill(t, SIGKILL);
    waitpid(t, NULL, 0);
    close(ready[0]); close(ready[1]); close(out[0]); close(out[1]);
    printf("%s %s %s %d\n", ops[op], tg->name, cl->name, e);
}

static void dumpable_rules(void) {
    printf("get_dumpable_root %d\n", prctl(PR_GET_DUMPABLE));
    pid_t c = fork();
    if (c == 0) {
        if (setresgid(2000, 2000, 2000) || setresuid(1000, 1000, 1000)) _exit(90);
        printf("get_dumpable_after_setresuid %d\n", prctl(PR_GET_DUMPABLE));
        int r = prctl(PR_SET_DUMPABLE, 2);
        printf("set_dumpable_2 %d %d\n", r, r ? errno : 0);
        r = prctl(PR_SET_DUMPABLE, -1L);
        printf("set_dumpable_minus1 %d %d\n", r, r ? errno : 0);
        r = prctl(PR_SET_DUMPABLE, 1);
        printf("set_dumpable_1 %d %d\n", r, r ? errno : 0);
        printf("get_dumpable_after_set %d\n", prctl(PR_GET_DUMPABLE));
        fflush(stdout);
        pid_t g = fork();
        if (g == 0) {
            printf("get_dumpable_forked_child %d\n", prctl(PR_GET_DUMPABLE));
            fflush(stdout);
            _exit(0);
        }
        waitpid(g, NULL, 0);
        r = prctl(PR_SET_DUMPABLE, 0);
        printf("set_dumpable_0 %d %d\n", r, r ? errno : 0);
        printf("get_dumpable_after_clear %d\n", prctl(PR_GET_DUMPABLE));
        /* A change that keeps the effective and fs ids keeps it. */
        r = setresuid(1000, -1, -1);
        prctl(PR_SET_DUMPABLE, 1);
        r = setresuid(-1, -1, 1000);
        printf("get_dumpable_after_same_ids %d\n", prctl(PR_GET_DUMPABLE));
        fflush(stdout);
        _exit(0);
    }
    waitpid(c, NULL, 0);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    dumpable_rules();
    for (int op = 0; op < 5; op++)
        for (size_t i = 0; i < sizeof targets / sizeof *targets; i++)
            for (size_t j = 0; j < sizeof callers / sizeof *callers; j++)
                pair(&targets[i], &callers[j], op);
    return 0;
}
