/* Drops capabilities step by step and tries what each one gates: unshare
 * and clone with CLONE_NEW* (CAP_SYS_ADMIN), kill of a root process
 * (CAP_KILL), setresgid (CAP_SETGID), then execs itself (as root with a
 * reduced bounding set and as uid 1000 with an ambient capability) to show
 * the sets exec gives. Recorded by ../record.sh (capdrop). Run as root. */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static struct __user_cap_data_struct d[2];

static void get(void) {
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    syscall(SYS_capget, &h, d);
}

static int set(uint64_t e, uint64_t p, uint64_t i) {
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct n[2] = {{e, p, i}, {e >> 32, p >> 32, i >> 32}};
    return syscall(SYS_capset, &h, n);
}

static uint64_t prm(void) { return d[0].permitted | (uint64_t)d[1].permitted << 32; }

/* Everything exec's answer depends on: the bounding and ambient sets and
 * the securebits, read so that a replay knows them. */
static void show_all(void) {
    for (int c = 0; c <= 40; c++) {
        prctl(PR_CAPBSET_READ, c);
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0);
    }
    prctl(PR_GET_SECUREBITS);
    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
    get();
}

static void child(void (*f)(void)) {
    pid_t p = fork();
    if (p == 0) {
        f();
        _exit(0);
    }
    waitpid(p, NULL, 0);
}

static char *self;

static void exec_self(void) {
    show_all();
    char *argv[] = {self, "after-exec", NULL};
    execv("/proc/self/exe", argv);
    _exit(1);
}

static void try_unshare_child(void) {
    unshare(CLONE_NEWNS);
    unshare(CLONE_NEWUTS);
}

static void as_user(void) {
    const uint64_t k = 1ull << CAP_KILL, admin = 1ull << CAP_SYS_ADMIN;
    prctl(PR_SET_KEEPCAPS, 1);
    setresgid(1000, 1000, 1000);
    setresuid(1000, 1000, 1000);
    get();
    kill(getppid(), 0);
    set(k, k | admin, k);
    set(k, k, k);
    kill(getppid(), 0);
    unshare(CLONE_NEWUTS);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_KILL, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_ADMIN, 0, 0);
    setresgid(1001, 1001, 1001);
    exec_self();
}

int main(int argc, char **argv) {
    self = argv[0];
    if (argc > 1) {
        /* after exec: what the new image got */
        get();
        unshare(CLONE_NEWUTS);
        kill(getppid(), 0);
        return 0;
    }
    const uint64_t admin = 1ull << CAP_SYS_ADMIN;
    get();
    uint64_t all = prm();
    unshare(CLONE_NEWUTS);
    /* not effective, still permitted */
    set(all & ~admin, all, 0);
    unshare(CLONE_NEWUTS);
    syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0) == 0 ? _exit(0) : (void)wait(NULL);
    set(all, all, 0);
    unshare(CLONE_NEWUTS);
    /* gone from permitted: a child inherits the loss */
    set(all & ~admin, all & ~admin, 0);
    child(try_unshare_child);
    /* no way back */
    set(all, all, 0);
    prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN);
    prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN);
    prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN);
    /* uid 1000 keeping some capabilities, one of them ambient */
    child(as_user);
    /* root with a smaller bounding set and permitted set: exec gives the
     * bounding set back as permitted, never CAP_SYS_ADMIN */
    set(1ull << CAP_SETPCAP, 1ull << CAP_SETPCAP | 1ull << CAP_KILL, 0);
    child(exec_self);
    prctl(PR_CAPBSET_DROP, CAP_KILL);
    get();
    return 0;
}
