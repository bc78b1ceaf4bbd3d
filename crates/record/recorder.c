/* numaplace's recording library (exact mode): linked into a program built by `numaplace cc`.
 *
 * It receives every load and store the compiler instrumented (numaplace's LLVM pass plugin under
 * clang, whose inline fast path decides most of them without a call, or GCC's -fsanitize=thread
 * callbacks with this file as their runtime instead of TSan's), runs them through a per-thread
 * cache model,
 * and writes, at each epoch boundary, each thread's line misses per page to a raw stream
 * ($NUMAPLACE_RECORD_OUT). `numaplace record` turns that stream into a numaplace trace.
 * docs/record.md defines epochs, the cache model, first touch and what is counted, not seen.
 *
 * Raw stream: chunks `u32 length, u8 type, payload` (little-endian), each written whole by one
 * write(2) on an O_APPEND descriptor (a thread's records and epoch ends several at a time,
 * emit_buffered), so threads never interleave inside a chunk. The types are
 * the RAW_* constants below; crates/record/src/raw.rs reads them.
 *
 * This file is compiled without instrumentation. It must not call the functions it interposes
 * (malloc, memcpy, ...) through their public names: it uses glibc's __libc_* entry points and
 * its own loops. */
#define _GNU_SOURCE
/* bsearch is interposed below; stdlib.h may define it inline (__USE_EXTERN_INLINES). */
#define bsearch numaplace_glibc_bsearch
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <stdio.h>
#include <ucontext.h>
#include <unistd.h>
#undef bsearch

#define RAW_HEADER 'H'  /* u32 page size, u32 line size, u64 cache bytes, u32 ways, str exe */
#define RAW_ALLOC 'A'   /* u64 addr, u64 size, u64 call site, u64 module base, str module, str symbol */
#define RAW_FREE 'F'    /* u64 addr */
#define RAW_RECORDS 'R' /* u32 thread, u32 epoch, n x (u64 vpage | FT_BIT, u64 reads, u64 writes) */
#define RAW_EPOCH 'E'   /* u32 thread, u32 epoch, u8 kind, u64 code pointer, u64 base, str module, str symbol */
#define RAW_COUNTERS 'C' /* n x (str name, u64 value) */
#define RAW_MAPS 'M'    /* the text of /proc/self/maps */
#define RAW_END 'Z'     /* u32 status (0: exit; else the signal), u32 last epoch of thread 0 */
#define RAW_SAMPLING 'S' /* sampled mode: u32 windows per cycle (1/rate), u32 lines per page */

#define FT_BIT (1ULL << 63)

/* Epoch boundary kinds (raw.rs: BoundaryKind). */
enum { K_FORK = 1, K_BARRIER = 2, K_JOIN = 3, K_EXIT = 4 };

typedef unsigned long long u64;
typedef uint32_t u32;

/* glibc's own allocator entry points: no dlsym needed, no recursion. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

/* ---------------------------------------------------------------- configuration and state */

static int g_on;              /* recording (the output is open) */
static volatile int g_stopped; /* the stream failed (disk full): stop recording */
static int g_fd = -1;
static u64 g_page_shift = 12, g_line_shift = 6;
static u64 g_cache_bytes;
static u32 g_ways = 1, g_sets;
static volatile u32 g_epoch;  /* the epoch the initial thread published at its last fork */
static int g_ompt;            /* an OMPT tool is active (libomp): GOMP wrappers pass through */
static u32 g_sampled;         /* sampled mode (docs/record.md "Sampled mode"): windows per cycle, 0 = exact */

/* Counted-not-seen and other counters (docs/record.md). */
enum {
    C_LOADS, C_STORES, C_WIDE, C_MEMFN_CALLS, C_MEMFN_LINES, C_ATOMICS, C_SPIN_COLLAPSED,
    C_SPIN_YIELDS, C_FT_TABLE_FULL, C_NON_OMP_ACCESSES, C_NESTED_REGIONS, C_UNSEEN, C_LIBC_CALLS,
    C_LIBC_LINES, C_EXACT_N,
    /* sampled mode only */
    C_SAMPLES = C_EXACT_N, C_WRITE_SAMPLES, C_FT_SAMPLES, C_WINDOWS, C_ARMING_SKIPPED,
    C_REGIONS_UNTRACKED, C_N
};
static const char *const COUNTER_NAMES[C_N] = {
    "loads", "stores", "wide_accesses", "memfn_calls", "memfn_lines", "atomics",
    "spin_loads_collapsed", "spin_yields", "first_touch_table_full", "non_openmp_thread_accesses",
    "nested_regions", "unseen_intrinsics", "libc_calls", "libc_lines",
    "samples", "write_samples", "first_touch_samples", "windows_armed", "arming_skipped",
    "regions_unsampled"};
static u64 g_counters[C_N];

#define SPIN_REPEAT 64    /* loads in a row among the last 4 load addresses, no store: a spin-wait */
#define SPIN_YIELD 256    /* a spinning thread yields every this many collapsed loads */
#define TRACK_MIN 4096    /* allocations of at least this many bytes become regions */

struct entry { u64 vpage; u64 reads; u64 writes; };
#define SYM_CACHE_BITS 8
struct sym_entry { void *pc; u64 base; const char *module, *sym; };

struct thread {
    int tid;          /* OpenMP thread number (0 outside parallel regions) */
    int omp;          /* inside an OpenMP implicit task (or the initial thread) */
    int depth;        /* parallel nesting depth */
    u32 epoch;        /* this thread's current epoch */
    u64 last_line;    /* fast path: the line last accessed and whether it is dirty */
    int last_dirty;
    u64 *tags;        /* sets x ways, most recent first: (line + 1) << 1 | dirty, 0 = empty */
    /* The epoch table: open addressing over entries, in first-access order. */
    u32 *slots;       /* index+1 into ents, 0 = empty */
    u32 nslots;
    struct entry *ents;
    u32 nents, cap;
    u64 last_vpage; u32 last_idx; int have_last;
    u64 spin_win[4]; u32 spin_pos; u64 spin_n; /* the last load addresses; loads in a row among them */
    u64 counters[C_N];
    char buf[65536];
    /* This thread's records and epoch ends, written OUT_BUF bytes at a time (emit_buffered). */
    char *obuf;
    u32 olen;
    int olock;
    u64 oflushed_ms; /* when the buffer was last written (CLOCK_MONOTONIC_COARSE) */
    struct sym_entry syms[1 << SYM_CACHE_BITS]; /* sym_of_cached */
};

static __thread struct thread *t_self;
static __thread int t_busy; /* inside the recorder: instrumented callees must not recurse */

/* The fast path numaplace's pass plugin inlines in front of every plain load and store of up to
 * 64 bytes (crates/record/pass/numaplace-pass.cpp; docs/record.md, "Recording slowdown"): this
 * thread's cache tags and geometry, read in place. An access to the line most recently used in
 * its set (a store: and already dirty) changes nothing in the LRU model, so the inlined code
 * only counts it here and skips the call; every other access calls the library. While a
 * thread is not recording (before it is an OpenMP thread, in a forked child, in sampled mode)
 * `tags` points at g_no_line, which matches no line, so every access calls the library. The
 * counts are added to the thread's counters at each of its epoch boundaries. The field order
 * is the pass's (F_TAGS ... F_WIDE). */
struct np_fast { u64 *tags; u64 setmask, ways, shift, loads, stores, wide; };
static u64 g_no_line[1];
__thread struct np_fast __numaplace_fast __attribute__((tls_model("initial-exec"))) = {g_no_line, 0, 0, 6, 0, 0, 0};

static void fast_on(struct thread *t)
{
    __numaplace_fast.tags = t->tags;
    __numaplace_fast.setmask = g_sets - 1;
    __numaplace_fast.ways = g_ways;
    __numaplace_fast.shift = g_line_shift;
}

static void fast_off(void)
{
    __numaplace_fast.tags = g_no_line;
    __numaplace_fast.setmask = 0;
    __numaplace_fast.ways = 0;
}

/* The fast path's counts into the thread's counters (called by the thread itself). */
static void fast_counts(struct thread *t)
{
    t->counters[C_LOADS] += __numaplace_fast.loads;
    t->counters[C_STORES] += __numaplace_fast.stores;
    t->counters[C_WIDE] += __numaplace_fast.wide;
    __numaplace_fast.loads = __numaplace_fast.stores = __numaplace_fast.wide = 0;
}

/* The thread is an OpenMP thread from now on: its accesses are recorded, the fast path on. */
static int g_no_fast; /* $NUMAPLACE_RECORD_FAST=0: every access calls the library (the tests' A/B) */
static void omp_thread(struct thread *t)
{
    t->omp = 1;
    if (!g_sampled && !g_no_fast) fast_on(t);
}

static void *raw_alloc(size_t n)
{
    void *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? 0 : p;
}

static void bytes_copy(void *d, const void *s, size_t n)
{
    volatile unsigned char *dd = d;
    const volatile unsigned char *ss = s;
    for (size_t i = 0; i < n; i++) dd[i] = ss[i];
}

static size_t str_len(const char *s) { size_t n = 0; if (s) while (s[n]) n++; return n; }

/* ---------------------------------------------------------------- the raw stream */

struct out { char *p; size_t n, cap; };

static void put(struct out *o, const void *v, size_t n)
{
    if (o->n + n <= o->cap) bytes_copy(o->p + o->n, v, n);
    o->n += n;
}
static void put8(struct out *o, unsigned v) { unsigned char b = v; put(o, &b, 1); }
static void put32(struct out *o, u32 v) { put(o, &v, 4); }
static void put64(struct out *o, u64 v) { put(o, &v, 8); }
static void putstr(struct out *o, const char *s)
{
    size_t n = str_len(s);
    if (n > 4096) n = 4096;
    unsigned short l = n;
    put(o, &l, 2);
    put(o, s, n);
}
static void begin(struct out *o, char *buf, size_t cap, int type)
{
    o->p = buf; o->cap = cap; o->n = 0;
    put32(o, 0);
    put8(o, type);
}
/* Writes n bytes with write(2), whole (async-signal-safe); a failure stops the recording. */
static void out_write(const char *p, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = syscall(SYS_write, g_fd, p + off, n - off); /* not the interposed write */
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { g_stopped = 1; return; }
        off += w;
    }
}

/* Whether the chunk is complete: its length field set. */
static int seal(struct out *o)
{
    if (g_fd < 0 || g_stopped || o->n > o->cap) return 0;
    u32 len = o->n - 5;
    bytes_copy(o->p, &len, 4);
    return 1;
}

/* Writes one chunk with one write(2) (async-signal-safe). */
static void emit(struct out *o)
{
    if (seal(o)) out_write(o->p, o->n);
}

/* A thread's records and epoch ends are buffered: a program that passes millions of barriers
 * (NPB SP at class W: 3 million epochs) would otherwise make two write(2) calls per thread and
 * epoch, all on one file. Every such chunk names its thread and epoch, so the converter needs
 * them in no order across threads; the buffers are written when full, when they have held
 * chunks for OUT_MS (so a program killed with SIGKILL or ending in _exit loses only its last
 * fraction of a second), at the exit and at a crash (where a buffer its thread is writing to is
 * left: its epochs are not whole). */
#define OUT_BUF (1u << 18)
#define OUT_MS 100

static u64 coarse_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)) return 0;
    return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

static int out_lock(struct thread *t, int wait)
{
    while (__atomic_exchange_n(&t->olock, 1, __ATOMIC_ACQUIRE))
        if (!wait) return 0;
    return 1;
}
static void out_unlock(struct thread *t) { __atomic_store_n(&t->olock, 0, __ATOMIC_RELEASE); }

static void flush_out(struct thread *t, int wait)
{
    if (!t || !t->obuf || !out_lock(t, wait)) return;
    if (t->olen && g_fd >= 0 && !g_stopped) out_write(t->obuf, t->olen);
    t->olen = 0;
    out_unlock(t);
}

static void emit_buffered(struct thread *t, struct out *o)
{
    if (!seal(o)) return;
    if (!t->obuf) { out_write(o->p, o->n); return; }
    out_lock(t, 1);
    if (t->olen + o->n > OUT_BUF) {
        out_write(t->obuf, t->olen);
        t->olen = 0;
    }
    if (o->n > OUT_BUF) {
        out_write(o->p, o->n);
    } else {
        /* word by word (the library is built with -fno-builtin: no memcpy) */
        size_t i = 0;
        volatile u64 *d = (volatile u64 *)(void *)(t->obuf + t->olen);
        const volatile u64 *sw = (const volatile u64 *)(const void *)o->p;
        for (; i + 8 <= o->n; i += 8) d[i / 8] = sw[i / 8];
        bytes_copy(t->obuf + t->olen + i, o->p + i, o->n - i);
        t->olen += o->n;
    }
    u64 now = coarse_ms();
    if (now - t->oflushed_ms >= OUT_MS) { /* the chunk just added included */
        out_write(t->obuf, t->olen);
        t->olen = 0;
        t->oflushed_ms = now;
    }
    out_unlock(t);
}

/* ---------------------------------------------------------------- first touch */

/* A global open-addressing table of pages ever touched: key vpage+1. Bounded by the footprint. */
#define FT_BITS 23
static u64 *g_ft;

/* Returns 1 when this call first touched the page. */
static int first_touch(u64 vpage, struct thread *t)
{
    if (!g_ft) return 0;
    u64 key = vpage + 1, mask = (1ULL << FT_BITS) - 1;
    u64 h = (vpage * 0x9E3779B97F4A7C15ULL) >> (64 - FT_BITS);
    for (u64 probe = 0; probe < 4096; probe++) {
        u64 *s = &g_ft[(h + probe) & mask];
        u64 cur = __atomic_load_n(s, __ATOMIC_RELAXED);
        if (cur == key) return 0;
        if (cur == 0) {
            u64 exp = 0;
            if (__atomic_compare_exchange_n(s, &exp, key, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return 1;
            if (exp == key) return 0;
        }
    }
    t->counters[C_FT_TABLE_FULL]++;
    return 0;
}

/* ---------------------------------------------------------------- per-thread state */

static void sym_of(void *pc, u64 *base, const char **module, const char **sym)
{
    Dl_info di;
    *base = 0; *module = ""; *sym = "";
    if (pc && dladdr(pc, &di)) {
        *base = (u64)di.dli_fbase;
        *module = di.dli_fname ? di.dli_fname : "";
        *sym = di.dli_sname ? di.dli_sname : "";
    }
}

/* dladdr searches the program's whole symbol table, and thread 0 names the code of every epoch
 * end it reaches: millions of times in a program that passes a barrier in a loop (NPB SP), from
 * a few dozen places. The thread's direct-mapped cache of dladdr's answers per code pointer. */
static void sym_of_cached(struct thread *t, void *pc, u64 *base, const char **module, const char **sym)
{
    struct sym_entry *c = &t->syms[((u64)pc * 0x9E3779B97F4A7C15ULL) >> (64 - SYM_CACHE_BITS)];
    if (!pc || c->pc != pc) {
        sym_of(pc, base, module, sym);
        c->pc = pc; c->base = *base; c->module = *module; c->sym = *sym;
        return;
    }
    *base = c->base; *module = c->module; *sym = c->sym;
}

static void flush_records(struct thread *t)
{
    struct out o;
    u32 i = 0;
    while (i < t->nents) {
        begin(&o, t->buf, sizeof t->buf, RAW_RECORDS);
        put32(&o, t->tid);
        put32(&o, t->epoch);
        while (i < t->nents && o.n + 24 <= o.cap) {
            struct entry *e = &t->ents[i++];
            put64(&o, e->vpage);
            put64(&o, e->reads);
            put64(&o, e->writes);
        }
        emit_buffered(t, &o);
    }
    for (u32 j = 0; j < t->nents; j++) {
        u64 v = t->ents[j].vpage & ~FT_BIT;
        u32 s = (u32)((v * 0x9E3779B97F4A7C15ULL) >> 40) & (t->nslots - 1);
        while (t->slots[s]) { t->slots[s] = 0; s = (s + 1) & (t->nslots - 1); }
    }
    t->nents = 0;
    t->have_last = 0;
}

static void arm_window(void);
/* Sampled mode: the size of the current outermost team, and per epoch (mod 256) the threads that
 * reached its closing barrier: the last to arrive moves the window, while the others wait in
 * the barrier, so that every thread's whole epoch is watched. */
static u32 g_team = 1;
static u32 g_arrived[256];

/* Ends this thread's current epoch at a boundary of `kind` at code pointer `pc`. */
static void boundary(struct thread *t, int kind, void *pc)
{
    if (!t) return;
    t_busy++;
    if (g_sampled && kind == K_FORK) arm_window(); /* sampled mode: the next window */
    if (g_sampled && kind == K_BARRIER) {
        u32 *a = &g_arrived[t->epoch & 255];
        u32 team = __atomic_load_n(&g_team, __ATOMIC_ACQUIRE);
        if (__atomic_add_fetch(a, 1, __ATOMIC_ACQ_REL) >= (team ? team : 1)) {
            __atomic_store_n(a, 0, __ATOMIC_RELEASE);
            arm_window();
        }
    }
    flush_records(t);
    if (t == t_self) fast_counts(t);
    struct out o;
    begin(&o, t->buf, sizeof t->buf, RAW_EPOCH);
    put32(&o, t->tid);
    put32(&o, t->epoch);
    put8(&o, kind);
    u64 base = 0;
    const char *module = "", *sym = "";
    if (t->tid == 0) sym_of_cached(t, pc, &base, &module, &sym);
    put64(&o, (u64)pc);
    put64(&o, base);
    putstr(&o, module);
    putstr(&o, sym);
    emit_buffered(t, &o);
    t->epoch++;
    t_busy--;
}

static struct thread *new_thread(void)
{
    struct thread *t = raw_alloc(sizeof *t);
    if (!t) return 0;
    t->tags = raw_alloc((size_t)g_sets * g_ways * sizeof(u64));
    t->nslots = 1 << 16;
    t->slots = raw_alloc(t->nslots * sizeof(u32));
    t->cap = t->nslots / 2;
    t->ents = raw_alloc(t->cap * sizeof(struct entry));
    t->obuf = raw_alloc(OUT_BUF); /* none: each chunk written at once */
    t->last_line = ~0ULL;
    t->epoch = g_epoch;
    if (!t->tags || !t->slots || !t->ents) return 0;
    return t;
}

/* Live threads, so that the exit can add their counters. */
#define MAX_THREADS 4096
static struct thread **g_threads; /* MAX_THREADS entries, mapped at start (no static symbol) */
static u32 g_nthreads;

static struct thread *self(void)
{
    struct thread *t = t_self;
    if (t) return t;
    t_busy++;
    t = new_thread();
    t_busy--;
    if (!t) { g_stopped = 1; return 0; }
    u32 i = __atomic_fetch_add(&g_nthreads, 1, __ATOMIC_RELAXED);
    if (i < MAX_THREADS && g_threads) g_threads[i] = t;
    t_self = t;
    if (i == 0) omp_thread(t); /* the first thread to access memory is the initial thread */
    return t;
}

static void grow_table(struct thread *t)
{
    u32 nslots = t->nslots * 2, cap = nslots / 2;
    u32 *slots = raw_alloc(nslots * sizeof(u32));
    struct entry *ents = raw_alloc(cap * sizeof(struct entry));
    if (!slots || !ents) { g_stopped = 1; return; }
    bytes_copy(ents, t->ents, t->nents * sizeof(struct entry));
    for (u32 j = 0; j < t->nents; j++) {
        u64 v = ents[j].vpage & ~FT_BIT;
        u32 s = (u32)((v * 0x9E3779B97F4A7C15ULL) >> 40) & (nslots - 1);
        while (slots[s]) s = (s + 1) & (nslots - 1);
        slots[s] = j + 1;
    }
    munmap(t->slots, t->nslots * sizeof(u32));
    munmap(t->ents, t->cap * sizeof(struct entry));
    t->slots = slots; t->nslots = nslots; t->ents = ents; t->cap = cap;
}

static struct entry *page_entry(struct thread *t, u64 vpage)
{
    if (t->have_last && t->last_vpage == vpage) return &t->ents[t->last_idx];
    u32 s = (u32)((vpage * 0x9E3779B97F4A7C15ULL) >> 40) & (t->nslots - 1);
    for (;;) {
        u32 k = t->slots[s];
        if (!k) break;
        if ((t->ents[k - 1].vpage & ~FT_BIT) == vpage) {
            t->last_vpage = vpage; t->last_idx = k - 1; t->have_last = 1;
            return &t->ents[k - 1];
        }
        s = (s + 1) & (t->nslots - 1);
    }
    if (t->nents + 1 >= t->cap) {
        grow_table(t);
        if (g_stopped) return 0;
        return page_entry(t, vpage);
    }
    u32 idx = t->nents++;
    t->slots[s] = idx + 1;
    struct entry *e = &t->ents[idx];
    e->vpage = vpage | (first_touch(vpage, t) ? FT_BIT : 0);
    e->reads = 0; e->writes = 0;
    t->last_vpage = vpage; t->last_idx = idx; t->have_last = 1;
    return e;
}

/* One access to one line through the cache model (docs/record.md, "Cache model"). A way holds
 * (line + 1) << 1 | dirty (0: empty); ways are kept most recent first. */
static void line_access(struct thread *t, u64 line, int write)
{
    u64 *ways = t->tags + (line & (g_sets - 1)) * g_ways;
    u64 key = (line + 1) << 1;
    u64 v;
    int miss = 0, newly_dirty = 0;
    if ((ways[0] & ~1ULL) == key) { /* most recent in its set: no reordering */
        v = ways[0];
        if (write && !(v & 1)) { ways[0] = v | 1; newly_dirty = 1; }
    } else {
        u32 w = 1;
        while (w < g_ways && (ways[w] & ~1ULL) != key) w++;
        if (w == g_ways) { miss = 1; w = g_ways - 1; v = key; } /* evict the least recent */
        else v = ways[w];
        if (write && !(v & 1)) { v |= 1; newly_dirty = 1; }
        for (u32 i = w; i > 0; i--) ways[i] = ways[i - 1];
        ways[0] = v;
    }
    t->last_line = line; t->last_dirty = (int)(ways[0] & 1);
    if (miss || newly_dirty) {
        struct entry *e = page_entry(t, line >> (g_page_shift - g_line_shift));
        if (!e) return;
        e->reads += miss;
        e->writes += newly_dirty;
    }
}

static inline void access_mem(const void *p, u64 size, int write)
{
    if (!g_on || g_stopped || t_busy || g_sampled) return;
    struct thread *t = t_self;
    if (!t && !(t = self())) return;
    u64 a = (u64)p;
    if (!write) {
        t->counters[C_LOADS]++;
        /* A spin-wait: loads of the same few addresses (a flag and the loop's bounds), no store. */
        if (a == t->spin_win[0] || a == t->spin_win[1] || a == t->spin_win[2] || a == t->spin_win[3]) {
            if (++t->spin_n >= SPIN_REPEAT) {
                t->counters[C_SPIN_COLLAPSED]++;
                if (t->spin_n % SPIN_YIELD == 0) { t->counters[C_SPIN_YIELDS]++; sched_yield(); }
                return;
            }
        } else {
            t->spin_win[t->spin_pos++ & 3] = a;
            t->spin_n = 0;
        }
    } else {
        t->counters[C_STORES]++;
        t->spin_n = 0;
    }
    if (!t->omp) t->counters[C_NON_OMP_ACCESSES]++;
    u64 first = a >> g_line_shift, last = (a + (size ? size : 1) - 1) >> g_line_shift;
    if (first == last) {
        if (first == t->last_line && (!write || t->last_dirty)) return; /* the line just used */
        line_access(t, first, write);
        return;
    }
    for (u64 l = first; l <= last; l++) line_access(t, l, write);
}

/* A range (memcpy, wide accesses): every line once. */
static void access_range(const void *p, u64 size, int write, int counter)
{
    if (!g_on || g_stopped || t_busy || g_sampled || !size) return;
    struct thread *t = t_self;
    if (!t && !(t = self())) return;
    u64 a = (u64)p, first = a >> g_line_shift, last = (a + size - 1) >> g_line_shift;
    t->counters[counter] += (counter == C_MEMFN_LINES || counter == C_LIBC_LINES) ? last - first + 1 : 1;
    t->spin_n = 0;
    if (first == last && first == t->last_line && (!write || t->last_dirty)) return; /* the line just used */
    for (u64 l = first; l <= last; l++) line_access(t, l, write);
}

/* ---------------------------------------------------------------- clang: numaplace's pass plugin */

/* The calls crates/record/pass/numaplace-pass.cpp makes where its inline fast path (np_fast,
 * above) does not decide: plain loads and stores of 1, 2, 4, 8 and 16 bytes, under the names of
 * clang's sanitizer-coverage callbacks, which the pass replaced. */

void __sanitizer_cov_load1(uint8_t *p) { access_mem(p, 1, 0); }
void __sanitizer_cov_load2(uint16_t *p) { access_mem(p, 2, 0); }
void __sanitizer_cov_load4(uint32_t *p) { access_mem(p, 4, 0); }
void __sanitizer_cov_load8(uint64_t *p) { access_mem(p, 8, 0); }
void __sanitizer_cov_load16(__int128 *p) { access_mem(p, 16, 0); }
void __sanitizer_cov_store1(uint8_t *p) { access_mem(p, 1, 1); }
void __sanitizer_cov_store2(uint16_t *p) { access_mem(p, 2, 1); }
void __sanitizer_cov_store4(uint32_t *p) { access_mem(p, 4, 1); }
void __sanitizer_cov_store8(uint64_t *p) { access_mem(p, 8, 1); }
void __sanitizer_cov_store16(__int128 *p) { access_mem(p, 16, 1); }
/* The pass's other accesses: loads and stores of other sizes than 1, 2, 4, 8, 16 bytes (where
 * the fast path does not decide), masked, expanding/compressing, gathering and scattering vector
 * accesses. Each is one `wide_accesses`; every line it touches goes through
 * the cache model. Flags: bit 0 a write, bit 1 packed (expandload/compressstore: popcount(mask)
 * consecutive lanes), bit 2 the continuation of an access already counted. */
enum { W_WRITE = 1, W_PACKED = 2, W_CONT = 4 };

static inline struct thread *wide_thread(u64 flags)
{
    if (!g_on || g_stopped || t_busy || g_sampled) return 0;
    struct thread *t = t_self;
    if (!t && !(t = self())) return 0;
    if (!(flags & W_CONT)) t->counters[C_WIDE]++;
    if (!t->omp) t->counters[C_NON_OMP_ACCESSES]++;
    t->spin_n = 0;
    return t;
}

/* One lane (or access) of `size` bytes at `a` through the cache model. */
static inline void lane_access(struct thread *t, u64 a, u64 size, int write)
{
    u64 first = a >> g_line_shift, last = (a + (size ? size : 1) - 1) >> g_line_shift;
    if (first == last && first == t->last_line && (!write || t->last_dirty)) return; /* the line just used */
    for (u64 l = first; l <= last; l++) line_access(t, l, write);
}

/* A load or store of `size` bytes (a 32- or 64-byte vector, a long double, an odd aggregate). */
void __numaplace_access(void *p, u64 size, u64 flags)
{
    struct thread *t = wide_thread(flags);
    if (t) lane_access(t, (u64)p, size, flags & W_WRITE);
}

/* Contiguous lanes of `esize` bytes from p, lane i active when bit i of mask is set (masked
 * load/store: each active lane; packed: the first popcount(mask) lanes). */
void __numaplace_masked(void *p, u64 esize, u64 mask, u64 flags)
{
    struct thread *t = wide_thread(flags);
    if (!t || !mask) return;
    int write = flags & W_WRITE;
    if (flags & W_PACKED) {
        lane_access(t, (u64)p, esize * (u64)__builtin_popcountll(mask), write);
        return;
    }
    while (mask) {
        u64 i = (u64)__builtin_ctzll(mask);
        mask &= mask - 1;
        lane_access(t, (u64)p + i * esize, esize, write);
    }
}

/* Up to 4 lanes with their own pointers (gather, scatter): lane j active when bit j of mask is
 * set; info = lane size << 3 | flags. */
void __numaplace_lanes(u64 mask, u64 info, void *p0, void *p1, void *p2, void *p3)
{
    struct thread *t = wide_thread(info & 7);
    if (!t) return;
    u64 esize = info >> 3;
    int write = info & W_WRITE;
    void *p[4] = {p0, p1, p2, p3};
    for (int j = 0; j < 4; j++)
        if (mask >> j & 1) lane_access(t, (u64)p[j], esize, write);
}

/* An intrinsic that may touch memory through a pointer, which the pass does not understand:
 * counted, not seen. */
void __numaplace_unseen(void)
{
    if (!g_on || g_stopped || t_busy || g_sampled) return;
    struct thread *t = t_self;
    if (t || (t = self())) t->counters[C_UNSEEN]++;
}

/* ---------------------------------------------------------------- GCC: -fsanitize=thread's callbacks */

void __tsan_init(void) {}
void __tsan_func_entry(void *p) { (void)p; }
void __tsan_func_exit(void) {}
void __tsan_vptr_update(void **p, void *v) { (void)v; access_mem(p, 8, 1); }
void __tsan_vptr_read(void **p) { access_mem(p, 8, 0); }
#define TSAN_RW(n)                                                             \
    void __tsan_read##n(void *p) { access_mem(p, n, 0); }                      \
    void __tsan_write##n(void *p) { access_mem(p, n, 1); }                     \
    void __tsan_unaligned_read##n(void *p) { access_mem(p, n, 0); }            \
    void __tsan_unaligned_write##n(void *p) { access_mem(p, n, 1); }           \
    void __tsan_volatile_read##n(void *p) { access_mem(p, n, 0); }             \
    void __tsan_volatile_write##n(void *p) { access_mem(p, n, 1); }
TSAN_RW(1) TSAN_RW(2) TSAN_RW(4) TSAN_RW(8) TSAN_RW(16)
void __tsan_read_range(void *p, unsigned long n) { access_range(p, n, 0, C_WIDE); }
void __tsan_write_range(void *p, unsigned long n) { access_range(p, n, 1, C_WIDE); }

/* Atomics, performed here and counted. Under GCC each is seen as a read (a load) or a read and
 * a write (a store or read-modify-write); under clang too (its ThreadSanitizer pass instruments
 * atomics, numaplace's pass plugin leaves them alone). */
static void atomic_seen(void *p, u64 n, int rmw)
{
    struct thread *t = t_self;
    if (g_on && !t_busy && (t || (t = self()))) t->counters[C_ATOMICS]++;
    access_mem(p, n, 0);
    if (rmw) access_mem(p, n, 1);
}
#define MO(m) __ATOMIC_SEQ_CST /* a run-time order: the strongest, always correct */
#define TSAN_ATOMIC(bits, T)                                                                  \
    T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                 \
    { (void)mo; atomic_seen((void *)a, bits / 8, 0); return __atomic_load_n(a, MO(mo)); }     \
    void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                              \
    { (void)mo; atomic_seen((void *)a, bits / 8, 1); __atomic_store_n(a, v, MO(mo)); }        \
    T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)                              \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_exchange_n(a, v, MO(mo)); } \
    T __tsan_atomic##bits##_fetch_add(volatile T *a, T v, int mo)                             \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_fetch_add(a, v, MO(mo)); } \
    T __tsan_atomic##bits##_fetch_sub(volatile T *a, T v, int mo)                             \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_fetch_sub(a, v, MO(mo)); } \
    T __tsan_atomic##bits##_fetch_and(volatile T *a, T v, int mo)                             \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_fetch_and(a, v, MO(mo)); } \
    T __tsan_atomic##bits##_fetch_or(volatile T *a, T v, int mo)                              \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_fetch_or(a, v, MO(mo)); } \
    T __tsan_atomic##bits##_fetch_xor(volatile T *a, T v, int mo)                             \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_fetch_xor(a, v, MO(mo)); } \
    T __tsan_atomic##bits##_fetch_nand(volatile T *a, T v, int mo)                            \
    { (void)mo; atomic_seen((void *)a, bits / 8, 2); return __atomic_fetch_nand(a, v, MO(mo)); } \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) \
    { (void)mo; (void)fmo; atomic_seen((void *)a, bits / 8, 2);                               \
      return __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }    \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) \
    { (void)mo; (void)fmo; atomic_seen((void *)a, bits / 8, 2);                               \
      return __atomic_compare_exchange_n(a, c, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }    \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)    \
    { (void)mo; (void)fmo; atomic_seen((void *)a, bits / 8, 2);                               \
      __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return c; }
TSAN_ATOMIC(8, uint8_t)
TSAN_ATOMIC(16, uint16_t)
TSAN_ATOMIC(32, uint32_t)
TSAN_ATOMIC(64, uint64_t)
void __tsan_atomic_thread_fence(int mo) { (void)mo; __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int mo) { (void)mo; __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/* ---------------------------------------------------------------- memcpy, memset, memmove */

static void *(*real_memcpy)(void *, const void *, size_t);
static void *(*real_memmove)(void *, const void *, size_t);
static void *(*real_memset)(void *, int, size_t);

static void memfn_call(void)
{
    struct thread *t = t_self;
    if (g_on && !g_stopped && !t_busy && !g_sampled && (t || (t = self()))) t->counters[C_MEMFN_CALLS]++;
}

void *memcpy(void *d, const void *s, size_t n)
{
    memfn_call();
    access_range(s, n, 0, C_MEMFN_LINES);
    access_range(d, n, 1, C_MEMFN_LINES);
    if (real_memcpy) return real_memcpy(d, s, n);
    bytes_copy(d, s, n);
    return d;
}
void *memmove(void *d, const void *s, size_t n)
{
    memfn_call();
    access_range(s, n, 0, C_MEMFN_LINES);
    access_range(d, n, 1, C_MEMFN_LINES);
    if (real_memmove) return real_memmove(d, s, n);
    unsigned char *dd = d; const unsigned char *ss = s;
    if (dd < ss) for (size_t i = 0; i < n; i++) ((volatile unsigned char *)dd)[i] = ss[i];
    else for (size_t i = n; i > 0; i--) ((volatile unsigned char *)dd)[i - 1] = ss[i - 1];
    return d;
}
void *memset(void *d, int c, size_t n)
{
    memfn_call();
    access_range(d, n, 1, C_MEMFN_LINES);
    if (real_memset) return real_memset(d, c, n);
    for (size_t i = 0; i < n; i++) ((volatile unsigned char *)d)[i] = (unsigned char)c;
    return d;
}
/* ThreadSanitizer's pass from LLVM 16 calls these for the memory intrinsics (LLVM 14, Debian
 * bookworm's clang, calls memcpy, memmove and memset themselves). */
void *__tsan_memcpy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
void *__tsan_memmove(void *d, const void *s, size_t n) { return memmove(d, s, n); }
void *__tsan_memset(void *d, int c, size_t n) { return memset(d, c, n); }

/* ---------------------------------------------------------------- the C library's buffer functions */

/* Other C library functions that read or write the caller's buffers (docs/record.md, "Counted,
 * not seen"): interposed, their work done by glibc's own (resolved once, at start; before that,
 * by the loops below) and the bytes they examine or write counted through the cache model as
 * `libc_lines` (`libc_calls` calls). A string function examines up to and including the
 * terminator or the first difference; qsort is the recorder's own copy of glibc 2.36's merge
 * sort (msort.c: the same comparisons, element moves and temporary buffer), calling the
 * program's comparator, with every element move counted. */
static size_t (*real_strlen)(const char *);
static size_t (*real_strnlen)(const char *, size_t);
static void *(*real_memchr)(const void *, int, size_t);
static void *(*real_memrchr)(const void *, int, size_t);
static void *(*real_rawmemchr)(const void *, int);
static int (*real_memcmp)(const void *, const void *, size_t);
static char *(*real_strchr)(const char *, int);
static char *(*real_strrchr)(const char *, int);
static char *(*real_strstr)(const char *, const char *);
static int (*real_strcmp)(const char *, const char *);
static int (*real_strncmp)(const char *, const char *, size_t);
static void (*real_chk_fail)(void);

static int counting(void) { return g_on && !g_stopped && !t_busy && !g_sampled; }

static void libc_call(void)
{
    struct thread *t = t_self;
    if (counting() && (t || (t = self()))) t->counters[C_LIBC_CALLS]++;
}
static void libc_read(const void *p, size_t n) { access_range(p, n, 0, C_LIBC_LINES); }
static void libc_write(const void *p, size_t n) { access_range(p, n, 1, C_LIBC_LINES); }

/* Own loops (the library is compiled with -fno-builtin: none becomes a library call). */
static size_t o_strnlen(const char *s, size_t max) { size_t n = 0; while (n < max && s[n]) n++; return n; }
static size_t o_strlen(const char *s) { return real_strlen ? real_strlen(s) : str_len(s); }
static size_t mismatch(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    size_t i = 0;
    while (i < n && x[i] == y[i]) i++;
    return i;
}
static void copy_bytes(void *d, const void *s, size_t n)
{
    if (real_memmove) real_memmove(d, s, n);
    else bytes_copy(d, s, n);
}
static void set_bytes(void *d, int c, size_t n)
{
    if (real_memset) { real_memset(d, c, n); return; }
    for (size_t i = 0; i < n; i++) ((volatile unsigned char *)d)[i] = (unsigned char)c;
}

int memcmp(const void *a, const void *b, size_t n)
{
    int r = real_memcmp ? real_memcmp(a, b, n) : 1;
    if (real_memcmp && !counting()) return r;
    size_t i = r ? mismatch(a, b, n) : n;
    if (i < n) r = ((const unsigned char *)a)[i] - ((const unsigned char *)b)[i];
    else r = 0;
    libc_call();
    size_t seen = i < n ? i + 1 : n; /* up to and including the first difference */
    libc_read(a, seen);
    libc_read(b, seen);
    return r;
}
int bcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *r = real_memchr ? real_memchr(s, c, n) : 0;
    if (!real_memchr)
        for (size_t i = 0; i < n; i++)
            if (((const unsigned char *)s)[i] == (unsigned char)c) { r = (const unsigned char *)s + i; break; }
    libc_call();
    libc_read(s, r ? (size_t)(r - (const unsigned char *)s) + 1 : n);
    return (void *)r;
}
void *memrchr(const void *s, int c, size_t n)
{
    const unsigned char *r = real_memrchr ? real_memrchr(s, c, n) : 0;
    if (!real_memrchr)
        for (size_t i = n; i > 0; i--)
            if (((const unsigned char *)s)[i - 1] == (unsigned char)c) { r = (const unsigned char *)s + i - 1; break; }
    size_t seen = r ? (size_t)((const unsigned char *)s + n - r) : n;
    libc_call();
    libc_read((const unsigned char *)s + n - seen, seen);
    return (void *)r;
}
void *rawmemchr(const void *s, int c)
{
    const unsigned char *r = s;
    if (real_rawmemchr) r = real_rawmemchr(s, c);
    else while (*r != (unsigned char)c) r++;
    libc_call();
    libc_read(s, (size_t)(r - (const unsigned char *)s) + 1);
    return (void *)r;
}

void bzero(void *d, size_t n) { libc_call(); libc_write(d, n); set_bytes(d, 0, n); }
void explicit_bzero(void *d, size_t n) { libc_call(); libc_write(d, n); set_bytes(d, 0, n); }

size_t strlen(const char *s)
{
    size_t n = o_strlen(s);
    libc_call();
    libc_read(s, n + 1);
    return n;
}
size_t strnlen(const char *s, size_t max)
{
    size_t n = real_strnlen ? real_strnlen(s, max) : o_strnlen(s, max);
    libc_call();
    libc_read(s, n < max ? n + 1 : max);
    return n;
}
int strcmp(const char *a, const char *b)
{
    if (real_strcmp && !counting()) return real_strcmp(a, b);
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    size_t i = 0;
    while (x[i] && x[i] == y[i]) i++;
    libc_call();
    libc_read(a, i + 1);
    libc_read(b, i + 1);
    return x[i] - y[i];
}
int strncmp(const char *a, const char *b, size_t n)
{
    if (real_strncmp && !counting()) return real_strncmp(a, b, n);
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    size_t i = 0;
    while (i < n && x[i] && x[i] == y[i]) i++;
    libc_call();
    size_t seen = i < n ? i + 1 : n;
    libc_read(a, seen);
    libc_read(b, seen);
    return i < n ? x[i] - y[i] : 0;
}
char *stpcpy(char *d, const char *s)
{
    size_t n = o_strlen(s);
    libc_call();
    libc_read(s, n + 1);
    libc_write(d, n + 1);
    copy_bytes(d, s, n + 1);
    return d + n;
}
char *strcpy(char *d, const char *s) { stpcpy(d, s); return d; }
char *strncpy(char *d, const char *s, size_t n)
{
    size_t k = real_strnlen ? real_strnlen(s, n) : o_strnlen(s, n);
    libc_call();
    libc_read(s, k < n ? k + 1 : n);
    libc_write(d, n);
    copy_bytes(d, s, k);
    set_bytes(d + k, 0, n - k); /* strncpy pads with zeros */
    return d;
}
char *strcat(char *d, const char *s)
{
    size_t dl = o_strlen(d), sl = o_strlen(s);
    libc_call();
    libc_read(d, dl + 1);
    libc_read(s, sl + 1);
    libc_write(d + dl, sl + 1);
    copy_bytes(d + dl, s, sl + 1);
    return d;
}
char *strncat(char *d, const char *s, size_t n)
{
    size_t dl = o_strlen(d), k = real_strnlen ? real_strnlen(s, n) : o_strnlen(s, n);
    libc_call();
    libc_read(d, dl + 1);
    libc_read(s, k < n ? k + 1 : n);
    libc_write(d + dl, k + 1);
    copy_bytes(d + dl, s, k);
    d[dl + k] = 0;
    return d;
}
char *strchr(const char *s, int c)
{
    const char *r;
    if (real_strchr) r = real_strchr(s, c);
    else { r = s; while (*r != (char)c && *r) r++; if (*r != (char)c) r = 0; }
    libc_call();
    libc_read(s, r ? (size_t)(r - s) + 1 : o_strlen(s) + 1);
    return (char *)r;
}
char *strrchr(const char *s, int c)
{
    if (real_strrchr && !counting()) return real_strrchr(s, c);
    size_t n = o_strlen(s);
    const char *r = 0;
    if (real_strrchr) r = real_strrchr(s, c);
    else for (size_t i = n + 1; i > 0; i--) if (s[i - 1] == (char)c) { r = s + i - 1; break; }
    libc_call();
    libc_read(s, n + 1);
    return (char *)r;
}
char *strstr(const char *h, const char *nd)
{
    if (real_strstr && !counting()) return real_strstr(h, nd);
    size_t nl = o_strlen(nd);
    const char *r = 0;
    if (real_strstr) r = real_strstr(h, nd);
    else
        for (const char *p = h;; p++) {
            if (o_strnlen(p, nl) == nl && mismatch(p, nd, nl) == nl) { r = p; break; }
            if (!*p) break;
        }
    libc_call();
    libc_read(nd, nl + 1);
    /* The haystack up to the end of the match, or whole (glibc's two-way search may skip). */
    libc_read(h, r ? (size_t)(r - h) + nl : o_strlen(h) + 1);
    return (char *)r;
}

/* _FORTIFY_SOURCE's checked variants: the same, after the check glibc makes. */
static void chk(size_t need, size_t have)
{
    if (need > have) { if (real_chk_fail) real_chk_fail(); abort(); }
}
void *__memcpy_chk(void *d, const void *s, size_t n, size_t dl) { chk(n, dl); return memcpy(d, s, n); }
void *__memmove_chk(void *d, const void *s, size_t n, size_t dl) { chk(n, dl); return memmove(d, s, n); }
void *__memset_chk(void *d, int c, size_t n, size_t dl) { chk(n, dl); return memset(d, c, n); }
void *mempcpy(void *d, const void *s, size_t n) { return (char *)memcpy(d, s, n) + n; }
void *__mempcpy_chk(void *d, const void *s, size_t n, size_t dl) { chk(n, dl); return mempcpy(d, s, n); }
char *__strcpy_chk(char *d, const char *s, size_t dl) { chk(o_strlen(s) + 1, dl); return strcpy(d, s); }
char *__stpcpy_chk(char *d, const char *s, size_t dl) { chk(o_strlen(s) + 1, dl); return stpcpy(d, s); }
char *__strncpy_chk(char *d, const char *s, size_t n, size_t dl) { chk(n, dl); return strncpy(d, s, n); }
char *__strcat_chk(char *d, const char *s, size_t dl) { chk(o_strlen(d) + o_strlen(s) + 1, dl); return strcat(d, s); }
char *__strncat_chk(char *d, const char *s, size_t n, size_t dl)
{
    size_t k = o_strnlen(s, n);
    chk(o_strlen(d) + k + 1, dl);
    return strncat(d, s, n);
}

/* qsort: glibc 2.36's msort.c (Debian bookworm), element moves counted. Elements of at most
 * 32 bytes are merged directly (each merge level: the merged elements read and written to a
 * temporary buffer, then copied back); larger ones indirectly (a merge sort of pointers, then each
 * element moved once into place, Knuth's cycle walk). The temporary buffer is on the stack
 * below 1024 bytes, else from malloc (glibc's own, untracked); if that fails, glibc's qsort_r
 * sorts (not counted). */
typedef int (*cmp_fn)(const void *, const void *);
typedef int (*cmp_r_fn)(const void *, const void *, void *);
struct msort { size_t s; int indirect; cmp_fn cmp; cmp_r_fn cmp_r; void *arg; char *t; };

static int ms_cmp(const struct msort *p, const void *a, const void *b)
{
    if (p->indirect) { a = *(const void *const *)a; b = *(const void *const *)b; }
    return p->cmp_r ? p->cmp_r(a, b, p->arg) : p->cmp(a, b);
}
static void ms_move(void *d, const void *s, size_t n)
{
    libc_read(s, n);
    libc_write(d, n);
    copy_bytes(d, s, n);
}
static void ms_sort(const struct msort *p, char *b, size_t n)
{
    if (n <= 1) return;
    size_t n1 = n / 2, n2 = n - n1, s = p->s;
    char *b1 = b, *b2 = b + n1 * s, *tmp = p->t;
    ms_sort(p, b1, n1);
    ms_sort(p, b2, n2);
    while (n1 > 0 && n2 > 0) {
        if (ms_cmp(p, b1, b2) <= 0) { ms_move(tmp, b1, s); b1 += s; --n1; }
        else { ms_move(tmp, b2, s); b2 += s; --n2; }
        tmp += s;
    }
    if (n1 > 0) ms_move(tmp, b1, n1 * s);
    ms_move(b, p->t, (n - n2) * s);
}
static void sort(void *b, size_t n, size_t s, cmp_fn cmp, cmp_r_fn cmp_r, void *arg)
{
    size_t size = s > 32 ? 2 * n * sizeof(void *) + s : n * s;
    char stack[1024];
    char *heap = size < sizeof stack ? 0 : __libc_malloc(size);
    if (size >= sizeof stack && !heap) { /* glibc would use its quicksort: not counted */
        static void (*real)(void *, size_t, size_t, cmp_r_fn, void *);
        if (!real) real = (void (*)(void *, size_t, size_t, cmp_r_fn, void *))dlsym(RTLD_NEXT, "qsort_r");
        if (cmp_r) real(b, n, s, cmp_r, arg);
        else real(b, n, s, (cmp_r_fn)(void (*)(void))cmp, 0); /* an extra argument is harmless */
        return;
    }
    struct msort p = {s, 0, cmp, cmp_r, arg, heap ? heap : stack};
    if (s <= 32) {
        ms_sort(&p, b, n);
    } else {
        /* Indirect: sort pointers to the elements, then move each element into place. */
        char *ip = b;
        void **tp = (void **)(p.t + n * sizeof(void *)), **t = tp;
        void *hold = tp + n;
        for (size_t i = 0; i < n; i++, ip += s) { libc_write(t, sizeof *t); *t++ = ip; }
        p.s = sizeof(void *);
        p.indirect = 1;
        ms_sort(&p, (char *)tp, n);
        ip = b;
        for (size_t i = 0; i < n; i++, ip += s) {
            libc_read(&tp[i], sizeof *tp);
            char *kp = tp[i];
            if (kp == ip) continue;
            size_t j = i;
            char *jp = ip;
            ms_move(hold, ip, s);
            do {
                size_t k = (size_t)(kp - (char *)b) / s;
                libc_write(&tp[j], sizeof *tp);
                tp[j] = jp;
                ms_move(jp, kp, s);
                j = k;
                jp = kp;
                libc_read(&tp[k], sizeof *tp);
                kp = tp[k];
            } while (kp != ip);
            libc_write(&tp[j], sizeof *tp);
            tp[j] = jp;
            ms_move(jp, hold, s);
        }
    }
    if (heap) __libc_free(heap);
}
static void (*real_qsort)(void *, size_t, size_t, cmp_fn);
static void (*real_qsort_r)(void *, size_t, size_t, cmp_r_fn, void *);
void qsort(void *b, size_t n, size_t s, cmp_fn cmp)
{
    if (real_qsort && !counting()) { real_qsort(b, n, s, cmp); return; } /* not recording: glibc's */
    libc_call();
    sort(b, n, s, cmp, 0, 0);
}
void qsort_r(void *b, size_t n, size_t s, cmp_r_fn cmp, void *arg)
{
    if (real_qsort_r && !counting()) { real_qsort_r(b, n, s, cmp, arg); return; }
    libc_call();
    sort(b, n, s, 0, cmp, arg);
}
/* bsearch reads the elements only through the program's comparator (seen there). */
void *bsearch(const void *key, const void *base, size_t n, size_t s, cmp_fn cmp)
{
    libc_call();
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const void *p = (const char *)base + mid * s;
        int c = cmp(key, p);
        if (c < 0) hi = mid;
        else if (c > 0) lo = mid + 1;
        else return (void *)p;
    }
    return 0;
}

/* ---------------------------------------------------------------- allocations */

/* Live tracked allocations (>= TRACK_MIN bytes): address -> size, open addressing, locked. */
#define LIVE_SLOTS (1 << 16)
static u64 *g_live; /* pairs: addr, size; addr 1 = deleted */
static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;

static void sampled_add(void *p, size_t size);
static void sampled_remove(void *p);

static void note_alloc(void *p, size_t size, void *ra)
{
    if (!g_on || g_stopped || !p || size < TRACK_MIN || t_busy || !g_live) return;
    t_busy++;
    if (g_sampled) sampled_add(p, size);
    pthread_mutex_lock(&g_live_lock);
    u64 h = ((u64)p * 0x9E3779B97F4A7C15ULL) >> 48;
    for (u32 i = 0; i < LIVE_SLOTS; i++) {
        u64 *s = &g_live[2 * ((h + i) & (LIVE_SLOTS - 1))];
        if (s[0] == 0 || s[0] == 1) { s[0] = (u64)p; s[1] = size; break; }
    }
    pthread_mutex_unlock(&g_live_lock);
    char buf[9000];
    struct out o;
    begin(&o, buf, sizeof buf, RAW_ALLOC);
    u64 base; const char *module, *sym;
    sym_of(ra, &base, &module, &sym);
    put64(&o, (u64)p); put64(&o, size); put64(&o, (u64)ra); put64(&o, base);
    putstr(&o, module); putstr(&o, sym);
    emit(&o);
    t_busy--;
}

static void note_free(void *p)
{
    if (!g_on || g_stopped || !p || t_busy || !g_live) return;
    t_busy++;
    int found = 0;
    pthread_mutex_lock(&g_live_lock);
    u64 h = ((u64)p * 0x9E3779B97F4A7C15ULL) >> 48;
    for (u32 i = 0; i < LIVE_SLOTS; i++) {
        u64 *s = &g_live[2 * ((h + i) & (LIVE_SLOTS - 1))];
        if (s[0] == 0) break;
        if (s[0] == (u64)p) { s[0] = 1; found = 1; break; }
    }
    pthread_mutex_unlock(&g_live_lock);
    if (found && g_sampled) sampled_remove(p);
    if (found) {
        char buf[16];
        struct out o;
        begin(&o, buf, sizeof buf, RAW_FREE);
        put64(&o, (u64)p);
        emit(&o);
    }
    t_busy--;
}

/* The call site of the C++ operator new in progress, if any: its allocation is named after the
 * code that called operator new, not after operator new. */
static __thread void *t_site;

static void *site(void *ra)
{
    void *s = t_site;
    t_site = 0;
    return s ? s : ra;
}

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    note_alloc(p, n, site(__builtin_return_address(0)));
    return p;
}
void *calloc(size_t a, size_t b)
{
    void *p = __libc_calloc(a, b);
    note_alloc(p, a * b, site(__builtin_return_address(0)));
    return p;
}
void *realloc(void *old, size_t n)
{
    note_free(old);
    void *p = __libc_realloc(old, n);
    note_alloc(p, n, site(__builtin_return_address(0)));
    return p;
}
void free(void *p)
{
    note_free(p);
    __libc_free(p);
}
void *aligned_alloc(size_t al, size_t n)
{
    void *p = __libc_memalign(al, n);
    note_alloc(p, n, site(__builtin_return_address(0)));
    return p;
}
void *memalign(size_t al, size_t n)
{
    void *p = __libc_memalign(al, n);
    note_alloc(p, n, site(__builtin_return_address(0)));
    return p;
}
int posix_memalign(void **out, size_t al, size_t n)
{
    if (al < sizeof(void *) || (al & (al - 1))) return EINVAL;
    void *p = __libc_memalign(al, n);
    if (!p) return ENOMEM;
    *out = p;
    note_alloc(p, n, site(__builtin_return_address(0)));
    return 0;
}

/* C++ operator new (libstdc++'s, called through here): remembers the caller for malloc. The
 * library is compiled with -fexceptions, so a std::bad_alloc passes through. The outermost
 * operator's caller wins: libstdc++'s operator new[] calls operator new, which comes back
 * through here from inside libstdc++ (every new[] was named `operator new[](unsigned long)`). */
typedef void *(*new_fn)(size_t);
typedef void *(*new_al_fn)(size_t, size_t);
#define NEW_WRAP(name)                                              \
    void *name(size_t n)                                            \
    {                                                               \
        REAL(name, new_fn);                                         \
        void *outer = t_site;                                       \
        if (!outer) t_site = __builtin_return_address(0);           \
        void *p = real_##name(n);                                   \
        t_site = outer;                                             \
        return p;                                                   \
    }
#define NEW_AL_WRAP(name)                                           \
    void *name(size_t n, size_t al)                                 \
    {                                                               \
        REAL(name, new_al_fn);                                      \
        void *outer = t_site;                                       \
        if (!outer) t_site = __builtin_return_address(0);           \
        void *p = real_##name(n, al);                               \
        t_site = outer;                                             \
        return p;                                                   \
    }

/* ---------------------------------------------------------------- sampled mode */

/* Sampled mode (docs/record.md, "Sampled mode"): this library preloaded into an unmodified
 * program. No access is instrumented; instead the pages of the tracked allocations are armed
 * (PROT_NONE) and the first access to an armed page raises SIGSEGV, whose handler records one
 * sample (the thread, the page, and on x86-64 whether the access was a write), re-enables the
 * page and returns, so the access is retried. Arming:
 *
 *   - every new allocation of at least SAMPLE_MIN bytes is armed whole, so each of its pages'
 *     first access is sampled (its first touch, weight one page of lines);
 *   - at each epoch boundary of thread 0 the previous window is disarmed (its pages already
 *     touched get their access back; pages never touched stay armed for their first touch) and
 *     the next window is armed: the tracked pages, concatenated, are cut into g_sampled
 *     (= 1/rate) windows, armed in turn (window_of). Every page
 *     is thus watched during one epoch in g_sampled, and a sample from a window says that its
 *     thread was the first to access the page in that epoch; it stands for g_sampled epochs'
 *     passes over the page (weight g_sampled pages of lines).
 *
 * The protocol (one lock, g_arm_lock, taken only outside signal handlers):
 *   - regions are added and removed under the lock; removing re-enables the region's pages
 *     before the slot is cleared, so a fault on a page never armed by a live region is a crash;
 *   - the handler reads the region slots without the lock (a slot's npages is written last
 *     when filled and first when cleared) and calls only mprotect and this file's own tables;
 *   - system calls that read or write user buffers (read/write, pread/pwrite, readv/writev,
 *     recv/send, recvfrom/sendto, fread/fwrite) are interposed: under the lock the wrapper
 *     re-enables the buffer's pages and counts itself in g_in_syscall; arming is skipped
 *     (counted as arming_skipped) while any such call is in progress, so the kernel never meets
 *     an armed buffer. Calls libc makes internally (stdio filling its own buffer) are not
 *     interposed: those buffers are smaller than SAMPLE_MIN and never armed. */

#define MAX_SREG 4096
#define SAMPLE_MIN (64 * 1024) /* allocations at least this big are sampled */
/* Whole pages [first, first + npages); touched: a bit per page, set at its first sample (kept
 * with the slot when the region is freed: the handler may still be reading it). */
struct sreg { u64 addr; u64 first; u64 npages; u64 *touched; u64 cap; };
static struct sreg g_sreg[MAX_SREG];
static u32 g_nsreg;          /* slots in use or used once */
static pthread_mutex_t g_arm_lock = PTHREAD_MUTEX_INITIALIZER;
static u32 g_in_syscall;     /* threads inside a wrapped system call */
static u64 g_window;         /* windows armed so far */

static void protect(u64 first, u64 n, int prot)
{
    if (n) mprotect((void *)(first << g_page_shift), n << g_page_shift, prot);
}

static void gcount(int c) { __atomic_fetch_add(&g_counters[c], 1, __ATOMIC_RELAXED); }

static void sampled_add(void *p, size_t size)
{
    u64 ps = 1ULL << g_page_shift;
    u64 first = ((u64)p + ps - 1) >> g_page_shift, end = ((u64)p + size) >> g_page_shift;
    if (size < SAMPLE_MIN || end <= first) return;
    pthread_mutex_lock(&g_arm_lock);
    u32 i = 0;
    while (i < g_nsreg && __atomic_load_n(&g_sreg[i].npages, __ATOMIC_RELAXED)) i++;
    if (i == MAX_SREG) { pthread_mutex_unlock(&g_arm_lock); gcount(C_REGIONS_UNTRACKED); return; }
    u64 words = (end - first + 63) / 64;
    if (g_sreg[i].cap < words) {
        u64 *bits = raw_alloc(words * 8);
        if (!bits) { pthread_mutex_unlock(&g_arm_lock); gcount(C_REGIONS_UNTRACKED); return; }
        g_sreg[i].touched = bits; /* an older, smaller bitmap is left mapped (see struct sreg) */
        g_sreg[i].cap = words;
    } else {
        for (u64 w = 0; w < words; w++) g_sreg[i].touched[w] = 0;
    }
    g_sreg[i].addr = (u64)p;
    g_sreg[i].first = first;
    __atomic_store_n(&g_sreg[i].npages, end - first, __ATOMIC_RELEASE);
    if (i == g_nsreg) __atomic_store_n(&g_nsreg, i + 1, __ATOMIC_RELEASE);
    if (g_in_syscall) gcount(C_ARMING_SKIPPED);
    else protect(first, end - first, PROT_NONE); /* first touches */
    pthread_mutex_unlock(&g_arm_lock);
}

static void sampled_remove(void *p)
{
    pthread_mutex_lock(&g_arm_lock);
    for (u32 i = 0; i < g_nsreg; i++) {
        struct sreg *s = &g_sreg[i];
        if (s->npages && s->addr == (u64)p) {
            protect(s->first, s->npages, PROT_READ | PROT_WRITE);
            __atomic_store_n(&s->npages, 0, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&g_arm_lock);
}

static int touched(struct sreg *s, u64 k)
{
    return (__atomic_load_n(&s->touched[k / 64], __ATOMIC_RELAXED) >> (k % 64)) & 1;
}

/* Window j of g_sampled over the concatenated tracked pages: arm it, or give its touched pages
 * their access back (runs of touched pages, one mprotect each). */
static void window(u64 j, int arm)
{
    u64 total = 0;
    for (u32 i = 0; i < g_nsreg; i++) total += g_sreg[i].npages;
    u64 lo = total * j / g_sampled, hi = total * (j + 1) / g_sampled, off = 0;
    for (u32 i = 0; i < g_nsreg && off < hi; i++) {
        struct sreg *s = &g_sreg[i];
        u64 a = lo > off ? lo - off : 0, b = hi - off < s->npages ? hi - off : s->npages;
        off += s->npages;
        if (!s->npages || a >= b) continue;
        if (arm) { protect(s->first + a, b - a, PROT_NONE); continue; }
        for (u64 k = a; k < b;) {
            while (k < b && !touched(s, k)) k++;
            u64 run = k;
            while (k < b && touched(s, k)) k++;
            protect(s->first + run, k - run, PROT_READ | PROT_WRITE);
        }
    }
}

/* The window armed at the w-th boundary: every window once per cycle of g_sampled boundaries,
 * the order shifted by one each cycle so that a program whose epochs repeat with a period
 * dividing g_sampled (a serial epoch between parallel ones) does not watch some windows only in
 * the epochs where they are idle. */
static u64 window_of(u64 w)
{
    return (w % g_sampled + w / g_sampled) % g_sampled;
}

/* Disarms the previous window and arms the next (thread 0, at its epoch boundaries). */
static void arm_window(void)
{
    pthread_mutex_lock(&g_arm_lock);
    if (g_in_syscall) { pthread_mutex_unlock(&g_arm_lock); gcount(C_ARMING_SKIPPED); return; }
    if (g_window) window(window_of(g_window - 1), 0);
    window(window_of(g_window++), 1);
    gcount(C_WINDOWS);
    pthread_mutex_unlock(&g_arm_lock);
}

/* The region holding vpage, or 0; marks the page touched. */
static struct sreg *in_sampled_region(u64 vpage)
{
    u32 n = __atomic_load_n(&g_nsreg, __ATOMIC_ACQUIRE);
    for (u32 i = 0; i < n; i++) {
        struct sreg *s = &g_sreg[i];
        u64 np = __atomic_load_n(&s->npages, __ATOMIC_ACQUIRE);
        u64 k = vpage - s->first;
        if (np && k < np) {
            __atomic_fetch_or(&s->touched[k / 64], 1ULL << (k % 64), __ATOMIC_RELAXED);
            return s;
        }
    }
    return 0;
}

/* One sample: thread t accessed vpage. The count estimator is documented in docs/record.md. */
static void sample(u64 vpage, int write)
{
    if (g_stopped) return;
    struct thread *t = t_self;
    if (!t && !(t = self())) return;
    t_busy++;
    struct entry *e = page_entry(t, vpage);
    if (e) {
        int first = (e->vpage & FT_BIT) && !e->reads && !e->writes;
        u64 w = (1ULL << (g_page_shift - g_line_shift)) * (first ? 1 : g_sampled);
        e->reads += w; /* a write is write-allocate: a read and a write per line, as in exact mode */
        if (write) e->writes += w;
        t->counters[C_SAMPLES]++;
        t->counters[C_WRITE_SAMPLES] += write != 0;
        t->counters[C_FT_SAMPLES] += first;
    }
    t_busy--;
}

static void on_crash(int sig);

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    /* Also after fork() (g_on off in the child): the child's armed pages get their access back. */
    if (g_sampled && si && si->si_code == SEGV_ACCERR) {
        u64 vpage = (u64)si->si_addr >> g_page_shift;
        if (in_sampled_region(vpage)) {
            int saved = errno;
            protect(vpage, 1, PROT_READ | PROT_WRITE);
            int write = 0;
#if defined(__x86_64__)
            write = (((ucontext_t *)ctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0; /* the page fault's W bit */
#else
            (void)ctx;
#endif
            if (g_on) sample(vpage, write);
            errno = saved;
            return;
        }
    }
    on_crash(sig);
}

/* Wrapped system calls: re-enable the buffers' pages and hold arming off until they return. */
static int sys_enter(const struct iovec *iov, int n)
{
    if (!g_sampled || !g_on) return 0;
    pthread_mutex_lock(&g_arm_lock);
    g_in_syscall++;
    u32 ns = g_nsreg;
    for (int k = 0; k < n; k++) {
        if (!iov[k].iov_base || !iov[k].iov_len) continue;
        u64 a = (u64)iov[k].iov_base >> g_page_shift;
        u64 b = ((u64)iov[k].iov_base + iov[k].iov_len - 1) >> g_page_shift;
        for (u32 i = 0; i < ns; i++) {
            struct sreg *s = &g_sreg[i];
            if (!s->npages) continue;
            u64 lo = a > s->first ? a : s->first, hi = b + 1 < s->first + s->npages ? b + 1 : s->first + s->npages;
            if (lo < hi) protect(lo, hi - lo, PROT_READ | PROT_WRITE);
        }
    }
    pthread_mutex_unlock(&g_arm_lock);
    return 1;
}
static void sys_leave(int entered)
{
    if (entered) __atomic_fetch_sub(&g_in_syscall, 1, __ATOMIC_RELEASE);
}
static int sys_enter1(const void *b, size_t n)
{
    struct iovec v = {(void *)b, n};
    return sys_enter(&v, 1);
}
#define SYS_WRAP(ret, call)                \
    int in_ = sys_enter1(buf, n);          \
    ret r_ = (ret)(call);                  \
    sys_leave(in_);                        \
    return r_;

ssize_t read(int fd, void *buf, size_t n) { SYS_WRAP(ssize_t, syscall(SYS_read, fd, buf, n)) }
ssize_t write(int fd, const void *buf, size_t n) { SYS_WRAP(ssize_t, syscall(SYS_write, fd, buf, n)) }
ssize_t pread(int fd, void *buf, size_t n, off_t o) { SYS_WRAP(ssize_t, syscall(SYS_pread64, fd, buf, n, o)) }
ssize_t pwrite(int fd, const void *buf, size_t n, off_t o) { SYS_WRAP(ssize_t, syscall(SYS_pwrite64, fd, buf, n, o)) }
ssize_t pread64(int fd, void *buf, size_t n, off_t o) { SYS_WRAP(ssize_t, syscall(SYS_pread64, fd, buf, n, o)) }
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t o) { SYS_WRAP(ssize_t, syscall(SYS_pwrite64, fd, buf, n, o)) }
ssize_t recv(int fd, void *buf, size_t n, int f) { SYS_WRAP(ssize_t, syscall(SYS_recvfrom, fd, buf, n, f, 0, 0)) }
ssize_t send(int fd, const void *buf, size_t n, int f) { SYS_WRAP(ssize_t, syscall(SYS_sendto, fd, buf, n, f, 0, 0)) }
ssize_t recvfrom(int fd, void *buf, size_t n, int f, struct sockaddr *a, socklen_t *l)
{ SYS_WRAP(ssize_t, syscall(SYS_recvfrom, fd, buf, n, f, a, l)) }
ssize_t sendto(int fd, const void *buf, size_t n, int f, const struct sockaddr *a, socklen_t l)
{ SYS_WRAP(ssize_t, syscall(SYS_sendto, fd, buf, n, f, a, l)) }
ssize_t readv(int fd, const struct iovec *v, int n)
{
    int in_ = sys_enter(v, n);
    ssize_t r = syscall(SYS_readv, fd, v, n);
    sys_leave(in_);
    return r;
}
ssize_t writev(int fd, const struct iovec *v, int n)
{
    int in_ = sys_enter(v, n);
    ssize_t r = syscall(SYS_writev, fd, v, n);
    sys_leave(in_);
    return r;
}
typedef size_t (*fio_fn)(void *, size_t, size_t, FILE *);
size_t fread(void *p, size_t size, size_t count, FILE *f)
{
    static fio_fn real;
    if (!real) real = (fio_fn)dlsym(RTLD_NEXT, "fread");
    int in_ = sys_enter1(p, size * count);
    size_t r = real(p, size, count, f);
    sys_leave(in_);
    return r;
}
size_t fwrite(const void *p, size_t size, size_t count, FILE *f)
{
    static fio_fn real;
    if (!real) real = (fio_fn)dlsym(RTLD_NEXT, "fwrite");
    int in_ = sys_enter1(p, size * count);
    size_t r = real((void *)p, size, count, f);
    sys_leave(in_);
    return r;
}

/* ---------------------------------------------------------------- epochs: libgomp (GCC) */

static void publish_fork(void *pc)
{
    struct thread *t = self();
    if (!t || t->depth > 0) return;
    boundary(t, K_FORK, pc);
    __atomic_store_n(&g_epoch, t->epoch, __ATOMIC_RELEASE);
}

static int (*p_omp_get_thread_num)(void);
static int (*p_omp_get_num_threads)(void);

struct gomp_wrap { void (*fn)(void *); void *data; void *pc; };

static void gomp_trampoline(void *arg)
{
    struct gomp_wrap *w = arg;
    struct thread *t = self();
    int outer = t && t->depth == 0;
    if (t) {
        if (outer) {
            t->tid = p_omp_get_thread_num ? p_omp_get_thread_num() : 0;
            __atomic_store_n(&g_team, p_omp_get_num_threads ? p_omp_get_num_threads() : 1, __ATOMIC_RELEASE);
            t->epoch = __atomic_load_n(&g_epoch, __ATOMIC_ACQUIRE);
            omp_thread(t);
        } else {
            __atomic_fetch_add(&g_counters[C_NESTED_REGIONS], 1, __ATOMIC_RELAXED);
        }
        t->depth++;
    }
    w->fn(w->data);
    if (t) {
        t->depth--;
        if (outer) boundary(t, K_BARRIER, w->pc); /* the region's implicit barrier */
    }
}

#define REAL(name, type) static type real_##name; \
    if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)
NEW_WRAP(_Znwm)
NEW_WRAP(_Znam)
NEW_AL_WRAP(_ZnwmSt11align_val_t)
NEW_AL_WRAP(_ZnamSt11align_val_t)
typedef void (*gomp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef void (*void_fn)(void);
typedef _Bool (*bool_fn)(void);

void GOMP_parallel(void (*fn)(void *), void *data, unsigned n, unsigned flags)
{
    REAL(GOMP_parallel, gomp_parallel_fn);
    void *pc = __builtin_return_address(0);
    if (g_ompt || !g_on) { real_GOMP_parallel(fn, data, n, flags); return; }
    struct gomp_wrap w = {fn, data, pc};
    publish_fork(pc);
    real_GOMP_parallel(gomp_trampoline, &w, n, flags);
}

/* Combined `parallel for` / `parallel sections` entry points: a fork like GOMP_parallel. */
typedef void (*gomp_ploop_fn)(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
#define GOMP_PLOOP(name)                                                                          \
    void name(void (*fn)(void *), void *data, unsigned n, long s, long e, long i, long c, unsigned f) \
    {                                                                                             \
        REAL(name, gomp_ploop_fn);                                                                \
        void *pc = __builtin_return_address(0);                                                   \
        if (g_ompt || !g_on) { real_##name(fn, data, n, s, e, i, c, f); return; }                 \
        struct gomp_wrap w = {fn, data, pc};                                                      \
        publish_fork(pc);                                                                         \
        real_##name(gomp_trampoline, &w, n, s, e, i, c, f);                                       \
    }
GOMP_PLOOP(GOMP_parallel_loop_static)
GOMP_PLOOP(GOMP_parallel_loop_dynamic)
GOMP_PLOOP(GOMP_parallel_loop_guided)
GOMP_PLOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
GOMP_PLOOP(GOMP_parallel_loop_nonmonotonic_guided)
typedef void (*gomp_pruntime_fn)(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_runtime(void (*fn)(void *), void *data, unsigned n, long s, long e, long i, unsigned f)
{
    REAL(GOMP_parallel_loop_runtime, gomp_pruntime_fn);
    void *pc = __builtin_return_address(0);
    if (g_ompt || !g_on) { real_GOMP_parallel_loop_runtime(fn, data, n, s, e, i, f); return; }
    struct gomp_wrap w = {fn, data, pc};
    publish_fork(pc);
    real_GOMP_parallel_loop_runtime(gomp_trampoline, &w, n, s, e, i, f);
}
typedef void (*gomp_psections_fn)(void (*)(void *), void *, unsigned, unsigned, unsigned);
void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned n, unsigned count, unsigned f)
{
    REAL(GOMP_parallel_sections, gomp_psections_fn);
    void *pc = __builtin_return_address(0);
    if (g_ompt || !g_on) { real_GOMP_parallel_sections(fn, data, n, count, f); return; }
    struct gomp_wrap w = {fn, data, pc};
    publish_fork(pc);
    real_GOMP_parallel_sections(gomp_trampoline, &w, n, count, f);
}

/* GCC's old ABI (before GCC 4.9): GOMP_parallel_start starts the team, the initial thread calls
 * the region's function itself, GOMP_parallel_end joins. */
static __thread struct gomp_wrap t_old_region;
typedef void (*gomp_start_fn)(void (*)(void *), void *, unsigned);
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned n)
{
    REAL(GOMP_parallel_start, gomp_start_fn);
    void *pc = __builtin_return_address(0);
    if (g_ompt || !g_on) { real_GOMP_parallel_start(fn, data, n); return; }
    struct thread *t = self();
    if (t && t->depth > 0) { /* nested: workers run it unwrapped */
        __atomic_fetch_add(&g_counters[C_NESTED_REGIONS], 1, __ATOMIC_RELAXED);
        t->depth++;
        real_GOMP_parallel_start(fn, data, n);
        return;
    }
    t_old_region = (struct gomp_wrap){fn, data, pc};
    publish_fork(pc);
    real_GOMP_parallel_start(gomp_trampoline, &t_old_region, n);
    if (t) { t->tid = 0; omp_thread(t); t->depth++; }
    if (p_omp_get_num_threads) __atomic_store_n(&g_team, p_omp_get_num_threads(), __ATOMIC_RELEASE);
}
void GOMP_parallel_end(void)
{
    REAL(GOMP_parallel_end, void_fn);
    if (!g_ompt && g_on) {
        struct thread *t = self();
        if (t && t->depth > 0 && --t->depth == 0) boundary(t, K_BARRIER, t_old_region.pc);
    }
    real_GOMP_parallel_end();
}

static void gomp_barrier_point(void *pc)
{
    if (g_ompt || !g_on) return;
    struct thread *t = self();
    if (t && t->depth == 1) boundary(t, K_BARRIER, pc);
}

#define GOMP_BARRIER_FN(name)                                   \
    void name(void)                                             \
    {                                                           \
        REAL(name, void_fn);                             \
        gomp_barrier_point(__builtin_return_address(0));        \
        real_##name();                                          \
    }
GOMP_BARRIER_FN(GOMP_barrier)
GOMP_BARRIER_FN(GOMP_loop_end)
GOMP_BARRIER_FN(GOMP_sections_end)
#define GOMP_BARRIER_CANCEL(name)                               \
    _Bool name(void)                                            \
    {                                                           \
        REAL(name, bool_fn);                            \
        gomp_barrier_point(__builtin_return_address(0));        \
        return real_##name();                                   \
    }
GOMP_BARRIER_CANCEL(GOMP_barrier_cancel)
GOMP_BARRIER_CANCEL(GOMP_loop_end_cancel)

/* ---------------------------------------------------------------- epochs: libomp (OMPT) */

typedef union { uint64_t value; void *ptr; } ompt_data_t;
typedef void (*ompt_callback_t)(void);
typedef ompt_callback_t (*ompt_function_lookup_t)(const char *);
typedef int (*ompt_set_callback_t)(int, ompt_callback_t);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t, int, ompt_data_t *);
typedef void (*ompt_finalize_t)(ompt_data_t *);
typedef struct { ompt_initialize_t initialize; ompt_finalize_t finalize; ompt_data_t tool_data; } ompt_start_tool_result_t;

enum { CB_PARALLEL_BEGIN = 3, CB_PARALLEL_END = 4, CB_IMPLICIT_TASK = 7, CB_SYNC_REGION = 23 };
enum { SCOPE_BEGIN = 1, SCOPE_END = 2 };
enum { TASK_INITIAL = 1 };

static void on_parallel_begin(ompt_data_t *etd, const void *etf, ompt_data_t *pd, unsigned req, int flags, const void *codeptr)
{
    (void)etd; (void)etf; (void)pd; (void)req; (void)flags;
    publish_fork((void *)codeptr);
}

static void on_parallel_end(ompt_data_t *pd, ompt_data_t *etd, int flags, const void *codeptr)
{
    (void)pd; (void)etd; (void)flags; (void)codeptr;
}

static void on_implicit_task(int endpoint, ompt_data_t *pd, ompt_data_t *td, unsigned n, unsigned index, int flags)
{
    (void)pd; (void)td;
    if (flags & TASK_INITIAL) return;
    struct thread *t = self();
    if (!t) return;
    if (endpoint == SCOPE_BEGIN) {
        if (t->depth == 0) {
            t->tid = index;
            __atomic_store_n(&g_team, n, __ATOMIC_RELEASE);
            t->epoch = __atomic_load_n(&g_epoch, __ATOMIC_ACQUIRE);
            omp_thread(t);
        } else {
            __atomic_fetch_add(&g_counters[C_NESTED_REGIONS], 1, __ATOMIC_RELAXED);
        }
        t->depth++;
    } else if (t->depth > 0) {
        t->depth--;
    }
}

static void on_sync_region(int kind, int endpoint, ompt_data_t *pd, ompt_data_t *td, const void *codeptr)
{
    (void)pd; (void)td;
    /* barrier, barrier_implicit, barrier_explicit, barrier_implementation,
     * barrier_implicit_workshare, barrier_implicit_parallel, barrier_teams */
    int barrier = kind == 1 || kind == 2 || kind == 3 || kind == 4 || kind == 8 || kind == 9 || kind == 10;
    if (!barrier || endpoint != SCOPE_BEGIN) return;
    struct thread *t = self();
    if (t && t->depth == 1) boundary(t, K_BARRIER, (void *)codeptr);
}

static int ompt_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
    (void)dev; (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set) return 0;
    set(CB_PARALLEL_BEGIN, (ompt_callback_t)on_parallel_begin);
    set(CB_PARALLEL_END, (ompt_callback_t)on_parallel_end);
    set(CB_IMPLICIT_TASK, (ompt_callback_t)on_implicit_task);
    set(CB_SYNC_REGION, (ompt_callback_t)on_sync_region);
    g_ompt = 1;
    return 1;
}
static void ompt_fini(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime)
{
    (void)version; (void)runtime;
    static ompt_start_tool_result_t r = {ompt_init, ompt_fini, {0}};
    /* libomp may ask before this library's constructor ran: the variable decides then. */
    const char *out = getenv("NUMAPLACE_RECORD_OUT");
    return (g_on || (out && *out)) ? &r : 0;
}

/* ---------------------------------------------------------------- start, exit, crash */

static void write_end(u32 status)
{
    char buf[64];
    struct out o;
    begin(&o, buf, sizeof buf, RAW_END);
    put32(&o, status);
    put32(&o, g_threads && g_threads[0] ? g_threads[0]->epoch : 0);
    emit(&o);
}

/* Every thread's buffered chunks (wait: for a thread writing to its buffer). */
static void flush_threads(int wait)
{
    u32 n = g_nthreads < MAX_THREADS ? g_nthreads : MAX_THREADS;
    for (u32 i = 0; i < n; i++)
        if (g_threads && g_threads[i]) flush_out(g_threads[i], wait);
}

static void write_counters(void)
{
    char buf[4096];
    struct out o;
    u64 total[C_N];
    int nc = g_sampled ? C_N : C_EXACT_N; /* the sampled mode's counters only in sampled mode */
    for (int c = 0; c < C_N; c++) total[c] = __atomic_load_n(&g_counters[c], __ATOMIC_RELAXED);
    u32 n = g_nthreads < MAX_THREADS ? g_nthreads : MAX_THREADS;
    for (u32 i = 0; i < n; i++)
        if (g_threads && g_threads[i])
            for (int c = 0; c < C_N; c++) total[c] += g_threads[i]->counters[c];
    begin(&o, buf, sizeof buf, RAW_COUNTERS);
    for (int c = 0; c < nc; c++) { putstr(&o, COUNTER_NAMES[c]); put64(&o, total[c]); }
    emit(&o);
}

static void write_maps(void)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0) return;
    size_t cap = 1 << 20;
    char *buf = raw_alloc(cap);
    if (!buf) { close(fd); return; }
    size_t n = 5;
    ssize_t r;
    while (n < cap && (r = syscall(SYS_read, fd, buf + n, cap - n)) > 0) n += r;
    close(fd);
    struct out o = {buf, n, cap};
    u32 len = 0;
    bytes_copy(o.p, &len, 4);
    o.p[4] = RAW_MAPS;
    emit(&o);
    munmap(buf, cap);
}

static void at_exit(void)
{
    if (!g_on) return;
    struct thread *t = g_threads ? g_threads[0] : 0;
    t_busy++;
    if (t) {
        t_busy--;
        boundary(t, K_EXIT, 0);
        t_busy++;
    }
    flush_threads(1);
    write_counters();
    write_maps();
    write_end(0);
    g_on = 0;
}

static void on_crash(int sig)
{
    g_sampled = 0; /* a real crash: the sampling handler steps aside */
    if (t_self) fast_counts(t_self);
    if (g_on) {
        g_on = 0;
        flush_threads(0); /* a buffer its thread is writing to is left */
        write_counters();
        write_end((u32)sig);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A child made by fork() shares the stream: it records nothing. */
static void in_child(void) { g_on = 0; g_fd = -1; fast_off(); }

static u64 parse_u64(const char **s)
{
    u64 v = 0;
    while (**s >= '0' && **s <= '9') { v = v * 10 + (**s - '0'); (*s)++; }
    return v;
}

__attribute__((constructor(101))) static void recorder_init(void)
{
    const char *path = getenv("NUMAPLACE_RECORD_OUT");
    real_memcpy = dlsym(RTLD_NEXT, "memcpy");
    real_memmove = dlsym(RTLD_NEXT, "memmove");
    real_memset = dlsym(RTLD_NEXT, "memset");
    real_strlen = (size_t (*)(const char *))dlsym(RTLD_NEXT, "strlen");
    real_strnlen = (size_t (*)(const char *, size_t))dlsym(RTLD_NEXT, "strnlen");
    real_memchr = (void *(*)(const void *, int, size_t))dlsym(RTLD_NEXT, "memchr");
    real_memrchr = (void *(*)(const void *, int, size_t))dlsym(RTLD_NEXT, "memrchr");
    real_rawmemchr = (void *(*)(const void *, int))dlsym(RTLD_NEXT, "rawmemchr");
    real_memcmp = (int (*)(const void *, const void *, size_t))dlsym(RTLD_NEXT, "memcmp");
    real_strchr = (char *(*)(const char *, int))dlsym(RTLD_NEXT, "strchr");
    real_strrchr = (char *(*)(const char *, int))dlsym(RTLD_NEXT, "strrchr");
    real_strstr = (char *(*)(const char *, const char *))dlsym(RTLD_NEXT, "strstr");
    real_chk_fail = (void (*)(void))dlsym(RTLD_NEXT, "__chk_fail");
    real_strcmp = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "strcmp");
    real_strncmp = (int (*)(const char *, const char *, size_t))dlsym(RTLD_NEXT, "strncmp");
    real_qsort = (void (*)(void *, size_t, size_t, cmp_fn))dlsym(RTLD_NEXT, "qsort");
    real_qsort_r = (void (*)(void *, size_t, size_t, cmp_r_fn, void *))dlsym(RTLD_NEXT, "qsort_r");
    p_omp_get_thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
    p_omp_get_num_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    if (!path || !*path) return;
    /* The cache model, "BYTES,WAYS,LINE" (numaplace record declares the default and checks it). */
    const char *cache = getenv("NUMAPLACE_RECORD_CACHE");
    u64 size = 0, ways = 0, line = 0;
    if (cache) {
        const char *s = cache;
        size = parse_u64(&s);
        if (*s == ',') { s++; ways = parse_u64(&s); }
        if (*s == ',') { s++; line = parse_u64(&s); }
        if (*s) size = 0;
    }
    const char *fast = getenv("NUMAPLACE_RECORD_FAST");
    g_no_fast = fast && fast[0] == '0' && !fast[1];
    /* Sampled mode: "K", the windows per cycle (1/rate); numaplace record --sampled checks it. */
    const char *sampled = getenv("NUMAPLACE_RECORD_SAMPLED");
    if (sampled && *sampled) {
        const char *s = sampled;
        u64 k = parse_u64(&s);
        if (*s || k < 1 || k > 1u << 20) size = 0;
        g_sampled = (u32)k;
    }
    if (!size || !ways || ways > 64 || line < 8 || line > 4096 || (line & (line - 1))) {
        static const char msg[] = "numaplace recorder: NUMAPLACE_RECORD_CACHE is not BYTES,WAYS,LINE: not recording\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        return;
    }
    g_cache_bytes = size;
    g_ways = (u32)ways;
    g_line_shift = 0;
    while ((1ULL << g_line_shift) < line) g_line_shift++;
    long ps = sysconf(_SC_PAGESIZE);
    g_page_shift = 0;
    while ((1L << g_page_shift) < ps) g_page_shift++;
    g_sets = (u32)(g_cache_bytes >> g_line_shift) / g_ways;
    if (g_sets == 0) g_sets = 1;
    while (g_sets & (g_sets - 1)) g_sets &= g_sets - 1; /* a power of two */
    /* O_NOFOLLOW: a link planted where the stream goes is refused, not written through
     * (numaplace record makes the stream's directory private besides). */
    g_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (g_fd < 0) return;
    g_ft = raw_alloc(sizeof(u64) << FT_BITS);
    g_live = raw_alloc(2 * sizeof(u64) * LIVE_SLOTS);
    g_threads = raw_alloc(MAX_THREADS * sizeof *g_threads);
    char buf[8192];
    struct out o;
    begin(&o, buf, sizeof buf, RAW_HEADER);
    put32(&o, 1u << g_page_shift);
    put32(&o, 1u << g_line_shift);
    put64(&o, (u64)g_sets * g_ways << g_line_shift);
    put32(&o, g_ways);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    putstr(&o, exe);
    emit(&o);
    if (g_sampled) {
        begin(&o, buf, sizeof buf, RAW_SAMPLING);
        put32(&o, g_sampled);
        put32(&o, 1u << (g_page_shift - g_line_shift));
        emit(&o);
        struct sigaction sa;
        bytes_copy(&sa, &(struct sigaction){0}, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
        sigaction(SIGSEGV, &sa, 0);
    }
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
    for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa;
        bytes_copy(&sa, &(struct sigaction){0}, sizeof sa);
        sa.sa_handler = on_crash;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        if (!(g_sampled && sigs[i] == SIGSEGV)) sigaction(sigs[i], &sa, 0);
    }
    atexit(at_exit);
    pthread_atfork(0, 0, in_child);
    /* Programs this one starts are not recorded into the same stream. */
    unsetenv("NUMAPLACE_RECORD_OUT");
    g_on = 1;
    self(); /* the initial thread is thread 0 */
}
