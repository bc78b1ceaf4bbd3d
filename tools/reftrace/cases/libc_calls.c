/* Program data touched inside libc by functions the recorder does not interpose: qsort (each
 * thread sorts its own block of an array) and memcmp/memchr over the blocks.
 * Usage: libc_calls N ITERS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 16;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    double *a = aligned_alloc(4096, n * sizeof *a);
    double *b = aligned_alloc(4096, n * sizeof *b);
    long same = 0;
    if (!a || !b) return 1;
#pragma omp parallel reduction(+ : same)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) { a[i] = (double)((i * 7919) % 1000); b[i] = a[i]; }
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long blk = 0; blk < 64; blk++) {
                long lo = blk * (n / 64), len = n / 64;
                qsort(a + lo, len, sizeof *a, cmp);
                same += memcmp(a + lo, b + lo, len * sizeof *a) == 0;
                same += memchr(b + lo, 0xff, len * sizeof *b) != NULL;
            }
        }
    }
    printf("%ld %g\n", same, a[n / 2]);
    return 0;
}
