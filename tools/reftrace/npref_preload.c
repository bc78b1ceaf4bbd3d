/* npref's preload (loaded into the client by Valgrind as vgpreload_npref-amd64-linux.so):
 *
 *  - wraps glibc's allocation functions (Valgrind function wrapping, by soname libc.so.*: the
 *    public names and the __libc_* entry points, which numaplace cc's programs call) and
 *    reports each allocation and free to the tool with a client request;
 *  - is an OMPT tool (OpenMP 5.0 tools interface, omp-tools.h): reports the start of each
 *    outermost parallel region, each implicit task's index in its team, and every barrier,
 *    so the tool counts per OpenMP thread number and per epoch.
 * libomp finds ompt_start_tool here when the program has none that accepts (plain builds), or
 * through OMP_TOOL_LIBRARIES naming this file (numaplace cc builds, whose own ompt_start_tool
 * declines when not recording). */
#include <stddef.h>
#include <omp-tools.h>
#include <valgrind/valgrind.h>
#include "npref.h"

#define REQ(code, a, b) VALGRIND_DO_CLIENT_REQUEST_STMT(code, a, b, 0, 0, 0)

#define WRAP1(name)                                                        \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(size_t n);             \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(size_t n)              \
    {                                                                      \
        OrigFn fn; void *r;                                                \
        VALGRIND_GET_ORIG_FN(fn);                                          \
        CALL_FN_W_W(r, fn, n);                                             \
        REQ(NPREF_ALLOC, r, n);                                            \
        return r;                                                          \
    }
#define WRAP_AL(name)                                                      \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(size_t al, size_t n);  \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(size_t al, size_t n)   \
    {                                                                      \
        OrigFn fn; void *r;                                                \
        VALGRIND_GET_ORIG_FN(fn);                                          \
        CALL_FN_W_WW(r, fn, al, n);                                        \
        REQ(NPREF_ALLOC, r, n);                                            \
        return r;                                                          \
    }
#define WRAP_CALLOC(name)                                                  \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(size_t a, size_t b);   \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(size_t a, size_t b)    \
    {                                                                      \
        OrigFn fn; void *r;                                                \
        VALGRIND_GET_ORIG_FN(fn);                                          \
        CALL_FN_W_WW(r, fn, a, b);                                         \
        REQ(NPREF_ALLOC, r, a * b);                                        \
        return r;                                                          \
    }
#define WRAP_REALLOC(name)                                                 \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(void *p, size_t n);    \
    void *I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(void *p, size_t n)     \
    {                                                                      \
        OrigFn fn; void *r;                                                \
        VALGRIND_GET_ORIG_FN(fn);                                          \
        REQ(NPREF_FREE, p, 0);                                             \
        CALL_FN_W_WW(r, fn, p, n);                                         \
        REQ(NPREF_ALLOC, r, n);                                            \
        return r;                                                          \
    }
#define WRAP_FREE(name)                                                    \
    void I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(void *p);               \
    void I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, name)(void *p)                \
    {                                                                      \
        OrigFn fn; void *r;                                                \
        VALGRIND_GET_ORIG_FN(fn);                                          \
        REQ(NPREF_FREE, p, 0);                                             \
        CALL_FN_W_W(r, fn, p);                                             \
        (void)r;                                                           \
    }

WRAP1(malloc)
WRAP1(__libc_malloc)
WRAP1(valloc)
WRAP1(pvalloc)
WRAP_AL(aligned_alloc)
WRAP_AL(memalign)
WRAP_AL(__libc_memalign)
WRAP_CALLOC(calloc)
WRAP_CALLOC(__libc_calloc)
WRAP_REALLOC(realloc)
WRAP_REALLOC(__libc_realloc)
WRAP_FREE(free)
WRAP_FREE(__libc_free)

int I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, posix_memalign)(void **out, size_t al, size_t n);
int I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, posix_memalign)(void **out, size_t al, size_t n)
{
    OrigFn fn; long r;
    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(r, fn, out, al, n);
    if (r == 0) REQ(NPREF_ALLOC, *out, n);
    return (int)r;
}

/* ------------------------------------------------------------------ OMPT */
static void on_parallel_begin(ompt_data_t *etd, const ompt_frame_t *etf, ompt_data_t *pd, unsigned int req,
                              int flags, const void *codeptr)
{
    (void)etd; (void)etf; (void)pd; (void)req; (void)flags; (void)codeptr;
    unsigned long level = VALGRIND_DO_CLIENT_REQUEST_EXPR(0, NPREF_LEVEL, 0, 0, 0, 0, 0);
    if (level == 0) REQ(NPREF_FORK, 0, 0);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *pd, ompt_data_t *td,
                             unsigned int n, unsigned int index, int flags)
{
    (void)pd; (void)td;
    if (flags & ompt_task_initial) return;
    if (endpoint == ompt_scope_begin) REQ(NPREF_IMPLICIT_BEGIN, index, n);
    else if (endpoint == ompt_scope_end) REQ(NPREF_IMPLICIT_END, index, n);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *pd,
                           ompt_data_t *td, const void *codeptr)
{
    (void)pd; (void)td; (void)codeptr;
    if (endpoint != ompt_scope_begin) return;
    switch ((int)kind) {
    case 1: case 2: case 3: case 4: case 8: case 9: case 10:   /* the barrier kinds */
        REQ(NPREF_BARRIER, kind, 0);
        break;
    default:
        break;
    }
}

static int tool_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
    (void)dev; (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set) return 0;
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    return 1;
}

static void tool_fini(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
    (void)version; (void)runtime;
    static ompt_start_tool_result_t r = {tool_init, tool_fini, {0}};
    return RUNNING_ON_VALGRIND ? &r : NULL;
}
