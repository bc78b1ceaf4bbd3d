/* GCC's pre-4.9 OpenMP ABI, called directly: GOMP_parallel_start, the initial thread running
 * the region's function itself, GOMP_parallel_end. Each thread writes its block of N doubles,
 * then a GOMP_barrier, then reads it. Usage: oldabi N (build with --openmp libgomp). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned n);
void GOMP_parallel_end(void);
void GOMP_barrier(void);

struct job { double *a; long n; double sum[64]; };

static void region(void *arg)
{
    struct job *j = arg;
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    long lo = j->n * t / nt, hi = j->n * (t + 1) / nt;
    for (long i = lo; i < hi; i++) j->a[i] = 1.0;
    GOMP_barrier();
    double s = 0.0;
    for (long i = lo; i < hi; i++) s += j->a[i];
    j->sum[t] = s;
}

int main(int argc, char **argv)
{
    struct job j = {0};
    j.n = argc > 1 ? atol(argv[1]) : 1 << 16;
    j.a = aligned_alloc(4096, j.n * sizeof(double));
    if (!j.a) return 1;
    unsigned threads = (unsigned)omp_get_max_threads();
    GOMP_parallel_start(region, &j, threads);
    region(&j);
    GOMP_parallel_end();
    printf("%g\n", j.sum[0]);
    return 0;
}
