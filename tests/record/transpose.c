/* Out-of-place transpose of an N x N matrix of doubles, B[j][i] = A[i][j], rows of A
 * block-partitioned (schedule(static)), ITERS times; A initialised in parallel by rows.
 * With N = 256 and a small cache, every write to B misses (the columns of B map to few cache
 * sets): the unblocked transpose's known effect. Usage: transpose N ITERS. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 256;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    double *a = aligned_alloc(4096, n * n * sizeof *a);
    double *b = aligned_alloc(4096, n * n * sizeof *b);
    if (!a || !b) return 1;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++) a[i * n + j] = (double)(i - j);
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long i = 0; i < n; i++)
                for (long j = 0; j < n; j++) b[j * n + i] = a[i * n + j];
        }
    }
    printf("%g\n", b[n + 2]);
    return 0;
}
