/* NUMA smoke test for the numaplace VM harness (vm/numavm.py).
 *
 * Build:  gcc -O2 -fopenmp -o numa_smoke numa_smoke.c      (no libnuma)
 * Run:    numa_smoke [EXPECTED_NODES [PAGES_PER_NODE]]      (defaults 4, 256)
 *
 * 1. counts the nodes in /sys/devices/system/node (expects EXPECTED_NODES);
 * 2. pins OpenMP thread i to the first CPU of node i (nodeI/cpulist);
 * 3. thread 0 first-touches an array of nodes * PAGES_PER_NODE pages;
 * 4. move_pages(nodes == NULL) must report every page on node 0;
 * 5. thread i moves block i (PAGES_PER_NODE pages) to node i with move_pages;
 * 6. checks the per-page status and re-queries the placement of all pages;
 * 7. checks that a checksum of the data is unchanged.
 * Prints one line per step and "numa_smoke: OK" at the end; exits 1 with a
 * message on the first failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif
#define MAX_NODES 64

static int fail(const char *fmt, const char *what, long a, long b)
{
    fprintf(stderr, "numa_smoke: FAIL: ");
    fprintf(stderr, fmt, what, a, b);
    fprintf(stderr, "\n");
    exit(1);
}

static long move_pages(int pid, unsigned long count, void **pages, const int *nodes,
                       int *status, int flags)
{
    return syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
}

static int count_nodes(void)
{
    DIR *d = opendir("/sys/devices/system/node");
    if (!d)
        fail("%s: %ld %ld", "cannot open /sys/devices/system/node", errno, 0);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
            strtol(e->d_name + 4, &end, 10);
            if (*end == '\0')
                n++;
        }
    }
    closedir(d);
    return n;
}

/* First CPU listed in /sys/devices/system/node/nodeK/cpulist, -1 if none. */
static int first_cpu_of_node(int node)
{
    char path[128], buf[256];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(buf, sizeof buf, f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    char *end;
    long cpu = strtol(buf, &end, 10);
    return end == buf ? -1 : (int)cpu;
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    int expected = argc > 1 ? atoi(argv[1]) : 4;
    long per_node = argc > 2 ? atol(argv[2]) : 256;
    long page = sysconf(_SC_PAGESIZE);

    int nnodes = count_nodes();
    printf("nodes: %d\n", nnodes);
    if (nnodes != expected)
        fail("%s: found %ld, expected %ld", "node count", nnodes, expected);
    if (nnodes > MAX_NODES)
        fail("%s: %ld > %ld", "too many nodes", nnodes, MAX_NODES);

    int cpu_of[MAX_NODES];
    for (int k = 0; k < nnodes; k++) {
        cpu_of[k] = first_cpu_of_node(k);
        if (cpu_of[k] < 0)
            fail("%s: node %ld has no CPU (%ld)", "cpulist", k, cpu_of[k]);
        printf("node %d: cpu %d\n", k, cpu_of[k]);
    }

    unsigned long npages = (unsigned long)nnodes * per_node;
    size_t bytes = npages * page;
    unsigned char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        fail("%s: %ld bytes, errno %ld", "mmap", (long)bytes, errno);
    /* Base pages only.  With THP "always" (Debian's default) two things break
     * page-granular placement: (1) the anonymous VMA merges with an adjacent
     * one such as an OpenMP thread's stack, and a huge page faulted in by that
     * thread on ITS node then covers the head of buf, so "first touch by
     * thread 0" no longer holds; (2) blocks sharing one huge page are split
     * and migrated by several threads at once, giving -EBUSY statuses.
     * MADV_NOHUGEPAGE also changes the VMA flags, which prevents the merge. */
    if (madvise(buf, bytes, MADV_NOHUGEPAGE) != 0)
        fail("%s: errno %ld %ld", "madvise(MADV_NOHUGEPAGE)", errno, 0);
    void **pages = malloc(npages * sizeof *pages);
    int *status = malloc(npages * sizeof *status);
    int *target = malloc(npages * sizeof *target);
    for (unsigned long i = 0; i < npages; i++) {
        pages[i] = buf + i * page;
        target[i] = (int)(i / per_node);
    }

    int errors = 0;
    uint64_t before = 0;
    omp_set_dynamic(0);
#pragma omp parallel num_threads(nnodes) reduction(+ : errors)
    {
        int t = omp_get_thread_num();
        if (omp_get_num_threads() != nnodes) {
#pragma omp critical
            fprintf(stderr, "numa_smoke: FAIL: got %d OpenMP threads, want %d\n",
                    omp_get_num_threads(), nnodes);
            errors++;
        }
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu_of[t], &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
#pragma omp critical
            fprintf(stderr, "numa_smoke: FAIL: thread %d: sched_setaffinity(cpu %d): %s\n",
                    t, cpu_of[t], strerror(errno));
            errors++;
        }
        sched_yield();
        if (sched_getcpu() != cpu_of[t]) {
#pragma omp critical
            fprintf(stderr, "numa_smoke: FAIL: thread %d runs on cpu %d, pinned to %d\n",
                    t, sched_getcpu(), cpu_of[t]);
            errors++;
        }
#pragma omp barrier
        if (t == 0) { /* first touch of every page by the thread on node 0 */
            for (size_t i = 0; i < bytes; i++)
                buf[i] = (unsigned char)(i * 2654435761u >> 13);
            before = checksum(buf, bytes);
        }
#pragma omp barrier
#pragma omp single
        {
            long r = move_pages(0, npages, pages, NULL, status, 0);
            if (r != 0) {
                fprintf(stderr, "numa_smoke: FAIL: move_pages query: rc %ld errno %d (%s)\n",
                        r, errno, strerror(errno));
                errors++;
            } else {
                long off = 0;
                for (unsigned long i = 0; i < npages; i++)
                    off += status[i] != 0;
                if (off) {
                    fprintf(stderr, "numa_smoke: FAIL: %ld of %lu first-touched pages not on node 0:",
                            off, npages);
                    for (unsigned long i = 0, shown = 0; i < npages && shown < 8; i++)
                        if (status[i] != 0) {
                            fprintf(stderr, " page %lu on %d;", i, status[i]);
                            shown++;
                        }
                    fprintf(stderr, "\n");
                    errors++;
                } else {
                    printf("first touch: %lu pages on node 0\n", npages);
                }
            }
        }
        /* each thread moves its own block to its own node */
        unsigned long lo = (unsigned long)t * per_node;
        long r = move_pages(0, per_node, pages + lo, target + lo, status + lo, MPOL_MF_MOVE);
        long bad = 0;
        for (long i = 0; i < per_node; i++)
            bad += status[lo + i] != t;
#pragma omp critical
        {
            if (r != 0 || bad) {
                fprintf(stderr, "numa_smoke: FAIL: thread %d: move_pages to node %d: rc %ld errno %d,"
                        " %ld pages with status != %d (first status %d)\n",
                        t, t, r, r < 0 ? errno : 0, bad, t, status[lo]);
                errors++;
            } else {
                printf("moved block %d: %ld pages -> node %d\n", t, per_node, t);
            }
        }
    }
    fflush(stdout);
    if (errors)
        fail("%s: %ld errors (%ld)", "parallel phase", errors, 0);

    for (unsigned long i = 0; i < npages; i++)
        status[i] = -999;
    long r = move_pages(0, npages, pages, NULL, status, 0);
    if (r != 0)
        fail("%s: rc %ld errno %ld", "move_pages re-query", r, errno);
    for (unsigned long i = 0; i < npages; i++)
        if (status[i] != target[i])
            fail("%s: page %ld is on node %ld", "placement after move", (long)i, status[i]);
    printf("placement: every block on its thread's node\n");

    uint64_t after = checksum(buf, bytes);
    if (after != before)
        fail("%s: %lx != %lx", "checksum changed", (long)after, (long)before);
    printf("checksum: unchanged (%016llx)\n", (unsigned long long)after);
    printf("numa_smoke: OK\n");
    return 0;
}
