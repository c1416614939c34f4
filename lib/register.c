/* Registration: a collective's static context (type, count, chunk, groups,
 * blocks, program) and its rings in the connector arena. */
#include <string.h>

#include "internal.h"

/* See reg(): per 512 daemon threads (a block of PCCL_THREADS counts as
 * PCCL_THREADS / 512 of one), the bytes a collective needs to take one more
 * block, and the smallest chunk that interleaving may shrink it to. */
#ifndef PCCL_BYTES_PER_BLOCK /* overridable for tuning runs: make CC="cc -DPCCL_BYTES_PER_BLOCK=..." */
#define PCCL_BYTES_PER_BLOCK (512u << 10)
#endif
/* LL moves half the data per slot byte and per store, so a block moves
 * fewer bytes per microsecond: one block per 16 KiB (LL runs to 256 KiB on
 * 2-4 ranks, 128 KiB on 5-8: 8 or 16 blocks there, where one per 512 KiB
 * gave the 4-block minimum).  On 4 H200s (results/direct-n, call 8), 2 ranks'
 * all-reduce at 128 and 256 KiB took 24.2-25.1 and 24.7-26.1 us round trip
 * against 27.5-28.0 and 36.8-37.2, 6.2-6.4 and 6.2-6.3 back to back against
 * 7.0-7.4 and 9.3-9.6; all-gather and reduce-scatter at 256 KiB 22.0-24.0
 * against 26.1-28.4 round trip; 4 ranks at 128 KiB 1-3 us faster round
 * trip, 0.3-0.8 back to back.  make CC="cc -DPCCL_LL_BYTES_PER_BLOCK=..."
 * to try others. */
#ifndef PCCL_LL_BYTES_PER_BLOCK
#define PCCL_LL_BYTES_PER_BLOCK (16u << 10)
#endif
#ifndef PCCL_MIN_ILV_CHUNK
#define PCCL_MIN_ILV_CHUNK (64u << 10)
#endif
/* One rank on a GPU, PCCL_CHUNK_BYTES not set: chunks of at least this many
 * bytes (they fill no slot: one rank has no connector). */
#define ONE_RANK_CHUNK (1u << 20)

/* ---- balance: every block that takes part runs as many loops ---------------- */

static uint64_t loops_of(uint64_t count, uint64_t ce, uint64_t lspan) { return (count + ce * lspan - 1) / (ce * lspan); }

/* Loops are dealt round robin, so 32 loops on 24 blocks take two loops'
 * time where 1.33 would do: the chunk shrinks until the loops are at most
 * the blocks or a multiple of them.  A chunk is a multiple of 16 elements,
 * and rounding the shrunk chunk up can give back the count it fixed (512
 * elements in chunks of 64 on 3 blocks: 8 loops; 9 asks for 57, which
 * rounds to 64), so the next multiples are tried too; where none is
 * possible (that one: 6 loops need chunks of 96) the chunk stays. */
static uint64_t balance_chunk(uint64_t count, uint64_t ce, uint64_t lspan, uint64_t blocks)
{
    uint64_t loops = loops_of(count, ce, lspan);
    if (loops <= blocks || loops % blocks == 0) return ce;
    for (uint64_t want = (loops + blocks - 1) / blocks * blocks, n = 0; n < 64; want += blocks, n++) {
        uint64_t c2 = ((count + want * lspan - 1) / (want * lspan) + 15) & ~(uint64_t)15;
        if (loops_of(count, c2, lspan) == want) return c2;
        if (c2 == 16) break; /* no smaller chunk */
    }
    return ce;
}

/* The most loops a block runs when groups of ilv loops are dealt round robin
 * to the blocks (block 0 has the most groups; the last group may be short). */
static uint64_t max_block_loops(uint64_t loops, uint64_t ilv, uint64_t blocks)
{
    uint64_t g = (loops + ilv - 1) / ilv, used = g < blocks ? g : blocks, n0 = (g + used - 1) / used;
    return (g - 1) % used == 0 ? (n0 - 1) * ilv + (loops - (g - 1) * ilv) : n0 * ilv;
}

/* Groups dealt statically must not undo the balance: 8 loops in groups of 2
 * on 3 blocks are 4, 2 and 2 loops.  The largest interleave (at most ilv)
 * whose deal is as even as single loops' is taken (1 always is). */
static uint64_t balanced_ilv(uint64_t loops, uint64_t ilv, uint64_t blocks)
{
    uint64_t best = max_block_loops(loops, 1, blocks);
    while (ilv > 1 && max_block_loops(loops, ilv, blocks) > best) ilv--;
    return ilv;
}

/* The groups of d's interleave, the blocks they use, and whether blocks
 * claim them at run time (LL slots carry no header word for the claims: its
 * groups are dealt). */
static void set_groups(pccl_coll *d, pcclComm_t c)
{
    d->ngroups = pccl_groups(d);
    d->used = pccl_used_blocks(d, c->G.k.blocks);
    /* claims travel in the ring's slot headers (pccl_claim): not on the mesh */
    d->dyn = c->G.k.dynamic && d->ngroups > d->used && d->proto != PCCL_PROTO_LL && !pccl_mesh(d);
}

/* ---- registration ----------------------------------------------------------- */

static const char *coll_name[] = {"pcclRegisterAllReduce", "pcclRegisterAllGather", "pcclRegisterReduceScatter",
                                  "pcclRegisterReduce", "pcclRegisterBroadcast"};

static pcclResult_t reg(pcclComm_t c, int type, size_t count, pcclDataType_t dt, pcclRedOp_t op, int root,
                        int prio, int *id)
{
    const char *fn = coll_name[type];
    CHECK_COMM(c, fn);
    if (!id) return pccl_err(c, pcclInvalidArgument, "%s: collId is NULL", fn);
    if ((int)dt < 0 || dt >= pcclNumTypes)
        return pccl_err(c, pcclInvalidArgument, "%s: datatype %d unknown", fn, (int)dt);
    if ((int)op < 0 || op >= pcclNumOps) return pccl_err(c, pcclInvalidArgument, "%s: op %d unknown", fn, (int)op);
    if (root < 0 || root >= c->nranks)
        return pccl_err(c, pcclInvalidArgument, "%s: root %d not in [0, %d)", fn, root, c->nranks);
    int es = pccl_type_size(dt);
    if (count > ((size_t)1 << 40) / (size_t)es / (size_t)c->nranks)
        return pccl_err(c, pcclInvalidArgument, "%s: count %zu too large", fn, count);

    pccl_coll d;
    memset(&d, 0, sizeof d);
    d.type = (uint8_t)type;
    d.dtype = (uint8_t)dt;
    d.op = (uint8_t)op;
    d.esize = (uint8_t)es;
    d.nranks = (uint8_t)c->nranks;
    d.rank = (uint8_t)c->rank;
    d.root = (uint8_t)root;
    d.priority = prio;
    d.count = count;
    /* Chunk: the knob, shrunk for small collectives so that their loops
     * cover about `blocks` blocks: one per PCCL_BYTES_PER_BLOCK (LL:
     * PCCL_LL_BYTES_PER_BLOCK) per 512 threads, and at least the tuner's
     * minimum (lib/tune.c: one block up to 8 KiB on the GPU, 2 KiB for the
     * direct all-reduce on 3 ranks or more, 64 KiB on one rank, else 4 x 512
     * threads' worth, 8 for Simple on 3 or more); the others never see it.  On 4
     * H200s, with blocks of 512 threads, one block per 512 KiB and chunks
     * down to 64 KiB took all-reduce at 8 and 16 MiB from 0.87
     * and 0.85 to 0.96 and 0.91 of NCCL's busbw, against one per 1 MiB and
     * 128 KiB (results/perf-tune-4gpu, lb2_512 and bpbi_512).  Then
     * shrunk to give each block `interleave` loops, whose steps it
     * alternates (scheduler.h, pccl_advance), unless that takes the chunk
     * below PCCL_MIN_ILV_CHUNK (per 512 threads): where latency rules,
     * smaller steps cost a commit each.  The host backend's blocks count as
     * 512 threads. */
    uint64_t ce = (uint64_t)c->chunk_bytes / (uint64_t)es, blocks = (uint64_t)c->G.k.blocks;
    /* One rank's chunk fills no slot: at least ONE_RANK_CHUNK, fewer steps
     * per block.  On one H100 1 MiB took one rank's 128 MiB all-reduce from
     * 131 to 121 us back to back, 145 to 131-135 round trip, 30 to 20.5 in
     * place; 4 and 16 MiB chunks no better, 2 and 16 MiB collectives the
     * same (results/one-rank-inplace-h100/, "Chunks").  A chunk the user set,
     * or the host backend's, stays (the tests' small chunks cover many loops). */
    if (c->nranks == 1 && c->chunk_default && c->be != &pccl_host_backend && ce < ONE_RANK_CHUNK / (uint64_t)es)
        ce = ONE_RANK_CHUNK / (uint64_t)es;
    uint64_t th = c->G.k.threads > 1 ? (uint64_t)c->G.k.threads : 512;
    uint64_t bytes = (uint64_t)count * (uint64_t)es * (type == 1 || type == 2 ? (uint64_t)c->nranks : 1);
    d.proto = (uint8_t)pccl_pick_proto(c->proto, type, bytes, c->nranks);
    d.algo = (uint8_t)pccl_pick_algo(c->algo, type, bytes, c->nranks, c->G.k.slots);
    uint64_t bpb = d.proto == PCCL_PROTO_LL ? PCCL_LL_BYTES_PER_BLOCK : PCCL_BYTES_PER_BLOCK;
    uint64_t want = bytes / (bpb * th / 512), lo = pccl_pick_min_blocks(bytes, th, c->nranks, d.algo, d.proto,
                                                                         c->be == &pccl_host_backend);
    if (lo > blocks) lo = blocks;
    if (want < lo) want = lo;
    if (want < blocks) blocks = want;
    uint64_t per = (count + blocks - 1) / blocks, ilv = (uint64_t)c->G.k.interleave;
    if (pccl_split_loop(&d)) per = (per + c->nranks - 1) / (uint64_t)c->nranks;
    if (per / ilv * (uint64_t)es >= PCCL_MIN_ILV_CHUNK * th / 512) per = (per + ilv - 1) / ilv;
    per = (per + 15) & ~(uint64_t)15;
    if (ce > per) ce = per;
    ce &= ~(uint64_t)15;
    if (ce < 16) ce = 16;
    /* Balance over the blocks the loops are dealt to (all of them where the
     * loops outnumber them): see balance_chunk. */
    uint64_t kb = (uint64_t)c->G.k.blocks, lspan = pccl_split_loop(&d) ? (uint64_t)c->nranks : 1;
    d.chunk_elems = ce = balance_chunk(count, ce, lspan, kb);
    /* Groups: up to `interleave` loops, as many as every block has (1 where
     * the loops do not outnumber the blocks).  With large chunks, as many
     * as leave every block two groups: groups past the first per block are
     * claimed at run time (dynamic), which evens out fast and slow
     * multiprocessors, and a large step hides its commit anyway.  On 4
     * H200s all-reduce busbw at 64 and 128 MiB went from 0.96 to 1.01 of
     * NCCL's, and fell from 0.95 to 0.86 at 32 MiB (64 KiB chunks) where
     * applied there too (results/README.md). */
    uint64_t nl = pccl_total_loops(&d), per_grp = kb;
    if (ce * (uint64_t)es >= 2 * PCCL_MIN_ILV_CHUNK * th / 512 && c->G.k.dynamic) per_grp = 2 * kb;
    uint64_t gl = nl > per_grp ? nl / per_grp : 1;
    d.ilv = (uint32_t)(gl < ilv ? gl : ilv);
    /* The direct all-reduce on 3 or more ranks keeps a loop's n - 1 received
     * slots until its last step; loops interleaved would keep ilv (n - 1), more
     * than a ring's slots hold (tune.c picks it where n - 1 fit). */
    if (d.algo == PCCL_ALGO_DIRECT && c->nranks > 2) d.ilv = 1;
    /* The mesh's loops one at a time: the two-shot's first step sends a slot
     * to every peer, its second one more before the first is freed. */
    if (pccl_mesh(&d)) d.ilv = 1;
    set_groups(&d, c);
    if (!d.dyn && nl > kb) { /* dealt: as evenly as the loops allow (claimed groups even out at run time) */
        d.ilv = (uint32_t)balanced_ilv(nl, d.ilv, kb);
        set_groups(&d, c);
    }
    pccl_build_program(&d);
    pccl_coll_derive(&d, c->G.k.slots);

    /* The id and the arena range are taken under the lock, the upload is
     * made without it: a driver call may wait for the GPU (a lazy module
     * load elsewhere in the process holds the context lock and drains the
     * GPU; a copy may queue behind the daemon), and meanwhile the poller
     * must be free to drain completions, which release the stream holds
     * that keep the daemon running (stream.c).  On one H100 with two ranks
     * sharing it, the torch backend's lazy registration sat in this upload
     * with the lock held while the poller waited for the lock: a hang in 3
     * of 5 runs (results/stream-gpu/run9). */
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pcclSuccess;
    /* One rank has no peer and reads and writes no connector: no arena (a
     * 128 MiB collective took 64 MiB of it, 1 GiB filled at 16 of them). */
    size_t need = c->nranks == 1 ? 0 : d.stride * (size_t)d.used;
    int i = c->ncolls;
    if (c->ncolls >= c->G.k.max_colls)
        r = pccl_err(c, pcclInvalidUsage, "%s: %d collectives registered already (PCCL_MAX_COLLS)", fn, c->ncolls);
    else if (c->arena_used + need > c->arena_bytes)
        r = pccl_err(c, pcclInvalidUsage,
                     "%s: connector arena full: %zu of %zu bytes used, %zu needed (PCCL_ARENA_BYTES)", fn,
                     c->arena_used, c->arena_bytes, need);
    if (!r) {
        d.conn_off = c->arena_used;
        d.first = c->spread == 1 ? (uint8_t)pccl_first_block(&d, i, c->G.k.blocks) : 0;
        /* each invocation runs on a group of `used` blocks, one past block 0's at least (scheduler.h,
         * pccl_hand_on; the host names it for several blocks: run.c, place_group) */
        d.placed = c->spread == 2 && 2 * d.used <= (uint32_t)c->G.k.blocks;
        pccl_hcoll *h = &c->colls[i];
        memset(h, 0, sizeof *h); /* not ready: pcclRun refuses it until the upload is done */
        h->held_pos = -1;
        h->dev = d;
        size_t b = count * (size_t)es;
        h->in_bytes = type == 2 ? b * c->nranks : b;
        h->out_bytes = type == 1 ? b * c->nranks : b;
        c->arena_used += need;
        c->ncolls++;
    }
    pthread_mutex_unlock(&c->mu);
    if (r) return r;
    r = c->be->upload(c, &c->G.colls[i], &d, sizeof d);
    pthread_mutex_lock(&c->mu);
    c->colls[i].ready = !r; /* a failed upload leaves the id unusable (the error says why) */
    pthread_mutex_unlock(&c->mu);
    if (!r) *id = i;
    return r;
}

pcclResult_t pcclRegisterAllReduce(pcclComm_t c, size_t n, pcclDataType_t t, pcclRedOp_t op, int p, int *id)
{
    return reg(c, pcclCollAllReduce, n, t, op, 0, p, id);
}
pcclResult_t pcclRegisterAllGather(pcclComm_t c, size_t n, pcclDataType_t t, int p, int *id)
{
    return reg(c, pcclCollAllGather, n, t, pcclSum, 0, p, id);
}
pcclResult_t pcclRegisterReduceScatter(pcclComm_t c, size_t n, pcclDataType_t t, pcclRedOp_t op, int p, int *id)
{
    return reg(c, pcclCollReduceScatter, n, t, op, 0, p, id);
}
pcclResult_t pcclRegisterReduce(pcclComm_t c, size_t n, pcclDataType_t t, pcclRedOp_t op, int root, int p, int *id)
{
    return reg(c, pcclCollReduce, n, t, op, root, p, id);
}
pcclResult_t pcclRegisterBroadcast(pcclComm_t c, size_t n, pcclDataType_t t, int root, int p, int *id)
{
    return reg(c, pcclCollBroadcast, n, t, pcclSum, root, p, id);
}

