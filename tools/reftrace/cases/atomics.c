/* Atomic updates of a shared histogram (omp atomic: atomicrmw add on ints, a compare-and-swap
 * loop on doubles), its pages first touched by the initial thread. Usage: atomics N BINS ITERS. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 16;
    long bins = argc > 2 ? atol(argv[2]) : 1 << 14;
    int iters = argc > 3 ? atoi(argv[3]) : 2;
    int *hist = aligned_alloc(4096, bins * sizeof *hist);
    double *sum = aligned_alloc(4096, bins * sizeof *sum);
    if (!hist || !sum) return 1;
    for (long i = 0; i < bins; i++) { hist[i] = 0; sum[i] = 0.0; }
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            long k = (i * 2654435761u) % bins;
#pragma omp atomic
            hist[k]++;
#pragma omp atomic
            sum[k] += 1.0;
        }
    }
    printf("%d %g\n", hist[bins / 2], sum[bins / 2]);
    return 0;
}
