/* The C library's buffer functions on the program's arrays, each a closed form: per block of
 * LEN = N/64 bytes, memcmp of two equal blocks (x, y: every byte examined), memchr for a byte
 * that is absent (x), strlen of a block-long string (z), bzero (w), strcpy (z into v); and qsort
 * of 512-double chunks of s, always given in the reverse of the order asked (every element
 * moved: each chunk's lines read and written once a sort). Usage: libc N ITERS (N a multiple of
 * 4096). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BLOCKS 64
#define CHUNK 512

static int up(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}
static int down(const void *p, const void *q) { return up(q, p); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 19;
    int iters = argc > 2 ? atoi(argv[2]) : 2;
    long len = n / BLOCKS, ns = n / 8;
    char *x = aligned_alloc(4096, n), *y = aligned_alloc(4096, n), *z = aligned_alloc(4096, n);
    char *w = aligned_alloc(4096, n), *v = aligned_alloc(4096, n);
    double *s = aligned_alloc(4096, ns * sizeof *s);
    long found = 0;
    if (!x || !y || !z || !w || !v || !s) return 1;
#pragma omp parallel reduction(+ : found)
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) {
            x[i] = y[i] = (char)(1 + i % 200);
            z[i] = i % len == len - 1 ? 0 : (char)(1 + i % 100);
            w[i] = v[i] = 1;
        }
#pragma omp for schedule(static)
        for (long i = 0; i < ns; i++) s[i] = (double)(CHUNK - i % CHUNK); /* descending chunks */
        for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
            for (long k = 0; k < BLOCKS; k++) found += memcmp(x + k * len, y + k * len, len) == 0;
#pragma omp for schedule(static)
            for (long k = 0; k < BLOCKS; k++) found += memchr(x + k * len, 0, len) != NULL;
#pragma omp for schedule(static)
            for (long k = 0; k < BLOCKS; k++) found += (long)strlen(z + k * len);
#pragma omp for schedule(static)
            for (long k = 0; k < BLOCKS; k++) bzero(w + k * len, len);
#pragma omp for schedule(static)
            for (long k = 0; k < BLOCKS; k++) found += strcpy(v + k * len, z + k * len) == v + k * len;
#pragma omp for schedule(static)
            for (long k = 0; k < ns / CHUNK; k++) qsort(s + k * CHUNK, CHUNK, sizeof *s, it % 2 ? down : up);
        }
    }
    printf("%ld\n", found);
    return 0;
}
