/* Pages moved while other threads write them lose nothing: every worker increments its own
 * words spread over every page of a managed region, while the main thread moves the region
 * between nodes again and again (model placements through move_pages, and mbind binds). Then
 * node FULL_NODE is filled (MPOL_BIND of a large region) and a round-robin placement sends
 * pages there: move_pages answers -ENOMEM, the runtime falls back to the nearest node with
 * room, and still nothing is lost.
 *
 *   integrity PAGES ROUNDS FILL_MB */
#include "common.h"
#include <omp.h>
#include <stdatomic.h>
#include "numaplace.h"

#define CHECK(c, msg) do { if (!(c)) { printf("FAIL %s: %s\n", msg, numaplace_last_error()); return 1; } } while (0)

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: integrity PAGES ROUNDS FILL_MB\n"); return 2; }
    long pages = atol(argv[1]), rounds = atol(argv[2]), fill_mb = atol(argv[3]);
    int nodes = count_nodes(), workers = nodes > 1 ? nodes - 1 : 1;
    size_t bytes = (size_t)pages * PAGE;
    long words = bytes / sizeof(long);
    long *a = aligned_alloc(PAGE, bytes);
    memset(a, 0, bytes);
    CHECK(numaplace_init("dynamic=none") == NUMAPLACE_OK, "init");
    CHECK(numaplace_register(a, bytes, "a") == NUMAPLACE_OK, "register");
    atomic_int stop = 0;
    long done[64] = {0};
    const char *schemes[] = {"round-robin", "bind:node=0", "random", "block", nodes > 1 ? "bind:node=1" : "first-touch"};
    long moved = 0;
    #pragma omp parallel num_threads(workers + 1)
    {
        int t = omp_get_thread_num();
        if (t == 0) {
            for (long r = 0; r < rounds; r++) {
                long m = numaplace_place(a, bytes, schemes[r % 5]);
                if (m < 0) { printf("FAIL place: %s\n", numaplace_last_error()); exit(1); }
                moved += m;
            }
            atomic_store(&stop, 1);
        } else {
            long n = 0;
            while (!atomic_load(&stop)) {
                for (long w = t - 1; w < words; w += workers) a[w]++;
                n++;
            }
            done[t] = n;
        }
    }
    for (long w = 0; w < words; w++) {
        long t = w % workers + 1;
        if (a[w] != done[t]) { printf("FAIL word %ld: %ld, expected %ld\n", w, a[w], done[t]); return 1; }
    }
    printf("integrity ok: %ld pages moved while written\n", moved);

    if (nodes > 1 && fill_mb > 0) {
        int full = nodes - 1;
        size_t fill = (size_t)fill_mb << 20;
        char *big = aligned_alloc(PAGE, fill);
        CHECK(big != NULL, "alloc fill");
        memset(big, 1, fill);
        char bind[32];
        snprintf(bind, sizeof bind, "bind:node=%d", full);
        long m = numaplace_place(big, fill, bind);
        (void)m; /* may fail part-way when the node runs out: that is the point */
        for (long w = 0; w < words; w++) a[w] = w;
        long placed = numaplace_place(a, bytes, "round-robin");
        CHECK(placed >= 0, "round-robin onto a full node");
        for (long w = 0; w < words; w++) if (a[w] != w) { printf("FAIL data after fallback\n"); return 1; }
        CHECK(numaplace_stats_write("/tmp/integrity.json") == NUMAPLACE_OK, "stats");
        printf("fallback ok: %ld pages placed\n", placed);
    }
    return 0;
}
