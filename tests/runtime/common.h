/* Helpers shared by the runtime's C test programs: node discovery, pinning, page queries
 * through the raw move_pages system call (independent of libnumaplace). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096

__attribute__((unused)) static int count_nodes(void) {
    int n = 0;
    char path[128];
    for (;;) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d", n);
        if (access(path, F_OK) != 0) break;
        n++;
    }
    return n > 0 ? n : 1;
}

/* First CPU of node `node` (from its cpulist), or -1. */
__attribute__((unused)) static int first_cpu(int node) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int cpu = -1;
    if (fscanf(f, "%d", &cpu) != 1) cpu = -1;
    fclose(f);
    return cpu;
}

/* Pins the calling thread to the first CPU of `node` (no-op where the node has none). */
__attribute__((unused)) static void pin_to_node(int node) {
    int cpu = first_cpu(node);
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        exit(3);
    }
}

/* PFN ranges of each node, from /proc/zoneinfo ("Node N, zone Z" ... "start_pfn: X",
 * "spanned Y"), to find a page's node from its PFN. */
#define MAX_ZONES 64
static long zone_start[MAX_ZONES], zone_end[MAX_ZONES];
static int zone_node[MAX_ZONES], zones = -1;

__attribute__((unused)) static void read_zones(void) {
    FILE *f = fopen("/proc/zoneinfo", "r");
    zones = 0;
    if (!f) return;
    char line[256];
    int node = -1;
    long spanned = -1;
    while (fgets(line, sizeof line, f)) {
        int n;
        long v;
        if (sscanf(line, "Node %d, zone", &n) == 1) { node = n; spanned = -1; }
        else if (sscanf(line, " spanned %ld", &v) == 1) spanned = v;
        else if (sscanf(line, " start_pfn: %ld", &v) == 1 && node >= 0 && spanned > 0 && zones < MAX_ZONES) {
            zone_start[zones] = v; zone_end[zones] = v + spanned; zone_node[zones] = node; zones++;
        }
    }
    fclose(f);
}

/* Node of each of `n` pages from `base` (negative where unknown or not present). Reads
 * /proc/self/pagemap (PFNs need root, as in the test VM), which, unlike move_pages, also
 * sees pages whose access a sampler revoked (PROT_NONE); falls back to move_pages. */
__attribute__((unused)) static void query_nodes(char *base, long n, int *status) {
    if (zones < 0) read_zones();
    FILE *f = zones > 0 ? fopen("/proc/self/pagemap", "r") : NULL;
    int ok = f != NULL;
    for (long i = 0; ok && i < n; i++) {
        unsigned long long e = 0;
        unsigned long vpn = ((unsigned long)base + i * PAGE) / PAGE;
        if (fseek(f, (long)(vpn * 8), SEEK_SET) != 0 || fread(&e, 8, 1, f) != 1) { ok = 0; break; }
        long pfn = (long)(e & ((1ULL << 55) - 1));
        if (!(e >> 63)) { status[i] = -ENOENT; continue; }
        if (pfn == 0) { ok = 0; break; } /* no PFNs without CAP_SYS_ADMIN */
        status[i] = -EINVAL;
        for (int z = 0; z < zones; z++)
            if (pfn >= zone_start[z] && pfn < zone_end[z]) { status[i] = zone_node[z]; break; }
    }
    if (f) fclose(f);
    if (ok) return;
    void **pages = malloc(sizeof(void *) * n);
    for (long i = 0; i < n; i++) pages[i] = base + i * PAGE;
    if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) != 0) {
        perror("move_pages(query)");
        exit(3);
    }
    free(pages);
}
