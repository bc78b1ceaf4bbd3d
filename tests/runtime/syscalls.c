/* Sampling must be invisible to the program: its own SIGSEGV handler still gets its own
 * faults (and only those), system calls and stdio calls into and from sampled pages behave
 * as without numaplace (read/write, send/recv, sendmsg/recvmsg, pwritev/preadv,
 * fwrite/fread, a recv that blocks while the sampler revokes every page, and a read that
 * blocks without a pin because other calls hold them all), a forked child samples its own
 * accesses, and a fault nobody handles still kills the process with SIGSEGV. */
#include "common.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "numaplace.h"

static volatile int app_faults;
static char *guard;

static void on_segv(int sig, siginfo_t *info, void *ctx) {
    (void)sig; (void)ctx;
    if ((char *)info->si_addr >= guard && (char *)info->si_addr < guard + PAGE) {
        app_faults++;
        mprotect(guard, PAGE, PROT_READ | PROT_WRITE);
        return;
    }
    _exit(90); /* a fault the application did not expect */
}

/* Whether `p` lies in a mapping with no access now (from /proc/self/maps). */
static int protnone(const void *p) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int none = 0;
    unsigned long lo, hi;
    char perms[8];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && (unsigned long)p >= lo && (unsigned long)p < hi)
            none = strncmp(perms, "---", 3) == 0;
    if (f) fclose(f);
    return none;
}

#define CHECK(c, msg) do { if (!(c)) { printf("FAIL %s\n", msg); return 1; } } while (0)

/* Ends the sampling interval: every managed page is revoked again. */
#define RESAMPLE(p) do { CHECK(numaplace_migrate() >= 0, numaplace_last_error()); CHECK(protnone(p), "the buffer is not under sampling"); } while (0)

static int same(const char *p, char c, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != c) return 0;
    return 1;
}

struct blocked { int fd; char *buf; ssize_t got; };

static void *blocked_recv(void *arg) {
    struct blocked *b = arg;
    b->got = recv(b->fd, b->buf, PAGE, MSG_WAITALL);
    return NULL;
}

/* A reader blocked in readv(2) on `n` pages (read(2) when n is 1). */
struct reader { int fd; char *buf; int n; ssize_t got; int tid; };

static void *blocked_read(void *arg) {
    struct reader *r = arg;
    struct iovec v[8];
    for (int k = 0; k < r->n; k++) v[k] = (struct iovec){r->buf + k * PAGE, PAGE};
    __atomic_store_n(&r->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
    r->got = r->n == 1 ? read(r->fd, r->buf, PAGE) : readv(r->fd, v, r->n);
    return NULL;
}

/* Waits (up to 20 s) until the reader's thread is blocked in system call `nr`, as
 * /proc/self/task/TID/syscall shows it; 0 if it never was. */
static int wait_blocked(struct reader *r, long nr) {
    for (int i = 0; i < 20000; i++) {
        int tid = __atomic_load_n(&r->tid, __ATOMIC_ACQUIRE);
        char path[64];
        long now = -2;
        snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
        FILE *f = tid ? fopen(path, "r") : NULL;
        if (f) {
            if (fscanf(f, "%ld", &now) != 1) now = -2;
            fclose(f);
        }
        if (now == nr) return 1;
        usleep(1000);
    }
    return 0;
}

int main(void) {
    size_t bytes = 64 * PAGE;
    char *a = aligned_alloc(PAGE, bytes), *b = aligned_alloc(PAGE, bytes);
    memset(a, 'a', bytes);
    memset(b, 'b', bytes);
    CHECK(numaplace_init("dynamic=sampled:period_ms=1000000") == NUMAPLACE_OK, numaplace_last_error());
    /* Registration revokes every page: the next access to each is a sampled fault. */
    CHECK(numaplace_register(a, bytes, "a") == NUMAPLACE_OK, numaplace_last_error());
    CHECK(numaplace_register(b, bytes, "b") == NUMAPLACE_OK, numaplace_last_error());

    /* The application's own handler, installed after numaplace's. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction");
    guard = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    guard[0] = 1; /* the application's fault */
    CHECK(app_faults == 1, "the application's handler did not see its own fault");
    long sum = 0;
    for (size_t i = 0; i < bytes; i += PAGE) sum += a[i]; /* sampled faults: not the application's */
    CHECK(app_faults == 1 && sum == 64L * 'a', "sampled faults reached the application's handler");
    printf("app handler ok\n");

    /* write(2) from sampled pages of b, read(2) into sampled pages of a. */
    CHECK(numaplace_migrate() >= 0, numaplace_last_error()); /* ends the interval, revokes again */
    CHECK(protnone(b + 3 * PAGE) && protnone(a + 10 * PAGE), "the buffers are not under sampling");
    int fd[2];
    CHECK(pipe(fd) == 0, "pipe");
    CHECK(write(fd[1], b + 3 * PAGE + 100, 2 * PAGE) == 2 * PAGE, "write(2) from a sampled page");
    CHECK(read(fd[0], a + 10 * PAGE + 7, 2 * PAGE) == 2 * PAGE, "read(2) into a sampled page");
    for (int i = 0; i < 2 * PAGE; i++) CHECK(a[10 * PAGE + 7 + i] == 'b', "read(2) data");
    printf("read write ok\n");

    /* send(2)/recv(2) and sendmsg(2)/recvmsg(2) over a socket pair. */
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    memset(a + 12 * PAGE, 'a', 3 * PAGE);
    RESAMPLE(a + 12 * PAGE);
    CHECK(send(sv[0], b + 5 * PAGE + 3, PAGE, 0) == PAGE, "send(2) from a sampled page");
    CHECK(recv(sv[1], a + 12 * PAGE + 5, PAGE, MSG_WAITALL) == PAGE, "recv(2) into a sampled page");
    CHECK(same(a + 12 * PAGE + 5, 'b', PAGE) && a[12 * PAGE + 4] == 'a', "recv(2) data");
    RESAMPLE(a + 40 * PAGE);
    struct iovec out[2] = {{b + 20 * PAGE, 100}, {b + 30 * PAGE + 1, PAGE}};
    struct msghdr mo = {.msg_iov = out, .msg_iovlen = 2};
    CHECK(sendmsg(sv[0], &mo, 0) == 100 + PAGE, "sendmsg(2) from sampled pages");
    struct iovec in[1] = {{a + 40 * PAGE + 9, 100 + PAGE}};
    struct msghdr mi = {.msg_iov = in, .msg_iovlen = 1};
    CHECK(recvmsg(sv[1], &mi, MSG_WAITALL) == 100 + PAGE, "recvmsg(2) into a sampled page");
    CHECK(same(a + 40 * PAGE + 9, 'b', 100 + PAGE), "recvmsg(2) data");
    printf("socket ok\n");

    /* pwritev(2)/preadv(2), then stdio's fwrite/fread unbuffered (straight to the buffer). */
    FILE *tf = tmpfile();
    CHECK(tf != NULL, "tmpfile");
    memset(a + 44 * PAGE, 'a', 2 * PAGE);
    RESAMPLE(a + 44 * PAGE);
    CHECK(pwritev(fileno(tf), out, 2, 0) == 100 + PAGE, "pwritev(2) from sampled pages");
    struct iovec back[1] = {{a + 44 * PAGE + 1, 100 + PAGE}};
    CHECK(preadv(fileno(tf), back, 1, 0) == 100 + PAGE, "preadv(2) into a sampled page");
    CHECK(same(a + 44 * PAGE + 1, 'b', 100 + PAGE), "preadv(2) data");
    FILE *sf = tmpfile();
    CHECK(sf != NULL && setvbuf(sf, NULL, _IONBF, 0) == 0, "unbuffered tmpfile");
    RESAMPLE(b + 50 * PAGE);
    CHECK(fwrite(b + 50 * PAGE, 1, 4 * PAGE, sf) == 4 * PAGE, "fwrite from sampled pages");
    rewind(sf);
    memset(a + 50 * PAGE, 'a', 4 * PAGE);
    RESAMPLE(a + 50 * PAGE);
    CHECK(fread(a + 50 * PAGE, 1, 4 * PAGE, sf) == 4 * PAGE, "fread into sampled pages");
    CHECK(same(a + 50 * PAGE, 'b', 4 * PAGE), "fread data");
    fclose(sf);
    fclose(tf);
    printf("file ok\n");

    /* A recv(2) blocks on a buffer, and the sampler revokes every page meanwhile: the call's
     * buffer is pinned, so it stays accessible (its neighbour does not) and the call succeeds. */
    memset(a + 60 * PAGE, 'a', PAGE);
    struct blocked bl = {sv[1], a + 60 * PAGE, 0};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, blocked_recv, &bl) == 0, "pthread_create");
    usleep(200 * 1000);
    RESAMPLE(a + 62 * PAGE);
    CHECK(!protnone(a + 60 * PAGE), "the blocked call's buffer was left revoked");
    CHECK(send(sv[0], b, PAGE, 0) == PAGE, "send(2)");
    pthread_join(th, NULL);
    CHECK(bl.got == PAGE && same(a + 60 * PAGE, 'b', PAGE), "a recv(2) blocked while its buffer was revoked");
    printf("blocked recv ok\n");

    /* Eight readv(2) calls of eight pages each block and hold all 64 pins; a ninth call, a
     * read(2), then gets none. While a call without a pin is in flight, sampling pauses: a
     * revocation protects nothing (its buffer, or that of any other unpinned call, such as
     * this thread's write(2)s below, could otherwise be protected in the middle of a copy,
     * which returns a short count no retry can repair). */
    size_t cbytes = 66 * PAGE;
    char *c = aligned_alloc(PAGE, cbytes);
    memset(c, 'c', cbytes);
    CHECK(numaplace_register(c, cbytes, "c") == NUMAPLACE_OK, numaplace_last_error());
    struct reader rd[9];
    pthread_t rth[9];
    int rfd[9][2];
    for (int t = 0; t < 9; t++) {
        CHECK(pipe(rfd[t]) == 0, "pipe");
        rd[t] = (struct reader){rfd[t][0], c + 8 * t * PAGE, t < 8 ? 8 : 1, 0, 0};
        CHECK(pthread_create(&rth[t], NULL, blocked_read, &rd[t]) == 0, "pthread_create");
        CHECK(wait_blocked(&rd[t], t < 8 ? SYS_readv : SYS_read), "a reader never blocked");
    }
    CHECK(numaplace_migrate() >= 0, numaplace_last_error()); /* ends the interval: revokes, and opens again */
    CHECK(!protnone(c + 64 * PAGE) && !protnone(c + 65 * PAGE) && !protnone(a + 5 * PAGE) && !protnone(b + 5 * PAGE),
          "a revocation protected pages while a call without a pin was in flight");
    CHECK(write(rfd[8][1], b, PAGE) == PAGE, "write(2)");
    pthread_join(rth[8], NULL);
    CHECK(rd[8].got == PAGE && same(c + 64 * PAGE, 'b', PAGE), "a read(2) without a pin");
    RESAMPLE(c + 64 * PAGE); /* the ninth call has returned: sampling resumes */
    CHECK(!protnone(c) && !protnone(c + 63 * PAGE), "a pinned buffer was left revoked");
    for (int t = 0; t < 8; t++) {
        CHECK(write(rfd[t][1], b + 8 * PAGE, 8 * PAGE) == 8 * PAGE, "write(2)");
        pthread_join(rth[t], NULL);
        CHECK(rd[t].got == 8 * PAGE && same(c + 8 * t * PAGE, 'b', 8 * PAGE), "readv(2) data");
    }
    printf("pins exhausted ok\n");

    /* A forked child runs its own sampler thread: a page the child touches (a sampled fault,
     * which opens it) is revoked again by the child's next sampling step. */
    pid_t pid = fork();
    if (pid == 0) {
        volatile char *p = a + 63 * PAGE;
        (void)*p;
        if (protnone(a + 63 * PAGE)) _exit(2);
        for (int i = 0; i < 500 && !protnone(a + 63 * PAGE); i++) usleep(10 * 1000);
        _exit(protnone(a + 63 * PAGE) ? 0 : 3);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a forked child sampled nothing (its sampler thread did not run)");
    printf("forked child samples ok\n");

    /* A fault nobody handles still kills with SIGSEGV (default action), in a child. */
    pid = fork();
    if (pid == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGSEGV, &dfl, NULL);
        char *p = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        p[0] = 1;
        _exit(0);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "an unhandled fault did not end in SIGSEGV");
    printf("default action ok\n");
    return 0;
}
