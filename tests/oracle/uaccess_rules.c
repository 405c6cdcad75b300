/* Records where Linux's copy_from_user() refuses a pointer argument with
 * EFAULT inside the user half: a page no VMA covers, a PROT_NONE page, a
 * range running from a mapped page into an unmapped one; and where it
 * reads a read-only page. Each line is "CASE -> RESULT". The memory:
 *   rw   a read-write page (a capset header at rw+512),
 *   ro   a read-only page (zeros; a struct clone_args at ro+1024 asking
 *        CLONE_NEWNS|CLONE_FS, refused with EINVAL once read),
 *   none a PROT_NONE page,
 *   hole an unmapped page above a read-write one; "straddle" is 4 bytes
 *        below the hole.
 * The test (tests/it/oracle_uaccess.rs) maps the same pages on the core
 * and decodes the same registers through TaskMemory. Re-record with
 * tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096L

static void out(const char *name, long r) {
    const char *e = "OTHER";
    if (r >= 0) e = "ok";
    else if (errno == EFAULT) e = "EFAULT";
    else if (errno == EINVAL) e = "EINVAL";
    else if (errno == EAGAIN) e = "EAGAIN";
    else if (errno == EPERM) e = "EPERM";
    printf("%s -> %s\n", name, e);
}

int main(void) {
    char *rw = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *hole = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rw == MAP_FAILED || hole == MAP_FAILED) return 1;
    char *ro = rw + PAGE, *none = rw + 2 * PAGE;
    uint64_t ca[11] = {CLONE_NEWNS | CLONE_FS};
    memcpy(ro + 1024, ca, sizeof ca);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    memcpy(rw + 512, &h, sizeof h);
    mprotect(ro, PAGE, PROT_READ);
    mprotect(none, PAGE, PROT_NONE);
    munmap(hole + PAGE, PAGE);
    char *gap = hole + PAGE, *straddle = hole + PAGE - 4;
    struct { const char *n; char *p; } at[] = {{"rw", rw}, {"ro", ro}, {"none", none}, {"hole", gap}, {"straddle", straddle}};
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "rt_sigprocmask_%s", at[i].n);
        out(name, syscall(SYS_rt_sigprocmask, SIG_BLOCK, at[i].p, NULL, 8));
        snprintf(name, sizeof name, "rt_sigaction_%s", at[i].n);
        out(name, syscall(SYS_rt_sigaction, SIGUSR1, at[i].p, NULL, 8));
        snprintf(name, sizeof name, "rt_sigtimedwait_%s", at[i].n);
        out(name, syscall(SYS_rt_sigtimedwait, at[i].p, NULL, rw + 256, 8));
        snprintf(name, sizeof name, "prlimit64_core_%s", at[i].n);
        out(name, syscall(SYS_prlimit64, 0, RLIMIT_CORE, at[i].p, NULL));
    }
    out("clone3_ro", syscall(SYS_clone3, ro + 1024, 88));
    out("clone3_none", syscall(SYS_clone3, none, 88));
    out("clone3_hole", syscall(SYS_clone3, gap, 88));
    out("clone3_straddle", syscall(SYS_clone3, hole + PAGE - 64, 88));
    out("capset_none", syscall(SYS_capset, rw + 512, none));
    out("capset_hole", syscall(SYS_capset, rw + 512, gap));
    out("capset_header_none", syscall(SYS_capset, none, rw));
    return 0;
}
