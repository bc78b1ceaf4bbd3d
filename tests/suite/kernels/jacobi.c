/* 2-D Jacobi stencil on two malloc'd N x N grids of doubles (16 MiB each at the default
 * N = 1448), the user kernel of issue 30.
 *
 *   jacobi [N [STEPS]]            defaults: N = 1448, STEPS = 20
 *
 * Built with -DPARALLEL_INIT=0 (jacobi-serial-init) the grids are initialised by a plain
 * serial loop, which clang -O2 turns into calls to memset: every page is first touched by
 * the initial thread. With -DPARALLEL_INIT=1 (jacobi-parallel-init) the initialisation is an
 * `omp parallel for` over rows with the same static schedule as the sweeps, so each thread
 * first touches the rows it later updates.
 *
 * Each step is one `omp parallel for` sweep (an epoch for the recorder) from one grid into
 * the other. The left edge is held at 1, the other edges at 0. The checksum is a serial sum
 * of the final grid, the same for every thread count and compiler (no -ffast-math). */
#include <stdio.h>
#include <stdlib.h>

#ifndef PARALLEL_INIT
#define PARALLEL_INIT 0
#endif

static void sweep(long n, const double *restrict a, double *restrict b)
{
#pragma omp parallel for schedule(static)
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1448;
    int steps = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 3 || steps < 1) {
        fprintf(stderr, "usage: %s [N >= 3 [STEPS >= 1]]\n", argv[0]);
        return 2;
    }
    double *a = malloc(n * n * sizeof *a);
    double *b = malloc(n * n * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "%s: out of memory for two %ld x %ld grids\n", argv[0], n, n);
        return 1;
    }

#if PARALLEL_INIT
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = j == 0 ? 1.0 : 0.0;
            b[i * n + j] = j == 0 ? 1.0 : 0.0;
        }
#else
    for (long k = 0; k < n * n; k++) { /* clang -O2: two calls to memset */
        a[k] = 0.0;
        b[k] = 0.0;
    }
    for (long i = 0; i < n; i++) {
        a[i * n] = 1.0;
        b[i * n] = 1.0;
    }
#endif

    for (int t = 0; t < steps; t++) {
        sweep(n, a, b);
        double *s = a;
        a = b;
        b = s;
    }

    double sum = 0.0;
    for (long k = 0; k < n * n; k++)
        sum += a[k];
    printf("jacobi (%s initialisation): N = %ld, steps = %d\n", PARALLEL_INIT ? "parallel" : "serial", n, steps);
    printf("checksum = %.15e\n", sum);
    free(a);
    free(b);
    return 0;
}
