/* Random address-space operations on the real kernel, for differential
 * tests of taskcore's mm (crates/taskcore/tests/it/mm_oracle.rs).
 *
 * usage: mmgen SEED NOPS FILE
 * One process reserves a 16 MiB region (PROT_NONE) and performs NOPS random
 * operations inside it: mmap (anonymous or of FILE, private or shared, four
 * protections, MAP_FIXED, MAP_FIXED_NOREPLACE, or a hint in a hole without
 * MAP_FIXED), munmap, mprotect (also over holes), mremap (shrink, grow in
 * place, MAYMOVE|FIXED to a target, DONTUNMAP), madvise(MADV_DONTNEED) and
 * brk. It prints each operation with addresses as page offsets from the
 * region (brk: from the initial break) and its result, then the region's
 * /proc/self/maps lines with relative addresses. Pages are never touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PG 4096UL
#define NPAGES 4096UL /* 16 MiB */

static uint64_t rng;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint64_t below(uint64_t n) { return n ? next() % n : 0; }

static char *base;

static const char *err(void) { return strerrorname_np(errno); }

static void res_addr(void *p) {
    if (p == MAP_FAILED)
        printf(" = %s\n", err());
    else if ((char *)p >= base && (char *)p < base + NPAGES * PG)
        printf(" = @%lu\n", (unsigned long)(((char *)p - base) / PG));
    else
        printf(" = OUTSIDE\n");
}

static void res_int(int r) {
    if (r < 0)
        printf(" = %s\n", err());
    else
        printf(" = 0\n");
}

/* Whether no page of [p, p + n pages) is mapped (mincore: ENOMEM). */
static int all_free(char *p, uint64_t n) {
    unsigned char v;
    for (uint64_t i = 0; i < n; i++)
        if (mincore(p + i * PG, PG, &v) == 0 || errno != ENOMEM)
            return 0;
    return 1;
}

static const int PROTS[4] = {PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC};

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: mmgen SEED NOPS FILE\n");
        return 2;
    }
    rng = strtoull(argv[1], 0, 10) * 2654435761ULL + 88172645463325252ULL;
    int nops = atoi(argv[2]);
    int fd = open(argv[3], O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, 64 * PG) != 0) {
        perror(argv[3]);
        return 1;
    }
    struct stat st;
    fstat(fd, &st);
    base = mmap(NULL, NPAGES * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return 1;
    /* Moves of the break stay above everything malloc has: stdio gets a
     * static buffer, malloc is set up first, and the break is put back
     * before the final read of maps. */
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    free(malloc(1));
    char *brk0 = sbrk(0);
    printf("FILE %u:%u %lu\n", major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino);
    for (int i = 0; i < nops; i++) {
        uint64_t op = below(100);
        uint64_t pg = below(NPAGES - 64), n = 1 + below(48);
        int prot = PROTS[below(4)];
        if (op < 30) { /* mmap */
            int file = below(3) == 0;
            int shared = below(3) == 0;
            uint64_t off = file ? below(32) : 0;
            int kind = below(10); /* 0-6 FIXED, 7-8 NOREPLACE, 9 hint */
            if (kind == 9) {
                /* A hint is honoured when its range is free; where it is
                 * not, the kernel's choice depends on the whole address
                 * space. So hint only free ranges (else NOREPLACE). */
                int tries = 0;
                while (!all_free(base + pg * PG, n) && ++tries < 64)
                    pg = below(NPAGES - 64);
                if (!all_free(base + pg * PG, n))
                    kind = 8;
            }
            int flags = (shared ? MAP_SHARED : MAP_PRIVATE) | (file ? 0 : MAP_ANONYMOUS) |
                        (kind < 7 ? MAP_FIXED : kind < 9 ? MAP_FIXED_NOREPLACE : 0);
            printf("mmap @%lu %lu prot=%d flags=%#x file=%d off=%lu", (unsigned long)pg,
                   (unsigned long)n, prot, flags, file, (unsigned long)off);
            void *p = mmap(base + pg * PG, n * PG, prot, flags, file ? fd : -1, off * PG);
            res_addr(p);
            if (p != MAP_FAILED && ((char *)p < base || (char *)p >= base + NPAGES * PG))
                munmap(p, n * PG); /* placed elsewhere: undo, as the test does */
        } else if (op < 45) {
            printf("munmap @%lu %lu", (unsigned long)pg, (unsigned long)n);
            res_int(munmap(base + pg * PG, n * PG));
        } else if (op < 65) {
            printf("mprotect @%lu %lu prot=%d", (unsigned long)pg, (unsigned long)n, prot);
            res_int(mprotect(base + pg * PG, n * PG, prot));
        } else if (op < 88) {
            uint64_t kind = below(4), n2 = 1 + below(48), to = below(NPAGES - 64);
            void *p;
            if (kind == 0) { /* shrink */
                n2 = 1 + below(n);
                printf("mremap @%lu %lu %lu flags=0", (unsigned long)pg, (unsigned long)n, (unsigned long)n2);
                p = mremap(base + pg * PG, n * PG, n2 * PG, 0);
            } else if (kind == 1) { /* grow in place */
                printf("mremap @%lu %lu %lu flags=0", (unsigned long)pg, (unsigned long)n, (unsigned long)(n + n2));
                p = mremap(base + pg * PG, n * PG, (n + n2) * PG, 0);
            } else if (kind == 2) { /* move */
                printf("mremap @%lu %lu %lu flags=3 to=@%lu", (unsigned long)pg, (unsigned long)n,
                       (unsigned long)n2, (unsigned long)to);
                p = mremap(base + pg * PG, n * PG, n2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, base + to * PG);
            } else { /* DONTUNMAP: same size */
                printf("mremap @%lu %lu %lu flags=7 to=@%lu", (unsigned long)pg, (unsigned long)n,
                       (unsigned long)n, (unsigned long)to);
                p = mremap(base + pg * PG, n * PG, n * PG,
                           MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, base + to * PG);
            }
            res_addr(p);
        } else if (op < 95) {
            printf("madvise_dontneed @%lu %lu", (unsigned long)pg, (unsigned long)n);
            res_int(madvise(base + pg * PG, n * PG, MADV_DONTNEED));
        } else {
            uint64_t d = below(64);
            char *want = brk0 + d * PG;
            printf("brk +%lu", (unsigned long)d);
            char *got = (char *)syscall(SYS_brk, want); /* SYS_brk: the raw result */
            printf(" = +%ld\n", (long)((got - brk0) / (long)PG));
        }
    }
    syscall(SYS_brk, brk0);
    fflush(stdout);
    printf("MAPS\n");
    FILE *m = fopen("/proc/self/maps", "r");
    char line[512];
    while (fgets(line, sizeof line, m)) {
        unsigned long s, e;
        char perms[5], dev[16], path[256] = "";
        unsigned long off, ino;
        if (sscanf(line, "%lx-%lx %4s %lx %15s %lu %255[^\n]", &s, &e, perms, &off, dev, &ino, path) < 6)
            continue;
        if (s < (unsigned long)base || s >= (unsigned long)base + NPAGES * PG)
            continue;
        char *p = path;
        while (*p == ' ') p++;
        const char *kind = ino == 0 ? "ANON" : strncmp(p, "/dev/zero", 9) == 0 ? "SHMEM" : "FILE";
        printf("%lu-%lu %s %lx %s\n", (s - (unsigned long)base) / PG, (e - (unsigned long)base) / PG,
               perms, off, kind);
    }
    return 0;
}
