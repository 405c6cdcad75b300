/* Logging helpers shared by the oracle tracers (ptrace_edges.c,
 * ptrace_tracer.c): each ptrace call and each wait status word is printed
 * as one line, with pids replaced by names given in order of appearance
 * (tracee, tracee.fork, tracee.clone, ...), so that a recording does not
 * depend on the pid numbers of the run.
 * Lines: "<case> ptrace <REQ> pid=<name> data=<d> ret=<r> errno=<e>",
 * "<case> wait pid=<name> ret=<name|none|-1> status=0x<hex>" (or
 * "errno=<e>" for -1), "<case> eventmsg pid=<name> msg=<name or 0x hex>",
 * "<case> kill <SIG> ret=<r>". `cs` is the current case's name. */
#ifndef TRACER_LOG_H
#define TRACER_LOG_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static struct {
    pid_t pid;
    char name[32];
} names[64];
static int nnames;

/* Gives pid p the name n (the newest name of a reused pid wins). */
static inline void name(pid_t p, const char *n) {
    if (nnames < 64) {
        names[nnames].pid = p;
        snprintf(names[nnames].name, sizeof names[nnames].name, "%s", n);
        nnames++;
    }
}

/* The name of pid p: "0", "-1", a given name, or "unknown". */
static inline const char *pn(pid_t p) {
    if (p == 0) return "0";
    if (p == -1) return "-1";
    for (int i = nnames - 1; i >= 0; i--)
        if (names[i].pid == p) return names[i].name;
    return "unknown";
}

static inline const char *en(int e) {
    switch (e) {
    case EPERM: return "EPERM";
    case ESRCH: return "ESRCH";
    case EIO: return "EIO";
    case EINVAL: return "EINVAL";
    case ECHILD: return "ECHILD";
    case EBUSY: return "EBUSY";
    default: return "OTHER";
    }
}

static const char *cs = "";

/* ptrace(req, p, 0, data), logged. */
static inline long P(enum __ptrace_request req, const char *rn, pid_t p, long data) {
    errno = 0;
    long r = ptrace(req, p, 0, data);
    printf("%s ptrace %s pid=%s data=0x%lx ret=%ld errno=%s\n", cs, rn, pn(p), data, r,
           r < 0 ? en(errno) : "none");
    return r;
}
#define PT(req, p, data) P(req, #req, p, data)

/* The name suffix of the new child an event stop reports, if any. */
static inline const char *event_child_suffix(int ev) {
    switch (ev) {
    case PTRACE_EVENT_FORK: return "fork";
    case PTRACE_EVENT_VFORK: return "vfork";
    case PTRACE_EVENT_CLONE: return "clone";
    default: return NULL;
    }
}

/* waitpid(p, __WALL | WNOHANG | opts) polled for up to `ms` milliseconds
 * (so that a missing report is recorded, not a hang); logs the status under
 * `what` and, for an event stop, its message (naming a new child). Returns
 * the status, -2 if none came, -1 on an error. */
static inline int Wx(pid_t p, int ms, int opts, const char *what) {
    int st = 0;
    pid_t r = 0;
    for (int i = 0; i <= ms / 5 && r == 0; i++) {
        r = waitpid(p, &st, __WALL | WNOHANG | opts);
        if (r == 0) usleep(5000);
    }
    if (r == 0) {
        printf("%s %s pid=%s ret=none\n", cs, what, pn(p));
        return -2;
    }
    if (r < 0) {
        printf("%s %s pid=%s ret=-1 errno=%s\n", cs, what, pn(p), en(errno));
        return -1;
    }
    printf("%s %s pid=%s ret=%s status=0x%x\n", cs, what, pn(p), pn(r), st);
    int ev = (st >> 16) & 0xff;
    if (WIFSTOPPED(st) && ev && ev != PTRACE_EVENT_STOP) {
        unsigned long msg = 0;
        ptrace(PTRACE_GETEVENTMSG, r, 0, &msg);
        const char *sfx = event_child_suffix(ev);
        if (sfx) {
            char n[32];
            snprintf(n, sizeof n, "%s.%s", pn(r), sfx);
            name((pid_t)msg, n);
        }
        if (ev == PTRACE_EVENT_EXIT)
            printf("%s eventmsg pid=%s msg=0x%lx\n", cs, pn(r), msg);
        else
            printf("%s eventmsg pid=%s msg=%s\n", cs, pn(r), pn((pid_t)msg));
    }
    return st;
}

/* Wx() for ptrace stops and exits: a "wait" line. */
static inline int Wt(pid_t p, int ms) { return Wx(p, ms, 0, "wait"); }

/* A report that should come: up to 2 s. */
static inline int W(pid_t p) { return Wt(p, 2000); }
/* A report that should not come: a short poll. */
static inline int Wq(pid_t p) { return Wt(p, 200); }

/* kill(p, sig), logged under the signal's name sn. */
static inline void K(pid_t p, int sig, const char *sn) {
    printf("%s kill %s ret=%d\n", cs, sn, kill(p, sig));
}

#endif
