/* The daemon's launches: a launch (with mu held), and the relaunch queued
 * ahead of a slice's end (PCCL_SLICE_AHEAD_US), which the poller makes
 * (poller.c, maybe_launch). */
#include "internal.h"

/* ---- the launch ahead ---------------------------------------------------------
 *
 * A relaunch after the end of a slice leaves the GPU without a block for the
 * gap, the poller's sight of the end and the launch call: 37-52 us of the
 * 53-64 us of GPU time a relaunch cost on one H200 (results/ahead-h200/).
 * Queued on the daemon's stream PCCL_SLICE_AHEAD_US before the running
 * launch's slice ends, the relaunch begins as that launch ends, a kernel
 * switch later (5-9 us; 16-28 us of GPU time in all).  A call that waits for an idle GPU (a module load, cudaFree)
 * still gets its turn: made before the launch ahead is queued, it waits for
 * the running launch alone, since the driver waits for the work queued
 * before the call, and while it waits, a call that holds the context lock
 * keeps the launch ahead out; made in the last PCCL_SLICE_AHEAD_US, it waits
 * for the launch ahead too, and a call that waits for the GPU twice (a
 * module's load or unload) meets a launch ahead at its second wait: two
 * slices (results/chain-h200/).  Not with the watch, whose cut of a launch
 * lets a call through at once. */

/* The launch queued ahead runs since about now (or its predecessor's end
 * was missed): its call, deadline and end become the running launch's (mu
 * held).  Its end as the daemon will take it (core.h, pccl_slice_deadline,
 * from its start, now): the planned point was an estimate of the one
 * before's end, and a launch that began past it takes the grid's next. */
void pccl_ahead_promote_locked(pcclComm_t c, uint64_t now)
{
    pccl_slice_acc *a = &c->slice_acc;
    uint64_t s = (uint64_t)c->G.k.slice_ns;
    c->ahead = 0;
    a->call_ns = a->next_call_ns;
    a->call_end_ns = a->next_call_ns + a->next_launch_ns;
    a->deadline = a->next_deadline;
    a->end_ns = a->deadline ? pccl_slice_deadline(now, a->next_end_ns, s, (uint64_t)c->G.k.slice_early_ns) : now + s;
    a->ended_ns = 0;
    a->ahead_epoch = c->launches;
    a->since_good++;
}

/* Whether the launch before the one queued ahead has ended (its last block
 * wrote its epoch). */
int pccl_ahead_ended(pcclComm_t c)
{
    return c->ahead && pccl_ld_acq32(&c->G.hdr->ended) == (uint32_t)(c->G.epoch - 1);
}

/* The launch before the one queued ahead ended: its end's bookkeeping, as
 * the poller's at any end it sees, then the relaunch's host figures (no
 * gap; the call, made ahead). */
void pccl_ahead_handover_locked(pcclComm_t c, uint64_t now)
{
    pccl_slice_acc *a = &c->slice_acc;
    if (!a->ended_ns) a->ended_ns = now;
    c->quit_seen_ns = (int64_t)now;
    pccl_slice_on_end_locked(c, c->launches - 1);
    pccl_ahead_promote_locked(c, now);
    pccl_slice_on_launch_locked(c, 0, a->next_launch_ns);
    c->running_seen_ns = now;
}

/* Whether the relaunch is due to be queued now: work outstanding, the
 * running launch's slice ends within PCCL_SLICE_AHEAD_US, and its block 0
 * has not decided to end it already (idle: the relaunch waits for work).
 * On the grid, not before a good sample of the daemon clock's offset
 * (slice.c), and not for the PCCL_OFF_REFRESH-th time since one: that
 * relaunch follows the end, a fresh sample (on 2 H200s its successor
 * followed the end too, until its sample came at its end: two a refresh,
 * results/launcher-h200/, call 4). */
int pccl_ahead_due(pcclComm_t c, uint64_t now)
{
    const pccl_slice_acc *a = &c->slice_acc;
    /* the running launch was made after the end by a short call: its
     * sample comes at its end, and its successor may be queued ahead */
    int sampling = c->launches != a->ahead_epoch && a->call_end_ns - a->call_ns < c->call_short_ns;
    return c->slice_ahead_ns && !c->ahead && c->G.k.slice_ns && !c->watch && c->stopping == 0 && !c->aborted &&
           (!c->slice_align || (a->off_good && (a->since_good < PCCL_OFF_REFRESH || sampling))) &&
           !c->failed && c->outstanding > (uint64_t)c->ndirect && now + c->slice_ahead_ns >= a->end_ns &&
           !pccl_quitting(c);
}

/* The call is made without mu: the daemon runs meanwhile, and pcclRun and
 * pcclWait would wait for the lock through the launch call (6-25 us), while
 * a relaunch after the end holds it where the GPU has nothing to complete.
 * c->launching keeps every other launch out meanwhile (pccl_launch_locked):
 * the one being made serves them. */
void pccl_launch_ahead_locked(pcclComm_t c)
{
    pccl_slice_acc *a = &c->slice_acc;
    c->G.epoch = c->launches + 1;
    uint64_t t0 = pccl_now_ns();
    /* the grid point after the running launch's (slice_acc keeps that one's
     * call, deadline and end until it ends) */
    a->next_end_ns = pccl_slice_plan_locked(c, a->end_ns > t0 ? a->end_ns : t0);
    a->next_deadline = c->G.deadline;
    c->launching = 1;
    pthread_mutex_unlock(&c->mu);
    pccl_watch_mute(1);
    pcclResult_t r = c->be->launch(c);
    pccl_watch_mute(0);
    uint64_t back = pccl_now_ns();
    pthread_mutex_lock(&c->mu);
    c->launching = 0;
    if (r) {
        c->G.epoch = c->launches;
        pccl_err(c, pcclUnhandledCudaError, "queueing the daemon's relaunch failed");
        return;
    }
    c->launches++;
    c->ahead = 1;
    a->next_call_ns = t0;
    a->next_launch_ns = back - t0;
    c->submitted_at_launch = c->submitted;
    c->launched_ns = back;
}

/* Called with c->mu held. */
pcclResult_t pccl_launch_locked(pcclComm_t c)
{
    if (c->launching) return pcclSuccess; /* the poller's launch ahead, being made: it serves */
    if (c->ahead) pccl_ahead_promote_locked(c, pccl_now_ns()); /* it ended too, unseen: the latest launch */
    /* A caller that found the daemon ended (pcclRun, a stream's gate) may
     * relaunch before the poller saw the end: its bookkeeping here, as the
     * poller's, where it serves the slice (the clock offset the grid needs,
     * the relaunch's split of a launch its slice ended).  Without it, where
     * every launch ended early and pcclRun relaunched (round trips on the
     * host backend, whose gap is 0), the grid never had an offset and no
     * slice was aligned.  After an idle quit with the offset known it reads
     * block 0's start alone, the offset's sample (slice.c), not every
     * block's figures, in pinned memory, on the path of the first
     * invocation after a pause. */
    if (c->was_running) {
        c->was_running = 0;
        c->quit_seen_ns = (int64_t)pccl_now_ns();
        if (!c->slice_acc.off_known || pccl_sliced(c)) pccl_slice_on_end_locked(c, c->launches);
        else pccl_slice_sample_locked(c, c->launches);
    }
    __atomic_fetch_and(&c->G.hdr->ctl, ~PCCL_CTL_CUT, __ATOMIC_RELEASE); /* a cut asked of the last one is done */
    /* its blocks follow block 0's decision to end it, not an older launch's;
     * hdr->sliced and hdr->quitting name the launch they speak of */
    c->G.epoch = c->launches + 1;
    pccl_slice_acc *a = &c->slice_acc;
    uint64_t t0 = pccl_now_ns();
    a->call_ns = t0;
    /* the end as its blocks will take it (core.h, pccl_slice_deadline, from
     * about now): the grid point, or half a slice on where that is nearer.
     * The grid point alone told the poller of an end up to half a slice
     * early, where nothing was yet queued to run (pccl-perf's sweeps:
     * results/offset-h200/), and no relaunch went ahead of the real one */
    a->end_ns = pccl_slice_deadline(t0, pccl_slice_plan_locked(c, t0), (uint64_t)c->G.k.slice_ns,
                                    (uint64_t)c->G.k.slice_early_ns);
    a->deadline = c->G.deadline;
    pccl_watch_mute(1); /* pccl's own call (a relaunch waits behind the call it lets through) */
    pcclResult_t r = c->be->launch(c);
    pccl_watch_mute(0);
    if (r) return r;
    uint64_t back = pccl_now_ns();
    a->call_end_ns = back;
    c->launches++;
    a->ended_ns = 0;
    pccl_slice_on_launch_locked(c, t0 - (uint64_t)c->quit_seen_ns, back - t0);
    c->submitted_at_launch = c->submitted;
    c->was_running = 1;
    c->running_seen_ns = c->launched_ns = back;
    return pcclSuccess;
}
