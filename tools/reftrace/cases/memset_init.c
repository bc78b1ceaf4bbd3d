/* A serial initialisation that clang turns into memset (zeroing) and memcpy (copying), then
 * parallel sweeps: the pages are first touched by the initial thread in the serial code.
 * Usage: memset_init N ITERS. (npref reference case: docs/record-reference.md) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 18;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    double *a = malloc(n * sizeof *a);
    double *b = malloc(n * sizeof *b);
    if (!a || !b) return 1;
    for (long i = 0; i < n; i++) a[i] = 0.0;          /* -> memset */
    for (long i = 0; i < n; i++) b[i] = a[i];         /* -> memcpy */
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] += b[i] + 1.0;
    }
    printf("%g\n", a[n / 2]);
    return 0;
}
