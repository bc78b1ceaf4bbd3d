/* GUPS with a hot set, for the tiering tests in the VM (vm/tests/test_tiering.py).
 *
 *   gups_hot [-m MiB] [-u updates] [-n slow_node] [-h hot_percent] [-p hot_share_percent]
 *            [-r rounds] [-s sleep_ms] [-f free_permille]
 *
 * An array of MiB mebibytes of 64-bit words (one large allocation) is first touched on the slow node (mbind
 * MPOL_BIND before the first touch, then the policy is reset to the default without moving
 * anything, so the kernel's and the runtime's migrations are free to act).  A hot set, the
 * hot_percent % of the pages in the middle of the array, receives hot_share_percent % of the
 * updates; the rest go anywhere.  The updates are fixed by the arguments alone: they are
 * drawn in chunks, each from its own xorshift stream seeded by the chunk's number, and the
 * OpenMP threads take chunks in any order; every update is an atomic add, so the final array
 * and its checksum do not depend on the thread count, the order or where the pages are.
 * The updates run in `rounds` rounds with `sleep_ms` between them (time for a sampler to
 * look).
 *
 * With -f, once the array is touched, node 0 (the CPUs' node) is filled with a buffer of its
 * own (mmap'd, so not memory numaplace manages; bound to node 0 and touched) until its free
 * memory is free_permille thousandths of its total, as another tenant would fill the fast
 * tier; the buffer stays until the program exits.
 *
 * It prints where the hot set's and all pages are before the updates and after them
 * (move_pages(2) with nodes == NULL queries each page's node): "hot before: 0=0.000
 * 1=1.000" gives the share of hot pages per node, then the checksum.  Exit 0, or 1 with one
 * line naming the failing call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define MAX_NODES 64
#define CHUNK 4096 /* updates per chunk (one xorshift stream) */

/* A "Node 0 MemFree:  1234 kB" style value of node 0's meminfo, kB; -1 if absent. */
static long long node0_kb(const char *key) {
    FILE *f = fopen("/sys/devices/system/node/node0/meminfo", "r");
    char line[256];
    long long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *k = strstr(line, key);
        if (k && sscanf(k + strlen(key), " %lld", &v) == 1)
            break;
    }
    fclose(f);
    return v;
}

static void die(const char *what) {
    fprintf(stderr, "gups_hot: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t xorshift(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Shares of the pages [first, first+count) per node; returns the nodes seen + 1. */
static int where(char *base, size_t first, size_t count, size_t ps, double *share) {
    void **pages = malloc(count * sizeof *pages);
    int *status = malloc(count * sizeof *status);
    long per[MAX_NODES + 1] = {0};
    int top = 0;
    if (!pages || !status)
        die("malloc");
    /* A read of each page first: a page a sampler has just revoked (PROT_NONE) answers
     * -ENOENT, not its node; the read's fault restores it.  Pages revoked again before the
     * query are counted as on no node ("?"). */
    for (size_t i = 0; i < count; i++) {
        pages[i] = base + (first + i) * ps;
        (void)*(volatile char *)pages[i];
    }
    if (syscall(SYS_move_pages, 0, count, pages, NULL, status, 0) != 0)
        die("move_pages (query)");
    for (size_t i = 0; i < count; i++)
        if (status[i] >= 0 && status[i] < MAX_NODES) {
            per[status[i]]++;
            if (status[i] + 1 > top)
                top = status[i] + 1;
        } else {
            per[MAX_NODES]++;
        }
    for (int n = 0; n <= MAX_NODES; n++)
        share[n] = (double)per[n] / (double)count;
    free(pages);
    free(status);
    return top;
}

static void report(const char *what, char *base, size_t first, size_t count, size_t ps, int nodes) {
    double share[MAX_NODES + 1];
    int top = where(base, first, count, ps, share);
    if (top > nodes)
        nodes = top;
    printf("%s:", what);
    for (int n = 0; n < nodes; n++)
        printf(" %d=%.3f", n, share[n]);
    if (share[MAX_NODES] > 0)
        printf(" ?=%.3f", share[MAX_NODES]);
    printf("\n");
}

int main(int argc, char **argv) {
    long mib = 64, hot_pct = 10, hot_share = 90, rounds = 4, sleep_ms = 0, slow = 1, fill = -1;
    long long updates = 4000000;
    int opt;
    while ((opt = getopt(argc, argv, "m:u:n:h:p:r:s:f:")) != -1) {
        char *end;
        long long v = strtoll(optarg, &end, 10);
        if (*end || v < 0) {
            fprintf(stderr, "gups_hot: -%c %s: expected a non-negative integer\n", opt, optarg);
            return 2;
        }
        switch (opt) {
        case 'm': mib = v; break;
        case 'u': updates = v; break;
        case 'n': slow = v; break;
        case 'h': hot_pct = v; break;
        case 'p': hot_share = v; break;
        case 'r': rounds = v; break;
        case 's': sleep_ms = v; break;
        case 'f': fill = v; break;
        default:
            fprintf(stderr, "usage: gups_hot [-m MiB] [-u updates] [-n slow_node] [-h hot%%] [-p hot_share%%] [-r rounds] [-s sleep_ms] [-f free_permille]\n");
            return 2;
        }
    }
    if (mib < 1 || hot_pct < 1 || hot_pct > 100 || hot_share > 100 || rounds < 1 || slow >= MAX_NODES || fill > 1000) {
        fprintf(stderr, "gups_hot: need -m >= 1, 1 <= -h <= 100, -p <= 100, -r >= 1, -n < %d, -f <= 1000\n", MAX_NODES);
        return 2;
    }
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)mib << 20, words = bytes / 8, pages = bytes / ps;
    size_t hot_pages = pages * hot_pct / 100, hot_first = (pages - hot_pages) / 2;
    size_t per_page = ps / 8, hot_words = hot_pages * per_page, hot_word0 = hot_first * per_page;

    /* A large allocation (malloc's own mmap, untouched): what numaplace run's preloaded
     * library manages. */
    uint64_t *a = NULL;
    errno = posix_memalign((void **)&a, ps, bytes);
    if (errno != 0)
        die("posix_memalign");
    /* Page-granular placement: no transparent huge page (see vm/README.md). */
    if (madvise(a, bytes, MADV_NOHUGEPAGE) != 0)
        die("madvise(MADV_NOHUGEPAGE)");
    unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long)) + 1] = {0};
    mask[slow / (8 * sizeof(unsigned long))] = 1UL << (slow % (8 * sizeof(unsigned long)));
    if (syscall(SYS_mbind, a, bytes, MPOL_BIND, mask, (unsigned long)MAX_NODES + 1, 0) != 0)
        die("mbind(MPOL_BIND, slow node)");
    for (size_t i = 0; i < words; i++)
        a[i] = i;
    /* Back to the default policy, moving nothing: migrations are free to act from here. */
    if (syscall(SYS_mbind, a, bytes, MPOL_DEFAULT, NULL, 0UL, 0) != 0)
        die("mbind(MPOL_DEFAULT)");

    if (fill >= 0) {
        long long total = node0_kb("MemTotal:"), before = node0_kb("MemFree:"), want = total * fill / 1000;
        if (total < 0 || before < 0) {
            errno = ENOENT;
            die("node0/meminfo");
        }
        size_t len = before > want ? (size_t)(before - want) << 10 : 0;
        if (len) {
            char *f = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            unsigned long node0[MAX_NODES / (8 * sizeof(unsigned long)) + 1] = {1};
            if (f == MAP_FAILED)
                die("mmap (fill)");
            if (syscall(SYS_mbind, f, len, MPOL_BIND, node0, (unsigned long)MAX_NODES + 1, 0) != 0)
                die("mbind(MPOL_BIND, node 0) (fill)");
            for (size_t i = 0; i < len; i += ps)
                f[i] = 1;
        }
        printf("filled node 0: %zu MiB; free %lld -> %lld kB of %lld\n", len >> 20, before, node0_kb("MemFree:"), total);
    }

    int nodes = (int)(slow > 0 ? slow : 1) + 1;
    printf("pages: %zu, hot: %zu from page %zu\n", pages, hot_pages, hot_first);
    report("hot before", (char *)a, hot_first, hot_pages, ps, nodes);
    report("all before", (char *)a, 0, pages, ps, nodes);
    fflush(stdout);

    long long chunks = (updates + CHUNK - 1) / CHUNK, per_round = (chunks + rounds - 1) / rounds;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long r = 0; r < rounds; r++) {
        long long lo = r * per_round, hi = lo + per_round < chunks ? lo + per_round : chunks;
#pragma omp parallel for schedule(dynamic, 4)
        for (long long c = lo; c < hi; c++) {
            uint64_t s = 0x9E3779B97F4A7C15ULL * (uint64_t)(c + 1);
            long long n = c == chunks - 1 ? updates - c * CHUNK : CHUNK;
            for (long long k = 0; k < n; k++) {
                uint64_t x = xorshift(&s);
                size_t w = (x % 100 < (uint64_t)hot_share) ? hot_word0 + (x >> 8) % hot_words : (x >> 8) % words;
                __atomic_fetch_add(&a[w], x | 1, __ATOMIC_RELAXED);
            }
        }
        if (sleep_ms && r + 1 < rounds)
            usleep((useconds_t)sleep_ms * 1000);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    report("hot after", (char *)a, hot_first, hot_pages, ps, nodes);
    report("all after", (char *)a, 0, pages, ps, nodes);
    uint64_t sum = 0;
    for (size_t i = 0; i < words; i++)
        sum = sum * 1099511628211ULL + a[i];
    printf("updates: %lld in %.2f s (%.2f M/s)\n", updates, secs, (double)updates / secs / 1e6);
    printf("checksum: %016llx\n", (unsigned long long)sum);
    free(a);
    return 0;
}
