/* lib_pccl.c: pccl behind perf_lib.
 *
 * One communicator set per test (collective, type, op, root): rank 0 creates
 * it with pcclCommInitAllConfig, every rank registers the test's sizes in the
 * same order (so the connector arena holds one test's collectives only, and
 * `-d all -o all` never runs out of it), and rank 0 destroys it at the end.
 *
 * Iterations.  pccl allows one invocation of a collective in flight, so to
 * keep several in flight, as NCCL's stream queues -n launches, every size is
 * registered --pccl-depth times (copies of the same shape, ids
 * pccl_id[size * depth + j]).  Back to back (run() with n > 1): copy j runs
 * iterations j, j + depth, j + 2 depth, ..., each issued by the completion
 * callback of the previous one (pccl's poller thread calls pcclRun at once:
 * the shortest path pccl's API has, no rank-thread wake-up), so up to depth
 * invocations are in flight; the rank thread waits for every copy.  Depth 1
 * is one chain.  Copies in flight at once may use overlapping buffers (the
 * offsets cycle through the allocation as nccl-tests' do): the timed data are
 * not checked, and the data a ring moves never steers it.  Round trip
 * (run() with n = 1, rank.c's rt timing, checks, delays): pcclRun, then
 * pcclWait in the rank thread, on copy 0.
 * Depth > 1 multiplies the connector memory the large sizes need: the GPU
 * build then asks for depth x 1 GiB of arena unless PCCL_ARENA_BYTES is set.
 * Backend: GPU in the GPU build, host in the host build, whatever PCCL_BACKEND
 * says (the buffers are of that kind); the other PCCL_* knobs apply. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf.h"
#include "../calls.h"

/* Copies of each size: --pccl-depth where b2b timing runs in the benchmark
 * and in --overlap. */
static int copies(const perf_opts *o)
{
    int bench = !(o->ndelays || o->interfere || o->split) || o->overlap;
    return bench && (o->timings >> PERF_TIMING_B2B & 1u) ? o->pccl_depth : 1;
}

static pcclConfig_t config(const perf_opts *o)
{
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    if (o->split) cfg.profile = 1; /* else PCCL_PROFILE decides */
#ifdef PERF_HAVE_CUDA
    cfg.backend = PCCL_BACKEND_GPU;
    if (copies(o) > 1 && !getenv("PCCL_ARENA_BYTES")) cfg.arenaBytes = (long)copies(o) << 30;
#else
    cfg.backend = PCCL_BACKEND_HOST;
#endif
    return cfg;
}

static void fail(perf_rank *R, const char *call, const perf_case *k, pcclResult_t r)
{
    char d[160] = "";
    if (k) ck_describe(&k->c, d, sizeof d);
    perf_fatal(PERF_EXIT_ERROR, "rank %d: %s%s%s: %s (%s)", R->rank, call, k ? " " : "", d, pcclGetErrorString(r),
               pcclGetLastError(R->pcomm));
}

static int p_test_begin(perf_rank *R, const perf_case *cases, int ncases)
{
    perf_team *T = R->T;
    perf_barrier(R);
    if (T->o->share_gpu) { /* ranks sharing GPUs: pcclCommInitAll refuses a device twice */
        pcclConfig_t cfg = config(T->o);
        if (R->rank == 0 && pcclGetUniqueId(&T->pid) != pcclSuccess)
            perf_fatal(PERF_EXIT_ERROR, "pcclGetUniqueId: %s", pcclGetLastError(NULL));
        perf_barrier(R);
        pcclResult_t res = pcclCommInitRankConfig(&T->pcomm[R->rank], T->nranks, T->pid, R->rank, &cfg);
        if (res != pcclSuccess)
            perf_fatal(PERF_EXIT_ERROR, "rank %d: pcclCommInitRankConfig (%d ranks on GPU 0): %s (%s)", R->rank,
                       T->nranks, pcclGetErrorString(res), pcclGetLastError(NULL));
    } else if (R->rank == 0) {
        int devs[PERF_MAX_RANKS];
        for (int r = 0; r < T->nranks; r++) devs[r] = T->rank[r].dev;
        pcclConfig_t cfg = config(T->o);
        pcclResult_t res = pcclCommInitAllConfig(T->pcomm, T->nranks, devs, &cfg);
        if (res != pcclSuccess)
            perf_fatal(PERF_EXIT_ERROR, "pcclCommInitAllConfig (%d ranks): %s (%s)", T->nranks,
                       pcclGetErrorString(res), pcclGetLastError(NULL));
    }
    perf_barrier(R);
    R->pcomm = T->pcomm[R->rank];
    memset(&R->slice0, 0, sizeof R->slice0);
    memset(&R->size0, 0, sizeof R->size0);
    dev_set(R->dev); /* pcclCommInitAll may have moved rank 0's thread */
    int d = copies(T->o);
    for (int i = 0; i < ncases; i++)
        for (int j = 0; j < d; j++) {
            int id = -1;
            pcclResult_t res = dr_pccl_register(R->pcomm, &cases[i].c, &id);
            if (res != pcclSuccess) fail(R, "registration", &cases[i], res);
            R->pccl_id[cases[i].size_idx * d + j] = id;
        }
    perf_barrier(R);
    for (int i = 0; i < ncases; i++)
        for (int j = 0; j < d; j++) {
            int s = cases[i].size_idx * d + j;
            if (R->pccl_id[s] != T->rank[0].pccl_id[s])
                perf_fatal(PERF_EXIT_ERROR, "rank %d: collective id %d, rank 0 has %d", R->rank, R->pccl_id[s],
                           T->rank[0].pccl_id[s]);
        }
    return 0;
}

/* Where the relaunches after pccl's time slice went (issue 22's cost): the
 * split of those counted in s less those in s0; nothing without any. */
static void slice_print(const pcclSliceStats_t *s, const pcclSliceStats_t *s0, const char *what, int rank)
{
    uint64_t k = s->relaunches - s0->relaunches;
    if (!k) return;
    double n = (double)k * 1e3;
#define D(f) ((double)(s->f - s0->f) / n)
    printf("# pccl rank %d%s: %llu relaunches after a slice; per relaunch (us): late %.1f, drain %.1f, block idle "
           "%.1f, dead %.1f, start spread %.1f, refill %.1f (first pick %.1f) (GPU clock); host: end seen to relaunch "
           "%.1f, launch call %.1f; GPU time lost ~ block idle + dead + refill = %.1f; no step %llu; on the grid %llu; "
           "queued ahead %llu; clock offset %.3f ms\n",
           rank, what, (unsigned long long)k, D(lateNs), D(drainNs), D(blockIdleNs), D(deadNs), D(startNs),
           D(refillNs), D(pickNs), D(gapNs), D(launchNs), D(blockIdleNs) + D(deadNs) + D(refillNs),
           (unsigned long long)(s->noStep - s0->noStep), (unsigned long long)(s->aligned - s0->aligned),
           (unsigned long long)(s->ahead - s0->ahead), s->clockOffsetNs / 1e6);
#undef D
    fflush(stdout);
}

/* The whole test's, at its end. */
static void slice_report(pcclComm_t c, int rank)
{
    pcclSliceStats_t s, zero;
    memset(&zero, 0, sizeof zero);
    if (pcclCommGetSliceStats(c, &s) == pcclSuccess) slice_print(&s, &zero, "", rank);
}

/* The daemon's scheduling counters over one size (s less s0): how often
 * its blocks left a collective before it completed (preemptions, crossed
 * waits among them) and how they fetched ahead, beside the launches. */
static void sched_print(const pcclStats_t *s, const pcclStats_t *s0, const char *what, int rank)
{
#define D(f) ((unsigned long long)(s->f - s0->f))
    if (!D(completed)) return;
    printf("# pccl rank %d%s: %llu completed, %llu preemptions (%llu crossed), %llu launches, %llu cut by the slice, "
           "%llu looked ahead, %llu fetched while waiting; per completion and block %.2f preemptions\n",
           rank, what, D(completed), D(preemptions), D(crossed), D(launches), D(slices), D(lookAheads), D(waitFetches),
           s->blocks ? (double)D(preemptions) / (double)D(completed) / s->blocks : 0.0);
#undef D
    fflush(stdout);
}

/* After each size: the relaunch split and the scheduling counters, per rank. */
void perf_pccl_size_report(perf_team *T, const perf_case *k)
{
    char what[64];
    snprintf(what, sizeof what, " at %zu B", (size_t)k->bytes);
    for (int r = 0; r < T->nranks; r++) {
        perf_rank *X = &T->rank[r];
        pcclSliceStats_t s;
        pcclStats_t st;
        if (!X->pcomm) continue;
        if (pcclCommGetSliceStats(X->pcomm, &s) == pcclSuccess) {
            if (s.relaunches < X->slice0.relaunches) memset(&X->slice0, 0, sizeof X->slice0); /* a new communicator */
            slice_print(&s, &X->slice0, what, r);
            X->slice0 = s;
        }
        if (pcclCommGetStats(X->pcomm, &st) == pcclSuccess) {
            if (st.completed < X->size0.completed) memset(&X->size0, 0, sizeof X->size0);
            sched_print(&st, &X->size0, what, r);
            X->size0 = st;
        }
    }
}

static int p_test_end(perf_rank *R)
{
    perf_team *T = R->T;
    perf_barrier(R);
    if (R->rank == 0)
        for (int r = 0; r < T->nranks; r++) {
            pcclComm_t c = T->pcomm[r];
            slice_report(c, r);
            T->pcomm[r] = NULL; /* the watchdog's abort must not see it any more */
            pcclResult_t res = pcclCommDestroy(c);
            if (res != pcclSuccess)
                perf_fatal(PERF_EXIT_ERROR, "pcclCommDestroy (rank %d): %s (%s)", r, pcclGetErrorString(res),
                           pcclGetLastError(NULL));
        }
    perf_barrier(R);
    R->pcomm = NULL;
    dev_set(R->dev);
    return 0;
}

static void ptrs(perf_rank *R, const perf_case *k, int inplace, int iter, void **s, void **r)
{
    perf_ptrs(k, R->rank, R->send, R->recv, R->T->alloc, inplace, iter, s, r);
}

/* On pccl's poller thread: the previous iteration completed; issue the next. */
static void chain_cb(int id, pcclResult_t status, void *arg)
{
    perf_chain *ch = arg;
    perf_rank *R = ch->R;
    perf_times_add(R); /* one poller thread per rank */
    perf_wd_progress();
    if (status != pcclSuccess) {
        if (!ch->status) ch->status = status;
        return;
    }
    if (ch->next >= ch->end || perf_aborting()) return;
    void *s, *r;
    ptrs(ch->R, ch->k, ch->inplace, ch->next, &s, &r);
    ch->next += ch->step;
    pcclResult_t res = pcclRun(ch->R->pcomm, id, s, r, chain_cb, ch);
    if (res != pcclSuccess && !ch->status) ch->status = res;
}

/* Copy 0 of case k: the one every waited-for invocation uses. */
static int id0(const perf_rank *R, const perf_case *k) { return R->pccl_id[k->size_idx * copies(R->T->o)]; }

/* Back to back: min(depth, n) chains, copy j from iteration iter0 + j. */
static void run_chains(perf_rank *R, const perf_case *k, int inplace, int iter0, int n)
{
    int d = copies(R->T->o), nch = n < d ? n : d;
    perf_times_begin(R, n);
    perf_wd_arm();
    for (int j = 0; j < nch; j++) {
        perf_chain *ch = &R->chain[j];
        ch->R = R;
        ch->id = R->pccl_id[k->size_idx * d + j];
        ch->k = k;
        ch->inplace = inplace;
        ch->next = iter0 + j + nch;
        ch->step = nch;
        ch->end = iter0 + n;
        ch->status = pcclSuccess;
    }
    for (int j = 0; j < nch; j++) {
        void *s, *r;
        ptrs(R, k, inplace, iter0 + j, &s, &r);
        pcclResult_t res = pcclRun(R->pcomm, R->chain[j].id, s, r, chain_cb, &R->chain[j]);
        if (res != pcclSuccess) fail(R, "pcclRun", k, res);
    }
    /* pcclWait returns when the copy's last invocation completed: every
     * callback but the last issued another before returning */
    for (int j = 0; j < nch; j++) {
        perf_chain *ch = &R->chain[j];
        pcclResult_t res = pcclWait(R->pcomm, ch->id);
        if (res == pcclSuccess) res = (pcclResult_t)ch->status;
        if (res == pcclSuccess && ch->next < ch->end) res = pcclInternalError;
        if (res != pcclSuccess) fail(R, "chained iterations of", k, res);
    }
    perf_wd_disarm();
    perf_times_end(R, k, inplace, PERF_TIMING_B2B, PERF_LIB_PCCL);
}

static int p_run(perf_rank *R, const perf_case *k, int inplace, int iter0, int n)
{
    if (n > 1) {
        run_chains(R, k, inplace, iter0, n);
        return 0;
    }
    void *s, *r;
    ptrs(R, k, inplace, iter0, &s, &r);
    if (R->rt_timed && iter0 == 0) perf_times_begin(R, k->iters);
    perf_wd_arm();
    pcclResult_t res = pcclRun(R->pcomm, id0(R, k), s, r, NULL, NULL);
    if (res != pcclSuccess) fail(R, "pcclRun", k, res);
    res = pcclWait(R->pcomm, id0(R, k));
    perf_wd_disarm();
    if (res != pcclSuccess) fail(R, "pcclWait", k, res);
    perf_wd_progress();
    if (R->rt_timed) { /* the wait's return: each round trip's end, as the rank thread sees it */
        perf_times_add(R);
        if (iter0 == k->iters - 1) perf_times_end(R, k, inplace, PERF_TIMING_RT, PERF_LIB_PCCL);
    }
    return 0;
}

/* The daemon quits within PCCL_QUIT_US once idle; wait for that, so that it
 * does not spin on the GPU while NCCL is timed. */
static int p_quiesce(perf_rank *R)
{
    pcclResult_t res = pcclDeviceSynchronize(R->pcomm);
    if (res != pcclSuccess) fail(R, "pcclDeviceSynchronize", NULL, res);
    return 0;
}

static void p_counters(perf_rank *R, pcclStats_t *st)
{
    memset(st, 0, sizeof *st);
    pcclCommGetStats(R->pcomm, st);
    if (st->blocks < 1) st->blocks = 1;
}

int perf_pccl_block_counters(perf_rank *R, pcclStats_t *st, int max)
{
    pcclStats_t all;
    if (pcclCommGetStats(R->pcomm, &all) != pcclSuccess) return 0;
    int n = all.blocks < max ? all.blocks : max;
    for (int b = 0; b < n; b++)
        if (pcclCommGetBlockStats(R->pcomm, b, &st[b]) != pcclSuccess) memset(&st[b], 0, sizeof st[b]);
    return n;
}

void perf_pccl_submit(perf_rank *R, const perf_case *k)
{
    void *s, *r;
    ptrs(R, k, 0, 0, &s, &r);
    pcclResult_t res = pcclRun(R->pcomm, id0(R, k), s, r, NULL, NULL);
    if (res != pcclSuccess) fail(R, "pcclRun", k, res);
}

void perf_pccl_wait(perf_rank *R, const perf_case *k)
{
    perf_wd_arm();
    pcclResult_t res = pcclWait(R->pcomm, id0(R, k));
    perf_wd_disarm();
    if (res != pcclSuccess) fail(R, "pcclWait", k, res);
    perf_wd_progress();
}

static void p_abort_all(perf_team *T)
{
    for (int r = 0; r < T->nranks; r++) {
        pcclComm_t c = T->pcomm[r];
        T->pcomm[r] = NULL;
        if (c) pcclCommAbort(c); /* a destroyed one is recognised, not dereferenced */
    }
}

static const char *p_version(void)
{
    static char v[32];
    int x = 0;
    pcclGetVersion(&x);
    snprintf(v, sizeof v, "pccl %d.%d.%d", x / 10000, x / 100 % 100, x % 100);
    return v;
}

static int p_setup(perf_team *T) { return 0; }
static void p_teardown(perf_team *T) {}

const perf_lib perf_lib_pccl = {
    "pccl", 1, p_setup, p_teardown, p_test_begin, p_test_end, p_run, p_quiesce, p_counters, p_abort_all, p_version,
};
