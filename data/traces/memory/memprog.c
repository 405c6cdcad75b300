#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <pthread.h>
static void *thr(void *a) { void *p = mmap(0, 1<<20, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0); munmap(p, 1<<20); return a; }
int main(void) {
    long pg = 4096;
    char *a = mmap(0, 16*pg, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    mprotect(a + 4*pg, 4*pg, PROT_READ);           /* split */
    mprotect(a + 4*pg, 4*pg, PROT_READ|PROT_WRITE); /* merge back */
    munmap(a + 2*pg, pg);                            /* hole */
    char *b = mremap(a + 8*pg, 4*pg, 64*pg, MREMAP_MAYMOVE); /* move */
    b = mremap(b, 64*pg, 8*pg, 0);                   /* shrink */
    void *c = mmap(a + 2*pg, pg, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE, -1, 0);
    void *d = mmap(a + 3*pg, pg, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE, -1, 0); /* EEXIST */
    (void)c; (void)d;
    munmap((void*)1, pg);                            /* EINVAL */
    mprotect(a + 100000*pg, pg, PROT_READ);          /* ENOMEM */
    void *s = sbrk(0); brk((char*)s + 64*pg); brk((char*)s + 16*pg);
    char *big = malloc(1<<22); memset(big, 1, 100); free(big);
    pid_t p = fork();
    if (p == 0) { munmap(a, 2*pg); mmap(0, 3*pg, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0); _exit(0); }
    waitpid(p, 0, 0);
    munmap(a, 2*pg);                                 /* parent still has it */
    pthread_t t; pthread_create(&t, 0, thr, 0); pthread_join(t, 0);
    if (fork() == 0) { execl("/bin/true", "true", (char*)0); _exit(1); }
    wait(0);
    return 0;
}
