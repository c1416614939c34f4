/* Rendezvous of the ranks of one communicator by unique id, through a file in
 * /dev/shm that every rank maps: ranks publish their process, device and (for
 * ranks in separate processes) the CUDA IPC handle of their connector arena
 * and the knobs that shape their rings,
 * and meet again at destroy, so that no rank frees an arena a peer may still
 * write into.  The last rank to leave removes the file. */
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
    uint32_t joined, published, left, pad;
    int32_t pid, dev, nranks, pad2;
    unsigned char handle[64];
    int64_t shape[PCCL_SHAPE_N];
} boot_rec;

struct pccl_boot {
    boot_rec *recs;
    int nranks, rank;
    char path[96];
};

static void path_of(const pcclUniqueId *id, char *out, size_t n)
{
    const unsigned char *u = (const unsigned char *)id->internal + 8;
    int k = snprintf(out, n, "/dev/shm/pccl-");
    for (int i = 0; i < 24 && k + 2 < (int)n; i++) k += snprintf(out + k, n - (size_t)k, "%02x", u[i]);
}

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
        int missing = -1;
        for (int r = 0; r < b->nranks && missing < 0; r++)
            if (!__atomic_load_n((uint32_t *)((char *)&b->recs[r] + off), __ATOMIC_ACQUIRE)) missing = r;
        if (missing < 0) return pcclSuccess;
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
    close(fd);
    if (b->recs == MAP_FAILED) {
        free(b);
        return pccl_err(NULL, pcclSystemError, "pcclCommInitRank: mmap %s: %s", b->path, strerror(errno));
    }
    boot_rec *me = &b->recs[rank];
    if (__atomic_load_n(&me->joined, __ATOMIC_ACQUIRE)) {
        munmap(b->recs, bytes);
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
    if (r) { /* the group is dead: a late rank makes a new file and times out on its own */
        unlink(b->path);
        pccl_boot_leave(b, 0);
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
const int64_t *pccl_boot_shape(const pccl_boot *b, int rank) { return b->recs[rank].shape; }

/* Leaves; with wait, first waits (bounded) until every rank is leaving, so no
 * arena is freed while a peer may still write into it. */
void pccl_boot_leave(pccl_boot *b, int wait)
{
    if (!b) return;
    __atomic_store_n(&b->recs[b->rank].left, 1, __ATOMIC_RELEASE);
    if (wait) wait_all(b, offsetof(boot_rec, left), "destroy its communicator");
    int last = 1;
    for (int r = 0; r < b->nranks; r++) last &= __atomic_load_n(&b->recs[r].left, __ATOMIC_ACQUIRE) != 0;
    if (last) unlink(b->path);
    munmap(b->recs, sizeof(boot_rec) * (size_t)b->nranks);
    free(b);
}
