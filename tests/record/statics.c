/* A static (bss) array, first touched in parallel by blocks, then swept ITERS times: its region
 * is named after its symbol. Usage: statics ITERS */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
double grid[N];

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2;
    double s = 0.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) grid[i] = 1.0;
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (long i = 0; i < N; i++) s += grid[i];
    }
    printf("%g\n", s);
    return 0;
}
