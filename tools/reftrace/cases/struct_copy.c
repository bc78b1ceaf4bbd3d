/* 16-byte structs (complex numbers) copied whole: clang lowers each copy to an LLVM memcpy
 * intrinsic of 16 bytes, then to one 16-byte load and store. Usage: struct_copy N ITERS. */
#include <stdio.h>
#include <stdlib.h>

typedef struct { double re, im; } cplx;

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 16;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    cplx *a = aligned_alloc(4096, n * sizeof *a);
    cplx *b = aligned_alloc(4096, n * sizeof *b);
    if (!a || !b) return 1;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) { a[i].re = (double)i; a[i].im = -(double)i; b[i].re = b[i].im = 0.0; }
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long i = 0; i < n; i++) {
                cplx t = a[(i * 7) % n];   /* a whole-struct copy */
                b[i] = t;
            }
        }
    }
    printf("%g\n", b[n / 3].re);
    return 0;
}
