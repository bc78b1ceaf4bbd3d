/* Sampling must be invisible to the program: its own SIGSEGV handler still gets its own
 * faults (and only those), read(2)/write(2) into and from sampled pages behave as without
 * numaplace, and a fault nobody handles still kills the process with SIGSEGV. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
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

    /* A fault nobody handles still kills with SIGSEGV (default action), in a child. */
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGSEGV, &dfl, NULL);
        char *p = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        p[0] = 1;
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "an unhandled fault did not end in SIGSEGV");
    printf("default action ok\n");
    return 0;
}
