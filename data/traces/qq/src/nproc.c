/* Forks under a low RLIMIT_NPROC set before the trace (a non-root uid):
 * children wait on a pipe until fork fails with EAGAIN a few times; then
 * they are released and reaped until wait() says ECHILD (a child the
 * failed forks made would still be there), and one more fork succeeds. */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    int p[2];
    if (pipe(p) != 0) return 1;
    int made = 0, refused = 0;
    for (int i = 0; i < 64 && refused < 3; i++) {
        pid_t c = fork();
        if (c == 0) {
            char b;
            close(p[1]);
            (void)read(p[0], &b, 1);
            _exit(7);
        }
        if (c < 0) {
            if (errno != EAGAIN) return 2;
            refused++;
            continue;
        }
        made++;
    }
    close(p[1]);
    int st, reaped = 0;
    while (wait(&st) > 0) reaped++;
    if (errno != ECHILD) return 3;
    pid_t c = fork();
    if (c == 0) _exit(0);
    if (c < 0 || waitpid(c, &st, 0) != c) return 4;
    printf("made %d refused %d reaped %d\n", made, refused, reaped);
    return 0;
}
