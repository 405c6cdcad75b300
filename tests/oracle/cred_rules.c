/* Records Linux's set*id rules. Each case runs in a fresh child of a root
 * process: it sets its gids then its uids (with setresgid/setresuid as
 * root), makes one call, and prints
 *   <call> uids=R,E,S gids=R,E,S args=A,B,C -> <ok|ERRNO|ret=N> uid=R,E,S,FS gid=R,E,S,FS
 * (-1 is "unchanged"; unused args are -1). The test replays every line.
 * Must run as root. Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e) {
    return e == EPERM ? "EPERM" : e == EINVAL ? "EINVAL" : "OTHER";
}

static void run(const char *call, int ur, int ue, int us, int gr, int ge, int gs, int a, int b,
                int c) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        if (setgroups(0, NULL) || setresgid(gr, ge, gs) || setresuid(ur, ue, us)) _exit(9);
        long r = 0;
        int fs = 0;
        if (!strcmp(call, "setuid")) r = setuid(a);
        else if (!strcmp(call, "setgid")) r = setgid(a);
        else if (!strcmp(call, "setreuid")) r = setreuid(a, b);
        else if (!strcmp(call, "setregid")) r = setregid(a, b);
        else if (!strcmp(call, "setresuid")) r = setresuid(a, b, c);
        else if (!strcmp(call, "setresgid")) r = setresgid(a, b, c);
        else if (!strcmp(call, "setfsuid")) { r = setfsuid(a); fs = 1; }
        else if (!strcmp(call, "setfsgid")) { r = setfsgid(a); fs = 1; }
        char res[32];
        if (fs) snprintf(res, sizeof res, "ret=%ld", r);
        else if (r < 0) snprintf(res, sizeof res, "%s", ename(errno));
        else snprintf(res, sizeof res, "ok");
        uid_t R, E, S;
        gid_t GR, GE, GS;
        getresuid(&R, &E, &S);
        getresgid(&GR, &GE, &GS);
        int FS = setfsuid(-1), FG = setfsgid(-1);
        printf("%s uids=%d,%d,%d gids=%d,%d,%d args=%d,%d,%d -> %s uid=%u,%u,%u,%d gid=%u,%u,%u,%d\n",
               call, ur, ue, us, gr, ge, gs, a, b, c, res, R, E, S, FS, GR, GE, GS, FG);
        fflush(stdout);
        _exit(0);
    }
    waitpid(p, NULL, 0);
}

int main(void) {
    const char *u[] = {"setuid", "setreuid", "setresuid", "setfsuid"};
    const char *g[] = {"setgid", "setregid", "setresgid", "setfsgid"};
    /* Starting points: root; plain user; root real with user effective;
     * user with a distinct saved id; user real, root saved. */
    int starts[][3] = {{0, 0, 0}, {1000, 1000, 1000}, {0, 1000, 0}, {1000, 1001, 1002},
                       {1000, 1000, 0}};
    int args[][3] = {{1000, -1, -1}, {0, -1, -1},      {1001, -1, -1},   {1002, -1, -1},
                     {-1, 1000, -1}, {-1, 1001, -1},   {1000, 1001, -1}, {1001, 1000, -1},
                     {-1, -1, -1},   {1002, 1000, 1001}, {-1, -1, 0},    {1003, -1, -1},
                     {-1, 1002, -1}, {0, 0, 0}};
    for (unsigned s = 0; s < sizeof starts / sizeof *starts; s++) {
        for (unsigned a = 0; a < sizeof args / sizeof *args; a++) {
            int *st = starts[s], *ar = args[a];
            for (int k = 0; k < 4; k++) {
                /* uid calls vary the uids (gids plain 0); gid calls vary the
                 * gids, with uids root or user 1000 (privilege decides). */
                run(u[k], st[0], st[1], st[2], 0, 0, 0, ar[0], ar[1], ar[2]);
                run(g[k], 0, 0, 0, st[0], st[1], st[2], ar[0], ar[1], ar[2]);
                run(g[k], 1000, 1000, 1000, st[0], st[1], st[2], ar[0], ar[1], ar[2]);
            }
        }
    }
    return 0;
}
