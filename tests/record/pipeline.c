/* A spin-wait pipeline: thread t is stage t of T; for each of C chunks of L doubles, stage t
 * waits (spinning on an atomic flag) until stage t-1 has finished the chunk, reads it from
 * buffer t and writes buffer t+1, then publishes. Stage 0 first waits until every stage has
 * arrived, so later stages spin. Run with more threads than cores, it progresses only if
 * spinning threads yield. Usage: pipeline C L (threads: OMP_NUM_THREADS). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long chunks = argc > 1 ? atol(argv[1]) : 32;
    long len = argc > 2 ? atol(argv[2]) : 4096;
    int stages = omp_get_max_threads();
    double **buf = malloc((stages + 1) * sizeof *buf);
    int *flag = aligned_alloc(4096, 4096);
    int arrived = 0;
    if (!buf || !flag) return 1;
    for (int s = 0; s <= stages; s++) {
        buf[s] = aligned_alloc(4096, chunks * len * sizeof(double));
        if (!buf[s]) return 1;
    }
    for (long i = 0; i < chunks * len; i++) buf[0][i] = (double)i;
    for (int s = 0; s < stages; s++) flag[s * 16] = 0;
#pragma omp parallel num_threads(stages)
    {
        int t = omp_get_thread_num();
        __atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
        if (t == 0)
            while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < stages) {}
        for (long c = 0; c < chunks; c++) {
            if (t > 0)
                while (__atomic_load_n(&flag[(t - 1) * 16], __ATOMIC_ACQUIRE) <= c) {}
            const double *in = buf[t] + c * len;
            double *out = buf[t + 1] + c * len;
            for (long i = 0; i < len; i++) out[i] = in[i] + 1.0;
            __atomic_store_n(&flag[t * 16], (int)(c + 1), __ATOMIC_RELEASE);
        }
    }
    printf("%g\n", buf[stages][chunks * len - 1]);
    return buf[stages][0] == (double)stages ? 0 : 1;
}
