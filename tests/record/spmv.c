/* Sparse matrix-vector product in CSR form, initialised serially by the initial thread (so it
 * first-touches every page), then ITERS parallel products y = A x with schedule(static).
 * Row i has K nonzeros in columns (i + j) mod N, j = 0..K-1. Arrays are page-aligned.
 * Usage: spmv N K ITERS. Closed forms: python/tests/test_record.py. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 16;
    long k = argc > 2 ? atol(argv[2]) : 4;
    int iters = argc > 3 ? atoi(argv[3]) : 3;
    int *rowptr = aligned_alloc(4096, ((n + 1) * sizeof(int) + 4095) / 4096 * 4096);
    int *col = aligned_alloc(4096, (n * k * sizeof(int) + 4095) / 4096 * 4096);
    double *val = aligned_alloc(4096, (n * k * sizeof(double) + 4095) / 4096 * 4096);
    double *x = aligned_alloc(4096, (n * sizeof(double) + 4095) / 4096 * 4096);
    double *y = aligned_alloc(4096, (n * sizeof(double) + 4095) / 4096 * 4096);
    if (!rowptr || !col || !val || !x || !y) return 1;
    for (long i = 0; i <= n; i++) rowptr[i] = (int)(i * k);
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < k; j++) {
            col[i * k + j] = (int)((i + j) % n);
            val[i * k + j] = 1.0 / (double)(j + 1);
        }
        x[i] = 1.0;
        y[i] = 0.0;
    }
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            double s = 0.0;
            for (int p = rowptr[i]; p < rowptr[i + 1]; p++) s += val[p] * x[col[p]];
            y[i] = s;
        }
    }
    printf("%g\n", y[n / 2]);
    return 0;
}
