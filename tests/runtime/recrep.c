/* Record-replay (seed 000 §3.3, Figure 3) on real pages. One thread per node, pinned; each
 * thread's block of `a` sits on its node (placed with the runtime's `block` placement). In the
 * "shift" phase thread t works on block t+1, so the phase's pages are on the wrong node.
 * Iteration 2 records the phase (upmlib_record before and after it), compares, and from
 * iteration 3 on the phase's pages are replayed to the node that uses them in the phase before
 * it, and undone after it. The program prints, per iteration, the share of the phase's pages
 * on their phase user's node during the phase, and the share back on their owner's node after
 * the undo.
 *
 *   recrep PAGES ITERS */
#include "common.h"
#include <omp.h>
#include <sys/mman.h>
#include "numaplace.h"

#define CHECK(c) do { if (!(c)) { printf("FAIL %s: %s\n", #c, numaplace_last_error()); return 1; } } while (0)

static long owner_of(long p, long pages, int nodes) {
    long o = 0;
    while (o + 1 < nodes && p >= pages * (o + 1) / nodes) o++;
    return o;
}

static double share(double *a, long pages, int nodes, int shift, int *status) {
    query_nodes((char *)a, pages, status);
    long ok = 0;
    for (long p = 0; p < pages; p++)
        if (status[p] == (owner_of(p, pages, nodes) + shift) % nodes) ok++;
    return (double)ok / pages;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: recrep PAGES ITERS\n"); return 2; }
    long pages = atol(argv[1]), iters = atol(argv[2]);
    int nodes = count_nodes();
    size_t bytes = (size_t)pages * PAGE;
    long per_page = PAGE / sizeof(double), n = pages * per_page;
    double *a = aligned_alloc(PAGE, bytes);
    madvise(a, bytes, MADV_NOHUGEPAGE);
    for (long i = 0; i < n; i++) a[i] = 1.0;
    CHECK(upmlib_init() == NUMAPLACE_OK);
    CHECK(upmlib_memrefcnt(a, bytes) == NUMAPLACE_OK);
    CHECK(numaplace_place(a, bytes, "block") >= 0);
    int *status = malloc(sizeof(int) * pages);
    printf("placed %.4f\n", share(a, pages, nodes, 0, status));
    omp_set_num_threads(nodes);
    #pragma omp parallel
    pin_to_node(omp_get_thread_num());
    for (long it = 1; it <= iters; it++) {
        /* Phase 1: each thread on its own block. */
        #pragma omp parallel
        {
            int t = omp_get_thread_num();
            for (long i = (pages * t / nodes) * per_page; i < (pages * (t + 1) / nodes) * per_page; i++) a[i] += 1.0;
        }
        if (it == 2) CHECK(upmlib_record() == NUMAPLACE_OK);
        else if (it > 2) CHECK(upmlib_replay() >= 0);
        double during = share(a, pages, nodes, 1, status);
        /* Phase 2, "shift": thread t works on block t-1 (mod nodes), several sweeps. */
        #pragma omp parallel
        {
            int t = omp_get_thread_num(), b = (t + nodes - 1) % nodes;
            for (int s = 0; s < 4; s++)
                for (long i = (pages * b / nodes) * per_page; i < (pages * (b + 1) / nodes) * per_page; i++) a[i] *= 1.0000001;
        }
        if (it == 1) CHECK(upmlib_migrate_memory() >= 0); /* nothing to move: placed by block */
        else if (it == 2) { CHECK(upmlib_record() == NUMAPLACE_OK); CHECK(upmlib_compare_counters() == NUMAPLACE_OK); }
        else CHECK(upmlib_undo() >= 0);
        printf("iter %ld during %.4f after %.4f\n", it, during, share(a, pages, nodes, 0, status));
        fflush(stdout);
    }
    return 0;
}
