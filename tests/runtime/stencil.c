/* An iterative, block-partitioned 1-D stencil: one OpenMP thread per node, pinned; thread 0
 * first-touches both arrays (so every page starts on node 0). After every iteration the
 * program prints the share of pages that sit on the node of the thread whose block holds
 * them and when the iteration ended (seconds since main started: the runtime's stats time its
 * decisions from its start, just before main), and at the end checks the result against a
 * serial run.
 *
 *   stencil api   PAGES ITERS SWEEPS   calls numaplace_migrate() after iteration 1 and after
 *                                      each later one while pages still moved (seed 000 Fig. 2)
 *   stencil plain PAGES ITERS SWEEPS   no numaplace call at all (run under `numaplace run` or
 *                                      with LD_PRELOAD, or with Linux's NUMA balancing)
 *   stencil forked PAGES ITERS SWEEPS  as plain, in a child the program forks (no exec), as
 *                                      Python's multiprocessing and MPI launchers do
 *
 * STENCIL_THREADS=T runs T threads instead of one per node, unpinned, block t on node t % nodes
 * (benchmarks/sampling_cost.py measures sampling's cost with 1, 2 and 4 threads on any host).
 *
 * The program prints a digest of the result (`digest HEX`: FNV-1a over its 64-bit words; the
 * result does not depend on the number of threads or nodes). STENCIL_EXPECT=HEX checks the
 * result against that digest instead of the serial run: the VM tests take it from a run of the
 * same program on the host, whose serial run under qemu's emulation would cost as much as the
 * parallel one.
 */
#include "common.h"
#include <omp.h>
#include <sys/mman.h>
#include <sys/wait.h>
#ifdef WITH_NUMAPLACE
#include "numaplace.h"
#endif

static void sweep(const double *a, double *b, long lo, long hi, long n) {
    for (long i = lo; i < hi; i++) {
        double l = a[i > 0 ? i - 1 : i], r = a[i + 1 < n ? i + 1 : i];
        b[i] = (l + a[i] + r) / 3.0 + 1e-3;
    }
}

int main(int argc, char **argv) {
    double start = omp_get_wtime();
    if (argc != 5) {
        fprintf(stderr, "usage: stencil api|plain|forked PAGES ITERS SWEEPS\n");
        return 2;
    }
    int api = strcmp(argv[1], "api") == 0;
    if (strcmp(argv[1], "forked") == 0) {
        pid_t child = fork();
        if (child < 0) { perror("fork"); return 3; }
        if (child > 0) {
            int st = 0;
            waitpid(child, &st, 0);
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
    }
    long pages = atol(argv[2]), iters = atol(argv[3]), sweeps = atol(argv[4]);
    int nodes = count_nodes();
    long per_page = PAGE / sizeof(double), n = pages * per_page;
    size_t bytes = (size_t)pages * PAGE;
    double *a = aligned_alloc(PAGE, bytes), *b = aligned_alloc(PAGE, bytes);
    if (!a || !b) { perror("aligned_alloc"); return 3; }
    /* Base pages: the test measures placement page by page (a transparent huge page would
     * span two threads' blocks). The runtime asks the same for regions it allocates. */
    madvise(a, bytes, MADV_NOHUGEPAGE);
    madvise(b, bytes, MADV_NOHUGEPAGE);
    for (long i = 0; i < n; i++) { a[i] = (double)(i % 1000); b[i] = 0.0; } /* first touch: thread 0 */
#ifdef WITH_NUMAPLACE
    if (api) {
        if (numaplace_init(NULL) != NUMAPLACE_OK || numaplace_register(a, bytes, "a") != NUMAPLACE_OK ||
            numaplace_register(b, bytes, "b") != NUMAPLACE_OK) {
            fprintf(stderr, "%s\n", numaplace_last_error());
            return 4;
        }
    }
#else
    if (api) { fprintf(stderr, "built without numaplace\n"); return 2; }
#endif
    int threads = nodes;
    const char *threads_env = getenv("STENCIL_THREADS");
    if (threads_env && atoi(threads_env) > 0) threads = atoi(threads_env);
    omp_set_num_threads(threads);
    int *status = malloc(sizeof(int) * pages);
    long moved = 1;
    (void)moved;
    for (long it = 1; it <= iters; it++) {
        #pragma omp parallel
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            if (it == 1 && nt == nodes) pin_to_node(t);
            long lo = (pages * t / nt) * per_page, hi = (pages * (t + 1) / nt) * per_page;
            for (long s = 0; s < sweeps; s++) {
                sweep(a, b, lo, hi, n);
                #pragma omp barrier
                sweep(b, a, lo, hi, n);
                #pragma omp barrier
            }
        }
        long now = 0;
#ifdef WITH_NUMAPLACE
        if (api && (it == 1 || moved > 0)) {
            now = numaplace_migrate();
            if (now < 0) { fprintf(stderr, "%s\n", numaplace_last_error()); return 4; }
            moved = now;
        }
#endif
        long local = 0;
        for (int arr = 0; arr < 2; arr++) {
            query_nodes((char *)(arr ? b : a), pages, status);
            for (long p = 0; p < pages; p++) {
                long owner = 0;
                while (owner + 1 < nodes && p >= pages * (owner + 1) / nodes) owner++;
                if (status[p] == owner) local++;
                else if (getenv("STENCIL_VERBOSE")) printf("  iter %ld array %d page %ld owner %ld node %d\n", it, arr, p, owner, status[p]);
            }
        }
        printf("iter %ld local %.4f moved %ld at %.3f\n", it, (double)local / (2.0 * pages), now, omp_get_wtime() - start);
        fflush(stdout);
    }
    unsigned long long digest = 14695981039346656037ULL;
    for (long i = 0; i < n; i++) {
        unsigned long long w;
        memcpy(&w, &a[i], sizeof w);
        digest = (digest ^ w) * 1099511628211ULL;
    }
    printf("digest %016llx\n", digest);
    const char *expect = getenv("STENCIL_EXPECT");
    if (expect && *expect) {
        if (strtoull(expect, NULL, 16) != digest) { printf("checksum MISMATCH (expected digest %s)\n", expect); return 5; }
        printf("checksum ok\n");
        return 0;
    }
    /* The same computation, serially, on memory numaplace never sees. */
    double *ra = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *rb = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (long i = 0; i < n; i++) ra[i] = (double)(i % 1000);
    for (long it = 0; it < iters * sweeps; it++) {
        for (int t = 0; t < nodes; t++) sweep(ra, rb, (pages * t / nodes) * per_page, (pages * (t + 1) / nodes) * per_page, n);
        for (int t = 0; t < nodes; t++) sweep(rb, ra, (pages * t / nodes) * per_page, (pages * (t + 1) / nodes) * per_page, n);
    }
    if (memcmp(ra, a, bytes) != 0) { printf("checksum MISMATCH\n"); return 5; }
    printf("checksum ok\n");
    return 0;
}
