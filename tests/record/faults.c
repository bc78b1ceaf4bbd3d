/* Bad runs for `numaplace record`: `faults segv N` runs N parallel sweeps (each ending at a
 * barrier) and then dereferences a null pointer; `faults serial` never enters a parallel region.
 * Usage: faults segv|serial [N] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = 1 << 16;
    int sweeps = argc > 2 ? atoi(argv[2]) : 3;
    double *a = aligned_alloc(4096, n * sizeof *a);
    if (!a || argc < 2) return 2;
    if (strcmp(argv[1], "serial") == 0) {
        for (long i = 0; i < n; i++) a[i] = 1.0;
        printf("%g\n", a[n - 1]);
        return 0;
    }
#pragma omp parallel
    for (int s = 0; s < sweeps; s++) {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) a[i] += 1.0;
    }
    fflush(stdout);
    volatile int *null = (volatile int *)(argc > 99 ? a : 0);
    *null = 1;
    return 0;
}
