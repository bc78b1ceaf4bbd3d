/* Hand-written 256-bit AVX loads and stores (intrinsics): accesses wider than 16 bytes.
 * Build with -mavx. Usage: avx N ITERS. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 17;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    double *a = aligned_alloc(4096, n * sizeof *a);
    double *b = aligned_alloc(4096, n * sizeof *b);
    if (!a || !b) return 1;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i += 4) {
            _mm256_store_pd(a + i, _mm256_set1_pd((double)i));
            _mm256_store_pd(b + i, _mm256_setzero_pd());
        }
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long i = 0; i < n; i += 4)
                _mm256_store_pd(b + i, _mm256_add_pd(_mm256_load_pd(b + i), _mm256_load_pd(a + i)));
        }
    }
    printf("%g\n", b[n / 2]);
    return 0;
}
