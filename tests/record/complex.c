/* Complex numbers as 16-byte structs, as NAS FT keeps them: a parallel initialisation whose two
 * stores per element clang merges into a memset intrinsic, then ITERS parallel copies y[i] = x[i]
 * (struct assignments: llvm.memcpy intrinsics, which the backend expands inline when small).
 * Every one of those accesses must be counted. Usage: complex N ITERS */
#include <stdio.h>
#include <stdlib.h>

typedef struct { double re, im; } dcomplex;

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 16;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    dcomplex *x = aligned_alloc(64, sizeof *x * n), *y = aligned_alloc(64, sizeof *y * n);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { x[i].re = (double)i; x[i].im = 0.0; y[i].re = 0.0; y[i].im = 0.0; }
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) y[i] = x[i];
    }
    printf("%g\n", y[n - 1].re);
    return 0;
}
