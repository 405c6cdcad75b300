/* Records Linux's vm.max_map_count rules at the limit: the address space
 * is filled with one-page mappings of alternating protections (no two
 * merge) until mmap fails; then a munmap or mprotect that would leave one
 * VMA more (a hole or a change strictly inside a VMA) is ENOMEM, one that
 * cuts a VMA's end is not, and freeing one VMA makes room for one split.
 * Each op prints "OP ARGS -> RESULT"; addresses are named: "big" is a
 * four-page read-write mapping made first, "fill" the last one-page
 * mapping of the fill ("fill+1" the one above it). The first line gives the machine's
 * vm.max_map_count. The test (tests/it/oracle_map_count.rs) makes the
 * same ops on the core, with Config::max_map_count from that line.
 * Re-record with tests/oracle/record.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096L

static const char *res(int r) {
    if (r == 0) return "ok";
    switch (errno) {
    case ENOMEM: return "ENOMEM";
    case EINVAL: return "EINVAL";
    default: return "OTHER";
    }
}

int main(void) {
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long max = 0;
    if (!f || fscanf(f, "%ld", &max) != 1) return 1;
    fclose(f);
    printf("max_map_count %ld\n", max);
    char *big = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (big == MAP_FAILED) return 1;
    char *fill = NULL;
    for (long i = 0;; i++) {
        char *p = mmap(NULL, PAGE, i % 2 ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            printf("fill -> %s\n", res(-1));
            break;
        }
        fill = p;
    }
    printf("munmap big+1 1 -> %s\n", res(munmap(big + PAGE, PAGE)));
    printf("mprotect big+2 1 -> %s\n", res(mprotect(big + 2 * PAGE, PAGE, PROT_READ)));
    printf("munmap big+0 1 -> %s\n", res(munmap(big, PAGE)));
    printf("mprotect big+3 1 -> %s\n", res(mprotect(big + 3 * PAGE, PAGE, PROT_READ)));
    printf("mmap 1 -> %s\n", mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? res(-1) : "ok");
    printf("munmap fill 1 -> %s\n", res(munmap(fill, PAGE)));
    printf("munmap big+2 1 -> %s\n", res(munmap(big + 2 * PAGE, PAGE)));
    printf("mprotect big+1 1 -> %s\n", res(mprotect(big + PAGE, PAGE, PROT_READ)));
    printf("munmap fill+1 1 -> %s\n", res(munmap(fill + PAGE, PAGE)));
    printf("munmap big+2 1 -> %s\n", res(munmap(big + 2 * PAGE, PAGE)));
    printf("mprotect big+1 1 -> %s\n", res(mprotect(big + PAGE, PAGE, PROT_READ)));
    printf("munmap big+1 1 -> %s\n", res(munmap(big + PAGE, PAGE)));
    printf("mmap 1 -> %s\n", mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? res(-1) : "ok");
    return 0;
}
