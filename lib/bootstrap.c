/* Rendezvous of the ranks of one communicator by unique id, through a file in
 * /dev/shm that every rank maps: ranks publish their process, device and (for
 * ranks in separate processes) the handle of their connector arena (CUDA IPC,
 * or a POSIX shared-memory name on the host backend) and the knobs that shape
 * their rings, and meet again at destroy, so that no rank frees an arena a
 * peer may still write into.  The name is removed as soon as every rank has
 * mapped the file: a killed rank leaves nothing in /dev/shm.
 *
 * The mapping then carries each rank's health (lib/health.c): a heartbeat
 * its poller bumps, the ranks it found failed, and a lock: every rank holds an
 * open-file-description lock on byte `rank` of the file, which the kernel
 * drops when the process exits, however it exits.  A peer whose byte is
 * unlocked has exited (or left the communicator): no pid to reuse, no zombie
 * to mistake for a live process. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

typedef struct {
    uint32_t joined, published, left, mapped;
    int32_t pid, dev, nranks, beater; /* beater: the thread that bumped beat last (its tid) */
    unsigned char handle[64];
    int64_t shape[PCCL_SHAPE_N];
    uint64_t beat;   /* bumped by the rank's poller (and while it waits here) */
    uint64_t failed; /* the ranks this rank found dead or stalled (bit r: rank r) */
    uint64_t done;   /* a clean leave: the invocations the rank submitted, every one completed */
} boot_rec;

struct pccl_boot {
    boot_rec *recs;
    int nranks, rank, fd;
    uint64_t stall_ns;  /* 0: no stall rule in the barriers (PCCL_PEER_TIMEOUT_MS) */
    uint64_t seen[PCCL_MAX_RANKS], seen_ns[PCCL_MAX_RANKS]; /* the barriers' view of the beats */
    char path[96];
};

static void path_of(const pcclUniqueId *id, char *out, size_t n)
{
    const unsigned char *u = (const unsigned char *)id->internal + 8;
    int k = snprintf(out, n, "/dev/shm/pccl-");
    for (int i = 0; i < 24 && k + 2 < (int)n; i++) k += snprintf(out + k, n - (size_t)k, "%02x", u[i]);
}

/* The lock on byte `rank` (see above): held from the join to the leave. */
static int lock_byte(int fd, int rank, int type, int cmd)
{
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = (short)type;
    l.l_whence = SEEK_SET;
    l.l_start = rank;
    l.l_len = 1;
    if (fcntl(fd, cmd, &l)) return -1;
    return l.l_type;
}

int pccl_boot_alive(const pccl_boot *b, int rank)
{
    if (rank == b->rank) return 1;
    int t = lock_byte(b->fd, rank, F_WRLCK, F_OFD_GETLK);
    return t < 0 || t != F_UNLCK; /* an error of our own says nothing about the peer */
}

/* 1 if rank r joined and is gone: its lock is free (it exited), or, with
 * stall, its heartbeat stood still for stall_ns (*stalled: stopped or
 * frozen).  Only destroy's wait uses the stall rule: between the init's
 * barriers a rank allocates and maps without beating (under a sanitizer, on
 * a loaded host, for longer than a short timeout), and a rank stopped there
 * is caught by PCCL_BOOT_TIMEOUT. */
static int rank_gone(pccl_boot *b, int r, uint64_t now, int stall, int *stalled)
{
    *stalled = 0;
    if (r == b->rank || !__atomic_load_n(&b->recs[r].joined, __ATOMIC_ACQUIRE)) return 0;
    if (!pccl_boot_alive(b, r)) return 1;
    uint64_t beat = __atomic_load_n(&b->recs[r].beat, __ATOMIC_RELAXED);
    if (beat != b->seen[r] || !b->seen_ns[r]) { b->seen[r] = beat; b->seen_ns[r] = now; return 0; }
    return *stalled = stall && b->stall_ns && now - b->seen_ns[r] > b->stall_ns;
}

/* The first rank that exited, or -1. */
static int gone_rank(pccl_boot *b)
{
    uint64_t now = pccl_now_ns();
    int stalled;
    for (int r = 0; r < b->nranks; r++)
        if (rank_gone(b, r, now, 0, &stalled)) return r;
    return -1;
}

void pccl_boot_beat(pccl_boot *b)
{
    static __thread int32_t tid;
    if (!tid) tid = (int32_t)gettid();
    if (__atomic_load_n(&b->recs[b->rank].beater, __ATOMIC_RELAXED) != tid)
        __atomic_store_n(&b->recs[b->rank].beater, tid, __ATOMIC_RELAXED);
    __atomic_store_n(&b->recs[b->rank].beat, b->recs[b->rank].beat + 1, __ATOMIC_RELAXED);
}

/* Thread tid of process pid as the kernel sees it: its state ('R' runs or
 * waits for a CPU, 'S' sleeps, 'T' stopped ...; 0 where /proc cannot tell)
 * and the CPU time it has had (*cpu_ns). */
static char task_look(int pid, int tid, uint64_t *cpu_ns)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", pid, tid);
    FILE *f = fopen(path, "r");
    unsigned long long cpu = 0;
    int ok = f && fscanf(f, "%llu", &cpu) == 1;
    if (f) fclose(f);
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
    f = ok ? fopen(path, "r") : NULL;
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    *cpu_ns = cpu;
    return p && p[1] == ' ' ? p[2] : 0;
}

/* Rank's beating thread (task_look). */
char pccl_boot_peer_thread(const pccl_boot *b, int rank, uint64_t *cpu_ns)
{
    return task_look((int)b->recs[rank].pid, (int)__atomic_load_n(&b->recs[rank].beater, __ATOMIC_RELAXED), cpu_ns);
}

/* Up to max of process pid's threads that are runnable now ('R': running
 * or waiting for a CPU), each with the CPU time it has had; how many. */
int pccl_proc_runnable(int pid, pccl_tlook *out, int max)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; n < max && (e = readdir(d));) {
        int tid = atoi(e->d_name);
        uint64_t cpu;
        if (tid > 0 && task_look(pid, tid, &cpu) == 'R') out[n++] = (pccl_tlook){tid, cpu};
    }
    closedir(d);
    return n;
}
uint64_t pccl_boot_peer_beat(const pccl_boot *b, int rank)
{
    return __atomic_load_n(&b->recs[rank].beat, __ATOMIC_RELAXED);
}
int pccl_boot_left(const pccl_boot *b, int rank) { return __atomic_load_n(&b->recs[rank].left, __ATOMIC_ACQUIRE) != 0; }
uint64_t pccl_boot_done(const pccl_boot *b, int rank)
{
    return pccl_boot_left(b, rank) ? __atomic_load_n(&b->recs[rank].done, __ATOMIC_RELAXED) : 0;
}
uint64_t pccl_boot_failed(const pccl_boot *b, int rank)
{
    return __atomic_load_n(&b->recs[rank].failed, __ATOMIC_ACQUIRE);
}
void pccl_boot_set_failed(pccl_boot *b, uint64_t mask)
{
    __atomic_store_n(&b->recs[b->rank].failed, mask, __ATOMIC_RELEASE);
}
void pccl_boot_set_stall(pccl_boot *b, uint64_t ns) { b->stall_ns = ns; }
const char *pccl_boot_path(const pccl_boot *b) { return b->path; }
int pccl_boot_rank(const pccl_boot *b) { return b->rank; }
int pccl_boot_nranks(const pccl_boot *b) { return b->nranks; }

static double timeout_s(void)
{
    const char *e = getenv("PCCL_BOOT_TIMEOUT");
    double t = e ? atof(e) : 120.0;
    return t > 0 ? t : 120.0;
}

/* Waits until every record's field at `off` is set; 0 or an error naming the
 * first rank that did not come. */
static pcclResult_t wait_all(pccl_boot *b, size_t off, const char *what)
{
    uint64_t t0 = pccl_now_ns();
    for (;;) {
        /* Gone first, then the flags: a rank that set its flag and then died
         * still passed this barrier, on every rank alike. */
        int missing = -1, gone = gone_rank(b);
        for (int r = 0; r < b->nranks && missing < 0; r++)
            if (!__atomic_load_n((uint32_t *)((char *)&b->recs[r] + off), __ATOMIC_ACQUIRE)) missing = r;
        if (missing < 0) return pcclSuccess;
        pccl_boot_beat(b); /* a rank waiting here is alive */
        if (gone >= 0)
            return pccl_err(NULL, pcclRemoteError, "pcclCommInitRank: rank %d (pid %d) %s before it could %s", gone,
                            (int)b->recs[gone].pid, pccl_boot_left(b, gone) ? "gave up (left)" : "exited", what);
        if ((pccl_now_ns() - t0) * 1e-9 > timeout_s())
            return pccl_err(NULL, pcclRemoteError, "pcclCommInitRank: rank %d did not %s within %.0f s "
                            "(PCCL_BOOT_TIMEOUT)", missing, what, timeout_s());
        usleep(200);
    }
}

pcclResult_t pccl_boot_join(const pcclUniqueId *id, int nranks, int rank, int dev, pccl_boot **out)
{
    pccl_boot *b = calloc(1, sizeof *b);
    if (!b) return pccl_err(NULL, pcclSystemError, "out of host memory");
    b->nranks = nranks;
    b->rank = rank;
    path_of(id, b->path, sizeof b->path);
    int fd = open(b->path, O_RDWR | O_CREAT, 0600);
    size_t bytes = sizeof(boot_rec) * (size_t)nranks;
    struct stat st;
    /* Only ever grow the file: a join with a smaller nranks must not shrink it
     * under ranks that mapped it larger (they would die of SIGBUS). */
    if (fd < 0 || fstat(fd, &st) || ((size_t)st.st_size < bytes && ftruncate(fd, (off_t)bytes))) {
        pcclResult_t r = pccl_err(NULL, pcclSystemError, "pcclCommInitRank: %s: %s", b->path, strerror(errno));
        if (fd >= 0) close(fd);
        free(b);
        return r;
    }
    b->recs = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (b->recs == MAP_FAILED) {
        close(fd);
        free(b);
        return pccl_err(NULL, pcclSystemError, "pcclCommInitRank: mmap %s: %s", b->path, strerror(errno));
    }
    b->fd = fd;
    boot_rec *me = &b->recs[rank];
    if (__atomic_load_n(&me->joined, __ATOMIC_ACQUIRE) || lock_byte(fd, rank, F_WRLCK, F_OFD_SETLK) < 0) {
        munmap(b->recs, bytes);
        close(fd);
        free(b);
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: rank %d joined this id twice", rank);
    }
    me->pid = getpid();
    me->dev = dev;
    me->nranks = nranks;
    __atomic_store_n(&me->joined, 1, __ATOMIC_RELEASE);
    pcclResult_t r = wait_all(b, offsetof(boot_rec, joined), "join");
    for (int i = 0; !r && i < nranks; i++)
        if (b->recs[i].nranks != nranks)
            r = pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: rank %d says nranks %d, rank %d says %d", i,
                         b->recs[i].nranks, rank, nranks);
    /* Every rank has it mapped (or the group is dead: a late rank makes a
     * new file and times out on its own): the name can go. */
    unlink(b->path);
    if (r) {
        pccl_boot_leave(b, 0, 0);
        return r;
    }
    *out = b;
    return pcclSuccess;
}

/* 1 if every rank is a thread of this process. */
int pccl_boot_one_process(const pccl_boot *b)
{
    for (int r = 0; r < b->nranks; r++)
        if (b->recs[r].pid != b->recs[b->rank].pid) return 0;
    return 1;
}

int pccl_boot_pid(const pccl_boot *b, int rank) { return b->recs[rank].pid; }
int pccl_boot_dev(const pccl_boot *b, int rank) { return b->recs[rank].dev; }

pcclResult_t pccl_boot_publish(pccl_boot *b, const void *handle64, const int64_t *shape)
{
    memcpy(b->recs[b->rank].handle, handle64, 64);
    memcpy(b->recs[b->rank].shape, shape, sizeof b->recs[b->rank].shape);
    __atomic_store_n(&b->recs[b->rank].published, 1, __ATOMIC_RELEASE);
    return wait_all(b, offsetof(boot_rec, published), "publish its connectors");
}

const void *pccl_boot_handle(const pccl_boot *b, int rank) { return b->recs[rank].handle; }

pcclResult_t pccl_boot_mapped(pccl_boot *b)
{
    __atomic_store_n(&b->recs[b->rank].mapped, 1, __ATOMIC_RELEASE);
    return wait_all(b, offsetof(boot_rec, mapped), "map its peers' connectors");
}
const int64_t *pccl_boot_shape(const pccl_boot *b, int rank) { return b->recs[rank].shape; }

/* Leaves; with wait, first waits (bounded) until every rank is leaving or
 * gone (exited, or stalled for PCCL_PEER_TIMEOUT_MS), so no arena is freed
 * while a live peer may still write into it.  Closing the file drops the
 * lock: from then on the peers see this rank as gone.  done: a clean leave's
 * count of invocations, all completed (health.c: the peers' invocations up
 * to that count need this rank no more); 0 otherwise. */
void pccl_boot_leave(pccl_boot *b, int wait, uint64_t done)
{
    if (!b) return;
    __atomic_store_n(&b->recs[b->rank].done, done, __ATOMIC_RELAXED);
    __atomic_store_n(&b->recs[b->rank].left, 1, __ATOMIC_RELEASE);
    for (uint64_t t0 = pccl_now_ns(); wait;) {
        int missing = 0, stalled;
        uint64_t now = pccl_now_ns();
        for (int r = 0; r < b->nranks; r++)
            missing += !pccl_boot_left(b, r) && !rank_gone(b, r, now, 1, &stalled);
        if (!missing || (now - t0) * 1e-9 > timeout_s()) break;
        pccl_boot_beat(b);
        usleep(200);
    }
    munmap(b->recs, sizeof(boot_rec) * (size_t)b->nranks);
    close(b->fd);
    free(b);
}
