/* A 2-D Jacobi stencil on N x N doubles whose serial initialisation clang turns into memset
 * calls (the zeroing) followed by a boundary loop; ITERS parallel sweeps (u -> v, v -> u),
 * rows block-partitioned. Every page is first touched by the initial thread, serially.
 * Usage: jacobi2d N ITERS. (the "memset stencil") */
#include <stdio.h>
#include <stdlib.h>

static void sweep(const double *u, double *v, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 4;
    double *u = malloc(n * n * sizeof *u);
    double *v = malloc(n * n * sizeof *v);
    if (!u || !v) return 1;
    for (long i = 0; i < n * n; i++) { u[i] = 0.0; v[i] = 0.0; }
    for (long j = 0; j < n; j++) u[j] = v[j] = 1.0;   /* hot top edge */
    for (int it = 0; it < iters; it++) {
        sweep(u, v, n);
        sweep(v, u, n);
    }
    printf("%g\n", u[(n / 2) * n + n / 2]);
    return 0;
}
