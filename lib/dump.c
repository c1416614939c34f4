/* The hang report (PCCL_HANG_DUMP_MS): when a communicator has had work
 * outstanding and seen no completion for that long, the poller prints, once,
 * what it knows on stderr, as NCCL's watchdog does: the daemon's launch state,
 * the pinned header's flags, each collective in flight (issued, completed,
 * its stream's gate and wait) and each block's latest launch; on the GPU also
 * what the daemon keeps in device memory (each block's saved queue, the
 * collectives' step counters).  A user whose job stops can then tell a peer
 * that never issued from a daemon that is not running, or a stream gate that
 * never opened.  Not a failure: the communicator goes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static const char *type_name[] = {"all-reduce", "all-gather", "reduce-scatter", "reduce", "broadcast"};

static uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static uint32_t ld32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* Device memory, copied out by the backend (NULL on the host backend, where
 * it is the emulated GPUs' own, written without atomics). */
static void *fetch(pcclComm_t c, const void *src, size_t n)
{
    if (!c->be->download || !src || !n) return NULL;
    void *p = malloc(n);
    if (p && c->be->download(c, p, src, n)) {
        free(p);
        p = NULL;
    }
    return p;
}

static void dump_coll(pcclComm_t c, FILE *f, int id, const uint64_t *fin, const uint64_t *gate)
{
    const pccl_hcoll *h = &c->colls[id];
    const pccl_coll *d = &h->dev;
    fprintf(f, "pccl:   collective %d: %s of %llu elements (%d B each), %s, blocks %u: issued %llu, completed "
            "%llu, in flight %d, pending on streams %d, a stream waits for ticket %llu",
            id, d->type < 5 ? type_name[d->type] : "?", (unsigned long long)d->count, d->esize,
            d->proto == PCCL_PROTO_LL ? "LL" : "simple", d->used, (unsigned long long)h->issued,
            (unsigned long long)h->completions, h->inflight, h->npend, (unsigned long long)h->waited);
    uint64_t n = h->issued, slot = (size_t)id * PCCL_GATE_SLOTS + n % PCCL_GATE_SLOTS;
    fprintf(f, "; gate of invocation %llu (pinned copy) %llu", (unsigned long long)n,
            (unsigned long long)ld(&c->G.hgate[slot]));
    if (gate) fprintf(f, ", on the GPU %llu", (unsigned long long)gate[slot]);
    if (fin) fprintf(f, "; completion flag %llu", (unsigned long long)(fin[id] & ~PCCL_FIN_RELEASED));
    fputc('\n', f);
}

static void dump_blocks(pcclComm_t c, FILE *f, const pccl_blk_saved *saved, const int32_t *saved_tq)
{
    for (int b = 0; b < c->G.k.blocks; b++) {
        const pccl_blk_stats *t = &c->G.stats[b];
        uint64_t bg = ld(&t->t_begin), e = ld(&t->t_end);
        /* published at a launch's end: the launch before a live one */
        fprintf(f, "pccl:   block %d: last ended launch began %llu, ended %llu (daemon's clock, ns); "
                "completions %llu, preemptions %llu (%llu for a neighbour's wait), quits %llu, slices %llu, "
                "primitives %llu",
                b, (unsigned long long)bg, (unsigned long long)e,
                (unsigned long long)ld(&t->completions), (unsigned long long)ld(&t->preemptions),
                (unsigned long long)ld(&t->crossed),
                (unsigned long long)ld(&t->quits), (unsigned long long)ld(&t->slices),
                (unsigned long long)ld(&t->primitives));
        if (saved) {
            const pccl_blk_saved *s = &saved[b];
            fprintf(f, "; saved: SQ head %llu, task queue %u [", (unsigned long long)s->sq_head, s->tq_len);
            for (uint32_t i = 0; saved_tq && i < s->tq_len && i < 16; i++) {
                int32_t task = saved_tq[(size_t)b * c->G.k.depth + i]; /* id and lane (core.h, PCCL_TASK) */
                fprintf(f, "%s%d", i ? " " : "", PCCL_TASK_ID(task));
                if (PCCL_TASK_LANE(task)) fprintf(f, " (lane %u)", PCCL_TASK_LANE(task));
            }
            fprintf(f, "%s], position %u", s->tq_len > 16 ? " ..." : "", s->pos);
        }
        fputc('\n', f);
    }
}

/* What each block waits for now (the arena's first lines, core.h
 * PCCL_ARENA_HDR: what its ring neighbours read, scheduler.h). */
static void dump_waits(pcclComm_t c, FILE *f)
{
    if (c->nranks < 2) return;
    uint64_t *w = fetch(c, c->G.arena, PCCL_ARENA_HDR);
    if (!w) return;
    int n = 0;
    fprintf(f, "pccl:   blocks waiting now (block:collective):");
    for (int b = 0; b < c->G.k.blocks; b++) {
        uint64_t v = w[(size_t)b * PCCL_FLAG_PAD / sizeof *w], lacks = PCCL_WAIT_LACKS1(v);
        if (!PCCL_WAIT_ID1(v)) continue;
        fprintf(f, "%s %d:%llu", n++ % 16 ? "" : "\npccl:    ", b, (unsigned long long)(PCCL_WAIT_ID1(v) - 1));
        if (lacks) fprintf(f, " (cannot run %llu yet)", (unsigned long long)(lacks - 1));
    }
    fprintf(f, "%s\n", n ? "" : " none");
    free(w);
}

/* The step counters of the collectives in flight, block by block. */
static void dump_ctx(pcclComm_t c, FILE *f)
{
    int nb = c->G.k.blocks;
    for (int id = 0; id < c->ncolls; id++) {
        if (!c->colls[id].inflight) continue;
        pccl_ctx *x = fetch(c, &c->G.ctx[(size_t)id * nb], sizeof *x * (size_t)nb);
        if (!x) return;
        /* lane l's context is block first + l's slot (core.h, "Lanes");
         * a placed collective's lanes may run on any group of blocks */
        int b0 = (int)c->colls[id].dev.first;
        for (int b = b0; b < nb && b < b0 + (int)c->colls[id].dev.used; b++)
            fprintf(f, "pccl:   collective %d, %s %d: invocations fetched %llu, group %llu, loop %u, step %u, "
                    "sent %llu, received %llu, waits for its gate %llu\n",
                    id, c->colls[id].dev.placed ? "lane" : "block", c->colls[id].dev.placed ? b - b0 : b,
                    (unsigned long long)x[b].inv, (unsigned long long)x[b].group, x[b].loop, x[b].step,
                    (unsigned long long)x[b].send_step, (unsigned long long)x[b].recv_step,
                    (unsigned long long)x[b].gated);
        free(x);
    }
}

/* The poller's last passes (poller.c, pass_log), oldest first: how long
 * before the report (now) each began and what it did; and the end word's
 * first sight. */
static void dump_passes(pcclComm_t c, FILE *f, uint64_t now)
{
    fprintf(f, "pccl:   the poller's last passes (us ago: d drained n, s slept n us, y spun): ");
    uint32_t n = c->pass_i < PCCL_PASS_LOG ? c->pass_i : PCCL_PASS_LOG;
    for (uint32_t k = n; k > 0; k--) {
        uint32_t i = (c->pass_i - k) % PCCL_PASS_LOG;
        fprintf(f, "%s%.0f %c", k == n ? "" : ", ", (now - c->pass_at[i]) / 1e3, c->pass_what[i]);
        if (c->pass_what[i] != 'y') fprintf(f, "%u", c->pass_arg[i]);
    }
    fprintf(f, "; launch %u called %.0f us ago, ended %s (end word %u), seen %.0f us ago, was running %d\n",
            (uint32_t)c->G.epoch, c->launched_ns ? (now - c->launched_ns) / 1e3 : -1.0,
            ld32(&c->G.hdr->ended) == (uint32_t)c->G.epoch ? "yes" : "no", ld32(&c->G.hdr->ended),
            c->slice_acc.ended_ns ? (now - c->slice_acc.ended_ns) / 1e3 : -1.0, c->was_running);
}

void pccl_dump_locked(pcclComm_t c, FILE *f, uint64_t quiet_ns)
{
    const pccl_pinned_hdr *hd = c->G.hdr;
    uint64_t t0 = pccl_now_ns();
    int running = c->be->running(c);
    fprintf(f, "pccl: rank %d of %d (device %d, pid %d): no completion for %llu ms with %llu outstanding "
            "(PCCL_HANG_DUMP_MS): daemon %s, launches %llu, submitted %llu, completed %llu, SQ tail %llu, "
            "held by streams %d, gated invocations watched %d; header: hold %u, quitting %u, sliced %u, ctl %u (1 abort, 2 cut)\n",
            c->rank, c->nranks, c->dev, (int)getpid(), (unsigned long long)(quiet_ns / 1000000),
            (unsigned long long)c->outstanding, running ? "running" : "not running",
            (unsigned long long)c->launches, (unsigned long long)c->submitted, (unsigned long long)c->completed,
            (unsigned long long)c->sq_tail, c->nheld, c->ngwatch, ld32(&hd->hold), ld32(&hd->quitting),
            ld32(&hd->sliced), ld32(&hd->ctl));
    size_t ng = (size_t)c->ncolls * PCCL_GATE_SLOTS;
    uint64_t *fin = fetch(c, c->G.fin, sizeof *fin * (size_t)c->ncolls);
    uint64_t *gate = fetch(c, c->G.gate, sizeof *gate * ng);
    for (int id = 0; id < c->ncolls; id++)
        if (c->colls[id].inflight || c->colls[id].npend) dump_coll(c, f, id, fin, gate);
    free(fin);
    free(gate);
    pccl_blk_saved *saved = fetch(c, c->G.saved, sizeof *saved * (size_t)c->G.k.blocks);
    int32_t *tq = saved ? fetch(c, c->G.saved_tq, sizeof *tq * (size_t)c->G.k.blocks * (size_t)c->G.k.depth) : NULL;
    dump_blocks(c, f, saved, tq);
    free(saved);
    free(tq);
    dump_waits(c, f);
    dump_ctx(c, f);
    dump_passes(c, f, t0);
    fflush(f);
}
