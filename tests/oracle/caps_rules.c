/* Records Linux's capability rules: capget/capset, the capability prctl
 * options, no_new_privs, how set*id calls and exec move the five sets,
 * and the calls each capability gates. Each case runs its ops, in order,
 * in a fresh child of this root process; each op prints one line
 *   CASE OP ARGS -> RESULT | uid=R,E,S,FS gid=R,E,S,FS inh=.. prm=.. eff=.. bnd=.. amb=.. sb=N nnp=N
 * (the sets as /proc/self/status shows them). The first line, "start |
 * STATE", is this process's own state: the sets its cases start from.
 * The test (tests/oracle_caps.rs) parses the ops back from the lines.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e) {
    switch (e) {
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    case EFAULT: return "EFAULT";
    case EAGAIN: return "EAGAIN";
    default: return "OTHER";
    }
}

static void state(char *out, size_t n) {
    uid_t r, e, s;
    gid_t gr, ge, gs;
    getresuid(&r, &e, &s);
    getresgid(&gr, &ge, &gs);
    int fs = setfsuid(-1), fg = setfsgid(-1);
    char caps[5][17] = {{0}};
    int nnp = -1;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    const char *keys[] = {"CapInh:\t", "CapPrm:\t", "CapEff:\t", "CapBnd:\t", "CapAmb:\t"};
    while (f && fgets(line, sizeof line, f)) {
        for (int i = 0; i < 5; i++)
            if (!strncmp(line, keys[i], 8)) memcpy(caps[i], line + 8, 16);
        if (!strncmp(line, "NoNewPrivs:\t", 12)) nnp = atoi(line + 12);
    }
    if (f) fclose(f);
    snprintf(out, n, "uid=%u,%u,%u,%d gid=%u,%u,%u,%d inh=%s prm=%s eff=%s bnd=%s amb=%s sb=%d nnp=%d",
             r, e, s, fs, gr, ge, gs, fg, caps[0], caps[1], caps[2], caps[3], caps[4],
             prctl(PR_GET_SECUREBITS), nnp);
}

static long long num(const char *t) {
    if (!strcmp(t, "inf")) return -1;
    return strtoll(t, NULL, 0);
}

static pid_t spawned;

/* Runs one op (its tokens); writes the result into res. Returns 1 for
 * exec (the caller re-executes with the rest). */
static int op(char **t, int nt, char *res, size_t n) {
    long r = 0;
    int fsret = 0;
    errno = 0;
    const char *o = t[0];
    long long a = nt > 1 ? num(t[1]) : 0, b = nt > 2 ? num(t[2]) : 0, c = nt > 3 ? num(t[3]) : 0;
    long long d = nt > 4 ? num(t[4]) : 0, e5 = nt > 5 ? num(t[5]) : 0;
    if (!strcmp(o, "setuid")) r = setuid(a);
    else if (!strcmp(o, "setgid")) r = setgid(a);
    else if (!strcmp(o, "setreuid")) r = setreuid(a, b);
    else if (!strcmp(o, "setregid")) r = setregid(a, b);
    else if (!strcmp(o, "setresuid")) r = setresuid(a, b, c);
    else if (!strcmp(o, "setresgid")) r = setresgid(a, b, c);
    else if (!strcmp(o, "setfsuid")) { r = setfsuid(a); fsret = 1; }
    else if (!strcmp(o, "setfsgid")) { r = setfsgid(a); fsret = 1; }
    else if (!strcmp(o, "setgroups")) {
        gid_t g = a;
        r = setgroups(a < 0 ? 0 : 1, &g);
    } else if (!strcmp(o, "capset") || !strcmp(o, "capsetv")) {
        /* capset E P I, or capsetv VERSION PID E P I */
        int v = !strcmp(o, "capsetv");
        struct __user_cap_header_struct h = {v ? (unsigned)a : _LINUX_CAPABILITY_VERSION_3,
                                             v ? (int)b : 0};
        unsigned long long E = v ? c : a, P = v ? d : b, I = v ? e5 : c;
        struct __user_cap_data_struct dd[2] = {{E, P, I}, {E >> 32, P >> 32, I >> 32}};
        r = syscall(SYS_capset, &h, dd);
        if (r < 0 && errno == EINVAL) {
            snprintf(res, n, "EINVAL ver=%#x", h.version);
            return 0;
        }
    } else if (!strcmp(o, "capset_efault")) {
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        r = syscall(SYS_capset, &h, (void *)8);
    } else if (!strcmp(o, "capget") || !strcmp(o, "capget_parent") || !strcmp(o, "capget_null")) {
        /* capget VERSION PID; capget_parent VERSION; capget_null VERSION */
        struct __user_cap_header_struct h = {a, !strcmp(o, "capget_parent") ? getppid() : b};
        struct __user_cap_data_struct dd[2];
        memset(dd, 0xa5, sizeof dd);
        r = syscall(SYS_capget, &h, !strcmp(o, "capget_null") ? NULL : dd);
        if (r == 0 && strcmp(o, "capget_null")) {
            int two = h.version != _LINUX_CAPABILITY_VERSION_1;
            snprintf(res, n, "ok eff=%08x%08x prm=%08x%08x inh=%08x%08x", two ? dd[1].effective : 0,
                     dd[0].effective, two ? dd[1].permitted : 0, dd[0].permitted,
                     two ? dd[1].inheritable : 0, dd[0].inheritable);
            return 0;
        }
        snprintf(res, n, "%s ver=%#x", r == 0 ? "ok" : ename(errno), h.version);
        return 0;
    } else if (!strcmp(o, "prctl")) {
        r = prctl(a, b, c, d, e5);
        if (r >= 0) {
            snprintf(res, n, "ret=%ld", r);
            return 0;
        }
    } else if (!strcmp(o, "exec")) {
        return 1;
    } else if (!strcmp(o, "kill_parent")) r = kill(getppid(), a);
    else if (!strcmp(o, "unshare")) r = unshare(a);
    else if (!strcmp(o, "setns_pid")) {
        int fd = open("/proc/self/ns/pid", O_RDONLY);
        r = setns(fd, CLONE_NEWPID);
        int err = errno;
        close(fd);
        errno = err;
    } else if (!strcmp(o, "clone")) {
        r = syscall(SYS_clone, a | SIGCHLD, 0, 0, 0, 0);
        if (r == 0) _exit(0);
        if (r > 0) { waitpid(r, NULL, 0); r = 0; }
    } else if (!strcmp(o, "fork")) {
        r = fork();
        if (r == 0) _exit(0);
        if (r > 0) { waitpid(r, NULL, 0); r = 0; }
    } else if (!strcmp(o, "setrlimit")) {
        struct rlimit l = {b, c};
        r = setrlimit(a, &l);
    } else if (!strcmp(o, "prlimit_parent")) {
        struct rlimit old;
        r = prlimit(getppid(), a, NULL, &old);
    } else if (!strcmp(o, "spawn")) {
        spawned = fork();
        if (spawned == 0) { pause(); _exit(0); }
    } else if (!strcmp(o, "seize")) {
        r = ptrace(PTRACE_SEIZE, spawned, 0, 0);
    } else if (!strcmp(o, "traceme_after_capset")) {
        /* a child asks PTRACE_TRACEME once this process has run
         * capset(E, P, I) */
        int fd[2];
        if (pipe(fd)) return 0;
        pid_t ch = fork();
        if (ch == 0) {
            char x;
            close(fd[1]);
            if (read(fd[0], &x, 1) != 1) _exit(3);
            _exit(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0 ? 0 : errno == EPERM ? 1 : 2);
        }
        close(fd[0]);
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct dd[2] = {{a, b, c}, {a >> 32, b >> 32, c >> 32}};
        long rc = syscall(SYS_capset, &h, dd);
        int err = errno;
        if (write(fd[1], "x", 1) != 1) return 0;
        close(fd[1]);
        int st;
        waitpid(ch, &st, 0);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 9;
        snprintf(res, n, "capset=%s traceme=%s", rc == 0 ? "ok" : ename(err),
                 code == 0 ? "ok" : code == 1 ? "EPERM" : "OTHER");
        return 0;
    } else if (!strcmp(o, "reap")) {
        kill(spawned, SIGKILL);
        waitpid(spawned, NULL, 0);
    } else {
        snprintf(res, n, "UNKNOWN");
        return 0;
    }
    if (fsret) snprintf(res, n, "ret=%ld", r);
    else if (r < 0) snprintf(res, n, "%s", ename(errno));
    else snprintf(res, n, "ok");
    return 0;
}

/* Runs ops (";"-separated) of case name from the first; exec re-runs this
 * program with the rest. */
static void run_ops(const char *self, const char *name, const char *ops) {
    char *copy = strdup(ops), *save = NULL;
    for (char *o = strtok_r(copy, ";", &save); o; o = strtok_r(NULL, ";", &save)) {
        while (*o == ' ') o++;
        char text[256];
        snprintf(text, sizeof text, "%s", o);
        char *t[8] = {0};
        int nt = 0;
        char *s2 = NULL;
        for (char *w = strtok_r(o, " ", &s2); w && nt < 8; w = strtok_r(NULL, " ", &s2)) t[nt++] = w;
        if (nt == 0) continue;
        char res[160] = "", st[300];
        if (op(t, nt, res, sizeof res)) {
            fflush(stdout);
            const char *rest = save && *save ? save : "";
            char *argv[] = {(char *)self, "--resume", (char *)name, (char *)rest, NULL};
            execv("/proc/self/exe", argv);
            _exit(8);
        }
        state(st, sizeof st);
        printf("%s %s -> %s | %s\n", name, text, res, st);
        fflush(stdout);
    }
}

static void run(const char *self, const char *name, const char *ops) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        run_ops(self, name, ops);
        _exit(0);
    }
    waitpid(p, NULL, 0);
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--resume")) {
        /* The exec op's own line, then the rest. */
        char st[300];
        state(st, sizeof st);
        printf("%s exec -> ok | %s\n", argv[2], st);
        run_ops(argv[0], argv[2], argv[3]);
        return 0;
    }
    char st[300];
    state(st, sizeof st);
    printf("start | %s\n", st);
    /* Sets in hex: SETUID 0x80, SETGID 0x40, KILL 0x20, SETPCAP 0x100,
     * SYS_ADMIN 0x200000, SYS_PTRACE 0x80000, FS mask 0x20000021f|0x8000000. */
    const char *cases[][2] = {
        /* set*id transitions */
        {"drop_all", "setresuid 1000 1000 1000; setresgid 1000 1000 1000; setgroups -1; setresuid 0 0 0"},
        {"keepcaps_setpriv", "prctl 8 1 0 0 0; prctl 7 0 0 0 0; setresuid 1000 1000 1000; setresgid 1000 1000 1000;"
                             " capset 0x40 0x40 0; setresgid 1000 1000 1000; setgroups -1; setgroups 5; setresuid 1001 1001 1001"},
        {"keepcaps_then_exec", "prctl 8 1 0 0 0; setresuid 1000 1000 1000; exec; prctl 7 0 0 0 0"},
        {"seteuid_round_trip", "setresuid -1 1000 -1; setresgid 5 5 5; setresuid -1 0 -1; setreuid 1000 -1; setreuid -1 1000; setuid 0"},
        {"real_root_only", "setresuid 0 1000 1000; setuid 0; setresuid 1000 -1 -1; setresuid -1 -1 1000"},
        {"setuid_user", "setuid 1000; setuid 0"},
        {"fsuid", "setfsuid 1000; setfsuid 0; setfsgid 1000; setresuid 1000 1000 0; setfsuid 0"},
        {"no_setuid_fixup", "prctl 28 4 0 0 0; setresuid 1000 1000 1000; setuid 0; setresuid 1000 1000 1000"},
        {"keepcaps_no_fixup", "prctl 28 0x14 0 0 0; prctl 8 0 0 0 0; prctl 7 0 0 0 0; setresuid 0 1000 1000"},
        /* securebits */
        {"securebits", "prctl 27 0 0 0 0; prctl 28 0x20 0 0 0; prctl 8 1 0 0 0; prctl 28 0x30 0 0 0; prctl 28 0 0 0 0;"
                       " prctl 28 0x1000 0 0 0; prctl 28 0x100000000 0 0 0; prctl 28 0x3f 0 0 0; prctl 28 0xfff 0 0 0"},
        {"securebits_no_setpcap", "capset 0x1fffefffeff 0x1fffefffeff 0; prctl 28 0x10 0 0 0; prctl 8 1 0 0 0; prctl 8 2 0 0 0"},
        /* capset and capget */
        {"capset_rules", "capset 0 0x1fffeffffff 0; capset 0x80 0x80 0; capset 0x40 0x80 0; capset 0xc0 0xc0 0;"
                         " capset 0x80 0x80 0x20; capset 0x80 0x80 0x80; capset 0 0 0x80; capset 0 0 0; capset 0 0 0x80"},
        {"capset_setpcap_inheritable", "capset 0x100 0x100 0x1fffeffffff; capset 0x100 0x100 0x1000000; prctl 24 21 0 0 0;"
                                       " capset 0x100 0x100 0x200000; capset 0x100 0x100 0x200"},
        {"capset_versions", "capsetv 0x20080521 0 0x80 0x80 0; capsetv 0 0 0 0 0; capsetv 0x20080522 1 0x80 0x80 0;"
                            " capsetv 0x20080522 -1 0x80 0x80 0; capsetv 0x19980330 0 0x1000000ff 0x1000000ff 0;"
                            " capsetv 0x20071026 0 0xff 0xff 0; capset_efault; capset 0xffffffffffffffff 0xff 0"},
        {"capget", "capget 0x20080522 0; capget 0x19980330 0; capget 0x20071026 0; capget 0x12345678 0;"
                   " capget_null 0x12345678; capget_null 0x20080522; capget 0x20080522 -1; capget 0x20080522 99999999;"
                   " capset 0x20 0x20 0; capget_parent 0x20080522; capget 0x20080522 0"},
        /* bounding set */
        {"bounding", "prctl 23 5 0 0 0; prctl 23 41 0 0 0; prctl 23 -1 0 0 0; prctl 24 5 0 0 0; prctl 23 5 0 0 0;"
                     " prctl 24 41 0 0 0; capset 0x1fffefffeff 0x1fffefffeff 0; prctl 24 6 0 0 0; prctl 24 41 0 0 0; exec"},
        /* ambient */
        {"ambient", "prctl 47 2 5 0 0; capset 0x1fffeffffff 0x1fffeffffff 0x20; prctl 47 2 5 0 0; prctl 47 1 5 0 0;"
                    " prctl 47 1 6 0 0; prctl 47 2 6 0 0; prctl 47 1 41 0 0; prctl 47 2 5 1 0; prctl 47 9 5 0 0;"
                    " prctl 47 4 1 0 0; prctl 47 3 5 0 0; prctl 47 2 5 0 0; capset 0x1fffeffffff 0x1fffeffffff 0;"
                    " prctl 47 1 5 0 0; capset 0x1fffeffffff 0x1fffeffffff 0x20; prctl 47 2 5 0 0; prctl 47 4 0 0 0"},
        {"ambient_no_raise", "prctl 28 0x40 0 0 0; capset 0x1fffeffffff 0x1fffeffffff 0x20; prctl 47 2 5 0 0"},
        {"ambient_setuid_clears", "prctl 8 1 0 0 0; capset 0x1fffeffffff 0x1fffeffffff 0x20; prctl 47 2 5 0 0; setresuid 1000 1000 1000"},
        {"ambient_exec_user", "prctl 8 1 0 0 0; setresuid 1000 1000 1000; capset 0x2000a0 0x2000a0 0x20; prctl 47 2 5 0 0;"
                              " exec; kill_parent 0; unshare 0x4000000; capset 0 0x20 0; exec"},
        {"ambient_exec_euid_user", "capset 0x1fffeffffff 0x1fffeffffff 0x20; prctl 47 2 5 0 0; setresuid 0 1000 1000; exec"},
        /* exec */
        {"exec_root_regains", "capset 0xff 0xff 0; exec; capset 0xff 0xff 0x300; exec"},
        {"exec_noroot", "prctl 28 1 0 0 0; exec; setresuid 1000 1000 1000; exec"},
        {"exec_real_root", "setresuid 0 1000 1000; exec; setuid 0"},
        {"exec_euid_root", "setresuid 1000 0 0; exec"},
        {"exec_user", "setresuid 1000 1000 1000; exec"},
        {"no_new_privs", "prctl 39 0 0 0 0; prctl 38 1 0 0 0; prctl 39 0 0 0 0; capset 0xff 0xff 0; exec; prctl 38 2 0 0 0;"
                         " prctl 38 1 1 0 0; prctl 39 1 0 0 0; fork"},
        /* calls each capability gates */
        {"kill_cap", "setresuid 1000 1000 1000; kill_parent 0"},
        {"kill_cap_kept", "prctl 8 1 0 0 0; setresuid 1000 1000 1000; kill_parent 0; capset 0x20 0x20 0; kill_parent 0"},
        {"setid_caps", "capset 0x1fffeffff3f 0x1fffeffff3f 0; setuid 1000; setresuid 0 0 1000; setgid 5; setgroups 5;"
                       " setfsuid 7; setfsgid 7; capset 0x1fffeffff7f 0x1fffeffff7f 0; setgid 5; setgroups 5; setfsgid 7"},
        {"sys_admin", "unshare 0x4000000; clone 0x4000000; setns_pid; capset 0x1fffedfffff 0x1fffedfffff 0;"
                      " unshare 0x4000000; unshare 0x20000000; clone 0x20000000; clone 0x4000000; setns_pid"},
        {"sys_admin_user", "prctl 8 1 0 0 0; setresuid 1000 1000 1000; unshare 0x20000000; capset 0x200000 0x200000 0;"
                           " unshare 0x4000000; setns_pid; clone 0x20000000"},
        {"rlimit_root", "setrlimit 7 64 64; setrlimit 7 64 128; setrlimit 7 32 64; prlimit_parent 7; setrlimit 7 128 64"},
        {"rlimit_user", "setresuid 1000 1000 1000; prlimit_parent 7; setrlimit 7 64 64; setrlimit 7 64 65"},
        {"nproc", "prctl 8 1 0 0 0; setresgid 4242 4242 4242; setresuid 4242 4242 4242; setrlimit 6 1 1; fork;"
                  " capset 0x200000 0x200000 0; fork; capset 0 0 0; fork; setrlimit 6 2 2; fork"},
        {"ptrace_caps", "spawn; seize; reap; spawn; capset 0x1fffef7ffff 0x1fffef7ffff 0; seize; reap; spawn; seize; reap"},
        {"traceme_caps", "traceme_after_capset 0x1fffeffffff 0x1fffeffffff 0; traceme_after_capset 0x1fffef7ffff 0x1fffef7ffff 0;"
                         " traceme_after_capset 0x80000 0x80000 0; traceme_after_capset 0 0 0"},
        {"ptrace_caps_user", "prctl 8 1 0 0 0; setresuid 1000 1000 1000; spawn; capset 0 0 0; seize; reap; spawn; seize; reap"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) run(argv[0], cases[i][0], cases[i][1]);
    return 0;
}
