/* Vector accesses sanitizer coverage does not report, each a closed form (build with -mavx2):
 * 256-bit loads and stores (a, b), a masked load whose one active lane lies in the first line of
 * each pair while the whole vector would reach into the second (c), a gather of every other
 * line (d), and x87 long doubles (10-byte loads and stores, e). Usage: wide N ITERS (N a
 * multiple of 64). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 17;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    double *a = aligned_alloc(4096, n * sizeof *a), *b = aligned_alloc(4096, n * sizeof *b);
    double *c = aligned_alloc(4096, n * sizeof *c), *d = aligned_alloc(4096, n * sizeof *d);
    long double *e = aligned_alloc(4096, n / 2 * sizeof *e);
    double sum = 0;
    if (!a || !b || !c || !d || !e) return 1;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp for schedule(static)
        for (long j = 0; j < n / 4; j++) { /* 256-bit stores: each thread writes its block */
            __m256d v = _mm256_set1_pd((double)j);
            _mm256_store_pd(a + 4 * j, v);
            _mm256_store_pd(b + 4 * j, _mm256_setzero_pd());
            _mm256_store_pd(c + 4 * j, v);
            _mm256_store_pd(d + 4 * j, v);
        }
#pragma omp for schedule(static)
        for (long j = 0; j < n / 2; j++) e[j] = (long double)j; /* 10-byte stores */
        const __m256i lane0 = _mm256_set_epi64x(0, 0, 0, -1);
        const __m256i every_other_line = _mm256_set_epi64x(48, 32, 16, 0);
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long j = 0; j < n / 4; j++) /* b += a, 256 bits at a time */
                _mm256_store_pd(b + 4 * j, _mm256_add_pd(_mm256_load_pd(b + 4 * j), _mm256_load_pd(a + 4 * j)));
#pragma omp for schedule(static)
            for (long m = 0; m < n / 16; m++) /* lane 0 at c[16m + 5] (line 2m); lanes 1-3 reach line 2m+1 */
                sum += _mm256_cvtsd_f64(_mm256_maskload_pd(c + 16 * m + 5, lane0));
#pragma omp for schedule(static)
            for (long m = 0; m < n / 64; m++) /* d[64m], d[64m+16], +32, +48: lines 8m, 8m+2, 8m+4, 8m+6 */
                sum += _mm256_cvtsd_f64(_mm256_i64gather_pd(d + 64 * m, every_other_line, 8));
#pragma omp for schedule(static)
            for (long j = 0; j < n / 2; j++) sum += (double)e[j]; /* 10-byte loads */
        }
    }
    printf("%g\n", sum);
    return 0;
}
