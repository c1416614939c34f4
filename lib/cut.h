/* When a daemon launch ends (included by scheduler.h, after the block's
 * state): block 0 decides, for the hold a stream puts on the launch, the
 * time slice, a cut the host asks for (the watch) and idleness, and the
 * other blocks follow its decision.  Plain C shared by both backends, as
 * the rest of the scheduling core. */
#ifndef PCCL_CUT_H
#define PCCL_CUT_H

/* The time slice.  A launch that keeps finding work never quits by the
 * rule below (it wants an idle GPU), and the CUDA driver's implicit
 * synchronizations wait for it: the first launch of a kernel under lazy
 * module loading, cudaFree, cudaDeviceSynchronize on another thread.  So a
 * launch ends at its deadline (pccl_begin: the host's, on a grid every rank
 * shares, or slice_ns after the block began), work queued or not: each block stops
 * at its next decision (a step boundary), saves the active collective as a
 * preemption does, and quits with its task queue saved; the poller relaunches
 * at once (poller.c), and the waiting call gets the GPU in between. */
/* Whether every invocation a stream waits for is complete on this GPU (its
 * completion flag written): the waits are then satisfied, and holding the
 * launch until the host has seen the completions would make a drain (a lazy
 * module load holding the context lock) wait for the host's poller, which
 * may itself be inside a driver call that waits for that lock.  A consistent
 * copy of the host's set or none (seqlock); 0 when it does not fit. */
PCCL_FN int pccl_hold_done(const pccl_gpu *G)
{
    const pccl_pinned_hdr *h = G->hdr;
    for (int tries = 0; tries < 4; tries++) {
        uint32_t s1 = pccl_ld_acq32(&h->hold_seq), n = pccl_ld_acq32(&h->hold_n);
        if (s1 & 1) continue;
        if (n > PCCL_HOLD_SET) return 0;
        int done = 1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t id = pccl_ld_acq32(&h->hold_id[i]);
            uint64_t tk = pccl_ld_acq(&h->hold_tk[i]);
            if ((int)id >= G->k.max_colls) return 0;
            if ((int64_t)(pccl_ld_acq(&G->fin[id]) - tk) < 0) done = 0;
        }
        if (pccl_ld_acq32(&h->hold_seq) == s1) return done;
    }
    return 0;
}

/* Whether a block may end this launch.  While a stream waits for one of
 * this GPU's collectives (hdr->hold), an implicit synchronization of the
 * process (a lazy module load, cudaFree) cannot return before that
 * collective completes, and the module load holds the context lock that a
 * relaunch needs: a daemon that quit then would never be back, and the
 * process would hang.  So a held launch stays, and gives the waiting call
 * nothing to wait for that it could not wait for anyway, until the daemon
 * has completed every invocation the streams wait for (pccl_hold_done).
 *
 * Block 0 alone decides: it reads the host's hold and tells the host
 * (hdr->quitting = the launch's epoch) in pinned memory; the others follow through a word of
 * device memory, G->quit = (epoch << 1) | cut once block 0 decided.  With
 * every block reading and writing those pinned words at each slice's end
 * (system-scope accesses to one host address, which the GPU serializes),
 * the last of 64 blocks ended 130 us after the first cut on one H100, and
 * the GPU worked on nothing meanwhile.
 *
 * cut: the caller asks at a step boundary because the slice is over (1), or
 * at a pass's start because nothing moved for quit_ns (0).  A follower
 * leaves mid-pass only for a cut: leaving for block 0's idleness mid-pass,
 * a block whose queue head waits for a peer never reached the collectives
 * behind it, and two ranks whose heads differ never met (the fuzzer's
 * episode seq:2621092749958767824 hung).  It leaves for idleness at its own
 * idle point, as block 0 does. */
#define PCCL_QUIT_WORD(epoch, cut) ((epoch) << 1 | (uint64_t)(cut))
/* Block 0's decision for this launch: -1 none yet, 1 it cut the launch, 0
 * it ended it for idleness. */
PCCL_FN int pccl_decided(const pccl_blk *S, const pccl_gpu *G)
{
    uint64_t q = pccl_ld_gpu(G->quit);
    return q >> 1 == S->epoch ? (int)(q & 1) : -1;
}

PCCL_FN int pccl_may_quit(const pccl_blk *S, const pccl_gpu *G, int cut)
{
    int d = pccl_decided(S, G);
    if (d == 1 || (d == 0 && !cut)) return 1;
    if (S->blk != 0 || (pccl_ld_acq32(&G->hdr->hold) && !pccl_hold_done(G))) return 0;
    pccl_st_rel32(&G->hdr->quitting, (uint32_t)S->epoch);
    pccl_st_post_gpu(G->quit, PCCL_QUIT_WORD(S->epoch, cut));
    return 1;
}

/* Whether every block of the GPU has looked at its work in this launch:
 * ended a pass (pccl_plan, at its second), or polled a collective's
 * connectors 64 times and found them not ready (pccl_wait).  Each stores
 * the launch's epoch into G->looked[b] then (pccl_looked).  A launch that
 * moved nothing is ended (by the slice, the watch's ask or idleness) only
 * once all have: before, a block may not yet have reached work that is
 * ready; a block that found a step ready when it looked runs it before
 * its next check.  Under compute-sanitizer's
 * racecheck a launch's start took longer than the slice, every launch was
 * cut before its first step and the daemon ran nothing (one H100,
 * results/round-trip, calls 5-8); with a look counted as soon as a block
 * began to try, block 0, the last to reach its work (its SQ read and
 * hand-on are the slow ones), cut its own launch just before the step it
 * was about to run, in every launch (one H200, results/slice-h200, call 1).
 * Otherwise a block looks microseconds into its launch, so the bound on an
 * implicit synchronization's wait does not move.  A wait without a
 * threshold (a neighbour's wait) still yields to a cut: it has looked after
 * 64 polls. */
PCCL_FN void pccl_looked(pccl_blk *S, const pccl_gpu *G, int b)
{
    if (S->plans >= 2) return;
    S->plans = 2;
    pccl_st_post_gpu(&G->looked[b], S->epoch);
}

PCCL_FN int pccl_all_looked(const pccl_blk *S, const pccl_gpu *G)
{
    for (int o = 0; o < G->k.blocks; o++)
        if (pccl_ld_gpu(&G->looked[o]) != S->epoch) return 0;
    return 1;
}

PCCL_FN void pccl_mark_cut(pccl_blk *S, uint64_t now)
{
    S->cut = 1;
    S->st.t_cut = now;
}

/* Block 0 looks at the host's ctl word (a PCIe read) with the abort flag,
 * every 16th pass (pccl_plan), and while the watch runs at least every
 * PCCL_CTL_LOOK_NS, for passes that take long (a large collective's steps):
 * not at every step. */
#define PCCL_CTL_LOOK_NS 500000

/* Where the check is cheap.  Every block checks for a cut at each pass and
 * after each step, and nearly every check finds nothing due: S->cut_at is
 * the earliest time one can find anything, so a check is a clock read and a
 * compare until then (0: check in full, as after a cut).
 *
 * Block 0's next look is its deadline, or the watch's next look at the ctl
 * word, or at once when the host asked (pccl_look_ctl).  The others learn of
 * a cut only from block 0's decision, a word in device memory: read at every
 * check (an L2 round trip, twice for each small collective and in every
 * idle pass of 63 blocks), it cost a one-rank 8 B all-reduce 0.45 us of its
 * 5.2 us in the daemon with a slice against none; 0.03 us as below
 * (results/slice-check-h100).  Block 0 decides nothing before its
 * deadline unless idle (then the others quit by their own idle rule) or
 * asked by the watch, and every block takes the same deadline (pccl_begin),
 * so the others look first at the deadline, less PCCL_SLICE_EARLY_US, then
 * every microsecond for 32 us (block 0 decides at its first step boundary
 * past the deadline: 2-9 us later on one H100, the longer for large
 * collectives), then 2, 4 .. 64 us apart until it decided (it may keep the
 * launch: a hold, or nothing moved yet).  With the watch on, also every
 * 16 us before: block 0 may cut at any time when asked, and the waiting call
 * waits for the last block to end (64 us apart, a cut asked drained in 60
 * us, 16 us apart in 21, against 9 with a look at every check:
 * results/slice-check-h100). */
#define PCCL_FOLLOW_MIN_NS 1000
#define PCCL_FOLLOW_FLAT_NS 32000
#define PCCL_FOLLOW_MAX_NS 64000
#define PCCL_FOLLOW_WATCH_NS 16000

PCCL_FN void pccl_next_check(pccl_blk *S, const pccl_gpu *G, uint64_t now)
{
    if (S->cut || S->asked) {
        S->cut_at = 0;
    } else if (S->blk == 0) {
        uint64_t n = S->deadline; /* past it, and kept: the next check looks again */
        if (G->k.watch && S->t_ctl + PCCL_CTL_LOOK_NS < n) n = S->t_ctl + PCCL_CTL_LOOK_NS;
        S->cut_at = n;
    } else {
        uint64_t e = (uint64_t)G->k.slice_early_ns;
        uint64_t from = S->deadline == UINT64_MAX ? UINT64_MAX : S->deadline > e ? S->deadline - e : 0;
        if (now < from && !S->follow_gap) {
            S->cut_at = G->k.watch && now + PCCL_FOLLOW_WATCH_NS < from ? now + PCCL_FOLLOW_WATCH_NS : from;
        } else {
            uint64_t g = now - from < PCCL_FOLLOW_FLAT_NS ? PCCL_FOLLOW_MIN_NS : 2 * S->follow_gap; /* now >= from here */
            S->follow_gap = g > PCCL_FOLLOW_MAX_NS ? PCCL_FOLLOW_MAX_NS : g;
            S->cut_at = now + S->follow_gap;
        }
    }
}

/* The host's ctl word (pinned memory): 1 when it says abort; a cut asked
 * for is noted by block 0, which decides the cut (pccl_cut_idle). */
PCCL_FN int pccl_look_ctl(pccl_blk *S, const pccl_gpu *G, uint64_t now)
{
    uint32_t w = pccl_ld_acq32(&G->hdr->ctl);
    S->t_ctl = now;
    if ((w & PCCL_CTL_CUT) && S->blk == 0) S->asked = 1, S->cut_at = 0;
    return (w & PCCL_CTL_ABORT) != 0;
}

/* A check in full (at S->cut_at or past it), out of line: inlined at its
 * five callers with pccl_next_check, the daemon kernel spilled 1004 bytes
 * of loads (nvcc -Xptxas -v), against 308 before cut_at and 136 with it
 * out of line. */
PCCL_COLD_FN int pccl_cut_slow(pccl_blk *S, const pccl_gpu *G, uint64_t now, int idle)
{
    if (S->cut || !(G->k.slice_ns || G->k.watch)) return S->cut;
    uint64_t t = now - S->t_begin;
    if (S->blk != 0) {
        /* The others do not decide: they stop once block 0 cut the
         * launch, or, past a slice of their own, once it ended it for
         * idleness (a peer may have come since, and its work must not keep
         * the launch past the slice with no one left to cut it). */
        int d = pccl_decided(S, G);
        if (d == 1 || (d == 0 && G->k.slice_ns && t >= (uint64_t)G->k.slice_ns)) pccl_mark_cut(S, now);
        pccl_next_check(S, G, now);
        return S->cut;
    }
    /* PCCL_SLICE_EARLY_US: a block with nothing to run may end a little
     * before the deadline, so that the relaunch falls where the GPU waits
     * for work anyway (a busy block still stops at the deadline). */
    uint64_t due = S->deadline - (idle ? (uint64_t)G->k.slice_early_ns : 0);
    /* A cut the host asked for (watch.c: a call of the process waits for
     * the GPU), seen at the plan's looks or after PCCL_CTL_LOOK_NS */
    if (G->k.watch && !S->asked && now - S->t_ctl >= PCCL_CTL_LOOK_NS) (void)pccl_look_ctl(S, G, now);
    if (S->asked) due = now;
    /* A launch that has moved nothing yet waits for its peers: it lives
     * quit_ns at least, as without a slice, so that the launches of ranks
     * meet (cut after 100 us, two ranks' launches seldom overlapped, and
     * opposite orders stalled: tests/pccl/test_share.c), and until every
     * block has looked at its work (pccl_all_looked). */
    if (now >= due && (pccl_ld_gpu(G->progress) != S->progress0 ||
                       (t >= (uint64_t)G->k.quit_ns && pccl_all_looked(S, G)))) {
        if (pccl_may_quit(S, G, 1)) {
            pccl_mark_cut(S, now);
        } else { /* held: a new slice, and the next look at the hold a slice later (or the next ask) */
            S->asked = 0;
            if (G->k.slice_ns) S->deadline = now + (uint64_t)G->k.slice_ns;
        }
    }
    pccl_next_check(S, G, now);
    return S->cut;
}

PCCL_FN int pccl_cut_idle(pccl_blk *S, const pccl_gpu *G, uint64_t now, int idle)
{
    if (now < S->cut_at && !(idle && S->blk == 0)) return 0; /* block 0 idle: an early end may be due */
    return pccl_cut_slow(S, G, now, idle);
}

PCCL_FN int pccl_cut(pccl_blk *S, const pccl_gpu *G, uint64_t now) { return pccl_cut_idle(S, G, now, 0); }

/* The same, reading the clock only where there is a slice to check. */
PCCL_FN int pccl_cut_now(pccl_blk *S, const pccl_gpu *G)
{
    return (G->k.slice_ns || G->k.watch) && pccl_cut(S, G, PCCL_NOW_NS());
}

#endif
