/* Collectives as data: the ring algorithm of each collective, written as the
 * program of primitives one rank runs per loop over the data (NCCL's ring,
 * expressed with the step flags of core.h; for the all-reduce also the
 * direct one, and the mesh's one-shot and two-shot), each step marked with the
 * protocol its connectors speak (c->proto: Simple, or PCCL_LL).  The daemon
 * only interprets these programs; it knows no collective by name. */
#include "core.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

static int all_reduce(pccl_coll *c, int n, int r)
{
    int k = 0;
    if (n == 1) { c->steps[k++] = PCCL_STEP(PCCL_IN | PCCL_OUT | PCCL_POSTDIV, 0); return k; }
    if (c->algo == PCCL_ALGO_ONESHOT) { /* our loop to every peer; then all n reduced in rank order */
        c->steps[k++] = PCCL_STEP(PCCL_MESH | PCCL_IN | PCCL_SEND, 0);
        c->steps[k++] = PCCL_STEP(PCCL_MESH | PCCL_RECV | PCCL_IN | PCCL_OUT | PCCL_POSTDIV, 0);
        return k;
    }
    if (c->algo == PCCL_ALGO_TWOSHOT) {
        /* a reduce-scatter in one hop (chunk q of our loop to peer q; chunk
         * r of every rank's reduced here in rank order, the same bits on
         * every rank), then an all-gather in one (chunk r to every peer,
         * chunk q from peer q) */
        c->steps[k++] = PCCL_STEP(PCCL_MESH | PCCL_IN | PCCL_SEND, PCCL_CHUNK_PEER);
        c->steps[k++] = PCCL_STEP(PCCL_MESH | PCCL_RECV | PCCL_IN | PCCL_OUT | PCCL_SEND | PCCL_POSTDIV, r);
        c->steps[k++] = PCCL_STEP(PCCL_MESH | PCCL_RECV | PCCL_OUT, PCCL_CHUNK_PEER);
        return k;
    }
    if (c->algo == PCCL_ALGO_DIRECT) { /* the whole loop around the ring (an all-gather), then reduce */
        c->steps[k++] = PCCL_STEP(PCCL_IN | PCCL_SEND, 0);
        if (n == 2) {
            /* both ranks reduce as op(rank 0's, rank 1's): the same bits on
             * both, NaNs and signed zeros in max and min included */
            c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_IN | PCCL_OUT | PCCL_POSTDIV | (r == 0 ? PCCL_SWAP : 0), 0);
            return k;
        }
        /* rank r - s's input arrives at step s and goes on, kept; the last,
         * rank r + 1's, completes the n, reduced in rank order on every rank
         * (the same bits everywhere, as above) */
        for (int s = 1; s < n - 1; s++) c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_SEND | PCCL_KEEP, 0);
        c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_IN | PCCL_OUT | PCCL_POSTDIV | PCCL_GATHER, 0);
        return k;
    }
    /* reduce-scatter phase: chunk r - s travels forward, gathering sums */
    c->steps[k++] = PCCL_STEP(PCCL_IN | PCCL_SEND, r);
    for (int s = 1; s < n - 1; s++)
        c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_IN | PCCL_SEND, mod(r - s, n));
    c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_IN | PCCL_OUT | PCCL_SEND | PCCL_POSTDIV, mod(r + 1, n));
    /* all-gather phase: the finished chunks travel once more around */
    for (int s = 0; s < n - 2; s++)
        c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_OUT | PCCL_SEND, mod(r - s, n));
    c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_OUT, mod(r + 2, n));
    return k;
}

static int all_gather(pccl_coll *c, int n, int r)
{
    int k = 0;
    c->steps[k++] = PCCL_STEP(PCCL_IN | PCCL_OUT | (n > 1 ? PCCL_SEND : 0), r);
    for (int s = 1; s < n; s++)
        c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_OUT | (s < n - 1 ? PCCL_SEND : 0), mod(r - s, n));
    return k;
}

static int reduce_scatter(pccl_coll *c, int n, int r)
{
    int k = 0;
    if (n == 1) { c->steps[k++] = PCCL_STEP(PCCL_IN | PCCL_OUT | PCCL_POSTDIV, 0); return k; }
    c->steps[k++] = PCCL_STEP(PCCL_IN | PCCL_SEND, mod(r - 1, n));
    for (int s = 1; s < n - 1; s++)
        c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_IN | PCCL_SEND, mod(r - 1 - s, n));
    c->steps[k++] = PCCL_STEP(PCCL_RECV | PCCL_IN | PCCL_OUT | PCCL_POSTDIV, r);
    return k;
}

/* Reduce and broadcast run along the ring as a chain that starts after the
 * root (reduce) or at it (broadcast). */
static int reduce(pccl_coll *c, int n, int r)
{
    int pos = mod(r - c->root - 1, n);
    c->claimer = pos == 0; /* the head: it receives from nobody */
    uint16_t f = PCCL_IN;
    if (pos > 0) f |= PCCL_RECV;
    f |= pos < n - 1 ? PCCL_SEND : PCCL_OUT | PCCL_POSTDIV;
    c->steps[0] = PCCL_STEP(f, 0);
    return 1;
}

static int broadcast(pccl_coll *c, int n, int r)
{
    int pos = mod(r - c->root, n);
    c->claimer = pos == 0;
    uint16_t f = PCCL_OUT | (pos == 0 ? PCCL_IN : PCCL_RECV);
    if (pos < n - 1) f |= PCCL_SEND;
    c->steps[0] = PCCL_STEP(f, 0);
    return 1;
}

int pccl_build_program(pccl_coll *c)
{
    int n = c->nranks, r = c->rank, k = 0;
    c->claimer = r == 0; /* rings: rank r hears of rank 0's claims at step r (scheduler.h, pccl_claim) */
    switch (c->type) {
    case 0: k = all_reduce(c, n, r); break;
    case 1: k = all_gather(c, n, r); break;
    case 2: k = reduce_scatter(c, n, r); break;
    case 3: k = reduce(c, n, r); break;
    case 4: k = broadcast(c, n, r); break;
    }
    /* Steps that touch a connector speak the collective's protocol (its
     * slots' layout, core.h's pccl_slot_bytes, is the collective's). */
    for (int i = 0; i < k && c->proto == PCCL_PROTO_LL; i++)
        if (c->steps[i] & (PCCL_RECV | PCCL_SEND)) c->steps[i] |= PCCL_LL;
    c->nsteps = (uint8_t)k;
    return k;
}
