/* test_andor.c: the engine's verdict against the plainest possible
 * simulator, run to quiescence.
 *
 * The brute force below shares nothing with the engine but the layout and
 * the random stream: per GPU a FIFO of invoked collectives and its remaining
 * plan, a suspension flag, and after every action a loop that completes
 * every collective whose parts all sit in the first K places of their
 * FIFOs, until nothing changes.  It takes the lockstep actions with the same
 * draws as the engine and never looks for a deadlock: it runs until no GPU
 * can act.  The round deadlocked iff work is left then.  The engine stops at
 * its first deadlock, the brute force goes on, so the test shows that the
 * engine's verdict is exact (no deadlock that a continuation resolves, none
 * missed), for K = 2, 3, 4 (AND-OR waits) and for K = 1 and unlimited slots
 * (the cycle rule), with and without syncs.  It also counts the rounds in
 * which a cycle of the dependency graph formed and later resolved: those are
 * the rounds that the cycle rule counted as deadlocks with K >= 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "tests.h"
#include "../sim/engine.h"
#include "../sim/layout.h"

enum { MAXG = 8, MAXC = 64 };

typedef struct brute {
    const dl_layout *L;
    int K;                    /* slots, 0 = unlimited */
    int fifo[MAXG][MAXC], nfifo[MAXG];
    int rem[MAXG][MAXC], nrem[MAXG];
    int susp[MAXG], done[MAXC], ndone;
    long events, steps;
    int saw_cycle;            /* a cycle existed at some point */
} brute;

static int fifo_pos(const brute *B, int g, int c)
{
    for (int k = 0; k < B->nfifo[g]; k++)
        if (B->fifo[g][k] == c)
            return k;
    return -1;
}

static int executes(const brute *B, int g, int c)
{
    int k = fifo_pos(B, g, c);
    return k >= 0 && (B->K == 0 || k < B->K);
}

static void fifo_remove(brute *B, int g, int c)
{
    int k = fifo_pos(B, g, c);
    memmove(&B->fifo[g][k], &B->fifo[g][k + 1], (size_t)(B->nfifo[g] - k - 1) * sizeof(int));
    B->nfifo[g]--;
}

/* Completes collectives until none can. */
static void settle(brute *B)
{
    const dl_layout *L = B->L;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int c = 0; c < L->ncolls; c++) {
            if (B->done[c])
                continue;
            int all = 1;
            for (int p = L->part_off[c]; p < L->part_off[c + 1] && all; p++)
                all = executes(B, L->part_gpu[p], c);
            if (!all)
                continue;
            B->done[c] = 1;
            B->ndone++;
            for (int p = L->part_off[c]; p < L->part_off[c + 1]; p++)
                fifo_remove(B, L->part_gpu[p], c);
            changed = 1;
        }
        for (int g = 0; g < L->ngpus; g++)
            if (B->susp[g] && B->nfifo[g] == 0)
                B->susp[g] = 0;
    }
}

/* Is part (g, c) blocked: queued, or not invoked on a suspended GPU? */
static int blocked(const brute *B, int g, int c)
{
    int k = fifo_pos(B, g, c);
    if (k >= 0)
        return !executes(B, g, c);
    return B->susp[g] && !B->done[c];
}

/* Does the GPU-level graph (i -> j when a part executing on i has a blocked
 * counterpart on j) have a cycle?  Transitive closure, G <= 8. */
static int has_cycle(const brute *B)
{
    const dl_layout *L = B->L;
    int G = L->ngpus, r[MAXG][MAXG] = {{0}};
    for (int c = 0; c < L->ncolls; c++) {
        if (B->done[c])
            continue;
        for (int p = L->part_off[c]; p < L->part_off[c + 1]; p++)
            for (int q = L->part_off[c]; q < L->part_off[c + 1]; q++)
                if (p != q && executes(B, L->part_gpu[p], c) && blocked(B, L->part_gpu[q], c))
                    r[L->part_gpu[p]][L->part_gpu[q]] = 1;
    }
    for (int k = 0; k < G; k++)
        for (int i = 0; i < G; i++)
            for (int j = 0; j < G; j++)
                r[i][j] |= r[i][k] && r[k][j];
    for (int i = 0; i < G; i++)
        if (r[i][i])
            return 1;
    return 0;
}

/* The round from the stream, to quiescence: 1 if work is left. */
static int brute_run(brute *B, const dl_layout *L, const dl_params *P, gsl_rng *rng)
{
    memset(B, 0, sizeof *B);
    B->L = L;
    B->K = P->slots;
    for (int g = 0; g < L->ngpus; g++)
        for (int k = L->plan_off[g]; k < L->plan_off[g + 1]; k++)
            B->rem[g][B->nrem[g]++] = L->plan[k].coll;
    for (;; B->steps++) {
        int acted = 0;
        for (int g = 0; g < L->ngpus; g++) {
            if (B->susp[g] || B->nrem[g] == 0)
                continue;
            acted = 1;
            B->events++;
            if (P->sync > 0 && gsl_rng_uniform(rng) < P->sync) {
                B->susp[g] = B->nfifo[g] > 0;
            } else {
                int k = 0;
                while (P->disorder > 0 && k < B->nrem[g] - 1 && gsl_rng_uniform(rng) < P->disorder)
                    k++;
                int c = B->rem[g][k];
                memmove(&B->rem[g][k], &B->rem[g][k + 1], (size_t)(B->nrem[g] - k - 1) * sizeof(int));
                B->nrem[g]--;
                B->fifo[g][B->nfifo[g]++] = c;
            }
            settle(B);
            B->saw_cycle |= has_cycle(B);
        }
        if (!acted)
            return B->ndone < L->ncolls;
    }
}

typedef struct kcase {
    int slots, syncs;
} kcase;

static const kcase kcases[] = {{2, 0}, {3, 0}, {4, 0}, {2, 1}, {3, 1}, {4, 1}, {1, 0}, {1, 1}, {0, 1}};

static void test_quiescence(void)
{
    long rounds = 10000;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2), *rng2 = gsl_rng_alloc(gsl_rng_taus2);
    brute *B = malloc(sizeof *B);
    for (size_t m = 0; m < sizeof kcases / sizeof kcases[0]; m++) {
        long dead = 0, disagree = 0, late = 0, counts = 0, resolved = 0;
        for (long r = 0; r < rounds; r++) {
            gsl_rng_set(rng, 5000011UL * (m + 1) + (unsigned long)r);
            dl_layout L;
            dl_test_random_layout(&L, rng, 6, 4);
            dl_params P = {.slots = kcases[m].slots};
            double u = gsl_rng_uniform(rng);
            P.disorder = u < 0.5 ? 0.02 + 0.5 * u : 0.3 + 1.2 * (u - 0.5);
            P.sync = kcases[m].syncs ? 0.1 + 0.3 * gsl_rng_uniform(rng) : 0;
            gsl_rng_memcpy(rng2, rng);
            dl_round *R = dl_round_new(&L, &P);
            int eng = dl_round_run(R, rng, NULL) == DL_DEADLOCK;
            int bf = brute_run(B, &L, &P, rng2);
            dead += bf;
            if (eng != bf) {
                if (!disagree)
                    fprintf(stderr, "\n    K=%d syncs %d round %ld: engine %d, quiescence %d\n",
                            P.slots, kcases[m].syncs, r, eng, bf);
                disagree++;
            }
            /* the engine decides no later than quiescence; a completed round
             * is the same round event for event */
            if (eng && R->deadlock_event > B->events)
                late++;
            if (!eng && !bf && (R->events != B->events || R->step + 1 != B->steps))
                counts++;
            resolved += !bf && B->saw_cycle;
            dl_round_free(R);
            dl_layout_free(&L);
        }
        printf("\n    K=%d%s %ld rounds: %.1f%% deadlocked, %ld completed after a cycle, "
               "%ld disagree",
               kcases[m].slots, kcases[m].syncs ? " + syncs" : "", rounds, 100.0 * dead / rounds,
               resolved, disagree);
        CU_ASSERT_EQUAL(disagree, 0);
        CU_ASSERT_EQUAL(late, 0);
        CU_ASSERT_EQUAL(counts, 0);
        CU_ASSERT(dead * 40 > rounds && dead * 10 < 9 * rounds);
        /* K >= 2: resolvable cycles are common (so the test can fail); with
         * AND waits only, a cycle never resolves. */
        if (kcases[m].slots >= 2) {
            CU_ASSERT(resolved >= 20);
        } else {
            CU_ASSERT_EQUAL(resolved, 0);
        }
    }
    printf("\n");
    free(B);
    gsl_rng_free(rng);
    gsl_rng_free(rng2);
}

int dl_register_andor_tests(void)
{
    CU_pSuite s = CU_add_suite("andor", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "engine = brute force run to quiescence", test_quiescence))
        return -1;
    return 0;
}
