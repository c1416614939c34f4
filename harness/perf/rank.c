/* rank.c: the rank threads, one per rank (GPU), in lockstep.
 *
 * For each test (table) and each size, in this order:
 *   1. timing: for each timing mode (--timing: b2b, rt), each library, out
 *      of place then in place: -w warm-up iterations, a barrier of the rank
 *      threads, -n iterations, the clock read when this rank saw the last one
 *      complete (nccl-tests' BenchTime); b2b issues the -n iterations at once
 *      (the library keeps them in flight), rt waits for each before the next
 *      (-z 1: rt, then a barrier after each, as nccl-tests' -z 1);
 *   2. checks (-c times): new inputs (check.h, seed --seed + k), then for
 *      each library and placement: inputs and sentinel loaded, one iteration,
 *      output fetched and compared;
 *   3. rank 0 reports the size's rows.
 * After any pccl work, the rank waits for pccl's daemon to quit before NCCL
 * runs, so that the two never share the GPU.  Rank 0 aggregates the ranks'
 * times (-a) as nccl-tests does: for NCCL in the benchmark, the times of the
 * threads that issue (lib_nccl.c: one per thread group, as nccl-tests' -t).
 *
 * --delay-us replaces 1-2 with the preemption-cost runs (run_delays),
 * --split with the latency-split runs (run_split),
 * --interfere with the compute-slowdown scenarios (interfere.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

void perf_barrier(perf_rank *R) { pthread_barrier_wait(&R->T->bar); }

static int lib_on(const perf_team *T, int l) { return (T->o->libs >> l) & 1u; }

/* Rank 0, after a barrier: the ranks' seconds per iteration, as -a says;
 * for grouped NCCL, the leaders' (the others issued nothing). */
static double team_seconds(const perf_team *T, int lib)
{
    int grouped = lib == PERF_LIB_NCCL && perf_nccl_grouped(T->o), n = 1;
    double x = T->rank[0].sec;
    for (int r = 1; r < T->nranks; r++) {
        if (grouped && perf_nccl_leader(T->o, r) != r) continue;
        n++;
        double s = T->rank[r].sec;
        switch (T->o->average) {
        case PERF_AVG_MEAN: x += s; break;
        case PERF_AVG_MIN: x = s < x ? s : x; break;
        case PERF_AVG_MAX: x = s > x ? s : x; break;
        default: break;
        }
    }
    return T->o->average == PERF_AVG_MEAN ? x / n : x;
}

static void fill_row(const perf_team *T, perf_row *row, const perf_case *k, int lib, int inplace, double sec)
{
    memset(row, 0, sizeof *row);
    row->timing = PERF_TIMING_B2B;
    row->t = k->t;
    row->lib = lib;
    row->inplace = inplace;
    row->nranks = T->nranks;
    row->iters = k->iters;
    row->warmup = k->warmup;
    row->bytes = k->bytes;
    row->count = k->c.count;
    row->time_us = sec * 1e6;
    row->algbw = sec > 0 ? (double)k->bytes / 1e9 / sec : 0;
    row->busbw = row->algbw * perf_busbw_factor(k->t.coll, T->nranks);
    row->wrong = -1;
    row->delay_us = -1;
    row->preempt_per_iter = row->quits_per_iter = -1;
    row->ratio = row->dtime_us = NAN;
}

static void timed(perf_rank *R, const perf_lib *L, const perf_case *k, int inplace, int timing)
{
    perf_set_where(R->rank, inplace ? "timing, in place" : "timing, out of place");
    if (k->warmup) L->run(R, k, inplace, 0, k->warmup);
    perf_barrier(R);
    double t0 = perf_now();
    if (timing == PERF_TIMING_RT) {
        R->rt_timed = 1;
        for (int i = 0; i < k->iters; i++) {
            L->run(R, k, inplace, i, 1);
            if (R->T->o->blocking) perf_barrier(R);
        }
        R->rt_timed = 0;
    } else {
        L->run(R, k, inplace, 0, k->iters);
    }
    R->sec = (perf_now() - t0) / k->iters;
    L->quiesce(R);
}

/* Test knob (tests/perf.sh): PCCL_PERF_TEST_CORRUPT=LIB plants one wrong
 * element in rank 0's out-of-place output of LIB, in device memory, after the
 * collective and before the check fetches it: the check must report it. */
void perf_plant_wrong(perf_rank *R, const perf_case *k, int lib, int inplace)
{
    const char *e = getenv("PCCL_PERF_TEST_CORRUPT");
    if (!e || strcmp(e, perf_lib_get(lib)->name) || R->rank != 0 || inplace || !ck_writes_recv(&k->c, 0)) return;
    void *s, *d;
    perf_ptrs(k, 0, R->send, R->recv, R->T->alloc, 0, 0, &s, &d);
    unsigned char x[8];
    size_t es = ck_type_size(k->c.dtype);
    if (dev_d2h(x, d, es)) return;
    x[es - 1] ^= 0xFF; /* sign and exponent, or the top byte: far outside any tolerance */
    dev_h2d(d, x, es);
}

static void checked(perf_rank *R, const perf_lib *L, const perf_case *k, int lib, int inplace)
{
    perf_set_where(R->rank, inplace ? "data check, in place" : "data check, out of place");
    perf_data_load(R, k, inplace);
    perf_barrier(R); /* NCCL's leader issues for every rank of its group: all inputs loaded */
    L->run(R, k, inplace, 0, 1);
    perf_barrier(R); /* and every output written */
    perf_plant_wrong(R, k, lib, inplace);
    R->wrong = perf_data_verify(R, k, inplace);
    L->quiesce(R);
}

/* Rank 0: adds the ranks' wrong elements to row; prints each rank's first. */
static void tally_wrong(perf_team *T, perf_row *row)
{
    if (row->wrong < 0) row->wrong = 0;
    for (int r = 0; r < T->nranks; r++) {
        perf_rank *X = &T->rank[r];
        if (!X->wrong) continue;
        row->wrong += X->wrong;
        fflush(stdout);
        fprintf(stderr, "# wrong data (%s, %s): %s\n", perf_lib_get(row->lib)->name,
                row->inplace ? "in place" : "out of place", X->msg);
    }
}

static void run_size(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    const perf_opts *o = T->o;
    perf_row rows[PERF_NTIMINGS][PERF_NLIBS][2];
    for (int m = 0; m < PERF_NTIMINGS; m++)
        for (int l = 0; l < PERF_NLIBS; l++) rows[m][l][0].lib = rows[m][l][1].lib = -1;

    for (int m = 0; m < PERF_NTIMINGS; m++) {
        if (!(o->timings >> m & 1u)) continue;
        for (int l = 0; l < PERF_NLIBS; l++) {
            if (!lib_on(T, l)) continue;
            for (int ip = 0; ip < 2; ip++) {
                timed(R, perf_lib_get(l), k, ip, m);
                perf_barrier(R);
                if (R->rank == 0) {
                    fill_row(T, &rows[m][l][ip], k, l, ip, team_seconds(T, l));
                    rows[m][l][ip].timing = m;
                }
            }
        }
    }
    int check = o->check && (!o->check_max || k->bytes <= o->check_max);
    for (int c = 0; c < (check ? o->check : 0); c++) {
        perf_set_where(R->rank, "making inputs and reference");
        perf_data_prepare(R, k, o->seed + (uint64_t)c);
        perf_barrier(R);
        for (int l = 0; l < PERF_NLIBS; l++) {
            if (!lib_on(T, l)) continue;
            for (int ip = 0; ip < 2; ip++) {
                checked(R, perf_lib_get(l), k, l, ip);
                perf_barrier(R);
                /* one check per library and placement: its figure goes on every timing's row */
                if (R->rank == 0) {
                    perf_row *first = NULL;
                    for (int m = 0; m < PERF_NTIMINGS; m++) {
                        if (rows[m][l][ip].lib < 0) continue;
                        if (!first) tally_wrong(T, first = &rows[m][l][ip]);
                        else rows[m][l][ip].wrong = first->wrong;
                    }
                }
                perf_barrier(R);
            }
        }
    }
    if (R->rank == 0) {
        if (!check) T->unchecked++;
        for (int m = 0; m < PERF_NTIMINGS; m++)
            if (o->timings >> m & 1u) perf_report_size(T, k, rows[m]);
        if (lib_on(T, PERF_LIB_PCCL)) perf_pccl_size_report(T, k);
    }
}

static void spin_us(long us)
{
    double end = perf_now() + (double)us * 1e-6;
    while (perf_now() < end) {}
}

/* Preemption cost: every iteration waited for (both libraries alike); rank
 * --delay-rank busy-waits `delay` us before invoking, the others invoke at
 * once and so wait that long for it inside the collective: NCCL's kernels
 * spin, pccl's daemon preempts the collective (and quits after PCCL_QUIT_US
 * without progress).  Reported: time per iteration, pccl's preemptions per
 * iteration and block and quits per iteration, averaged over ranks. */
static void run_delays(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    const perf_opts *o = T->o;
    for (int d = 0; d < o->ndelays; d++) {
        long delay = o->delays_us[d];
        perf_row rows[PERF_NLIBS];
        for (int l = 0; l < PERF_NLIBS; l++) rows[l].lib = -1;
        for (int l = 0; l < PERF_NLIBS; l++) {
            if (!lib_on(T, l)) continue;
            const perf_lib *L = perf_lib_get(l);
            perf_set_where(R->rank, "delay run");
            for (int i = 0; i < k->warmup; i++) L->run(R, k, 0, i, 1);
            /* pccl adds a daemon's counters when it quits: read them with
             * the daemon quit, before and after */
            L->quiesce(R);
            pcclStats_t s0 = {0}, s1 = {0};
            if (L->counters) L->counters(R, &s0);
            perf_barrier(R);
            double t0 = perf_now();
            for (int i = 0; i < k->iters; i++) {
                if (R->rank == o->delay_rank) spin_us(delay);
                L->run(R, k, 0, i, 1);
            }
            R->sec = (perf_now() - t0) / k->iters;
            L->quiesce(R);
            if (L->counters) L->counters(R, &s1);
            int blocks = s1.blocks > 0 ? s1.blocks : 1;
            R->preempt0 = s1.preemptions - s0.preemptions;
            R->quits0 = s1.quits - s0.quits > 0 ? s1.quits - s0.quits - 1 : 0; /* not the quit that quiesce waited for */
            perf_barrier(R);
            if (R->rank == 0) {
                perf_row *row = &rows[l];
                fill_row(T, row, k, l, 0, team_seconds(T, l));
                row->timing = PERF_TIMING_RT;
                row->delay_us = delay;
                if (L->counters) {
                    double p = 0, q = 0;
                    for (int r = 0; r < T->nranks; r++) {
                        p += (double)T->rank[r].preempt0;
                        q += (double)T->rank[r].quits0;
                    }
                    row->preempt_per_iter = p / T->nranks / blocks / k->iters;
                    row->quits_per_iter = q / T->nranks / k->iters;
                }
            }
            perf_barrier(R);
        }
        if (R->rank == 0) perf_report_delay(T, k, rows);
    }
}

/* Latency split: each library times -n iterations as in the benchmark
 * (out of place), between quiesced reads of pccl's counters, which with
 * PCCL_PROFILE=1 say where the daemon spent each invocation. */
static void run_split(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    perf_split sp = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    for (int l = 0; l < PERF_NLIBS; l++) {
        if (!lib_on(T, l)) continue;
        const perf_lib *L = perf_lib_get(l);
        perf_set_where(R->rank, "latency split");
        if (k->warmup) L->run(R, k, 0, 0, k->warmup);
        L->quiesce(R);
        memset(&R->st0, 0, sizeof R->st0);
        memset(&R->st1, 0, sizeof R->st1);
        if (L->counters) L->counters(R, &R->st0);
        if (l == PERF_LIB_PCCL) R->nblk = perf_pccl_block_counters(R, R->bst0, PERF_MAX_BLOCKS);
        perf_barrier(R);
        double t0 = perf_now();
        L->run(R, k, 0, 0, k->iters);
        R->sec = (perf_now() - t0) / k->iters;
        L->quiesce(R);
        if (L->counters) L->counters(R, &R->st1);
        if (l == PERF_LIB_PCCL) perf_pccl_block_counters(R, R->bst1, R->nblk);
        perf_barrier(R);
        if (R->rank == 0) {
            double us = team_seconds(T, l) * 1e6;
            if (l == PERF_LIB_NCCL) sp.nccl_us = us;
            else sp.pccl_us = us;
            if (l == PERF_LIB_PCCL) {
                double d[7] = {0}, bc = 0;
                for (int r = 0; r < T->nranks; r++) {
                    const pcclStats_t *a = &T->rank[r].st0, *b = &T->rank[r].st1;
                    bc += (double)(b->blockCompletions - a->blockCompletions);
                    d[0] += (double)(b->sqNs - a->sqNs);
                    d[1] += (double)(b->waitNs - a->waitNs);
                    d[2] += (double)(b->execNs - a->execNs);
                    d[3] += (double)(b->commitNs - a->commitNs);
                    d[4] += (double)(b->cqNs - a->cqNs);
                    d[5] += (double)(b->lifeNs - a->lifeNs);
                    d[6] += (double)(b->preemptions - a->preemptions);
                }
                if (bc > 0) {
                    sp.sq = d[0] / bc / 1e3, sp.wait = d[1] / bc / 1e3, sp.exec = d[2] / bc / 1e3;
                    sp.commit = d[3] / bc / 1e3, sp.cq = d[4] / bc / 1e3, sp.life = d[5] / bc / 1e3;
                    sp.preempt = d[6] / bc;
                }
                /* the slowest block: the iteration ends with the last block */
                for (int r = 0; r < T->nranks; r++)
                    for (int b = 0; b < T->rank[r].nblk; b++) {
                        const pcclStats_t *a = &T->rank[r].bst0[b], *e = &T->rank[r].bst1[b];
                        uint64_t n = e->blockCompletions - a->blockCompletions;
                        double blk_us = perf_us_per(e->lifeNs - a->lifeNs, n);
                        if (n && (isnan(sp.slowest) || blk_us > sp.slowest)) sp.slowest = blk_us;
                    }
            }
        }
        perf_barrier(R);
    }
    if (R->rank == 0) {
        perf_report_split(T, k, &sp);
        perf_report_split_blocks(T, k);
    }
}

static void *rank_main(void *arg)
{
    perf_rank *R = arg;
    perf_team *T = R->T;
    if (dev_set(R->dev)) perf_fatal(PERF_EXIT_ERROR, "rank %d: %s", R->rank, dev_last_error());
    R->send = dev_alloc(T->alloc);
    R->recv = dev_alloc(T->alloc);
    if (!R->send || !R->recv)
        perf_fatal(PERF_EXIT_ERROR, "rank %d: 2 x %zu bytes of device memory: %s", R->rank, T->alloc,
                   dev_last_error());
    R->pccl_id = calloc((size_t)T->nsizes * PERF_MAX_DEPTH, sizeof(int));
    perf_case *cases = calloc((size_t)T->nsizes, sizeof(perf_case));
    if (!R->pccl_id || !cases) perf_fatal(PERF_EXIT_ERROR, "out of host memory");
    /* NCCL's leader issues with every rank's buffers of its group (lib_nccl.c), before any
     * barrier of the first size: without this one it could read a buffer not yet allocated
     * (2 H200s, --lib nccl: an illegal address in 3 of 6 runs; pccl's registration in
     * test_begin met the ranks first when both libraries ran) */
    perf_barrier(R);

    for (int t = 0; t < T->ntests; t++) {
        int n = 0;
        for (int s = 0; s < T->nsizes; s++)
            n += perf_case_make(T->o, &T->tests[t], T->sizes[s], T->nranks, s, &cases[n]);
        if (!n) continue;
        if (R->rank == 0) {
            if (T->o->ndelays) perf_report_delay_begin(T, &T->tests[t]);
            else if (T->o->split) perf_report_split_begin(T, &T->tests[t]);
            else if (!T->o->interfere) perf_report_table_begin(T, &T->tests[t]);
        }
        for (int l = 0; l < PERF_NLIBS; l++)
            if (lib_on(T, l)) perf_lib_get(l)->test_begin(R, cases, n);
        for (int i = 0; i < n; i++) {
            if (T->o->ndelays) run_delays(R, &cases[i]);
            else if (T->o->interfere) perf_interfere_run(R, &cases[i]);
            else if (T->o->split) run_split(R, &cases[i]);
            else run_size(R, &cases[i]);
        }
        for (int l = 0; l < PERF_NLIBS; l++)
            if (lib_on(T, l)) perf_lib_get(l)->test_end(R);
    }
    perf_set_where(R->rank, "finished");
    perf_barrier(R);
    dev_free(R->send);
    dev_free(R->recv);
    free(R->pccl_id);
    free(cases);
    return NULL;
}

int perf_team_run(perf_team *T)
{
    if (pthread_barrier_init(&T->bar, NULL, (unsigned)T->nranks))
        perf_fatal(PERF_EXIT_ERROR, "pthread_barrier_init failed");
    for (int r = 0; r < T->nranks; r++)
        if (pthread_create(&T->rank[r].tid, NULL, rank_main, &T->rank[r]))
            perf_fatal(PERF_EXIT_ERROR, "cannot start rank thread %d", r);
    for (int r = 0; r < T->nranks; r++) pthread_join(T->rank[r].tid, NULL);
    pthread_barrier_destroy(&T->bar);
    return 0;
}
