/* The random-order test (paper 001, Sec. 6.1, host edition): G emulated GPUs,
 * each driven by its own thread, invoke the same set of collectives, each in
 * its own random order per iteration (optionally with a device
 * synchronization after every invocation).  Every result is checked exactly,
 * every iteration.  A watchdog turns a hang into a loud failure. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NC 8

typedef struct rand_run rand_run;

typedef struct worker worker;
/* A stream-ordered invocation's work around it: its stream functions' argument. */
typedef struct {
    worker *w;
    int k, it;
    uint64_t seed, delay_rng;
} sjob;

struct worker {
    rand_run *R;
    int rank;
    void *buf[NC][2];
    pcclStream_t st[NC]; /* streams mode: one per collective */
    sjob job[NC];
    uint64_t verified;   /* stream functions that checked an output */
    uint64_t syncs;      /* the second thread's synchronizations */
    double sync_max_s;   /* and the longest of them */
    double sync_sum_s;
    int finished;
};

struct rand_run {
    const pt_rand_opts *o;
    pcclComm_t comms[PT_MAX_RANKS];
    pt_comms dump;
    ck_coll colls[NC];
    int inplace[NC];
    int ids[NC];
    worker w[PT_MAX_RANKS];
    pthread_mutex_t mu;
    int failures;
    char first[768];
    int stop; /* set on a failure that would leave peers waiting forever */
    int iters_done[PT_MAX_RANKS];
};

static void record(rand_run *R, int fatal, const char *fmt, const char *a, const char *b, int x, int y)
{
    pthread_mutex_lock(&R->mu);
    if (R->failures++ == 0) snprintf(R->first, sizeof R->first, fmt, a, b, x, y);
    if (fatal) __atomic_store_n(&R->stop, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&R->mu);
}

static int stopped(rand_run *R) { return __atomic_load_n(&R->stop, __ATOMIC_ACQUIRE); }

static void ptrs(rand_run *R, worker *w, int k, void **s, void **r)
{
    if (R->inplace[k]) ck_inplace_ptrs(&R->colls[k], w->rank, w->buf[k][0], s, r);
    else { *s = w->buf[k][0]; *r = w->buf[k][1]; }
}

/* On collective k's stream, before it: its inputs (the worker poisoned them:
 * read too early, they give wrong results). */
static void stream_prepare(void *arg)
{
    sjob *j = arg;
    rand_run *R = j->w->R;
    if (R->o->streams_delay_us) ck_sleep_us((long)(ck_rand(&j->delay_rng) % (uint64_t)R->o->streams_delay_us));
    ck_prepare(&R->colls[j->k], j->w->rank, j->seed, R->inplace[j->k], j->w->buf[j->k][0], j->w->buf[j->k][1]);
}

static void ptrs(rand_run *R, worker *w, int k, void **s, void **r);

/* On collective k's stream, after it: the output must be complete. */
static void stream_verify(void *arg)
{
    sjob *j = arg;
    worker *w = j->w;
    rand_run *R = w->R;
    char msg[512];
    void *s, *r;
    ptrs(R, w, j->k, &s, &r);
    if ((ck_writes_recv(&R->colls[j->k], w->rank) || R->inplace[j->k]) &&
        ck_verify(&R->colls[j->k], w->rank, j->seed, R->inplace[j->k], r, msg, sizeof msg))
        record(R, 0, "%s%s (iteration %d, rank %d; checked on the stream after pcclRunOnStream)", msg, "", j->it,
               w->rank);
    __atomic_fetch_add(&w->verified, 1, __ATOMIC_ACQ_REL);
}

static void poison(rand_run *R, worker *w, int k)
{
    const ck_coll *x = &R->colls[k];
    if (R->inplace[k]) ck_fill_sentinel(w->buf[k][0], ck_inplace_bytes(x));
    else {
        ck_fill_sentinel(w->buf[k][0], ck_send_bytes(x));
        ck_fill_sentinel(w->buf[k][1], ck_recv_bytes(x));
    }
}

/* Streams mode: the iteration's invocations, their inputs and checks on the
 * streams; waits (polling, so a failed peer cannot leave it stuck) for the
 * checks.  0, or -1 after recording a failure. */
static int stream_iteration(rand_run *R, worker *w, pcclComm_t comm, const int *order, int it, uint64_t seed)
{
    uint64_t want = __atomic_load_n(&w->verified, __ATOMIC_ACQUIRE) + NC;
    for (int k = 0; k < NC; k++) poison(R, w, k);
    for (int i = 0; i < NC; i++) {
        int k = order[i];
        void *s, *r;
        sjob *j = &w->job[k];
        j->w = w;
        j->k = k;
        j->it = it;
        j->seed = seed + (uint64_t)k;
        ptrs(R, w, k, &s, &r);
        pcclResult_t e = pcclHostStreamLaunch(w->st[k], stream_prepare, j);
        if (!e) e = pcclRunOnStream(comm, R->ids[k], s, r, w->st[k]);
        if (!e) e = pcclHostStreamLaunch(w->st[k], stream_verify, j);
        if (e) {
            record(R, 1, "pcclRunOnStream or pcclHostStreamLaunch -> %s: %s (rank %d, iteration %d)",
                   pcclGetErrorString(e), pcclGetLastError(comm), w->rank, it);
            return -1;
        }
    }
    while (__atomic_load_n(&w->verified, __ATOMIC_ACQUIRE) < want) {
        if (stopped(R)) return -1;
        ck_sleep_us(20);
    }
    return 0;
}

/* Streams mode with sync: device synchronizations while streams wait.
 * With sync_thread: the same at random points (0-2 ms apart), each timed,
 * while the rank's worker runs the random orders (the cross-rank sharing
 * test of issue 22, host edition). */
static void *syncer_main(void *arg)
{
    worker *w = arg;
    pcclComm_t comm = w->R->comms[w->rank];
    uint64_t rng = w->R->o->seed ^ ((uint64_t)w->rank << 32) ^ 0x5a5aull;
    while (!__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE) && !stopped(w->R)) {
        if (w->R->o->sync_thread) ck_sleep_us((long)(ck_rand(&rng) % 2000));
        double t0 = ck_now();
        pcclResult_t e = pcclDeviceSynchronize(comm);
        double dt = ck_now() - t0;
        if (dt > w->sync_max_s) w->sync_max_s = dt;
        w->sync_sum_s += dt;
        if (e) {
            record(w->R, 1, "pcclDeviceSynchronize -> %s: %s (rank %d, second thread)", pcclGetErrorString(e),
                   pcclGetLastError(comm), w->rank, 0);
            break;
        }
        __atomic_fetch_add(&w->syncs, 1, __ATOMIC_RELAXED);
        ck_sleep_us(100);
    }
    return NULL;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    rand_run *R = w->R;
    const pt_rand_opts *o = R->o;
    pcclComm_t comm = R->comms[w->rank];
    int order[NC];
    char msg[512];
    for (int it = 0; it < o->iters && !stopped(R); it++) {
        uint64_t seed = o->seed * 1000003ull + (uint64_t)it * NC;
        for (int k = 0; k < NC && !o->streams; k++)
            ck_prepare(&R->colls[k], w->rank, seed + (uint64_t)k, R->inplace[k], w->buf[k][0], w->buf[k][1]);
        for (int k = 0; k < NC; k++) order[k] = k;
        if (o->opposite) { /* even ranks forward, odd ranks backward */
            if (w->rank & 1)
                for (int k = 0; k < NC; k++) order[k] = NC - 1 - k;
        } else {
            ck_shuffle(order, NC, (o->seed << 32) ^ ((uint64_t)it << 8) ^ (uint64_t)w->rank ^ 0x5eedull);
        }
        if (o->streams) {
            if (stream_iteration(R, w, comm, order, it, seed)) return NULL;
            __atomic_store_n(&R->iters_done[w->rank], it + 1, __ATOMIC_RELEASE);
            ck_watchdog_kick();
            continue;
        }
        for (int i = 0; i < NC; i++) {
            int k = order[i];
            void *s, *r;
            ptrs(R, w, k, &s, &r);
            pcclResult_t e = pcclRun(comm, R->ids[k], s, r, NULL, NULL);
            if (e != pcclSuccess) {
                record(R, 1, "pcclRun -> %s: %s (rank %d, iteration %d)", pcclGetErrorString(e),
                       pcclGetLastError(comm), w->rank, it);
                return NULL;
            }
            if (o->sync && (e = pcclDeviceSynchronize(comm)) != pcclSuccess) {
                record(R, 1, "pcclDeviceSynchronize -> %s: %s (rank %d, iteration %d)", pcclGetErrorString(e),
                       pcclGetLastError(comm), w->rank, it);
                return NULL;
            }
        }
        /* Wait by polling, so that a failed peer (stop) cannot leave us stuck. */
        for (int k = 0; k < NC; k++) {
            int done = 0;
            while (!done) {
                pcclResult_t e = pcclTest(comm, R->ids[k], &done);
                if (e != pcclSuccess) {
                    record(R, 1, "pcclTest -> %s: %s (rank %d, iteration %d)", pcclGetErrorString(e),
                           pcclGetLastError(comm), w->rank, it);
                    return NULL;
                }
                if (done) break;
                if (stopped(R)) return NULL;
                ck_sleep_us(20);
            }
        }
        for (int k = 0; k < NC; k++) {
            void *s, *r;
            ptrs(R, w, k, &s, &r);
            if (!ck_writes_recv(&R->colls[k], w->rank) && !R->inplace[k]) continue;
            if (ck_verify(&R->colls[k], w->rank, seed + (uint64_t)k, R->inplace[k], r, msg, sizeof msg))
                record(R, 0, "%s%s (iteration %d, rank %d)", msg, "", it, w->rank);
        }
        __atomic_store_n(&R->iters_done[w->rank], it + 1, __ATOMIC_RELEASE);
        ck_watchdog_kick();
    }
    return NULL;
}

static void dump(void *arg)
{
    rand_run *R = arg;
    fprintf(stderr, "  %s: iterations done per rank:", R->o->name);
    for (int r = 0; r < R->o->G; r++) fprintf(stderr, " %d", __atomic_load_n(&R->iters_done[r], __ATOMIC_ACQUIRE));
    fprintf(stderr, " of %d\n", R->o->iters);
    pt_dump_stats(&R->dump);
}

int pt_random_order(const pt_rand_opts *o, pt_rand_stats *out)
{
    int G = o->G;
    rand_run *R = calloc(1, sizeof *R);
    if (!R) return -1;
    R->o = o;
    pthread_mutex_init(&R->mu, NULL);
    memset(out, 0, sizeof *out);

    pcclConfig_t cfg = pt_config(o->blocks, o->chunk);
    cfg.chaos = o->chaos;
    cfg.order = o->order;
    cfg.spinHead = o->spin_head;
    cfg.spinBase = o->spin_base;
    cfg.spinMin = o->spin_min;
    cfg.sticky = o->sticky;
    cfg.quitUs = o->quit_us;
    cfg.relaunchUs = o->relaunch_us;
    cfg.sliceUs = o->slice_us;
    cfg.watchUs = o->watch_us;
    if (o->chaos) cfg.chaosSeed = (long)(o->seed + 1);
    if (pt_init(R->comms, G, &cfg)) { free(R); return -1; }
    R->dump.comms = R->comms;
    R->dump.n = G;

    /* Eight collectives of mixed kinds, sizes and types; some in place. */
    const ck_coll c[NC] = {
        {pcclCollAllReduce, pcclInt32, pcclSum, 0, 1003, G},
        {pcclCollAllGather, pcclFloat32, pcclSum, 0, 257, G},
        {pcclCollReduceScatter, pcclInt64, pcclMax, 0, 129, G},
        {pcclCollReduce, pcclUint8, pcclProd, 1 % G, 4097, G},
        {pcclCollBroadcast, pcclFloat64, pcclSum, G - 1, 1500, G},
        {pcclCollAllReduce, pcclBfloat16, pcclMin, 0, 3001, G},
        {pcclCollAllReduce, pcclUint64, pcclAvg, 0, 7, G},
        {pcclCollReduceScatter, pcclFloat16, pcclSum, 0, 33, G},
    };
    const int inplace[NC] = {0, 1, 0, 0, 1, 0, 1, 1};
    memcpy(R->colls, c, sizeof c);
    memcpy(R->inplace, inplace, sizeof inplace);
    int ok = 1;
    for (int k = 0; k < NC && ok; k++)
        for (int r = 0; r < G && ok; r++) {
            int id = -1;
            /* distinct priorities when asked (a permutation, so ties are rare) */
            int prio = o->prio ? (k * 5) % NC : 0;
            pcclResult_t e = pt_register(R->comms[r], &R->colls[k], prio, &id);
            if (e != pcclSuccess || (r > 0 && id != R->ids[k])) {
                PT_FAIL("%s: registering collective %d on rank %d -> %s", o->name, k, r, pcclGetErrorString(e));
                ok = 0;
            }
            R->ids[k] = id;
        }
    for (int r = 0; r < G && ok; r++) {
        worker *w = &R->w[r];
        w->R = R;
        w->rank = r;
        for (int k = 0; k < NC; k++) {
            const ck_coll *x = &R->colls[k];
            if (R->inplace[k]) {
                w->buf[k][0] = malloc(ck_inplace_bytes(x) ? ck_inplace_bytes(x) : 1);
            } else {
                w->buf[k][0] = malloc(ck_send_bytes(x) ? ck_send_bytes(x) : 1);
                w->buf[k][1] = malloc(ck_recv_bytes(x) ? ck_recv_bytes(x) : 1);
            }
        }
    }

    for (int r = 0; r < G && ok && o->streams; r++)
        for (int k = 0; k < NC && ok; k++) {
            R->w[r].job[k].delay_rng = o->seed ^ ((uint64_t)r << 16) ^ (uint64_t)k;
            if (pcclHostStreamCreate(R->comms[r], &R->w[r].st[k]) != pcclSuccess) {
                PT_FAIL("%s: pcclHostStreamCreate: %s", o->name, pcclGetLastError(R->comms[r]));
                ok = 0;
            }
        }
    double t0 = ck_now();
    if (ok) {
        pthread_t th[PT_MAX_RANKS], sy[PT_MAX_RANKS];
        int syncers = 0;
        for (; ((o->streams && o->sync) || o->sync_thread) && syncers < G; syncers++)
            if (pthread_create(&sy[syncers], NULL, syncer_main, &R->w[syncers])) {
                record(R, 1, "%s%s cannot start sync thread %d (%d)", "", "", syncers, 0);
                break;
            }
        ck_watchdog_arm(o->name, o->watchdog_s > 0 ? o->watchdog_s : 60, dump, R);
        int started = 0;
        for (int r = 0; r < G; r++) {
            if (pthread_create(&th[r], NULL, worker_main, &R->w[r])) {
                record(R, 1, "%s%s cannot start thread %d (%d)", "", "", r, 0);
                break;
            }
            started++;
        }
        for (int r = 0; r < started; r++) pthread_join(th[r], NULL);
        for (int r = 0; r < G; r++) __atomic_store_n(&R->w[r].finished, 1, __ATOMIC_RELEASE);
        for (int r = 0; r < syncers; r++) pthread_join(sy[r], NULL);
        for (int r = 0; r < syncers; r++) {
            out->syncs_min = r == 0 || R->w[r].syncs < out->syncs_min ? R->w[r].syncs : out->syncs_min;
            if (R->w[r].sync_max_s > out->sync_max_s) out->sync_max_s = R->w[r].sync_max_s;
            out->sync_sum_s += R->w[r].sync_sum_s;
            out->syncs += R->w[r].syncs;
        }
        ck_watchdog_disarm();
    }
    out->seconds = ck_now() - t0;

    PT_CHECK(R->failures == 0, "%s: %d failures; first: %s", o->name, R->failures, R->first);
    for (int r = 0; r < G && !R->stop; r++) /* abort releases the streams; else they are done */
        for (int k = 0; k < NC; k++)
            if (R->w[r].st[k]) pcclHostStreamDestroy(R->w[r].st[k]);
    if (R->stop) { /* peers may be stuck for good: abort rather than destroy */
        for (int r = 0; r < G; r++) {
            pcclCommAbort(R->comms[r]);
            R->comms[r] = NULL;
        }
    } else if (ok) {
        /* Statistics are folded in when a daemon instance ends: let them end. */
        for (int r = 0; r < G; r++) {
            pcclStats_t s;
            PT_OK(pcclDeviceSynchronize(R->comms[r]));
            PT_OK(pcclCommGetStats(R->comms[r], &s));
            out->completed[r] = s.completed;
            out->preemptions += s.preemptions;
            out->crossed += s.crossed;
            out->quits_min = r == 0 || s.quits < out->quits_min ? s.quits : out->quits_min;
            out->launches += s.launches;
            PT_CHECK(s.completed == (uint64_t)o->iters * NC, "%s: rank %d completed %llu invocations, expected %d",
                     o->name, r, (unsigned long long)s.completed, o->iters * NC);
        }
    }
    out->failures = R->failures;
    if (getenv("PCCL_TEST_VERBOSE"))
        fprintf(stderr, "\n  %s: %d iterations in %.2f s, preemptions %llu (crossed %llu), min quits %llu, "
                "launches %llu\n", o->name, o->iters, out->seconds, (unsigned long long)out->preemptions,
                (unsigned long long)out->crossed,
                (unsigned long long)out->quits_min, (unsigned long long)out->launches);
    pt_destroy(R->comms, G);
    for (int r = 0; r < G; r++)
        for (int k = 0; k < NC; k++) {
            free(R->w[r].buf[k][0]);
            free(R->w[r].buf[k][1]);
        }
    pthread_mutex_destroy(&R->mu);
    free(R);
    return ok ? 0 : -1;
}

void pt_rand_defaults(pt_rand_opts *o, const char *name, int G, int iters)
{
    memset(o, 0, sizeof *o);
    o->name = name;
    o->G = G;
    o->iters = iters;
    o->blocks = 1;
    o->chunk = 1024;
    o->chaos = -1;
    o->order = -1;
    /* Thresholds for 2 host cores shared by every emulated GPU: the defaults
     * (a 2000-poll head, x20 stickiness) make each mismatch cost tens of ms
     * here.  Deadlock freedom must hold for any thresholds. */
    o->spin_head = 50;
    o->spin_base = 20;
    o->spin_min = 2;
    o->sticky = 4;
    o->quit_us = 500;
    o->relaunch_us = 50;
    o->seed = 1;
    o->watchdog_s = 60;
    o->slice_us = -1; /* the environment's, or the default */
    o->watch_us = -1;
}
