/* Prints Linux's errno names and messages as this machine's C library has
 * them: "N<TAB>NAME<TAB>MESSAGE" for 1..=133 (numbers with no name, 41 and
 * 58 on x86_64, are skipped). The output is errno_table.out; the core's Errno is
 * tested against it (crates/taskcore/tests/it/errno_table.rs).
 * Built and run by record.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

int main(void) {
    for (int n = 1; n <= 133; n++) {
        const char *name = strerrorname_np(n);
        if (!name)
            continue;
        printf("%d\t%s\t%s\n", n, name, strerror(n));
    }
    return 0;
}
