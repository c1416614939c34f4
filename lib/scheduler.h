/* The scheduling core: the daemon's loop, written once in plain C.
 *
 * Included by lib/host/backend.c (a host thread stands in for a block) and by
 * lib/gpu/daemon.cu (a CUDA block).  The includer defines:
 *   PCCL_LEADER         true in the one thread that makes decisions
 *   PCCL_MOVER          true in the threads that move data
 *   PCCL_BARRIER()      all threads of the block meet
 *   PCCL_EXEC(job)      the movers move the data of one primitive
 *   PCCL_NOW_NS()       a monotonic clock in nanoseconds
 *   PCCL_POLL_PAUSE(i)  what to do between two polls of a flag
 *   PCCL_IDLE_PAUSE(i)  what to do after the i-th pass in a row with no work
 *   PCCL_SM_ID()        the multiprocessor the block runs on, or -1
 *   PCCL_CTRL           true in the threads that schedule (the leader among them)
 *   PCCL_CTRL_LANE, PCCL_CTRL_LANES  a scheduling thread's index, and their count
 *   PCCL_CTRL_SYNC()    the scheduling threads meet
 * The leader runs the scheduler (fetch, order, stickiness, preemption, context,
 * CQ); the movers only move data, reading the leader's decisions from the
 * shared state after a barrier.  On the GPU they are different warps, so the
 * leader posts one step while the movers move the next.
 *
 * One pass over the task queue runs each collective until it completes or one
 * of its primitives waits longer than its spin threshold (or a ring
 * neighbour's posted wait shows that it waits for this block:
 * pccl_peer_waits); then its dynamic context is saved and the next one runs.
 * The block quits when the SQ is
 * empty and nothing progressed for quit_ns, or when its time slice is over
 * (at the launch's deadline, at most slice_ns after it began, work or not:
 * pccl_cut).
 */
#ifndef PCCL_SCHEDULER_H
#define PCCL_SCHEDULER_H

#include "core.h"
#include "proto_ll.h"

/* Whether this daemon runs the mesh's steps (PCCL_MESH): the host backend's
 * always; on the GPU a kernel of its own (gpu/daemon_mesh.cu), launched for
 * communicators that map the mesh (pccl_gpu.mesh), so that the daemon every
 * other communicator runs carries none of its code (with it, 2 H200s' round
 * trip at 8 B-128 KiB took 0.3-0.8 us longer: results/mesh-x2/, call 2). */
#ifndef PCCL_MESH_ON
#define PCCL_MESH_ON 1
#endif

typedef struct {
    const void *a, *b; /* operands: recv slot, input (either may be NULL) */
    void *d0, *d1;     /* results: output, send slot (either may be NULL) */
    uint64_t n;
    int32_t dtype, op, div; /* div: avg's divisor, 0 if none */
    /* LL (lib/proto_ll.h): the recv and send slots are lines, with these
     * flags; a mover waiting for a line gives up once *abort is set */
    int32_t ll;
    int32_t swap; /* PCCL_SWAP: op(input, received) */
    uint32_t flag_in, flag_out;
    const uint32_t *abort;
    /* PCCL_GATHER (g_n ranks, else 0): the operands are ours (b) and the
     * g_n - 1 slots this loop received, kept in our ring (g_ring, g_slots
     * slots of g_slot bytes), the last in the slot of recv step g_cur */
    int32_t g_n, g_r, g_slots;
    uint64_t g_slot, g_cur;
    const char *g_ring;
    /* A mesh step (PCCL_MESH; m_kind, else 0, set only in the daemon that
     * runs them, PCCL_MESH_ON): PCCL_JOB_REDUCE (RECV with IN): m_n
     * operands reduced in rank order, operand m_me the input (b), every
     * other a slot, m_src[q] (LL: with flag m_flag[q]), into d0 and the
     * m_nd send slots m_dst[i] (LL: flag_out); PCCL_JOB_SEND (SEND alone):
     * m_n copies of m_cnt[i] elements of m_es bytes from m_src[i], a chunk
     * of the input, to the send slot m_dst[i]; PCCL_JOB_RECV (RECV alone):
     * m_n copies from the received slot m_src[i] to m_dst[i], a chunk of
     * the output.  After the fields above, which keep their places: with
     * the mesh's fields among them, the other daemon spilled more. */
    int32_t m_kind, m_n, m_nd, m_me, m_es;
    const char *m_src[PCCL_MESH_MAX_RANKS];
    char *m_dst[PCCL_MESH_MAX_RANKS];
    uint64_t m_cnt[PCCL_MESH_MAX_RANKS];
    uint32_t m_flag[PCCL_MESH_MAX_RANKS];
} pccl_job;
enum { PCCL_JOB_ONE, PCCL_JOB_REDUCE, PCCL_JOB_SEND, PCCL_JOB_RECV };

/* PCCL_GATHER: the recv step whose slot holds rank q's operand (q != g_r).
 * Rank r - s's arrived at the loop's step s, s = 1 .. n - 1 in turn: the
 * last, s = n - 1, is rank r + 1's at g_cur. */
PCCL_FN uint64_t pccl_gather_step(const pccl_job *j, int q)
{
    int s = ((j->g_r - q) % j->g_n + j->g_n) % j->g_n;
    return j->g_cur - (uint64_t)(j->g_n - 1 - s);
}
PCCL_FN const char *pccl_gather_slot(const pccl_job *j, uint64_t t)
{
    return j->g_ring + pccl_slot_of(t, j->g_slots) * j->g_slot;
}

enum { PCCL_CMD_RUN, PCCL_CMD_QUIT };
/* SQ records block 0 reads in one look (pccl_sq_read; -D to change), and
 * completions a block posts behind one fence (pccl_flush_done), at most. */
#ifndef PCCL_SQ_BATCH
#define PCCL_SQ_BATCH 1 /* 4: back to back a little faster, the round trip 1-4 us slower (one H100) */
#endif
#define PCCL_DONE_MAX 16
/* Hand-ons block 0 keeps for its scheduling threads to write together
 * (more in a pass, as priorities fetch: the leader writes them alone) */
#define PCCL_HAND_MAX 4
#define PCCL_HAND_ALONE 4 /* entries the leader writes alone */
/* What the block does after a decision point: the job is ready (EXEC), the
 * collective completed or was preempted (STOP), the pass is over (END), the
 * leader must post the step and decide after the data is complete (LATE). */
enum { PCCL_DEC_EXEC, PCCL_DEC_STOP, PCCL_DEC_END, PCCL_DEC_LATE };

/* The block's state: shared memory on the GPU, a local on the host. */
typedef struct {
    /* The leader's decisions.  A thread may still be reading one while the
     * leader already makes the next: decisions alternate between dec[0] and
     * dec[1], and a slot is rewritten only after a barrier that every thread
     * reaches after reading it. */
    int32_t cmd, dec[2];
    int32_t pos, cur, tq_len, progressed, got, npass, idle, more;
    int32_t plans;                 /* passes begun in this launch, to 2: it looked at its work (cut.h, pccl_looked) */
    int32_t cut;                   /* the time slice is over: stop at the next decision */
    int32_t asked;                 /* block 0: the host asked for a cut (PCCL_CTL_CUT) */
    int32_t blk;                   /* this block's index (block 0 decides the launch's end) */
    int32_t resume;                /* the first pass starts here (a cut launch's position) */
    int32_t ahead;                 /* block 0: the active pick looked at the host's SQ (pccl_look_ahead) */
    uint32_t lane;                 /* the active collective's lane on this block (core.h) */
    int64_t th, th_init;
    int64_t waited;                /* polls the active collective's step has waited (pccl_wait) */
    int64_t carry;                 /* a cut launch's `waited`, for the first pick of the next one */
    uint64_t sq_head, t_progress, rng, act_dirty, t_exec, seen_progress;
    uint64_t t_begin, progress0;   /* the launch's start and the GPU's step count then */
    uint64_t epoch;                /* the launch's number (G->epoch): G->quit holds it once block 0 decided */
    uint64_t deadline;             /* the slice ends here (UINT64_MAX: no slice) */
    uint64_t t_ctl;                /* block 0's last look at the host's ctl word */
    uint64_t cut_at;               /* a cut check before this finds nothing to do (cut.h) */
    uint64_t follow_gap;           /* the others: their looks at block 0's decision are this far apart (0: not yet due) */
    uint64_t pend_tail, pend_head; /* a step's counters not yet posted (0: none) */
    uint64_t pend_hdr;             /* and the header of the slot it sent */
    pccl_ctx act;     /* the active context slot */
    /* The active collective's static context, copied when a pick changes
     * collective: a step reads a dozen of its fields, from device memory an
     * L2 round trip after every acquire (each empties the SM's L1), from
     * here at once.  Collectives never change once registered. */
    pccl_coll ac;
    int32_t ac_id;    /* whose context ac holds (-1: none) */
    int32_t act_task; /* between passes, the task whose context act holds as in memory (pccl_take), else -1 */
    int32_t posted;   /* our wait word (pccl_say_waits) is set: a wait, or one a cut launch left */
    pccl_job job[2];  /* the step being moved, and the next one */
    pccl_blk_stats st;
    int32_t *tq;      /* task queue: collective ids, in scheduling order */
    /* Completions not yet posted (pccl_flush_done): the collective and its
     * invocation, in the order they completed. */
    int32_t ndone;
    int32_t done_id[PCCL_DONE_MAX];
    uint64_t done_inv[PCCL_DONE_MAX];
    uint64_t sqw[PCCL_SQ_BATCH][3]; /* block 0: the records one look at the SQ found */
    /* Block 0: the others' device SQ tails and next slots (G->dsq_tail),
     * here for the launch (pccl_begin, pccl_end).  In global memory, a
     * hand-on read and wrote one tail after another, each read behind the
     * last entry's store, and divided by the depth for its slot. */
    uint64_t dtail[PCCL_MAX_BLOCKS];
    uint32_t dslot[PCCL_MAX_BLOCKS];
    /* Block 0: the hand-ons a pass's looks at the SQ found, which the
     * scheduling threads then write together (pccl_hand_on_lanes) */
    int32_t nhand;
    struct { uint32_t raw, first, used; } hand[PCCL_HAND_MAX];
    int32_t pend_mesh; /* the pending step's counters go to every peer (a PCCL_MESH step); last, so
                          that the fields above keep their places */
} pccl_blk;

PCCL_FN uint64_t pccl_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Stickiness: the head of the task queue waits longest, later entries less. */
PCCL_FN int64_t pccl_threshold(const pccl_knobs *k, int pos)
{
    if (pos == 0) return k->spin_head;
    int64_t t = k->spin_base / pos;
    return t > k->spin_min ? t : k->spin_min;
}

/* PCCL_PROFILE: the leader reads the clock around each phase (else every
 * time figure stays 0: the clock reads are skipped, and t_exec stays 0). */
#define PCCL_PROF(G) ((G)->k.profile)
/* The host backend's test knobs (host.h): a launch slow to start, a block
 * slow to reach each collective it tries; nothing on the GPU. */
#ifndef PCCL_LAUNCH_SLOW
#define PCCL_LAUNCH_SLOW() ((void)0)
#endif
#ifndef PCCL_TRY_SLOW
#define PCCL_TRY_SLOW() ((void)0)
#endif

/* The context of lane `lane` of collective id (core.h). */
PCCL_FN pccl_ctx *pccl_ctx_of(const pccl_gpu *G, int32_t id, uint32_t lane)
{
    return &G->ctx[pccl_ctx_slot(&G->colls[id], id, G->k.blocks, lane)];
}
/* The active collective's context in memory (its lane's slot). */
PCCL_FN pccl_ctx *pccl_act_ctx(const pccl_blk *S, const pccl_gpu *G)
{
    return &G->ctx[pccl_ctx_slot(&S->ac, S->cur, G->k.blocks, S->lane)];
}

#include "sq.h" /* new invocations: the host's SQ, block 0's hand-on, each block's queue */

/* ---- CQ: post completions --------------------------------------------- */

/* Posts the completions the block has gathered: one release fence, then
 * relaxed stores, as a step's post: the outputs (the movers wrote them
 * before a barrier) before each completion flag a stream may wait on
 * (lib/stream.c: invocation `inv` is complete) and CQ entry, in the order
 * the collectives completed, on consecutive tickets.  A system-scope fence
 * costs about a microsecond on the GPU: one per invocation was on the
 * critical path of every small collective back to back
 * (results/hostpath/b2b-split.md); now one per pass, or per wait (pccl_wait:
 * a collective that waits for its peers does not hold back the completions
 * before it). */
PCCL_FN void pccl_flush_done(pccl_blk *S, const pccl_gpu *G)
{
    int n = S->ndone;
    if (!n) return;
    uint64_t t0 = PCCL_PROF(G) ? PCCL_NOW_NS() : 0;
    uint64_t t = pccl_add_rlx_gpu(G->cq_ticket, (uint64_t)n); /* the entries' order is the fence's */
    pccl_fence_rel();
    for (int i = 0; i < n; i++) {
        int32_t id = S->done_id[i];
        pccl_st_post(&G->fin[id], S->done_inv[i]);
        pccl_st_post(&G->cq[(t + (uint64_t)i) % (uint64_t)G->k.depth], ((t + (uint64_t)i + 1) << 32) | (uint32_t)id);
    }
    S->ndone = 0;
    if (PCCL_PROF(G)) S->st.ns_cq += PCCL_NOW_NS() - t0;
}

/* ---- the leader's decisions --------------------------------------------- */

#include "cut.h" /* the launch's end: block 0's decision, the others following it */

PCCL_FN void pccl_begin(pccl_blk *S, const pccl_gpu *G, int b, uint64_t now)
{
    S->st = G->saved[b].st;
    S->st.sm = (uint64_t)(PCCL_SM_ID() + 1);
    S->st.t_begin = now;
    S->blk = b;
    S->epoch = G->epoch;
    /* The deadline (core.h, pccl_slice_deadline).  Every block takes it, so
     * that the others know when block 0's decision may come (cut.h); block
     * 0 alone decides. */
    S->deadline = pccl_slice_deadline(now, G->deadline, (uint64_t)G->k.slice_ns, (uint64_t)G->k.slice_early_ns);
    S->st.t_cut = S->st.t_pick = S->st.t_first = S->st.t_end = S->st.t_work = S->st.t_plan = 0;
    S->sq_head = G->saved[b].sq_head;
    if (b == 0)
        for (int o = 1; o < G->k.blocks; o++) {
            S->dtail[o] = G->dsq_tail[2 * o];
            S->dslot[o] = (uint32_t)G->dsq_tail[2 * o + 1];
        }
    S->tq_len = (int32_t)G->saved[b].tq_len;
    for (int i = 0; i < S->tq_len; i++) S->tq[i] = G->saved_tq[(size_t)b * G->k.depth + i];
    S->t_progress = S->t_begin = now;
    S->seen_progress = S->progress0 = pccl_ld_gpu(G->progress);
    S->cut = S->asked = S->plans = 0;
    S->t_ctl = now;
    S->follow_gap = 0;
    pccl_next_check(S, G, now);
    S->resume = (int32_t)G->saved[b].pos;
    S->act_task = -1;
    S->ac_id = -1;
    S->carry = G->saved[b].waited;
    S->posted = S->carry != 0; /* a wait the slice cut stays posted (pccl_wait) */
    /* the first pass follows no pass without progress: not stuck, no look
     * at the abort flag (pinned memory, which every block with work would
     * read at once then) */
    S->progressed = 1;
    S->rng = G->k.chaos_seed ^ ((uint64_t)b << 40) ^ ((uint64_t)G->rank << 20) ^ now;
    /* The blocks look at the abort flag (pinned memory) every 16th or 64th
     * pass (pccl_plan); counted from the launch's start alike, the idle
     * blocks, which start together and pause alike, all looked in the same
     * pass: 63 reads of one pinned word at once, which the GPU serializes,
     * while block 0 waits to read its SQ.  Counted from their index, they
     * take turns. */
    S->npass = b;
}

/* Start of a pass: fetch, then decide whether to run or quit. */
PCCL_FN void pccl_plan(pccl_blk *S, const pccl_gpu *G, int b, uint64_t now)
{
    if (S->plans == 1) pccl_looked(S, G, b); /* a second pass: it looked at its work (cut.h) */
    else if (S->plans == 0) S->plans = 1;
    /* The abort flag is in pinned memory: a read costs a PCIe round trip.
     * A block reads it in every pass that follows one without progress
     * while it has work (waiting for peers); an idle one in every 64th pass
     * (block 0, which polls the host's SQ, in every 16th), a busy one in
     * every 16th.  Read by idle block 0 in every pass, it doubled the time
     * between two looks at the SQ, which a new invocation waits for. */
    int stuck = !S->progressed && S->tq_len > 0;
    if ((stuck || (++S->npass & (b != 0 && S->tq_len == 0 ? 63 : 15)) == 0) && pccl_look_ctl(S, G, now)) {
        S->cmd = PCCL_CMD_QUIT;
        return;
    }
    /* A pass cut by the slice keeps its position for the next launch, which
     * goes on there: restarted at the head every slice, a queue whose head
     * waits for a peer longer than a slice would never reach the collectives
     * behind it (opposite orders stalled). */
    if (!S->cut) {
        S->pos = S->resume;
        S->resume = 0;
    }
    if (pccl_cut(S, G, now)) { /* what the SQ holds waits there for the next launch */
        S->cmd = PCCL_CMD_QUIT;
        return;
    }
    int got = S->got = pccl_fetch(S, G, b, now);
    /* the relaunch split (slice.c): one clock read per launch */
    if (!S->st.t_plan) S->st.t_plan = PCCL_NOW_NS();
    if (S->tq_len && !S->st.t_work) S->st.t_work = now;
    if (!S->tq_len && G->k.slice_early_ns && pccl_cut_idle(S, G, now, 1)) { /* idle near the deadline */
        S->cmd = PCCL_CMD_QUIT;
        return;
    }
    /* Quit only when the whole GPU is idle: a block that quit while others
     * still work would leave its share of the next invocations undone until
     * they all quit and the host relaunched the kernel (milliseconds). */
    if (got || S->progressed) S->t_progress = now;
    S->progressed = 0;
    int idle = !got && now - S->t_progress > (uint64_t)G->k.quit_ns;
    /* The GPU's step count, read only when the block would quit (a load
     * from L2 in every pass lengthened idle block 0's look at the SQ):
     * another block's steps since the last look keep the launch quit_ns
     * more, so it ends after quit_ns to 2 quit_ns of a whole idle GPU. */
    if (idle) {
        uint64_t p = pccl_ld_gpu(G->progress);
        if (p != S->seen_progress) S->t_progress = now, idle = 0;
        S->seen_progress = p;
    }
    /* Nor while a block has not yet looked at its work (cut.h,
     * pccl_all_looked): block 0 decides for every block. */
    if (idle && b == 0 && !pccl_all_looked(S, G)) idle = 0;
    if (idle && !pccl_may_quit(S, G, 0)) {
        /* block 0 held: idle again quit_ns later, and a look at the hold
         * then; the others look at block 0's decision (device memory) in
         * every idle pass, to end with it */
        if (b == 0) S->t_progress = now;
        idle = 0;
    }
    S->cmd = idle ? PCCL_CMD_QUIT : PCCL_CMD_RUN;
}

/* Picks the collective at the current position and loads its context into
 * the active slot.  Returns 0 at the end of the pass. */
PCCL_FN int pccl_pick(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (S->cut || S->pos >= S->tq_len) { /* the pass is over: post what it completed */
        pccl_flush_done(S, G);
        return 0;
    }
    if (G->k.chaos) { /* chaos: any queued collective may run next */
        int j = S->pos + (int)(pccl_rand(&S->rng) % (uint64_t)(S->tq_len - S->pos));
        int32_t t = S->tq[S->pos]; S->tq[S->pos] = S->tq[j]; S->tq[j] = t;
    }
    S->cur = PCCL_TASK_ID(S->tq[S->pos]);
    S->lane = PCCL_TASK_LANE(S->tq[S->pos]);
    if (!S->st.t_pick) S->st.t_pick = PCCL_NOW_NS(); /* one clock read per launch */
    if (S->ac_id != S->cur) {
        pccl_coll_load(&S->ac, &G->colls[S->cur]);
        S->ac_id = S->cur;
    }
    if (S->act_task != S->tq[S->pos]) S->act = *pccl_act_ctx(S, G);
    S->act_task = -1; /* act changes from here on: saved at the pass's end */
    S->ahead = 0;
    S->act_dirty = 0;
    S->th = S->th_init = G->k.chaos ? 1 + (int64_t)(pccl_rand(&S->rng) % 4) : pccl_threshold(&G->k, S->pos);
    S->waited = S->carry; /* the first pick of a launch resumes the cut one's wait (pccl_wait) */
    S->carry = 0;
    return 1;
}

/* Lane `lane`'s connectors of collective c in an arena (ours, or a peer's). */
PCCL_FN char *pccl_conn(char *arena, const pccl_coll *c, const pccl_gpu *G, uint32_t lane)
{
    return arena + c->conn_off + (size_t)lane * c->stride;
}

/* The mesh's connector of offset k (1 .. n - 1) of a lane, in an arena: in
 * ours, where rank r - k sends to us (its tail) and where rank r + k frees
 * what we sent it (its head); in rank r + k's (peer[k - 1]), where we send
 * to it; in rank r - k's (peer[n - k - 1]), where we free what it sent.
 * Offset 1's is where the ring's would be. */
PCCL_FN char *pccl_mesh_conn(char *arena, const pccl_coll *c, const pccl_gpu *G, uint32_t lane, int k)
{
    return pccl_conn(arena, c, G, lane) + (size_t)(k - 1) * pccl_conn_stride(c, G->k.slots);
}

/* One look at the step's connectors: is its input there (RECV) and its
 * send slot free (SEND)?  The ring's one connector, or a mesh step's n - 1,
 * one per peer, in a row (pccl_mesh_conn): every peer's input there, every
 * send slot free.  The step counters are every connector's: each step of a
 * mesh program uses each of its connectors once.  One loop for both: a
 * call to the mesh's own look, here in the daemon's wait loop, took its
 * spilled loads from 132 to 288 bytes (-Xptxas -v). */
PCCL_FN int pccl_ready(const pccl_blk *S, const pccl_gpu *G, int b)
{
    const pccl_coll *c = &S->ac;
    int f = PCCL_STEP_FLAGS(c->steps[S->act.step]), nk = PCCL_MESH_ON && (f & PCCL_MESH) ? G->nranks - 1 : 1;
    char *mine = pccl_conn(G->arena, c, G, S->lane);
    /* A stream-ordered invocation (lib/stream.c) may read its input only once
     * its stream wrote the gate: until then it is not ready, and waits (and is
     * preempted) like any collective whose peer is not there yet. */
    if (S->act.gated &&
        pccl_ld_acq(&G->gate[(size_t)S->cur * PCCL_GATE_SLOTS + S->act.inv % PCCL_GATE_SLOTS]) < S->act.inv)
        return 0;
    for (int k = 0; k < nk; k++, mine += pccl_conn_stride(c, G->k.slots)) {
        if (f & PCCL_RECV) {
            if (!(f & PCCL_LL) ? pccl_ld_acq((const uint64_t *)(mine + PCCL_CONN_TAIL)) <= S->act.recv_step
                               : !pccl_ll_arrived(mine + pccl_conn_ring(G->k.slots) +
                                                      pccl_slot_of(S->act.recv_step, G->k.slots) * c->slot,
                                                  S->act.recv_step))
                return 0;
        }
        if ((f & PCCL_SEND) &&
            S->act.send_step - pccl_ld_acq((const uint64_t *)(mine + PCCL_CONN_HEAD)) >= (uint64_t)G->k.slots)
            return 0;
    }
    return 1;
}

/* A mesh step (PCCL_MESH): its slots, one per peer.  Rank r + k's slot is
 * in our connector of offset k to it (in its arena, peer[k - 1]); what
 * rank q = r - k sent us, in ours of offset k from it.  With chunk PCCL_CHUNK_PEER the step moves chunk q
 * of the loop to (SEND) or from (RECV) peer q; else the one-slot fields
 * pccl_fill set hold the step's own chunk, which goes to every peer (SEND)
 * or is reduced with every peer's (RECV with IN). */
PCCL_FN void pccl_fill_mesh(const pccl_blk *S, const pccl_gpu *G, pccl_job *j, int f, int chunk)
{
    const pccl_coll *c = &S->ac;
    int n = c->nranks, r = c->rank, slots = G->k.slots;
    uint64_t loop = S->act.group * c->ilv + S->act.loop, in_off = 0, out_off = 0, cnt = 0;
    size_t ring = pccl_conn_ring(slots), rs = pccl_slot_of(S->act.recv_step, slots) * c->slot,
           ss = pccl_slot_of(S->act.send_step, slots) * c->slot;
    j->m_kind = (f & PCCL_RECV) ? ((f & PCCL_IN) ? PCCL_JOB_REDUCE : PCCL_JOB_RECV) : PCCL_JOB_SEND;
    j->m_es = c->esize;
    j->m_me = r;
    j->m_n = j->m_kind == PCCL_JOB_REDUCE ? n : n - 1;
    j->m_nd = (f & PCCL_SEND) ? n - 1 : 0;
    for (int k = 1; k < n; k++) {
        int from = (r - k + n) % n, to = (r + k) % n, q = j->m_kind == PCCL_JOB_RECV ? from : to;
        const char *in = pccl_mesh_conn(G->arena, c, G, S->lane, k) + ring + rs;
        char *out = (f & PCCL_SEND) ? pccl_mesh_conn(G->peer[k - 1], c, G, S->lane, k) + ring + ss : NULL;
        if (chunk == PCCL_CHUNK_PEER) pccl_chunk(c, loop, q, &in_off, &out_off, &cnt);
        if (j->m_kind == PCCL_JOB_REDUCE) {
            j->m_src[from] = in;
            j->m_flag[from] = j->flag_in;
            j->m_dst[k - 1] = out;
        } else if (j->m_kind == PCCL_JOB_RECV) { /* peer q's chunk into ours of the output */
            j->m_src[k - 1] = in;
            j->m_dst[k - 1] = (char *)S->act.recvbuf + out_off * c->esize;
            j->m_cnt[k - 1] = cnt;
        } else { /* the input's chunk for peer q (or the step's own, to all) */
            j->m_src[k - 1] = chunk == PCCL_CHUNK_PEER ? (const char *)S->act.sendbuf + in_off * c->esize
                                                       : (const char *)j->b;
            j->m_dst[k - 1] = out;
            j->m_cnt[k - 1] = chunk == PCCL_CHUNK_PEER ? cnt : j->n;
        }
    }
}

/* The job of the active step: operands, results, count. */
PCCL_FN void pccl_fill(const pccl_blk *S, const pccl_gpu *G, int b, pccl_job *j)
{
    const pccl_coll *c = &S->ac;
    uint16_t s = c->steps[S->act.step];
    int f = PCCL_STEP_FLAGS(s), slots = G->k.slots;
    char *mine = pccl_conn(G->arena, c, G, S->lane);
    uint64_t in_off, out_off, cnt;
    pccl_chunk(c, S->act.group * c->ilv + S->act.loop, PCCL_STEP_CHUNK(s), &in_off, &out_off, &cnt);
    size_t slot = c->slot, ring = pccl_conn_ring(slots);
    j->a = (f & PCCL_RECV) ? mine + ring + pccl_slot_of(S->act.recv_step, slots) * slot : NULL;
    j->b = (f & PCCL_IN) ? (const char *)S->act.sendbuf + in_off * c->esize : NULL;
    j->d0 = (f & PCCL_OUT) ? (char *)S->act.recvbuf + out_off * c->esize : NULL;
    j->d1 = (f & PCCL_SEND)
                ? pccl_conn(G->next_arena, c, G, S->lane) + ring + pccl_slot_of(S->act.send_step, slots) * slot
                : NULL;
    j->n = cnt;
    j->dtype = c->dtype;
    j->op = c->op;
    j->div = ((f & PCCL_POSTDIV) && c->op == 4) ? c->nranks : 0;
    /* A copy onto itself (one rank's collective in place) moves nothing: on
     * one H100 one rank's 128 MiB all-reduce in place took 131 us back to
     * back, as out of place (nccl-tests: 0.4 us, NCCL moves nothing).  Not
     * with a division (avg): x / 1 may differ from x in its bits (a
     * signalling NaN comes out quiet). */
    if (!j->a && !j->d1 && j->b == j->d0 && !j->div) j->n = 0;
    j->ll = (f & PCCL_LL) != 0;
    j->swap = (f & PCCL_SWAP) != 0;
    j->flag_in = pccl_ll_flag(S->act.recv_step);
    j->flag_out = pccl_ll_flag(S->act.send_step);
    j->abort = &G->hdr->ctl;
    j->g_n = 0;
    if (f & PCCL_GATHER) {
        j->g_n = c->nranks;
        j->g_r = c->rank;
        j->g_slots = slots;
        j->g_slot = slot;
        j->g_cur = S->act.recv_step;
        j->g_ring = mine + ring;
    }
    if (PCCL_MESH_ON) {
        j->m_kind = PCCL_JOB_ONE;
        if (f & PCCL_MESH) pccl_fill_mesh(S, G, j, f, PCCL_STEP_CHUNK(s));
    }
}

/* ---- a ring neighbour's wait ---------------------------------------------
 * Ranks whose queues hold the same collectives in different orders wait for
 * each other: rank A's head X for rank B, B's head Y for A, each until its
 * threshold runs out, which a step that progressed has raised by the
 * stickiness.  Two ranks sharing one H100 with 4 invocations in flight lost
 * 0.6-4.4 ms so, several times a run (results/share-stalls-h100).  So each
 * block posts the collective it waits for in its arena (PCCL_ARENA_HDR), and
 * a wait looks, with the cut, at what its ring neighbours wait for.  One
 * that waits for a collective X lower than ours, where X is in our
 * task queue or may be in our SQ (X's invocation not fetched yet), waits
 * for us, or for a rank that waits for us, and will not move before we do:
 * we yield at once.  "Lower" is the older invocation first, then the lower
 * id: an invocation's number (the how-many-th of its collective) is the same
 * on every rank, so every rank orders two in flight alike.  By id alone, a
 * stream of same-shaped collectives issued in turn (A B C D A B ..., as back
 * to back with 4 in flight) put the next A below the running D: a neighbour
 * a step ahead, waiting for us in the next A, made us yield D, which our
 * other neighbour then waited for, and so on around the ring.  And the
 * posts are read only from PCCL_CROSS_POLLS polls of a wait on (1024 on
 * GPUs): a ring's blocks a step apart, as after a relaunch, are no
 * cross-wait, and read at once, their posts still made large collectives
 * yield to one another thousands of times (lib/README.md, "A neighbour's
 * wait"; results/x4-h200, calls 10-14).
 * Both neighbours, whichever one our step waits on: on 3
 * ranks, rank 2 waited for rank 1 in X, rank 1 for rank 0 in Y, rank 0 for
 * rank 2 in Y, and only rank 1 could move (to X).
 * The lower never yields for this, so the two do not swap places and
 * meet again the wrong way round.  Where X is neither, yielding would gain
 * nothing: we completed our part of it (a ring of 3 or more, the neighbour
 * waiting for its own neighbour: pccl_had), or our host has not issued X yet.  The
 * latter may wait for our head: a host that issues X only once its Y
 * completed, beside a rank whose head X waits for it, waited out X's whole
 * threshold.  So we post X beside our wait ("cannot run X yet"), and the
 * neighbour whose wait is X yields it for ours, if it has ours queued.  Only a
 * hint: a yield is always safe, and a missed one leaves the threshold to
 * end the wait, as before. */
PCCL_FN void pccl_say_waits(const pccl_gpu *G, int b, uint64_t v)
{
    if (G->nranks > 1) pccl_st_rlx(pccl_waits_word(G->arena, b), v);
}

/* Whether invocation `inv` of collective id1 - 1 comes before ours: older
 * (numbers modulo 2^16, core.h), or as old with a lower id. */
PCCL_FN int pccl_wait_before(uint64_t id1, uint16_t inv, const pccl_blk *S)
{
    int16_t d = pccl_inv_diff(inv, (uint16_t)S->act.inv);
    return d < 0 || (d == 0 && id1 < (uint64_t)S->cur + 1);
}

/* Might the next pass find X?  Queued (elsewhere than at pos), or an SQ
 * entry not fetched yet (a look at the next record: block 0's across PCIe,
 * the others' in device memory), with room in the queue to fetch it. */
PCCL_COLD_FN int pccl_may_find(const pccl_blk *S, const pccl_gpu *G, int b, int32_t id)
{
    for (int i = 0; i < S->tq_len; i++)
        if (i != S->pos && PCCL_TASK_ID(S->tq[i]) == id) return 1;
    if (S->tq_len >= G->k.depth) return 0;
    uint64_t depth = (uint64_t)G->k.depth, rec[1][3];
    if (b == 0) return pccl_sq_read(G->sq, depth, S->sq_head, 1, rec);
    return pccl_dsq_is(pccl_ld_gpu(&G->dsq[(size_t)b * depth + S->sq_head % depth]), S->sq_head);
}

/* Whether this GPU has completed invocation `inv` (modulo 2^16) of
 * collective x (its completion flag, G->fin, holds the latest completed).
 * A neighbour behind us waiting for it is then no reason to say we cannot
 * run it yet: said so, a neighbour ahead, waiting in our next invocation,
 * read that we could not run its collective and yielded it to us, who
 * waited in ours (large collectives back to back on 4 H200s: results/
 * x4-h200, calls 12-13).  A GPU whose other blocks still run x says so
 * still; a hint either way. */
PCCL_COLD_FN int pccl_had(const pccl_gpu *G, int32_t x, uint16_t inv)
{
    return pccl_inv_diff(inv, (uint16_t)pccl_ld_acq(&G->fin[x])) <= 0; /* the host's flag bits lie above */
}

PCCL_COLD_FN int pccl_peer_waits(const pccl_blk *S, const pccl_gpu *G, int b)
{
    if (G->nranks < 2) return 0;
    /* a mesh collective's every peer, a ring's two neighbours (one on 2 ranks) */
    int mesh = PCCL_MESH_ON && pccl_mesh(&S->ac), np = mesh ? G->nranks - 1 : G->prev_arena == G->next_arena ? 1 : 2;
    uint64_t mine = (uint64_t)S->cur + 1, missing = 0; /* each 1 + an id, as posted */
    for (int k = 0; k < np; k++) {
        char *peer = mesh ? G->peer[k] : k ? G->next_arena : G->prev_arena;
        if (!peer) continue;
        uint64_t v = pccl_ld_rlx(pccl_waits_word(peer, b));
        uint64_t theirs = PCCL_WAIT_ID1(v), lacks = PCCL_WAIT_LACKS1(v);
        if (!theirs || theirs == mine) continue;
        if (pccl_wait_before(theirs, PCCL_WAIT_INV(v), S)) { /* it waits for a lower one: run that, or say we cannot yet */
            if (pccl_may_find(S, G, b, (int32_t)(theirs - 1))) return 1;
            if (!pccl_had(G, (int32_t)(theirs - 1), PCCL_WAIT_INV(v))) missing = theirs;
        } else if (lacks == mine && pccl_may_find(S, G, b, (int32_t)(theirs - 1))) {
            return 1; /* it cannot run ours, and waits for one we can run */
        }
    }
    if (missing) pccl_say_waits(G, b, PCCL_WAIT_WORD(mine, missing, S->act.inv));
    return 0;
}

/* Block 0, every 64 polls of a wait for a peer: the host's SQ is read
 * and what it holds is handed on (the leader writing the entries alone),
 * or queued behind the waiting collective where it is block 0's own.
 * Block 0 alone reads the SQ, and read it only between passes: while its
 * head waited for a peer, the invocations behind it in the SQ reached no
 * block, and where a peer's blocks waited for one of those (the ranks'
 * SQs in different orders: back to back, a completion's callback issues
 * the next invocation before or after the rank's own burst), the two waited
 * for each other until the head's sticky threshold ran out (2 H200s,
 * 50-iteration rows 1-40x slower, about 1 and 20 ms lost:
 * results/slice-x2/, call 21).  In FIFO order only (a priority may
 * place a fetched one before the waiting one); a full queue fetches
 * nothing (pccl_sq_read). */
PCCL_COLD_FN void pccl_fetch_waiting(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (b != 0 || G->k.order != 0) return;
    int n = 0, got;
    uint64_t now = PCCL_NOW_NS();
    do n += got = pccl_fetch_host(S, G, now); /* as pccl_fetch: a short batch was all there was */
    while (got == PCCL_SQ_BATCH);
    if (!n) return;
    pccl_hand_on_alone(S, G); /* what pccl_hand_on left for the warp */
    S->st.wait_fetches += (uint64_t)n;
}

/* Polls the step's connectors up to the spin threshold.  On success fills
 * the job and returns 1; on timeout returns 0 (the collective is stuck).
 * The first look that fails posts the wait, and every 64 polls the wait
 * looks at the slice and, from PCCL_CROSS_POLLS polls on, at the
 * neighbours' posts (pccl_peer_waits).
 * A sticky threshold is thousands of polls, and the slice may end inside:
 * the polls so far (S->waited) go with the cut launch's saved state, and
 * the next launch's wait goes on counting from there (pccl_end, pccl_pick).
 * Counting from 0 again, a head whose threshold took longer than a slice
 * never yielded: on the host backend (2 ms slices, 2,000 polls, 18 threads
 * on 2 cores), 3 ranks running 2-block collectives in opposite orders
 * waited for one another for ever, cut and relaunched 240 times in 3 s. */
PCCL_FN int pccl_wait(pccl_blk *S, const pccl_gpu *G, int b, pccl_job *j)
{
    int first = 1, ready = 0, cut = 0;
    for (int64_t i = S->waited;; i++, first = 0) {
        if (pccl_ready(S, G, b)) { ready = 1; break; }
        if (first) {
            pccl_flush_done(S, G); /* the completions before it need not wait too */
            pccl_say_waits(G, b, PCCL_WAIT_WORD(S->cur + 1, 0, S->act.inv));
            S->posted = 1;
        }
        if (i >= S->th) { S->waited = 0; pccl_looked(S, G, b); break; }
        if ((i & 63) == 63) {
            pccl_looked(S, G, b); /* 64 looks found it not ready (cut.h) */
            if (pccl_cut_now(S, G)) { S->waited = i; cut = 1; break; }
            if (G->k.cross_polls && i + 1 >= G->k.cross_polls && pccl_peer_waits(S, G, b)) {
                S->waited = 0;
                S->st.crossed++;
                break;
            }
            pccl_fetch_waiting(S, G, b);
        }
        PCCL_POLL_PAUSE(i);
    }
    /* A wait the slice cut goes on in the next launch, and stays posted
     * meanwhile: ranks in separate processes sharing one GPU take turns on
     * it, so a neighbour mostly runs while we do not, and with our word
     * cleared at each cut it never saw our wait (two processes in random
     * orders with thresholds of 2^40 polls stood still for seconds). */
    if (S->posted && !cut) {
        pccl_say_waits(G, b, 0);
        S->posted = 0;
    }
    if (!ready) return 0;
    S->waited = 0;
    pccl_fill(S, G, b, j);
    return 1;
}

/* Dynamic groups (c->dyn): a block that finishes a group claims the next
 * unclaimed one, so blocks on fast multiprocessors take more groups than
 * blocks on slow ones and all finish together (at 1 GiB on 4 H200s the
 * blocks' times ranged from 3229 to 4644 us with the static deal, the same
 * multiprocessors slow in every run: results/README.md).  Block b's ring runs
 * on block b of every rank, so every rank must run the same groups: one rank
 * (the claimer: rank 0 of a ring, the head of a chain) claims from its own
 * counter, and the claim travels around the ring with the data, in the
 * header word of each slot.  It claims when it starts a group, and every
 * other rank receives a slot of that group from a rank that knew it before
 * the group ends (rank r at step r; a chain's ranks in their only step). */
PCCL_FN uint64_t pccl_claim(const pccl_blk *S, const pccl_gpu *G)
{
    const pccl_coll *c = &S->ac;
    /* Each invocation takes exactly ngroups claims: every block claims once
     * per group it runs (ngroups - used succeed) and once more in vain. */
    uint64_t k = pccl_add_gpu(&G->claims[S->cur], 1) - (S->act.inv - 1) * c->ngroups;
    uint64_t g = c->used + k;
    return g < c->ngroups ? g + 1 : PCCL_GROUP_NONE;
}

/* The block moved (or, on the GPU, is still moving) the active step's
 * data: count the step, advance the context, raise stickiness.  Its counter
 * stores wait in pend_* for pccl_post, which may run only once the data is
 * complete.  Returns 1 while the collective has more primitives to run. */
PCCL_FN int pccl_advance(pccl_blk *S, const pccl_gpu *G, int b)
{
    const pccl_coll *c = &S->ac;
    int f = PCCL_STEP_FLAGS(c->steps[S->act.step]);
    if (c->dyn && !S->act.next) {
        if (c->claimer) S->act.next = pccl_claim(S, G);
        else if (f & PCCL_RECV) /* what the sender knew, read before the head frees the slot */
            S->act.next = pccl_ld_acq((const uint64_t *)(pccl_conn(G->arena, c, G, S->lane) + PCCL_CONN_HDR +
                                                         pccl_slot_of(S->act.recv_step, G->k.slots) * 8));
    }
    if (PCCL_MESH_ON) S->pend_mesh = (f & PCCL_MESH) != 0;
    if (f & PCCL_SEND) { /* LL: the data carried its flags, no tail to post */
        ++S->act.send_step;
        if (!(f & PCCL_LL)) {
            S->pend_tail = S->act.send_step;
            S->pend_hdr = S->act.next;
        }
    }
    if (f & PCCL_RECV) { /* a kept slot is freed with the gather's, by the head it posts */
        ++S->act.recv_step;
        if (!(f & PCCL_KEEP)) S->pend_head = S->act.recv_step;
    }
    S->act.gated = 0; /* the gate was open: the invocation has begun */
    S->st.primitives++;
    if (!S->st.t_first) S->st.t_first = PCCL_NOW_NS(); /* one clock read per launch */
    S->progressed = 1;
    pccl_red_gpu(G->progress, 1); /* the quit rule's GPU-wide count of steps */
    S->act_dirty = 1;
    int64_t up = S->th_init * G->k.sticky, cap = G->k.spin_head * G->k.sticky;
    if (up > cap) up = cap;
    if (S->th < up) S->th = up;
    /* A group's loops run a step of each in turn: the next step of loop l is
     * due only after the same step of the group's other loops, by when the
     * previous rank has usually posted its input, and the block can move it
     * while its leader posts the step before. */
    if (++S->act.loop < pccl_group_loops(c, S->act.group)) return 1;
    S->act.loop = 0;
    if (++S->act.step < c->nsteps) return 1;
    S->act.step = 0;
    if (!c->dyn) S->act.group += c->used;
    else S->act.group = S->act.next == PCCL_GROUP_NONE ? c->ngroups : S->act.next - 1;
    S->act.next = 0;
    return S->act.group < c->ngroups;
}

/* pccl_post for a mesh step: to every peer's connector (no claims on the
 * mesh: no header). */
PCCL_FN void pccl_post_mesh(pccl_blk *S, const pccl_gpu *G)
{
    const pccl_coll *c = &S->ac;
    int n = G->nranks;
    if (S->pend_tail) pccl_fence_rel();
    for (int k = 1; k < n; k++) {
        if (S->pend_tail)
            pccl_st_post((uint64_t *)(pccl_mesh_conn(G->peer[k - 1], c, G, S->lane, k) + PCCL_CONN_TAIL), S->pend_tail);
        if (S->pend_head)
            pccl_st_post((uint64_t *)(pccl_mesh_conn(G->peer[n - k - 1], c, G, S->lane, k) + PCCL_CONN_HEAD), S->pend_head);
    }
    S->pend_tail = S->pend_head = 0;
}

/* Publishes the pending step: the slot's data before the tail that
 * announces it (one fence: the movers wrote the data), then the head that
 * frees the received slot.  A head alone (an LL step, whose data carries
 * its flags; a step that only receives) needs no fence: the movers' reads
 * of the slot were performed at the barrier before this post, their values
 * already used, so the sender's next writes cannot reach them (NCCL posts
 * its heads so too); on the host the store releases. */
PCCL_FN void pccl_post(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (!S->pend_tail && !S->pend_head) return;
    const pccl_coll *c = &S->ac;
    if (PCCL_MESH_ON && S->pend_mesh) {
        pccl_post_mesh(S, G);
        return;
    }
    char *next = pccl_conn(G->next_arena, c, G, S->lane);
    if (S->pend_tail && c->dyn)
        pccl_st_post((uint64_t *)(next + PCCL_CONN_HDR + pccl_slot_of(S->pend_tail - 1, G->k.slots) * 8), S->pend_hdr);
    if (S->pend_tail) pccl_fence_rel();
    if (S->pend_tail) pccl_st_post((uint64_t *)(next + PCCL_CONN_TAIL), S->pend_tail);
    if (S->pend_head) pccl_st_post((uint64_t *)(pccl_conn(G->prev_arena, c, G, S->lane) + PCCL_CONN_HEAD), S->pend_head);
    S->pend_tail = S->pend_head = 0;
}

/* The collective finished on this block: save, dequeue, and if this block is
 * the last of the GPU to finish it, gather its completion for
 * pccl_flush_done. */
PCCL_FN void pccl_complete(pccl_blk *S, const pccl_gpu *G, int b, uint64_t now)
{
    *pccl_act_ctx(S, G) = S->act;
    S->st.completions++;
    if (G->k.profile) S->st.ns_life += now - S->act.t_fetch;
    for (int i = S->pos; i + 1 < S->tq_len; i++) S->tq[i] = S->tq[i + 1];
    S->tq_len--;
    /* A collective on one block (every small one) needs no count: an
     * atomic round trip less on its critical path. */
    uint32_t used = S->ac.used;
    if (used > 1) {
        if (pccl_add_gpu(&G->done[S->cur], 1) + 1 < (uint64_t)used) return;
        G->done[S->cur] = 0; /* no block touches it again before the next invocation */
    }
    if (G->k.trace) { /* PCCL_TRACE_LAT (lib/trace.c): read by the poller after the CQ entry */
        pccl_st_rlx(&G->tstamp[2 * (size_t)S->cur], S->act.t_fetch);
        pccl_st_rlx(&G->tstamp[2 * (size_t)S->cur + 1], PCCL_NOW_NS());
    }
    if (S->ndone == PCCL_DONE_MAX) pccl_flush_done(S, G);
    S->done_id[S->ndone] = S->cur;
    S->done_inv[S->ndone++] = S->act.inv;
    /* A collective on several blocks is posted at once: block 0 may have
     * the next one queued behind it (pccl_look_ahead), and the pass's end
     * would hold this completion, and the host's next invocation, back by
     * a whole invocation; its fence is small beside the collective. */
    if (used > 1) pccl_flush_done(S, G);
}

/* The collective is stuck: save what it did (only if it progressed: lazy
 * saving) and move on. */
PCCL_FN void pccl_preempt(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (S->act_dirty) *pccl_act_ctx(S, G) = S->act;
    S->st.preemptions++;
    S->pos++;
}

/* The slice is over: the active collective is saved as in a preemption, but
 * keeps its place, where the next launch resumes the pass. */
PCCL_FN void pccl_stop_cut(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (S->act_dirty) *pccl_act_ctx(S, G) = S->act;
}

/* The block's totals to pinned memory, where the host reads them at any
 * time: one fence, then plain stores (a counter read a little early is
 * harmless; a release per counter would cost a fence each). */
PCCL_FN void pccl_publish(const pccl_blk *S, const pccl_gpu *G, int b)
{
    const uint64_t *f = (const uint64_t *)&S->st;
    uint64_t *o = (uint64_t *)&G->stats[b];
    pccl_fence();
    for (size_t i = 0; i < sizeof S->st / sizeof *f; i++) pccl_st_rlx(&o[i], f[i]);
}

PCCL_FN void pccl_end(pccl_blk *S, const pccl_gpu *G, int b)
{
    pccl_flush_done(S, G); /* none left by a pass; kept in case a quit ever comes mid-pass */
    G->saved[b].sq_head = S->sq_head;
    if (b == 0)
        for (int o = 1; o < G->k.blocks; o++) {
            G->dsq_tail[2 * o] = S->dtail[o];
            G->dsq_tail[2 * o + 1] = S->dslot[o];
        }
    G->saved[b].tq_len = (uint32_t)S->tq_len;
    G->saved[b].pos = S->cut ? (uint32_t)S->pos : 0;
    G->saved[b].waited = S->cut ? S->waited : 0;
    for (int i = 0; i < S->tq_len; i++) G->saved_tq[(size_t)b * G->k.depth + i] = S->tq[i];
    S->st.quits++;
    if (S->cut) {
        S->st.slices++;
        /* Block 0 tells the poller to relaunch at once, unless nothing
         * progressed all slice long (a stuck collective: the usual growing
         * delay then applies). */
        if (b == 0 && pccl_ld_gpu(G->progress) != S->progress0) pccl_st_rel32(&G->hdr->sliced, (uint32_t)S->epoch);
    }
    S->st.t_end = PCCL_NOW_NS();
    G->saved[b].st = S->st;
    pccl_publish(S, G, b);
    /* The last block out tells the host, after everything the launch wrote
     * (each block's publish fenced it; the fence orders what this block
     * saw of theirs before the pinned store). */
    if (pccl_add_gpu(G->exits, 1) % (uint64_t)G->k.blocks == (uint64_t)G->k.blocks - 1) {
        pccl_fence();
        pccl_st_rel32(&G->hdr->ended, (uint32_t)S->epoch);
    }
}

/* ---- the daemon's loop (all threads of the block run it) ----------------- */

/* The leader, after picking a collective or settling a step: waits for the
 * next step's connectors.  EXEC: the job is ready; STOP: it was preempted. */
PCCL_FN int pccl_try(pccl_blk *S, const pccl_gpu *G, int b, pccl_job *j)
{
    PCCL_TRY_SLOW();
    if (pccl_cut_now(S, G)) {
        pccl_stop_cut(S, G, b);
        return PCCL_DEC_STOP;
    }
    uint64_t t = PCCL_PROF(G) ? PCCL_NOW_NS() : 0;
    int ready = pccl_wait(S, G, b, j);
    if (PCCL_PROF(G)) S->st.ns_wait += PCCL_NOW_NS() - t;
    if (ready) return PCCL_DEC_EXEC;
    if (S->cut) pccl_stop_cut(S, G, b);
    else pccl_preempt(S, G, b);
    return PCCL_DEC_STOP;
}

/* Block 0, once per pick of a collective that runs on several blocks, while
 * the movers move its first step: a look at the host's SQ, so that the next
 * invocation is handed on while this one runs.  Fetching only between
 * passes, block 0 handed invocation n + 1 on once its own share of n was
 * done: where it finished last, every block idled until it had fetched
 * across PCIe and handed on (7-10 us), the blocks fell into step, and a
 * 16 MiB all-reduce back to back took 66-72 us against 53-58 with the
 * blocks staggered (2 H200s; every block's events traced, results/slice-x2/,
 * call 15).  In FIFO order only, and only with nothing queued behind the
 * active one (with priorities and in chaos mode a pass fetches all there
 * is first, pccl_fetch). */
PCCL_FN void pccl_look_ahead(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (b != 0 || S->ahead || S->ac.used < 2 || S->pos + 1 < S->tq_len || G->k.order != 0 || G->k.chaos)
        return;
    S->ahead = 1;
    S->st.ahead += (uint64_t)pccl_fetch_host(S, G, PCCL_NOW_NS()); /* a full queue: no look (pccl_sq_read) */
}

/* The leader, while the movers move the active step's data (on the host:
 * after it moved it itself): posts the step before, advances, and looks once
 * at the next step's connectors.  EXEC: the next job is ready in *next, and
 * this step's post waits for the next time through here, overlapping the
 * next step's data; LATE: the leader settles once the data is complete. */
PCCL_FN int pccl_overlap(pccl_blk *S, const pccl_gpu *G, int b, pccl_job *next)
{
    pccl_post(S, G, b);
    S->more = pccl_advance(S, G, b);
    pccl_look_ahead(S, G, b);
    /* A look at the slice after every step: the kernel ends when its last
     * block has stopped, and the others idle until then (checked every 16
     * steps, 5 us each at 512 MiB on one H100, a cut cost about 90 us). */
    if (!S->more || pccl_cut_now(S, G) || !pccl_ready(S, G, b))
        return PCCL_DEC_LATE;
    pccl_fill(S, G, b, next);
    return PCCL_DEC_EXEC;
}

/* The leader, once the step's data is complete and its next step was not
 * ready at a glance: posts the step, then completes the collective or waits
 * for the next step (up to the spin threshold). */
PCCL_FN int pccl_settle(pccl_blk *S, const pccl_gpu *G, int b, pccl_job *next)
{
    uint64_t t = PCCL_PROF(G) ? PCCL_NOW_NS() : 0, u;
    pccl_post(S, G, b);
    u = PCCL_PROF(G) ? PCCL_NOW_NS() : 0;
    S->st.ns_commit += u - t;
    if (S->more) return pccl_try(S, G, b, next);
    uint64_t cq0 = S->st.ns_cq;
    pccl_complete(S, G, b, u);
    if (PCCL_PROF(G)) {
        S->st.ns_cq = cq0 + (PCCL_NOW_NS() - u); /* a flush inside (a full list) counted once */
        pccl_publish(S, G, b);
    }
    return PCCL_DEC_STOP;
}

/* The scheduling threads write the hand-ons block 0's leader listed
 * (pccl_hand_on), after a barrier; then the list is empty, so that the next
 * barrier does not write them again.  The tails are written before
 * pccl_end reads them.  Only the scheduling threads read the count: the
 * leader empties it without a barrier, while the movers go on.  The warp
 * meets after every read of the count, an empty list too: the leader goes
 * on to pick, and a fetch there lists more (pccl_hand_on); a lane that read
 * the count late would see that entry and write it beside the leader, who
 * writes it alone (compute-sanitizer's racecheck reported the read of an
 * empty list against that write, results/racecheck-h200/). */
#define PCCL_HAND_ON_WRITE(S, G)                                                   \
    do {                                                                           \
        if (PCCL_CTRL) {                                                           \
            int n_ = (S)->nhand;                                                   \
            if (n_) pccl_hand_on_lanes(S, G, PCCL_CTRL_LANE, PCCL_CTRL_LANES);     \
            PCCL_CTRL_SYNC();                                                      \
            if (PCCL_LEADER && n_) (S)->nhand = 0;                                 \
        }                                                                          \
    } while (0)

/* A step: the movers move job[jx_] while the leader posts the step before
 * and prepares the next one in job[jx_ ^ 1]; one barrier when the next step
 * was ready at a glance (the usual case with interleaved loops), a second
 * when the leader must first post this step and wait.  The includer defines
 * PCCL_MOVER: the threads that move data (on the GPU all but the first warp,
 * whose thread 0 leads; on the host the one thread does both, in turn).
 * ph_ is each thread's parity in dec[]. */
#define PCCL_DAEMON_BODY(S, G, b)                                                  \
    do {                                                                           \
        int ph_ = 0, jx_ = 0, d_;                                                  \
        if (PCCL_LEADER) pccl_begin(S, G, b, PCCL_NOW_NS());                       \
        PCCL_LAUNCH_SLOW();                                                        \
        PCCL_BARRIER();                                                            \
        for (;;) {                                                                 \
            /* An idle block's leader polls alone: a pass with nothing      \
             * queued runs nothing, so the others need not meet it at a      \
             * barrier each time (on the GPU a block-wide barrier per poll). \
             * A hand-on to write (block 0) ends the poll too.               */ \
            while (PCCL_LEADER) {                                                  \
                uint64_t t_ = PCCL_NOW_NS();                                       \
                pccl_plan(S, G, b, t_);                                            \
                if (PCCL_PROF(G) && (S)->got) (S)->st.ns_sq += PCCL_NOW_NS() - t_; \
                if ((S)->tq_len != 0 || (S)->cmd != PCCL_CMD_RUN || (S)->nhand) {  \
                    (S)->idle = 0;                                                 \
                    break;                                                         \
                }                                                                  \
                PCCL_IDLE_PAUSE((S)->idle++);                                      \
            }                                                                      \
            PCCL_BARRIER();                                                        \
            PCCL_HAND_ON_WRITE(S, G); /* the leader's next plan follows a barrier */   \
            if ((S)->cmd == PCCL_CMD_QUIT) break;                                  \
            for (;;) {                                                             \
                if (PCCL_LEADER)                                                   \
                    (S)->dec[ph_] = pccl_pick(S, G, b) ? pccl_try(S, G, b, &(S)->job[jx_]) : PCCL_DEC_END; \
                PCCL_BARRIER();                                                    \
                d_ = (S)->dec[ph_];                                                \
                ph_ ^= 1;                                                          \
                if (d_ == PCCL_DEC_END) break;                                     \
                while (d_ == PCCL_DEC_EXEC) {                                      \
                    if (PCCL_LEADER && PCCL_PROF(G)) (S)->t_exec = PCCL_NOW_NS();  \
                    if (PCCL_MOVER) PCCL_EXEC(&(S)->job[jx_]);                     \
                    if (PCCL_LEADER) (S)->dec[ph_] = pccl_overlap(S, G, b, &(S)->job[jx_ ^ 1]); \
                    PCCL_BARRIER();                                                \
                    PCCL_HAND_ON_WRITE(S, G); /* a look ahead's, while the movers go on */ \
                    if (PCCL_LEADER && PCCL_PROF(G)) (S)->st.ns_exec += PCCL_NOW_NS() - (S)->t_exec; \
                    d_ = (S)->dec[ph_];                                            \
                    ph_ ^= 1;                                                      \
                    jx_ ^= 1;                                                      \
                    if (d_ == PCCL_DEC_LATE) {                                     \
                        if (PCCL_LEADER) (S)->dec[ph_] = pccl_settle(S, G, b, &(S)->job[jx_]); \
                        PCCL_BARRIER();                                            \
                        d_ = (S)->dec[ph_];                                        \
                        ph_ ^= 1;                                                  \
                    }                                                              \
                }                                                                  \
            }                                                                      \
        }                                                                          \
        if (PCCL_LEADER) pccl_end(S, G, b);                                        \
    } while (0)

#endif
