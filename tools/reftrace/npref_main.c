/* npref: numaplace's independent reference tracer, a Valgrind tool (docs/record-reference.md).
 *
 * Written against Valgrind's public tool API only (pub_tool_*.h, libvex_ir.h). Every memory
 * access the client makes at binary level -- loads and stores of any width (SIMD up to 32
 * bytes), guarded loads/stores, compare-and-swap and LL/SC, dirty helpers that touch memory
 * (each a load, a store, or both) -- goes, per Valgrind thread, through a cache model:
 * SIZE bytes, WAYS-way set-associative, 64-byte lines, LRU; a load miss is one read, a store
 * miss is one read and makes the line dirty; the first store to a clean line is one write; an
 * access spanning lines touches each. (The same model as docs/record.md, written anew here.)
 *
 * Counted per (page, OpenMP thread, epoch): reads and writes. Per page: the first touching
 * thread and its epoch (threads are serialised by Valgrind, so "first" is exact). The preload
 * (npref_preload.c) reports allocations and OpenMP events through client requests.
 *
 * Options: --out=FILE (default npref.out), --cache-bytes=N (default 1048576), --cache-ways=N
 * (default 8), --page-size=N (default 4096).
 * Output (text): "H key value" header lines, "A seq addr size ip fn|file:line" allocations,
 * "F seq addr" frees, "C page thread epoch reads writes", "T page thread epoch" first
 * touches, "K name value" counters, "M line" the client's /proc/self/maps at exit. */

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_machine.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_clientstate.h"
#include "valgrind.h"
#include "npref.h"

#define LINE_SHIFT 6
#define MAX_TID 512

/* ------------------------------------------------------------------ options */
static const HChar *clo_out = "npref.out";
static Long clo_cache_bytes = 1048576;
static Long clo_cache_ways = 8;
static Long clo_page = 4096;

static Bool np_process_cmd_line_option(const HChar *arg)
{
    if VG_STR_CLO(arg, "--out", clo_out) {}
    else if VG_INT_CLO(arg, "--cache-bytes", clo_cache_bytes) {}
    else if VG_INT_CLO(arg, "--cache-ways", clo_cache_ways) {}
    else if VG_INT_CLO(arg, "--page-size", clo_page) {}
    else return False;
    return True;
}

static void np_print_usage(void)
{
    VG_(printf)("    --out=FILE          result file [npref.out]\n"
                "    --cache-bytes=N     per-thread cache size [1048576]\n"
                "    --cache-ways=N      associativity [8]\n"
                "    --page-size=N       page size [4096]\n");
}
static void np_print_debug_usage(void) {}

/* ------------------------------------------------------------------ per-thread state */
typedef struct {
    ULong *ways;      /* sets*W entries, MRU first: ((line+1) << 1) | dirty, 0 = empty */
    UInt omp;         /* OpenMP thread number this thread's accesses count for */
    UInt epoch;       /* current epoch */
    UInt level;       /* OpenMP implicit-task nesting depth */
    Bool used;
    ULong last_page;  /* memo of the last counted (page, epoch, omp) */
    UInt last_epoch, last_omp;
    Long last_slot;
} Th;

static Th th[MAX_TID];
static ThreadId cur_tid = 1;
static ULong n_sets, set_mask;
static UInt n_ways;
static UInt page_shift;
static UInt published_epoch;

static ULong cnt_loads, cnt_stores, cnt_load_bytes, cnt_store_bytes, cnt_cas, cnt_llsc, cnt_dirty,
    cnt_wide, cnt_lines, cnt_read_miss, cnt_write_tx, cnt_client_reqs, cnt_barriers, cnt_forks,
    cnt_nested;

/* ------------------------------------------------------------------ hash table of counts */
typedef struct { ULong page; UInt omp, epoch; ULong reads, writes; } Cnt;
static Cnt *cnts;
static Long n_cnts, cap_cnts;
static Long *slots;       /* index into cnts, -1 empty */
static ULong slot_mask;

static inline ULong hkey(ULong page, UInt omp, UInt epoch)
{
    ULong h = page * 0x9E3779B97F4A7C15ULL ^ ((ULong)omp << 40) ^ ((ULong)epoch * 0xC2B2AE3D27D4EB4FULL);
    return h ^ (h >> 29);
}

static void grow_slots(void)
{
    ULong nsz = slot_mask ? (slot_mask + 1) * 2 : (1 << 16);
    VG_(free)(slots);
    slots = VG_(malloc)("npref.slots", nsz * sizeof(Long));
    for (ULong i = 0; i < nsz; i++) slots[i] = -1;
    slot_mask = nsz - 1;
    for (Long i = 0; i < n_cnts; i++) {
        ULong h = hkey(cnts[i].page, cnts[i].omp, cnts[i].epoch) & slot_mask;
        while (slots[h] >= 0) h = (h + 1) & slot_mask;
        slots[h] = i;
    }
}

static Long find_cnt(ULong page, UInt omp, UInt epoch)
{
    if ((ULong)(n_cnts + 1) * 2 > slot_mask + 1) grow_slots();
    ULong h = hkey(page, omp, epoch) & slot_mask;
    for (;;) {
        Long i = slots[h];
        if (i < 0) break;
        if (cnts[i].page == page && cnts[i].omp == omp && cnts[i].epoch == epoch) return i;
        h = (h + 1) & slot_mask;
    }
    if (n_cnts == cap_cnts) {
        cap_cnts = cap_cnts ? cap_cnts * 2 : 4096;
        cnts = VG_(realloc)("npref.cnts", cnts, cap_cnts * sizeof(Cnt));
    }
    Cnt *c = &cnts[n_cnts];
    c->page = page; c->omp = omp; c->epoch = epoch; c->reads = c->writes = 0;
    slots[h] = n_cnts;
    return n_cnts++;
}

/* First touches: page -> (omp, epoch), open addressing. */
typedef struct { ULong page1; UInt omp, epoch; } FT;   /* page1 = page + 1, 0 = empty */
static FT *ft;
static ULong ft_mask, n_ft;

static void ft_insert_raw(FT *tab, ULong mask, FT e)
{
    ULong h = (e.page1 * 0x9E3779B97F4A7C15ULL >> 7) & mask;
    while (tab[h].page1) h = (h + 1) & mask;
    tab[h] = e;
}

static void first_touch(ULong page, UInt omp, UInt epoch)
{
    if ((n_ft + 1) * 2 > ft_mask + 1) {
        ULong nsz = ft_mask ? (ft_mask + 1) * 2 : (1 << 14);
        FT *n = VG_(calloc)("npref.ft", nsz, sizeof(FT));
        for (ULong i = 0; ft_mask && i <= ft_mask; i++)
            if (ft[i].page1) ft_insert_raw(n, nsz - 1, ft[i]);
        VG_(free)(ft);
        ft = n;
        ft_mask = nsz - 1;
    }
    ULong h = ((page + 1) * 0x9E3779B97F4A7C15ULL >> 7) & ft_mask;
    while (ft[h].page1) {
        if (ft[h].page1 == page + 1) return;
        h = (h + 1) & ft_mask;
    }
    ft[h].page1 = page + 1; ft[h].omp = omp; ft[h].epoch = epoch;
    n_ft++;
}

/* ------------------------------------------------------------------ the cache model */
static Th *thread_state(ThreadId tid)
{
    Th *t = &th[tid < MAX_TID ? tid : MAX_TID - 1];
    if (!t->used) {
        t->used = True;
        t->ways = VG_(calloc)("npref.cache", n_sets * n_ways, sizeof(ULong));
        t->omp = tid > 0 ? tid - 1 : 0;   /* until the OpenMP runtime names it */
        t->last_slot = -1;
    }
    return t;
}

static inline void count(Th *t, ULong line, Bool read, Bool write)
{
    ULong page = (line << LINE_SHIFT) >> page_shift;
    Long i;
    if (t->last_slot >= 0 && t->last_page == page && t->last_epoch == t->epoch && t->last_omp == t->omp) {
        i = t->last_slot;
    } else {
        i = find_cnt(page, t->omp, t->epoch);
        t->last_slot = i; t->last_page = page; t->last_epoch = t->epoch; t->last_omp = t->omp;
        first_touch(page, t->omp, t->epoch);
    }
    if (read) { cnts[i].reads++; cnt_read_miss++; }
    if (write) { cnts[i].writes++; cnt_write_tx++; }
}

static inline void access_line(Th *t, ULong line, Bool store)
{
    ULong *e = t->ways + (line & set_mask) * n_ways;
    ULong key = (line + 1) << 1;
    cnt_lines++;
    if ((e[0] & ~1ULL) == key) {             /* MRU hit */
        if (store && !(e[0] & 1)) { e[0] |= 1; count(t, line, False, True); }
        return;
    }
    for (UInt w = 1; w < n_ways; w++) {
        if ((e[w] & ~1ULL) == key) {
            ULong v = e[w];
            for (UInt k = w; k > 0; k--) e[k] = e[k - 1];
            if (store && !(v & 1)) { v |= 1; count(t, line, False, True); }
            e[0] = v;
            return;
        }
    }
    for (UInt k = n_ways - 1; k > 0; k--) e[k] = e[k - 1];
    e[0] = key | (store ? 1 : 0);
    count(t, line, True, store);
}

static inline void access_range(Addr a, SizeT size, Bool store)
{
    if (size == 0) return;
    Th *t = thread_state(cur_tid);
    ULong l0 = a >> LINE_SHIFT, l1 = (a + size - 1) >> LINE_SHIFT;
    for (ULong l = l0; l <= l1; l++) access_line(t, l, store);
}

static VG_REGPARM(2) void np_load(Addr a, SizeT size)
{
    cnt_loads++; cnt_load_bytes += size;
    if (size > 8) cnt_wide++;
    access_range(a, size, False);
}

static VG_REGPARM(2) void np_store(Addr a, SizeT size)
{
    cnt_stores++; cnt_store_bytes += size;
    if (size > 8) cnt_wide++;
    access_range(a, size, True);
}

static VG_REGPARM(2) void np_modify(Addr a, SizeT size)   /* atomic RMW, dirty Ifx_Modify */
{
    cnt_loads++; cnt_stores++; cnt_load_bytes += size; cnt_store_bytes += size;
    access_range(a, size, False);
    access_range(a, size, True);
}

/* ------------------------------------------------------------------ instrumentation */
static void add_call(IRSB *sb, const HChar *name, void *fn, IRExpr *addr, Int size, IRExpr *guard)
{
    IRExpr **args = mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size));
    IRDirty *di = unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn), args);
    if (guard) di->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

#define LOAD(sb, a, sz, g) add_call(sb, "np_load", (void *)np_load, a, sz, g)
#define STORE(sb, a, sz, g) add_call(sb, "np_store", (void *)np_store, a, sz, g)
#define MODIFY(sb, a, sz, g) add_call(sb, "np_modify", (void *)np_modify, a, sz, g)

static IRSB *np_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
    if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
    IRSB *sb = deepCopyIRSBExceptStmts(in);
    Int i = 0;
    while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark) {   /* preamble */
        addStmtToIRSB(sb, in->stmts[i]);
        i++;
    }
    for (; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (!st || st->tag == Ist_NoOp) continue;
        switch (st->tag) {
        case Ist_WrTmp: {
            IRExpr *d = st->Ist.WrTmp.data;
            if (d->tag == Iex_Load) LOAD(sb, d->Iex.Load.addr, sizeofIRType(d->Iex.Load.ty), NULL);
            break;
        }
        case Ist_Store: {
            IRExpr *d = st->Ist.Store.data;
            STORE(sb, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(in->tyenv, d)), NULL);
            break;
        }
        case Ist_StoreG: {
            IRStoreG *sg = st->Ist.StoreG.details;
            STORE(sb, sg->addr, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)), sg->guard);
            break;
        }
        case Ist_LoadG: {
            IRLoadG *lg = st->Ist.LoadG.details;
            IRType ty = Ity_INVALID, wide = Ity_INVALID;
            typeOfIRLoadGOp(lg->cvt, &wide, &ty);
            LOAD(sb, lg->addr, sizeofIRType(ty), lg->guard);
            break;
        }
        case Ist_CAS: {
            IRCAS *cas = st->Ist.CAS.details;
            Int sz = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));
            if (cas->dataHi) sz *= 2;
            cnt_cas++;
            MODIFY(sb, cas->addr, sz, NULL);
            break;
        }
        case Ist_LLSC: {
            IRType ty;
            cnt_llsc++;
            if (st->Ist.LLSC.storedata == NULL) {
                ty = typeOfIRTemp(in->tyenv, st->Ist.LLSC.result);
                LOAD(sb, st->Ist.LLSC.addr, sizeofIRType(ty), NULL);
            } else {
                ty = typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata);
                STORE(sb, st->Ist.LLSC.addr, sizeofIRType(ty), NULL);
            }
            break;
        }
        case Ist_Dirty: {
            IRDirty *d = st->Ist.Dirty.details;
            if (d->mFx != Ifx_None) {
                cnt_dirty++;
                if (d->mFx == Ifx_Read) LOAD(sb, d->mAddr, d->mSize, NULL);
                else if (d->mFx == Ifx_Write) STORE(sb, d->mAddr, d->mSize, NULL);
                else MODIFY(sb, d->mAddr, d->mSize, NULL);
            }
            break;
        }
        default:
            break;
        }
        addStmtToIRSB(sb, st);
    }
    return sb;
}

/* ------------------------------------------------------------------ output */
static Int out_fd = -1;
static HChar obuf[1 << 16];
static Int olen;

static void oflush(void)
{
    if (olen && out_fd >= 0) VG_(write)(out_fd, obuf, olen);
    olen = 0;
}

static void oprintf(const HChar *fmt, ...) PRINTF_CHECK(1, 2);
static void oprintf(const HChar *fmt, ...)
{
    va_list vargs;
    if (olen > (Int)sizeof obuf - 1024) oflush();
    va_start(vargs, fmt);
    olen += VG_(vsnprintf)(obuf + olen, sizeof obuf - olen, fmt, vargs);
    va_end(vargs);
}

/* Allocation events are kept until the end (the output file opens then). */
typedef struct { Bool is_free; Addr addr; SizeT size; Addr ip; HChar site[240]; } Ev;
static Ev *evs;
static Long n_evs, cap_evs;

static Ev *new_ev(void)
{
    if (n_evs == cap_evs) {
        cap_evs = cap_evs ? cap_evs * 2 : 256;
        evs = VG_(realloc)("npref.evs", evs, cap_evs * sizeof(Ev));
    }
    VG_(memset)(&evs[n_evs], 0, sizeof(Ev));
    return &evs[n_evs++];
}

static Bool alloc_fn(const HChar *fn)
{
    static const HChar *names[] = {"malloc", "calloc", "realloc", "free", "aligned_alloc", "memalign",
                                   "posix_memalign", "valloc", "pvalloc", "__libc_malloc", "__libc_calloc",
                                   "__libc_realloc", "__libc_memalign", "_Znwm", "_Znam", "_ZnwmSt11align_val_t",
                                   "_ZnamSt11align_val_t", "operator new(unsigned long)",
                                   "operator new[](unsigned long)", NULL};
    for (Int i = 0; names[i]; i++)
        if (VG_(strcmp)(fn, names[i]) == 0) return True;
    return VG_(strstr)(fn, "npref_wrap") != NULL || VG_(strncmp)(fn, "_vgw", 4) == 0;
}

/* The allocation's call site: the first frame, past the allocator and the preload's wrapper,
 * that is not an allocation function. */
static void note_alloc(ThreadId tid, Addr addr, SizeT size)
{
    Addr ips[16];
    DiEpoch ep = VG_(current_DiEpoch)();
    UInt n = VG_(get_StackTrace)(tid, ips, 16, NULL, NULL, 0);
    Ev *e = new_ev();
    e->addr = addr; e->size = size;
    VG_(strcpy)(e->site, "?");
    for (UInt k = 0; k < n; k++) {
        const HChar *fn = NULL;
        if (!VG_(get_fnname)(ep, ips[k], &fn) || !fn) fn = "?";
        if (alloc_fn(fn)) continue;
        const HChar *obj = NULL;
        if (VG_(get_objname)(ep, ips[k], &obj) && obj && VG_(strstr)(obj, "vgpreload_")) continue;
        HChar fnbuf[100];
        VG_(strncpy)(fnbuf, fn, sizeof fnbuf - 1);
        fnbuf[sizeof fnbuf - 1] = 0;
        const HChar *file = NULL;
        UInt line = 0;
        e->ip = ips[k];
        if (VG_(get_filename_linenum)(ep, ips[k], &file, NULL, &line) && file)
            VG_(snprintf)(e->site, sizeof e->site, "%s|%s:%u", fnbuf, file, line);
        else
            VG_(snprintf)(e->site, sizeof e->site, "%s|?", fnbuf);
        break;
    }
}

static Bool np_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    if (!VG_IS_TOOL_USERREQ('N', 'P', args[0])) return False;
    Th *t = thread_state(tid);
    cnt_client_reqs++;
    *ret = 0;
    switch (args[0]) {
    case NPREF_ALLOC:
        if (args[1] && args[2] >= 4096) note_alloc(tid, args[1], args[2]);
        break;
    case NPREF_FREE:
        if (args[1]) { Ev *e = new_ev(); e->is_free = True; e->addr = args[1]; }
        break;
    case NPREF_FORK:          /* an outermost parallel region starts: a boundary of the initial thread */
        cnt_forks++;
        t->epoch++;
        published_epoch = t->epoch;
        break;
    case NPREF_IMPLICIT_BEGIN: /* args[1] = index in the team, args[2] = team size */
        if (t->level == 0) { t->omp = args[1]; t->epoch = published_epoch; }
        else cnt_nested++;
        t->level++;
        break;
    case NPREF_IMPLICIT_END:
        if (t->level > 0) t->level--;
        break;
    case NPREF_BARRIER:
        if (t->level == 1) { t->epoch++; cnt_barriers++; }
        break;
    case NPREF_LEVEL:
        *ret = t->level;
        break;
    default:
        return False;
    }
    return True;
}

static void np_start_client_code(ThreadId tid, ULong blocks_done)
{
    cur_tid = tid;
}

static void np_post_clo_init(void)
{
    if (clo_cache_ways < 1 || clo_cache_ways > 64) VG_(fmsg_bad_option)("--cache-ways", "1..64\n");
    Long sets = clo_cache_bytes / 64 / clo_cache_ways;
    if (sets < 1 || (sets & (sets - 1)) || sets * 64 * clo_cache_ways != clo_cache_bytes)
        VG_(fmsg_bad_option)("--cache-bytes", "must be 64 x WAYS x a power of two\n");
    n_sets = sets; set_mask = sets - 1; n_ways = clo_cache_ways;
    page_shift = 0;
    while ((1LL << page_shift) < clo_page) page_shift++;
    grow_slots();
}

static void np_fini(Int exitcode)
{
    SysRes sr = VG_(open)(clo_out, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0644);
    if (sr_isError(sr)) {
        VG_(umsg)("npref: cannot open %s\n", clo_out);
        return;
    }
    out_fd = sr_Res(sr);
    oprintf("H npref 1\nH exit %d\nH cache_bytes %lld\nH cache_ways %lld\nH line 64\nH page %lld\n",
            exitcode, clo_cache_bytes, clo_cache_ways, clo_page);
    const HChar *exe = VG_(args_the_exename);
    oprintf("H exe %s\n", exe ? exe : "?");
    for (Long i = 0; i < n_evs; i++) {
        if (evs[i].is_free) oprintf("F %lld 0x%lx\n", i, evs[i].addr);
        else oprintf("A %lld 0x%lx %lu 0x%lx %s\n", i, evs[i].addr, evs[i].size, evs[i].ip, evs[i].site);
    }
    for (Long i = 0; i < n_cnts; i++)
        oprintf("C %llu %u %u %llu %llu\n", cnts[i].page, cnts[i].omp, cnts[i].epoch, cnts[i].reads, cnts[i].writes);
    for (ULong i = 0; ft_mask && i <= ft_mask; i++)
        if (ft[i].page1) oprintf("T %llu %u %u\n", ft[i].page1 - 1, ft[i].omp, ft[i].epoch);
#define K(x) oprintf("K %s %llu\n", #x, x)
    K(cnt_loads); K(cnt_stores); K(cnt_load_bytes); K(cnt_store_bytes); K(cnt_cas); K(cnt_llsc);
    K(cnt_dirty); K(cnt_wide); K(cnt_lines); K(cnt_read_miss); K(cnt_write_tx); K(cnt_client_reqs);
    K(cnt_barriers); K(cnt_forks); K(cnt_nested);
#undef K
    /* The client's memory map: the post-processor finds the program's static data in it. */
    SysRes mr = VG_(open)("/proc/self/maps", VKI_O_RDONLY, 0);
    if (!sr_isError(mr)) {
        Int fd = sr_Res(mr);
        HChar buf[4096], line[1024];
        Int ll = 0, n;
        while ((n = VG_(read)(fd, buf, sizeof buf)) > 0) {
            for (Int k = 0; k < n; k++) {
                if (buf[k] == '\n' || ll == (Int)sizeof line - 1) {
                    line[ll] = 0;
                    oprintf("M %s\n", line);
                    ll = 0;
                } else {
                    line[ll++] = buf[k];
                }
            }
        }
        VG_(close)(fd);
    }
    oflush();
    VG_(close)(out_fd);
}

static void np_pre_clo_init(void)
{
    VG_(details_name)("npref");
    VG_(details_version)("1");
    VG_(details_description)("numaplace reference tracer: per-thread cache misses per page");
    VG_(details_copyright_author)("numaplace project");
    VG_(details_bug_reports_to)("numaplace project");
    VG_(details_avg_translation_sizeB)(400);
    VG_(basic_tool_funcs)(np_post_clo_init, np_instrument, np_fini);
    VG_(needs_command_line_options)(np_process_cmd_line_option, np_print_usage, np_print_debug_usage);
    VG_(needs_client_requests)(np_handle_client_request);
    VG_(track_start_client_code)(np_start_client_code);
}

VG_DETERMINE_INTERFACE_VERSION(np_pre_clo_init)
