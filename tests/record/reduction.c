/* A parallel sum of N doubles with reduction(+), ITERS times; the array initialised in
 * parallel with the same static partition. Usage: reduction N ITERS. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 17;
    int iters = argc > 2 ? atoi(argv[2]) : 3;
    double *a = aligned_alloc(4096, n * sizeof *a);
    double total = 0.0;
    if (!a) return 1;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = 1.0;
    for (int it = 0; it < iters; it++) {
        double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (long i = 0; i < n; i++) s += a[i];
        total += s;
    }
    printf("%g\n", total);
    return total == (double)n * iters ? 0 : 1;
}
