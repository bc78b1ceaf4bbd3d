/* The preload hooks: large blocks from every allocation function become managed regions and
 * keep their contents through realloc; small ones stay glibc's; free returns both. Run with
 * the library preloaded (NUMAPLACE_PRELOAD=1). Prints the number of managed regions seen by
 * numaplace_where-free means: the stats file written at exit lists them. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB (1024 * 1024)
#define CHECK(c) do { if (!(c)) { printf("FAIL %s\n", #c); return 1; } } while (0)

int main(void) {
    char *a = malloc(4 * MB);
    CHECK(a && ((unsigned long)a % 4096) == 0); /* a managed block: page-aligned mapping */
    for (int i = 0; i < 4 * MB; i += 4096) a[i] = (char)(i / 4096);
    char *b = realloc(a, 8 * MB);
    CHECK(b);
    for (int i = 0; i < 4 * MB; i += 4096) CHECK(b[i] == (char)(i / 4096));
    CHECK(malloc_usable_size(b) >= 8 * MB);
    long *c = calloc(MB, sizeof(long));
    CHECK(c);
    for (long i = 0; i < MB; i += 512) CHECK(c[i] == 0);
    void *d = NULL;
    CHECK(posix_memalign(&d, 64, 2 * MB) == 0 && d);
    memset(d, 7, 2 * MB);
    void *e = aligned_alloc(4096, 3 * MB);
    CHECK(e);
    char *s = malloc(100); /* small: glibc's */
    CHECK(s);
    strcpy(s, "small");
    char *s2 = realloc(s, 2 * MB); /* a glibc block grown past the threshold */
    CHECK(s2 && strcmp(s2, "small") == 0);
    char *r = reallocarray(NULL, MB, 3);
    CHECK(r);
    free(b);
    free(c);
    free(d);
    free(e);
    free(s2);
    free(r);
    /* A child allocates and frees a managed-size block (the runtime's lock is not inherited
     * held, whatever the timer thread was doing at the fork). */
    for (int k = 0; k < 20; k++) {
        pid_t pid = fork();
        if (pid == 0) {
            char *x = malloc(2 * MB);
            if (!x) _exit(3);
            memset(x, 1, 2 * MB);
            free(x);
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    printf("alloc ok\n");
    return 0;
}
