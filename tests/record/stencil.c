/* A block-partitioned 1-D three-point stencil: N doubles in two page-aligned arrays, ITERS time
 * steps of two sweeps (a -> b, b -> a), each thread owning a contiguous block (schedule(static)).
 * Initialised in parallel with the same partition, so each thread first-touches its own block.
 * Usage: stencil N ITERS. Closed forms: python/tests/test_record.py. */
#include <stdio.h>
#include <stdlib.h>

static void step(const double *a, double *b, long n)
{
#pragma omp for schedule(static)
    for (long i = 1; i < n - 1; i++) b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 20;
    int iters = argc > 2 ? atoi(argv[2]) : 4;
    double *a = aligned_alloc(4096, n * sizeof *a);
    double *b = aligned_alloc(4096, n * sizeof *b);
    if (!a || !b) return 1;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) { a[i] = (double)i; b[i] = 0.0; }
        for (int it = 0; it < iters; it++) {
            step(a, b, n);
            step(b, a, n);
        }
    }
    printf("%g\n", a[n / 2]);
    free(a);
    free(b);
    return 0;
}
