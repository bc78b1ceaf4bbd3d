/* 24- and 32-byte structs copied whole through pointers (clang keeps llvm.memcpy intrinsics
 * for them and lowers them to 16-byte vector moves). Usage: struct_copy32 N ITERS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double x, y, z; int id; int pad; } particle;   /* 32 bytes */
typedef struct { double re, im; } cplx;

static void copy_one(particle *restrict dst, const particle *restrict src) { memcpy(dst, src, sizeof *dst); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 15;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    particle *p = aligned_alloc(4096, n * sizeof *p);
    particle *q = aligned_alloc(4096, n * sizeof *q);
    cplx *c = aligned_alloc(4096, n * sizeof *c);
    cplx *d = aligned_alloc(4096, n * sizeof *d);
    if (!p || !q || !c || !d) return 1;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) {
            p[i] = (particle){(double)i, 2.0 * i, 3.0 * i, (int)i, 0};
            c[i] = (cplx){(double)i, -(double)i};
        }
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long i = 0; i < n; i++) {
                copy_one(&q[i], &p[(i * 5) % n]);
                cplx *src = &c[(i * 3) % n];
                memcpy(&d[i], src, sizeof(cplx));
            }
        }
    }
    printf("%g %g\n", q[n / 2].y, d[n / 3].re);
    return 0;
}
