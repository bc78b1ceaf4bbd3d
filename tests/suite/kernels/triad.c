/* STREAM-like triad a = b + s * c on three malloc'd arrays of doubles (16 MiB each at the
 * default N = 2097152), the user kernel of issue 30; STREAM itself (../stream) uses static
 * arrays.
 *
 *   triad [N [TIMES]]             defaults: N = 2097152, TIMES = 10
 *
 * The arrays are initialised by an `omp parallel for` with the same static schedule as the
 * triad loops (as STREAM does), so each thread first touches the part it later streams.
 * The values are small integers and halves, so the serial checksum is exact and is checked
 * against its closed form. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2097152;
    int times = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || times < 1) {
        fprintf(stderr, "usage: %s [N >= 1 [TIMES >= 1]]\n", argv[0]);
        return 2;
    }
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "%s: out of memory for three arrays of %ld doubles\n", argv[0], n);
        return 1;
    }

#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = (double)(i % 7);
        c[i] = 0.5 * (double)(i % 5);
    }

    for (int t = 1; t <= times; t++) {
        double s = (double)t;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
    }

    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += a[i];
    /* Closed form, in integers: a[i] = (i % 7) + times * (i % 5) / 2; twice the sum. */
    long long twice = 0;
    for (long i = 0; i < n; i++)
        twice += 2 * (i % 7) + (long long)times * (i % 5);
    int ok = sum == 0.5 * (double)twice;
    printf("triad (malloc'd arrays): N = %ld, times = %d\n", n, times);
    printf("checksum = %.15e\n", sum);
    printf("Verification = %s\n", ok ? "SUCCESSFUL" : "FAILED");
    free(a);
    free(b);
    free(c);
    return ok ? 0 : 1;
}
