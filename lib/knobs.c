/* Knobs: each pcclConfig_t field, else its environment variable, else the
 * backend's default, checked against its range; and the ring-shaping subset
 * that every rank must agree on. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
    const char *env;
    long gpu, host, lo, hi;
} knob_def;

/* Defaults, per backend, with the accepted range. */
enum { K_BLOCKS, K_THREADS, K_CHUNK, K_SLOTS, K_SPIN_HEAD, K_SPIN_BASE, K_SPIN_MIN, K_STICKY, K_QUIT_US,
       K_RELAUNCH_US, K_ORDER, K_CHAOS, K_CHAOS_SEED, K_MAX_COLLS, K_DEPTH, K_ARENA, K_PROFILE, K_INTERLEAVE,
       K_DYNAMIC, K_PEER_TIMEOUT, K_SLICE_US, K_SLICE_GAP_US, K_PROTO, K_ALGO, K_TRACE_LAT,
       K_WAIT_SPIN_US, K_SLICE_ALIGN, K_SLICE_EARLY_US, K_WATCH_US, K_HANG_DUMP_MS, K_SPREAD, K_CROSS_POLLS,
       K_STREAM_QUEUES, K_ONE_RANK_COPY, K_SLICE_AHEAD_US, K_POLLER_STALL_US, K_N };
static const knob_def knobs[K_N] = {
    [K_BLOCKS] = {"PCCL_BLOCKS", 64, 1, 1, PCCL_MAX_BLOCKS},
    /* at most the daemon's launch bound; at least a scheduling warp and a moving one */
    [K_THREADS] = {"PCCL_THREADS", 512, 64, 64, 512},
    [K_CHUNK] = {"PCCL_CHUNK_BYTES", 256 << 10, 4 << 10, 256, 64L << 20},
    [K_SLOTS] = {"PCCL_SLOTS", 4, 4, 2, 64},
    [K_SPIN_HEAD] = {"PCCL_SPIN_HEAD", 1000, 2000, 1, 1L << 40},
    [K_SPIN_BASE] = {"PCCL_SPIN_BASE", 100, 200, 1, 1L << 40},
    [K_SPIN_MIN] = {"PCCL_SPIN_MIN", 20, 20, 1, 1L << 40},
    [K_STICKY] = {"PCCL_STICKY", 4, 20, 1, 1 << 20},
    [K_QUIT_US] = {"PCCL_QUIT_US", 1000, 2000, 1, 60000000},
    [K_RELAUNCH_US] = {"PCCL_RELAUNCH_US", 50, 100, 1, 60000000},
    [K_ORDER] = {"PCCL_ORDER", 0, 0, 0, 1},
    [K_CHAOS] = {"PCCL_CHAOS", 0, 0, 0, 1},
    [K_CHAOS_SEED] = {"PCCL_CHAOS_SEED", 1, 1, 0, 1L << 62},
    [K_MAX_COLLS] = {"PCCL_MAX_COLLS", 4096, 4096, 1, 1 << 20},
    [K_DEPTH] = {"PCCL_QUEUE_DEPTH", 512, 512, 2, 8192},
    [K_ARENA] = {"PCCL_ARENA_BYTES", 1L << 30, 64L << 20, 1 << 16, 1L << 40},
    [K_PROFILE] = {"PCCL_PROFILE", 0, 0, 0, 1},
    [K_INTERLEAVE] = {"PCCL_INTERLEAVE", 0, 0, 0, 63}, /* 0: 2, or slots - 1 if less */
    [K_DYNAMIC] = {"PCCL_DYNAMIC", 1, 1, 0, 1},
    [K_PEER_TIMEOUT] = {"PCCL_PEER_TIMEOUT_MS", 30000, 30000, 0, 1L << 40},
    /* the bound on an implicit synchronization's wait; each slice costs a
     * relaunch (lib/README.md, "Sharing the GPU") */
    [K_SLICE_US] = {"PCCL_SLICE_US", PCCL_SLICE_US_DEFAULT, 2000, 0, 60000000},
    [K_SLICE_GAP_US] = {"PCCL_SLICE_GAP_US", 20, 0, 0, 1000000},
    /* auto (lib/tune.c's table), simple or ll: names or 0, 1, 2 */
    [K_PROTO] = {"PCCL_PROTO", PCCL_PROTO_AUTO, PCCL_PROTO_AUTO, PCCL_PROTO_AUTO, PCCL_PROTO_LL},
    /* auto, ring, direct, oneshot or twoshot (the last three where they
     * apply: all-reduce on 2-8 ranks, lib/tune.c) */
    [K_ALGO] = {"PCCL_ALGO", PCCL_ALGO_AUTO, PCCL_ALGO_AUTO, PCCL_ALGO_AUTO, PCCL_ALGO_TWOSHOT},
    [K_TRACE_LAT] = {"PCCL_TRACE_LAT", 0, 0, 0, 1},
    /* a sleeping waiter's wake-up costs several us; on the host backend
     * the emulated GPUs need the cores a spinning waiter would take */
    [K_WAIT_SPIN_US] = {"PCCL_WAIT_SPIN_US", 100, 0, 0, 60000000},
    /* slices end on a grid of the host's clock, the same for every rank:
     * the ranks' relaunches overlap instead of each stalling the others
     * (lib/README.md, "The grid") */
    [K_SLICE_ALIGN] = {"PCCL_SLICE_ALIGN", 1, 1, 0, 1},
    /* an idle block ends its launch up to this long before the deadline: the
     * relaunch then falls in a moment without work (0: off; not yet measured
     * on GPUs, so off by default) */
    [K_SLICE_EARLY_US] = {"PCCL_SLICE_EARLY_US", 0, 0, 0, 60000000},
    /* a call of the process in progress this long asks the daemon to end
     * its launch (watch.c; lib/README.md, "The watch"); 0: no watch.  Off
     * by default: on the GPU it costs every driver call of the process a
     * CUPTI callback and takes CUPTI's one subscription, which a profiler
     * started later is then refused */
    [K_WATCH_US] = {"PCCL_WATCH_US", 0, 0, 0, 60000000},
    /* environment only (a diagnosis, not a setting): the hang report (dump.c) */
    [K_HANG_DUMP_MS] = {"PCCL_HANG_DUMP_MS", 0, 0, 0, 1L << 40},
    /* environment only: where a collective on one block runs.  0: block 0;
     * 1: block id % blocks (core.h, pccl_first_block): back to back it
     * halves their time on one H100, but costs the round trip 2-3 us
     * (results/hostpath/b2b-batch.md); 2 (the default): block 0 while it is
     * free, else the next block in turn (scheduler.h, pccl_hand_on): back to
     * back as 1, the round trip as 0 (results/hostpath/place.md) */
    [K_SPREAD] = {"PCCL_SPREAD", 2, 2, 0, 2},
    /* environment only: a wait reads its ring neighbours' posted waits from
     * this many polls on, then every 64 (scheduler.h, pccl_wait); 0: never,
     * the thresholds alone end waits.  Read from the first 64, a ring's
     * blocks a step apart (after a relaunch, or a stall) yielded large
     * collectives back to back to one another for thousands of times in
     * 100 invocations on 4 H200s; from 1024 none, and the paper's
     * random-order test took 0.34 s against 0.28 (results/x4-h200, call 14).
     * 1024 is past the head's first threshold (1000): the posts end the
     * waits that stickiness raised (up to 4000) or that larger thresholds
     * allow, which is what they were for.  On the host backend a poll is a
     * sched_yield: 64 */
    [K_CROSS_POLLS] = {"PCCL_CROSS_POLLS", 1024, 64, 0, 1L << 40},
    /* environment only: the hardware queues a process's streams share on a
     * GPU (CUDA_DEVICE_MAX_CONNECTIONS, 8 unless set): more streams carrying
     * waits on collectives than that, and pccl warns once (stream.c).  0: no
     * check; the host backend's emulated streams share no queue */
    [K_STREAM_QUEUES] = {"PCCL_STREAM_QUEUES", 8, 0, 0, 1L << 20},
    /* environment only: one rank's out-of-place invocation from this many
     * bytes is a copy on pccl's copy stream, not the daemon's (direct.c);
     * 0: never.  On one H200 (results/onecopy-h200/) the copy is faster
     * round trip from 2 MiB (14.2-15.7 us against 21.1-22.1, call 8), but
     * back to back its host path costs ~9-14 us however small: at 8 MiB
     * 9.6-10.0 against the daemon's 9.1-9.3 (call 8), 12.7-13.9 against
     * 9.3-9.6 in the five collectives' table (calls 9 and 6); from 16 MiB
     * the copy both ways (16 MiB back to back 11.0 against 17.2) */
    [K_ONE_RANK_COPY] = {"PCCL_ONE_RANK_COPY_BYTES", 16L << 20, 16L << 20, 0, 1L << 40},
    /* environment only: a relaunch after a slice is queued on the daemon's
     * stream this long before the running launch's slice ends, so the GPU
     * goes from one launch to the next without the gap, the poller's sight
     * of the end and the launch call (poller.c, "The launch ahead"); 0: the
     * relaunch follows the end and PCCL_SLICE_GAP_US */
    [K_SLICE_AHEAD_US] = {"PCCL_SLICE_AHEAD_US", 100, 100, 0, 1000000},
    /* environment only (a diagnosis, not a setting): a poller pass this much
     * longer than the spin or sleep it asked for is reported (poller.c) */
    [K_POLLER_STALL_US] = {"PCCL_POLLER_STALL_US", 0, 0, 0, 60000000},
};

/* Knobs whose values have names: the name's index is the value. */
static const char *const order_names[] = {"fifo", "priority", NULL};
static const char *const proto_names[] = {"auto", "simple", "ll", NULL};
static const char *const algo_names[] = {"auto", "ring", "direct", "oneshot", "twoshot", NULL};

static int named(const char *const *names, const char *e, long *v)
{
    for (int i = 0; names && names[i]; i++)
        if (!strcmp(e, names[i])) {
            *v = i;
            return 1;
        }
    return 0;
}

/* *dflt: 1 when neither the config nor the environment set it. */
static pcclResult_t knob(long cfg, int which, int host, long *out, int *dflt)
{
    const knob_def *d = &knobs[which];
    long v = host ? d->host : d->gpu;
    const char *e = getenv(d->env);
    *dflt = cfg == PCCL_CONFIG_UNSET && !(e && *e);
    if (cfg != PCCL_CONFIG_UNSET) {
        v = cfg;
    } else if (e && *e) {
        char *end;
        errno = 0;
        const char *const *names = which == K_ORDER   ? order_names
                                   : which == K_PROTO ? proto_names
                                   : which == K_ALGO  ? algo_names
                                                      : NULL;
        int bytes = which == K_CHUNK || which == K_ARENA || which == K_ONE_RANK_COPY;
        if (!named(names, e, &v)) {
            v = strtol(e, &end, 0);
            /* byte counts as pccl-perf's -b takes them: K, M, G (powers of 1024) */
            const char *sfx = bytes && *end && !end[1] ? strchr("KkMmGg", *end) : NULL;
            int shift = sfx ? 10 * (1 + (int)(sfx - "KkMmGg") / 2) : 0;
            if (shift && !errno && v >= 0) {
                if (v > (LONG_MAX >> shift)) errno = ERANGE;
                else v <<= shift;
                end++;
            }
            if (errno || *end)
                return pccl_err(NULL, pcclInvalidArgument, "environment %s='%s': not %s", d->env, e,
                                which == K_PROTO  ? "auto, simple, ll or 0-2"
                                : which == K_ALGO ? "auto, ring, direct or 0-2"
                                : which == K_ORDER ? "fifo, priority or 0-1"
                                : bytes            ? "a byte count (an integer, with K, M or G for powers of 1024)"
                                                   : "an integer");
        }
    }
    if (v < d->lo || v > d->hi)
        return pccl_err(NULL, pcclInvalidArgument, "%s=%ld out of range [%ld, %ld]", d->env, v, d->lo, d->hi);
    *out = v;
    return pcclSuccess;
}

int pccl_pick_backend(const pcclConfig_t *cfg)
{
    if (cfg && cfg->backend != PCCL_BACKEND_DEFAULT) return cfg->backend;
    const char *e = getenv("PCCL_BACKEND");
    if (e && !strcmp(e, "host")) return PCCL_BACKEND_HOST;
    if (e && !strcmp(e, "gpu")) return PCCL_BACKEND_GPU;
    if (e && *e) return -2;
    return PCCL_BACKEND_GPU;
}

pcclResult_t pccl_resolve_knobs(pcclComm_t c, const pcclConfig_t *cfg, int host)
{
    pcclConfig_t d = PCCL_CONFIG_INITIALIZER;
    if (!cfg) cfg = &d;
    if (cfg->size != sizeof(pcclConfig_t))
        return pccl_err(NULL, pcclInvalidArgument,
                        "config: size %zu is not sizeof(pcclConfig_t) %zu (use PCCL_CONFIG_INITIALIZER)",
                        cfg->size, sizeof(pcclConfig_t));
    long in[K_N] = {cfg->blocks, cfg->threads, cfg->chunkBytes, cfg->slots, cfg->spinHead, cfg->spinBase,
                    cfg->spinMin, cfg->sticky, cfg->quitUs, cfg->relaunchUs, cfg->order, cfg->chaos,
                    cfg->chaosSeed, cfg->maxColls, cfg->queueDepth, cfg->arenaBytes, cfg->profile, cfg->interleave,
                    cfg->dynamic, cfg->peerTimeoutMs, cfg->sliceUs, cfg->sliceGapUs, cfg->proto, cfg->algo,
                    cfg->traceLat, cfg->waitSpinUs, cfg->sliceAlign, cfg->sliceEarlyUs, cfg->watchUs,
                    PCCL_CONFIG_UNSET, PCCL_CONFIG_UNSET, PCCL_CONFIG_UNSET, PCCL_CONFIG_UNSET, PCCL_CONFIG_UNSET,
                    PCCL_CONFIG_UNSET, PCCL_CONFIG_UNSET}; /* the environment-only ones: unset */
    long v[K_N];
    int dflt[K_N];
    for (int i = 0; i < K_N; i++) {
        pcclResult_t r = knob(in[i], i, host, &v[i], &dflt[i]);
        if (r) return r;
    }
    pccl_knobs *k = &c->G.k;
    k->blocks = (int)v[K_BLOCKS];
    k->threads = host ? 1 : (int)(v[K_THREADS] & ~31L);
    k->slots = (int)v[K_SLOTS];
    k->spin_head = v[K_SPIN_HEAD];
    k->spin_base = v[K_SPIN_BASE];
    k->spin_min = v[K_SPIN_MIN];
    k->sticky = (int)v[K_STICKY];
    k->quit_ns = v[K_QUIT_US] * 1000;
    k->order = (int)v[K_ORDER];
    k->chaos = (int)v[K_CHAOS];
    k->chaos_seed = (uint64_t)v[K_CHAOS_SEED];
    k->max_colls = (int)v[K_MAX_COLLS];
    k->depth = (int)v[K_DEPTH];
    k->profile = (int)v[K_PROFILE];
    k->dynamic = (int)v[K_DYNAMIC];
    k->slice_ns = v[K_SLICE_US] * 1000;
    c->slice_default = dflt[K_SLICE_US];
    c->chunk_default = dflt[K_CHUNK];
    c->watch_ns = (uint64_t)v[K_WATCH_US] * 1000;
    k->slice_early_ns = v[K_SLICE_EARLY_US] * 1000;
    /* A block sends a step of each loop of its group before it receives the
     * next step of the first: around a ring, each connector then holds
     * `interleave` slots in flight, and a block's next send needs one more
     * free.  As many loops as slots wait for each other all around the ring
     * (chaos tests found it). */
    k->interleave = v[K_INTERLEAVE] ? (int)v[K_INTERLEAVE] : k->slots > 2 ? 2 : 1;
    if (k->interleave >= k->slots)
        return pccl_err(NULL, pcclInvalidArgument, "PCCL_INTERLEAVE=%d: must be below PCCL_SLOTS=%d", k->interleave,
                        k->slots);
    c->relaunch_ns = v[K_RELAUNCH_US] * 1000;
    c->peer_timeout_ns = (uint64_t)v[K_PEER_TIMEOUT] * 1000000;
    c->slice_gap_ns = v[K_SLICE_GAP_US] * 1000;
    c->hang_dump_ns = (uint64_t)v[K_HANG_DUMP_MS] * 1000000;
    c->stall_ns = (uint64_t)v[K_POLLER_STALL_US] * 1000;
    c->spread = (int)v[K_SPREAD];
    k->cross_polls = v[K_CROSS_POLLS];
    k->trace = (int)v[K_TRACE_LAT];
    c->wait_spin_ns = (uint64_t)v[K_WAIT_SPIN_US] * 1000;
    c->slice_align = (int)v[K_SLICE_ALIGN];
    c->arena_bytes = (size_t)v[K_ARENA];
    c->chunk_bytes = v[K_CHUNK];
    c->proto = (int)v[K_PROTO];
    c->algo = (int)v[K_ALGO];
    c->stream_queues = (int)v[K_STREAM_QUEUES];
    c->one_rank_copy_bytes = (size_t)v[K_ONE_RANK_COPY];
    c->slice_ahead_ns = (uint64_t)v[K_SLICE_AHEAD_US] * 1000;
    if (!host && dflt[K_STREAM_QUEUES]) { /* CUDA's own setting, where the process made one */
        const char *e = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
        char *end = NULL;
        long q = e && *e ? strtol(e, &end, 10) : 0;
        if (end && !*end && q >= 1) c->stream_queues = q > 32 ? 32 : (int)q; /* 1-32: CUDA's range */
    }
    return pcclSuccess;
}

/* The knobs that shape the rings: how a collective is cut into loops and
 * groups, on which blocks, through how many slots, by which backend.  Ranks
 * that differ in one would not agree on what travels where (a hang or wrong
 * data), so a communicator whose ranks differ is refused at init. */
static const char *const shape_knobs[PCCL_SHAPE_N] = {"PCCL_BACKEND", "PCCL_BLOCKS",     "PCCL_THREADS",
                                                      "PCCL_CHUNK_BYTES", "PCCL_SLOTS", "PCCL_INTERLEAVE",
                                                      "PCCL_DYNAMIC", "PCCL_PROTO", "PCCL_ALGO", "PCCL_SPREAD"};

void pccl_ring_shape(const pcclComm_t c, int64_t s[PCCL_SHAPE_N])
{
    const pccl_knobs *k = &c->G.k;
    const int64_t v[PCCL_SHAPE_N] = {c->be == &pccl_host_backend, k->blocks, k->threads, c->chunk_bytes,
                                     k->slots, k->interleave, k->dynamic, c->proto, c->algo, c->spread};
    memcpy(s, v, sizeof v);
}

static const char *shape_value(int knob, int64_t v, char *buf, size_t n)
{
    if (knob == 0) return v ? "host" : "gpu";
    if (knob == 7 && v >= 0 && v <= 2) return proto_names[v];
    if (knob == 8 && v >= 0 && v <= PCCL_ALGO_TWOSHOT) return algo_names[v];
    snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

/* Every rank checks all ranks against rank 0, so that all of them fail
 * alike and none is left waiting for peers that gave up. */
pcclResult_t pccl_shapes_agree(int nranks, const int64_t *const *shape)
{
    for (int r = 1; r < nranks; r++)
        for (int i = 0; i < PCCL_SHAPE_N; i++)
            if (shape[r][i] != shape[0][i]) {
                char a[24], b[24];
                return pccl_err(NULL, pcclInvalidArgument,
                                "pcclCommInitRank: %s is %s on rank 0 and %s on rank %d: the knobs that shape "
                                "the rings (lib/README.md) must be the same on every rank",
                                shape_knobs[i], shape_value(i, shape[0][i], a, sizeof a),
                                shape_value(i, shape[r][i], b, sizeof b), r);
            }
    return pcclSuccess;
}
