/* Records Linux's user-namespace rules: CLONE_NEWUSER in unshare and
 * clone, the uid_map/gid_map/setgroups writes (one line unprivileged,
 * setgroups "deny" before an unprivileged gid_map), the capabilities a
 * namespace's creator holds in it and not above it, the overflow ids
 * (65534) for unmapped ids in getresuid, getgroups, /proc/PID/status and
 * si_uid, and a pid namespace owned by a user namespace
 * (`unshare --user --pid --fork`).
 *
 * Each case runs its ops, in order, in a fresh child of this process; each
 * op prints one line
 *   CASE OP ARGS -> RESULT | ids=R,E,S gids=R,E,S status=U,U,U,U/G,G,G,G groups=.. eff=.. prm=..
 * (the ids from getresuid/getresgid, /proc/self/status's Uid and Gid
 * lines, getgroups, CapEff and CapPrm). The first line, "start | STATE", is
 * this process's own state. In an op's arguments "$U" and "$G" stand for
 * the effective uid and gid this program started with (the printed lines
 * carry the numbers); in a map text "_" is a space and "~" a newline.
 *
 * Recorded twice: as root (userns_rules.out) and as uid 1000
 * (userns_rules_user.out, `setpriv --reuid=1000 --regid=1000
 * --clear-groups`). The test (tests/it/oracle_userns.rs) parses the ops
 * back from the lines. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned start_uid, start_gid;

static const char *ename(int e) {
    switch (e) {
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    case EFAULT: return "EFAULT";
    case EAGAIN: return "EAGAIN";
    case EACCES: return "EACCES";
    case ENOSPC: return "ENOSPC";
    case EUSERS: return "EUSERS";
    default: return "OTHER";
    }
}

/* The status line KEY's four tab-separated numbers as "a,b,c,d"; the
 * Groups line's as "a,b" (empty for none). */
static void status_ids(const char *path, const char *key, char *out, size_t n) {
    FILE *f = fopen(path, "r");
    char line[512];
    out[0] = 0;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl)) continue;
        char *p = line + kl, *o = out;
        while (*p == '\t' || *p == ' ') p++;
        for (; *p && *p != '\n' && (size_t)(o - out) < n - 1; p++) *o++ = (*p == '\t' || *p == ' ') ? ',' : *p;
        while (o > out && o[-1] == ',') o--;
        *o = 0;
    }
    if (f) fclose(f);
}

static void cap_line(const char *key, char *out) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    out[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) {
            memcpy(out, line + strlen(key), 16);
            out[16] = 0;
        }
    if (f) fclose(f);
}

static void state(char *out, size_t n) {
    uid_t r, e, s;
    gid_t gr, ge, gs;
    getresuid(&r, &e, &s);
    getresgid(&gr, &ge, &gs);
    char su[64], sg[64], gl[128] = "", eff[17], prm[17];
    status_ids("/proc/self/status", "Uid:", su, sizeof su);
    status_ids("/proc/self/status", "Gid:", sg, sizeof sg);
    gid_t g[32];
    int ng = getgroups(32, g);
    for (int i = 0; i < ng; i++)
        snprintf(gl + strlen(gl), sizeof gl - strlen(gl), "%s%u", i ? "," : "", g[i]);
    cap_line("CapEff:\t", eff);
    cap_line("CapPrm:\t", prm);
    snprintf(out, n, "ids=%u,%u,%u gids=%u,%u,%u status=%s/%s groups=%s eff=%s prm=%s", r, e, s, gr, ge, gs,
             su, sg, gl, eff, prm);
}

/* "$U"/"$G" replaced by the starting ids. */
static void subst(const char *in, char *out, size_t n) {
    size_t o = 0;
    for (const char *p = in; *p && o < n - 12; p++) {
        if (p[0] == '$' && (p[1] == 'U' || p[1] == 'G')) {
            o += snprintf(out + o, n - o, "%u", p[1] == 'U' ? start_uid : start_gid);
            p++;
        } else out[o++] = *p;
    }
    out[o] = 0;
}

/* A map text: "_" a space, "~" a newline. */
static size_t map_text(const char *in, char *out, size_t n) {
    size_t o = 0;
    for (; *in && o < n - 1; in++) out[o++] = *in == '_' ? ' ' : *in == '~' ? '\n' : *in;
    out[o] = 0;
    return o;
}

/* The file's bytes, newlines as "~" and spaces as "_", runs of spaces
 * kept (the %10u columns). */
static void read_text(const char *path, char *out, size_t n) {
    int fd = open(path, O_RDONLY);
    char buf[512];
    ssize_t k = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0) close(fd);
    if (k < 0) {
        snprintf(out, n, "%s", ename(errno));
        return;
    }
    size_t o = 0;
    for (ssize_t i = 0; i < k && o < n - 1; i++) out[o++] = buf[i] == ' ' ? '_' : buf[i] == '\n' ? '~' : buf[i];
    out[o] = 0;
    if (o == 0) snprintf(out, n, "empty");
}

/* write(2) of text to path at offset 0: "ok" or the errno. */
static const char *write_file(const char *path, const char *text) {
    char buf[512];
    size_t len = map_text(text, buf, sizeof buf);
    int fd = open(path, O_WRONLY);
    if (fd < 0) return ename(errno);
    ssize_t k = write(fd, buf, len);
    int err = errno;
    close(fd);
    return k == (ssize_t)len ? "ok" : ename(err);
}

static long long num(const char *t) {
    return strtoll(t, NULL, 0);
}

/* Runs one op (its tokens); writes the result into res. Returns 1 when the
 * op moved the case into a child (fork_into, clone_into): the caller's
 * process then only waits. */
static int op(char **t, int nt, char *res, size_t n) {
    long r = 0;
    errno = 0;
    const char *o = t[0];
    long long a = nt > 1 ? num(t[1]) : 0, b = nt > 2 ? num(t[2]) : 0, c = nt > 3 ? num(t[3]) : 0;
    char path[64];
    if (!strcmp(o, "unshare")) r = unshare(a);
    else if (!strcmp(o, "write")) {
        /* write FILE TEXT: /proc/self/FILE */
        snprintf(path, sizeof path, "/proc/self/%s", t[1]);
        snprintf(res, n, "%s", write_file(path, t[2]));
        return 0;
    } else if (!strcmp(o, "read")) {
        snprintf(path, sizeof path, "/proc/self/%s", t[1]);
        read_text(path, res, n);
        return 0;
    } else if (!strcmp(o, "status_parent")) {
        char su[64], sg[64];
        snprintf(path, sizeof path, "/proc/%d/status", getppid());
        status_ids(path, "Uid:", su, sizeof su);
        status_ids(path, "Gid:", sg, sizeof sg);
        snprintf(res, n, "%s/%s", su, sg);
        return 0;
    } else if (!strcmp(o, "setuid")) r = setuid(a);
    else if (!strcmp(o, "setgid")) r = setgid(a);
    else if (!strcmp(o, "setresuid")) r = setresuid(a, b, c);
    else if (!strcmp(o, "setresgid")) r = setresgid(a, b, c);
    else if (!strcmp(o, "setgroups")) {
        gid_t g = a;
        r = setgroups(a < 0 ? 0 : 1, &g);
    } else if (!strcmp(o, "kill_parent")) r = kill(getppid(), a);
    else if (!strcmp(o, "setrlimit")) {
        struct rlimit l = {b, c};
        r = setrlimit(a, &l);
    } else if (!strcmp(o, "clone")) {
        r = syscall(SYS_clone, a | SIGCHLD, 0, 0, 0, 0);
        if (r == 0) _exit(0);
        if (r > 0) { waitpid(r, NULL, 0); r = 0; }
    } else if (!strcmp(o, "fork_into") || !strcmp(o, "clone_into")) {
        /* the case goes on in the child; this process waits for it */
        fflush(stdout);
        pid_t p = !strcmp(o, "fork_into") ? fork() : syscall(SYS_clone, a | SIGCHLD, 0, 0, 0, 0);
        if (p < 0) {
            snprintf(res, n, "%s", ename(errno));
            return 0;
        }
        if (p > 0) {
            waitpid(p, NULL, 0);
            return 1;
        }
        /* numbers of a new pid namespace; the host's vary */
        char pp[16];
        snprintf(pp, sizeof pp, "%d", getppid());
        if (getpid() > 10) snprintf(res, n, "pid=host ppid=host");
        else snprintf(res, n, "pid=%d ppid=%s", getpid(), getppid() > 10 ? "host" : pp);
        return 0;
    } else if (!strcmp(o, "child_exit_siuid")) {
        /* a child (clone FLAGS) exits: si_uid of the waitid report */
        pid_t p = syscall(SYS_clone, a | SIGCHLD, 0, 0, 0, 0);
        if (p == 0) _exit(0);
        if (p < 0) {
            snprintf(res, n, "%s", ename(errno));
            return 0;
        }
        siginfo_t si;
        memset(&si, 0, sizeof si);
        waitid(P_PID, p, &si, WEXITED);
        snprintf(res, n, "si_uid=%u", si.si_uid);
        return 0;
    } else if (!strcmp(o, "child_unshare_kill")) {
        /* a child unshares FLAGS and signals this process with SIG */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, b);
        sigprocmask(SIG_BLOCK, &set, NULL);
        pid_t p = fork();
        if (p == 0) {
            int u = unshare(a);
            kill(getppid(), b);
            _exit(u == 0 ? 0 : 1);
        }
        siginfo_t si;
        sigwaitinfo(&set, &si);
        int st;
        waitpid(p, &st, 0);
        snprintf(res, n, "unshare=%s si_uid=%u", WEXITSTATUS(st) == 0 ? "ok" : "failed", si.si_uid);
        return 0;
    } else if (!strcmp(o, "child_userns_recv")) {
        /* child_userns_recv TEXT SIG: a child unshares a user namespace,
         * writes TEXT to its uid_map ("-" for none), and takes SIG sent by
         * this process: its si_uid */
        int sig = b;
        int up[2], down[2];
        if (pipe(up) || pipe(down)) return 0;
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        pid_t p = fork();
        if (p == 0) {
            sigprocmask(SIG_BLOCK, &set, NULL);
            const char *w = "none";
            if (unshare(CLONE_NEWUSER)) w = ename(errno);
            else if (strcmp(t[1], "-")) w = write_file("/proc/self/uid_map", t[1]);
            char msg[64];
            snprintf(msg, sizeof msg, "%s", w);
            if (write(up[1], msg, strlen(msg) + 1) < 0) _exit(1);
            siginfo_t si;
            sigwaitinfo(&set, &si);
            snprintf(msg, sizeof msg, "%u", si.si_uid);
            if (write(up[1], msg, strlen(msg) + 1) < 0) _exit(1);
            _exit(0);
        }
        char w[64] = "", u[64] = "";
        if (read(up[0], w, sizeof w) <= 0) return 0;
        kill(p, sig);
        if (read(up[0], u, sizeof u) <= 0) return 0;
        waitpid(p, NULL, 0);
        snprintf(res, n, "map=%s si_uid=%s", w, u);
        return 0;
    } else if (!strcmp(o, "child_map")) {
        /* child_map FILE TEXT: a child unshares a user namespace; this
         * process writes TEXT to its FILE, then reads it; the child reads
         * its own */
        int up[2], down[2];
        if (pipe(up) || pipe(down)) return 0;
        pid_t p = fork();
        if (p == 0) {
            char x;
            int u = unshare(CLONE_NEWUSER);
            if (write(up[1], u ? "F" : "R", 1) != 1) _exit(1);
            if (read(down[0], &x, 1) != 1) _exit(1);
            char own[256];
            snprintf(path, sizeof path, "/proc/self/%s", t[1]);
            read_text(path, own, sizeof own);
            if (write(up[1], own, strlen(own) + 1) < 0) _exit(1);
            _exit(0);
        }
        char x, own[256] = "", theirs[256];
        if (read(up[0], &x, 1) != 1) return 0;
        snprintf(path, sizeof path, "/proc/%d/%s", p, t[1]);
        const char *w = write_file(path, t[2]);
        read_text(path, theirs, sizeof theirs);
        if (write(down[1], "g", 1) != 1) return 0;
        if (read(up[0], own, sizeof own) <= 0) return 0;
        waitpid(p, NULL, 0);
        snprintf(res, n, "%s parent_view=%s child_view=%s", w, theirs, own);
        return 0;
    } else {
        snprintf(res, n, "UNKNOWN");
        return 0;
    }
    if (r < 0) snprintf(res, n, "%s", ename(errno));
    else snprintf(res, n, "ok");
    return 0;
}

/* Runs ops (";"-separated) of case name. */
static void run_ops(const char *name, const char *ops) {
    char *copy = strdup(ops), *save = NULL;
    for (char *o = strtok_r(copy, ";", &save); o; o = strtok_r(NULL, ";", &save)) {
        while (*o == ' ') o++;
        char text[256];
        subst(o, text, sizeof text);
        char toks[256];
        snprintf(toks, sizeof toks, "%s", text);
        char *t[8] = {0};
        int nt = 0;
        char *s2 = NULL;
        for (char *w = strtok_r(toks, " ", &s2); w && nt < 8; w = strtok_r(NULL, " ", &s2)) t[nt++] = w;
        if (nt == 0) continue;
        char res[600] = "", st[400];
        if (op(t, nt, res, sizeof res)) _exit(0);
        state(st, sizeof st);
        printf("%s %s -> %s | %s\n", name, text, res, st);
        fflush(stdout);
    }
}

static void run(const char *name, const char *ops) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        run_ops(name, ops);
        _exit(0);
    }
    waitpid(p, NULL, 0);
}

int main(void) {
    start_uid = geteuid();
    start_gid = getegid();
    char st[400];
    state(st, sizeof st);
    printf("start | %s\n", st);
    /* CLONE_NEWUSER 0x10000000, CLONE_NEWPID 0x20000000 */
    const char *cases[][2] = {
        {"plain_unshare", "unshare 0x10000000; read uid_map; read gid_map; read setgroups; setuid 0; setgid 0;"
                          " setgroups -1; status_parent; kill_parent 0"},
        {"map_root", "unshare 0x10000000; write uid_map 0_$U_1; write gid_map 0_$G_1; write setgroups deny;"
                     " write gid_map 0_$G_1; write uid_map 0_$U_1; read uid_map; read gid_map; read setgroups;"
                     " status_parent; setgroups -1; setuid 0; setuid 1; setgid 0; write setgroups allow"},
        {"map_rules", "unshare 0x10000000; write uid_map 0_4242_1; write uid_map 0_$U_2; write uid_map x;"
                      " write uid_map 0_$U_0; write uid_map 0_$U; write uid_map 0_$U_1_7; write uid_map 4294967295_$U_1;"
                      " write uid_map 0_$U_1~0_5_1; write uid_map 1_$U_1~; read uid_map; write uid_map 1_$U_1"},
        {"setgroups_file", "unshare 0x10000000; write setgroups junk; write setgroups allow_; write setgroups deny~;"
                           " read setgroups; write setgroups allow; write setgroups deny; write gid_map 5_$G_1;"
                           " read gid_map; setgroups -1; setgid 5; setresgid 5 5 5"},
        {"child_map_one", "child_map uid_map 0_$U_1; child_map gid_map 0_$G_1; child_map setgroups deny"},
        {"child_map_range", "child_map uid_map 0_0_65536; child_map uid_map 0_100000_1000~1000_$U_1;"
                            " child_map gid_map 0_0_65536"},
        {"siginfo_unmapped_sender", "child_unshare_kill 0x10000000 10; child_unshare_kill 0 10"},
        {"siginfo_into_userns", "child_userns_recv - 10; child_userns_recv 1_$U_1 10; child_userns_recv 0_$U_1 12"},
        {"sigchld_siuid", "child_exit_siuid 0; unshare 0x10000000; child_exit_siuid 0; write uid_map 7_$U_1;"
                          " child_exit_siuid 0; child_exit_siuid 0x10000000"},
        {"caps_not_above", "unshare 0x10000000; setrlimit 4 0 0; setrlimit 4 0 100; unshare 0x20000000;"
                           " unshare 0x20000000; clone 0x10000000"},
        {"unshare_user_pid_fork", "unshare 0x30000000; write uid_map 0_$U_1; write setgroups deny;"
                                  " write gid_map 0_$G_1; fork_into; kill_parent 0; fork_into"},
        {"newpid_needs_caps", "unshare 0x20000000"},
        {"clone_newuser", "clone_into 0x10000000; read uid_map; clone_into 0x20000000; read uid_map"},
        {"clone_newuser_pid", "clone_into 0x30000000; write uid_map 0_$U_1; child_exit_siuid 0"},
        {"nested", "unshare 0x10000000; write uid_map 0_$U_1; unshare 0x10000000; write setgroups deny;"
                   " write gid_map 0_$G_1; unshare 0x10000000; read uid_map; read setgroups; write uid_map 0_0_1;"
                   " read uid_map; setuid 0; status_parent; write gid_map 0_0_1; setgroups -1"},
        {"as_uid_1000", "setresgid 1000 1000 1000; setgroups -1; setresuid 1000 1000 1000; unshare 0x10000000;"
                        " write uid_map 0_1000_1; write setgroups deny; write gid_map 0_1000_1; status_parent"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) run(cases[i][0], cases[i][1]);
    return 0;
}
