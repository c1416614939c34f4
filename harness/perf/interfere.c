/* interfere.c: --interfere, paper 004's measurement (Sec. II-C): the slowdown
 * a compute kernel suffers while collectives run concurrently on the same
 * GPUs, here NCCL's kernels against pccl's daemon, which spins polling while
 * collectives are queued and quits after PCCL_QUIT_US with nothing to do.
 *
 * Every GPU runs K launches of the compute kernel (compute.h: gemm or stream)
 * on its own non-blocking stream, from a helper thread of its rank (launches
 * may block once the launch queue is full; the rank thread must stay free to
 * issue collectives), timed by two CUDA events around the K launches.  The
 * scenarios, in this order, each with every rank thread starting its kernels
 * after one barrier:
 *   alone        the kernels, nothing else: the reference;
 *   nccl, pccl   the kernels while every rank issues case k (out of place)
 *                back to back until every GPU's kernels finished;
 *   pccl-stuck   rank 0 alone invokes case k once with pccl, which cannot
 *                progress before the others invoke it too: rank 0's daemon
 *                spins, preempts, quits after PCCL_QUIT_US and is relaunched
 *                with a growing delay, for as long as the kernels run; then
 *                the others invoke it and it completes (GPU 0's slowdown is
 *                the figure; the other GPUs, without a daemon, are a control);
 *   alone-again  the kernels alone once more: the noise of the reference.
 * Before them, each library alone runs the same collective loop without the
 * kernels for PERF_INTERFERE_BASE_S: its busbw, against which the concurrent busbw
 * is compared.  Every batch of collectives starts at iteration 0, whose
 * buffers hold the checked inputs (out of place: they stay), so the output
 * checked after a loop is its last batch's first collective's; sampled
 * outputs of every compute run are checked too.
 *
 * Stopping: ranks must issue the same collectives, or the ones that stopped
 * would leave their peers in a collective for ever.  So collectives go in
 * batches of PERF_INTERFERE_BATCH (back to back: NCCL's on the stream, pccl's
 * chained by the completion callback), and after each batch every rank posts
 * whether its kernels finished, meets the others in a barrier, and all stop
 * when all finished: at most one batch runs after the last kernel. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define INTERFERE_MAX_K 10000000L
#define CALIBRATE_GEMM 5       /* launches timed to choose K (about 20 ms alone) */
#define CALIBRATE_STREAM 50

static int lib_on(const perf_team *T, int l) { return (T->o->libs >> l) & 1u; }

/* ---- the compute kernels on a helper thread ------------------------------------- */

typedef struct {
    perf_compute *c;
    long k;
    double ms;
    double wall;    /* seconds from job_start to the last launch's end */
    double t0;
    atomic_int done;
    pthread_t th;
    char err[256];
} compute_job;

static void *job_main(void *arg)
{
    compute_job *j = arg;
    j->ms = perf_compute_run(j->c, j->k, j->err, sizeof j->err);
    j->wall = perf_now() - j->t0;
    atomic_store(&j->done, 1);
    return NULL;
}

static void job_start(perf_rank *R, compute_job *j)
{
    j->c = R->compute;
    j->k = R->T->interfere_k;
    j->ms = -1;
    j->err[0] = 0;
    j->t0 = perf_now();
    atomic_store(&j->done, 0);
    if (pthread_create(&j->th, NULL, job_main, j))
        perf_fatal(PERF_EXIT_ERROR, "rank %d: cannot start the compute thread", R->rank);
}

/* Joins the helper thread: R->cms, and R->cwrong from sampled outputs. */
static void job_finish(perf_rank *R, compute_job *j)
{
    pthread_join(j->th, NULL);
    if (j->ms < 0) perf_fatal(PERF_EXIT_ERROR, "rank %d: %s", R->rank, j->err);
    R->cms = j->ms;
    R->cwrong = perf_compute_check(R->compute, R->cmsg, sizeof R->cmsg);
    if (R->cwrong < 0) perf_fatal(PERF_EXIT_ERROR, "rank %d: %s", R->rank, R->cmsg);
}

/* Creates the kernel's buffers, warms it up, times a few launches; rank 0
 * chooses K (--interfere-k, or about PERF_INTERFERE_TARGET_S on the slowest GPU). */
static void setup_compute(perf_rank *R)
{
    perf_team *T = R->T;
    const perf_opts *o = T->o;
    char err[256];
    perf_set_where(R->rank, "--interfere: compute kernel setup");
    long n = o->interfere_n;
    R->compute = perf_compute_create(o->interfere, n, err, sizeof err);
    if (!R->compute) perf_fatal(PERF_EXIT_ERROR, "rank %d: %s", R->rank, err);
    /* a first launch loads the module and brings the clocks up; without
     * --interfere-k, a few more are timed to choose K */
    long cal = o->interfere_k ? 0 : o->interfere == PERF_KERNEL_GEMM ? CALIBRATE_GEMM : CALIBRATE_STREAM;
    double ms = perf_compute_run(R->compute, 1, err, sizeof err);
    if (ms >= 0 && cal) ms = perf_compute_run(R->compute, cal, err, sizeof err);
    if (ms < 0) perf_fatal(PERF_EXIT_ERROR, "rank %d: %s", R->rank, err);
    R->cms = cal ? ms / (double)cal : ms;
    perf_barrier(R);
    if (R->rank == 0) {
        long k = o->interfere_k;
        if (!k) {
            double worst = 0;
            for (int r = 0; r < T->nranks; r++) worst = fmax(worst, T->rank[r].cms);
            double want = ceil(PERF_INTERFERE_TARGET_S * 1e3 / fmax(worst, 1e-6));
            k = want > (double)INTERFERE_MAX_K ? INTERFERE_MAX_K : want < 1 ? 1 : (long)want;
        }
        T->interfere_k = k;
        perf_compute_describe(R->compute, T->ifr_kernel, sizeof T->ifr_kernel);
    }
    perf_barrier(R);
}

/* ---- collectives ---------------------------------------------------------------- */

static void load_inputs(perf_rank *R, const perf_case *k)
{
    if (R->T->o->check) perf_data_load(R, k, 0);
}

static void verify(perf_rank *R, const perf_case *k, int lib)
{
    R->wrong = 0;
    if (!R->T->o->check) return;
    perf_plant_wrong(R, k, lib, 0);
    R->wrong = perf_data_verify(R, k, 0);
}

/* Rank 0, after a barrier: the ranks' wrong elements (-1: not checked), each
 * rank's first mismatch on stderr; the compute kernels' wrong samples too. */
static long long tally(perf_team *T, const char *scenario)
{
    long long w = 0;
    for (int r = 0; r < T->nranks; r++) {
        perf_rank *X = &T->rank[r];
        if (X->wrong) {
            w += X->wrong;
            fflush(stdout);
            fprintf(stderr, "# wrong data (%s): %s\n", scenario, X->msg);
        }
        if (X->cwrong) {
            T->wrong_total += X->cwrong;
            fflush(stdout);
            fprintf(stderr, "# wrong compute result (%s, GPU %d): %s\n", scenario, r, X->cmsg);
            X->cwrong = 0; /* counted once: the rank writes it again after the next barrier */
        }
    }
    return T->o->check ? w : -1;
}

typedef int (*stop_fn)(void *arg);

static int stop_after_base(void *arg) { return perf_now() - *(const double *)arg >= PERF_INTERFERE_BASE_S; }
static int stop_after_job(void *arg) { return atomic_load(&((compute_job *)arg)->done); }

/* Case k out of place, in batches, until every rank's stop(arg) holds after
 * the same batch (see the top of the file).  The verdicts alternate between
 * two slots: a rank writes a slot again only after the next barrier, which
 * every rank reaches after reading it; the barrier at the end does the same
 * for the next call.  Returns the collectives issued; R->sec: from t0 to the
 * completion of this rank's last batch. */
static long long coll_loop(perf_rank *R, const perf_lib *L, const perf_case *k, stop_fn stop, void *arg, double t0)
{
    perf_team *T = R->T;
    int batch = T->o->blocking ? 1 : PERF_INTERFERE_BATCH;
    long long n = 0;
    for (int b = 0;; b ^= 1) {
        L->run(R, k, 0, 0, batch);
        n += batch;
        R->sec = perf_now() - t0;
        T->ifr_done[b][R->rank] = stop(arg);
        perf_barrier(R);
        int all = 1;
        for (int r = 0; r < T->nranks; r++) all &= T->ifr_done[b][r];
        if (all) break;
    }
    perf_barrier(R);
    return n;
}

/* Rank 0: mean of the ranks' loop seconds, and the busbw of n collectives in them. */
static double loop_busbw(const perf_team *T, const perf_case *k, long long n, double *mean_s)
{
    double s = 0;
    for (int r = 0; r < T->nranks; r++) s += T->rank[r].sec;
    s /= T->nranks;
    if (mean_s) *mean_s = s;
    return s > 0 ? (double)n * (double)k->bytes / 1e9 / s * perf_busbw_factor(k->t.coll, T->nranks) : 0;
}

/* Each library alone: warm-up, then the loop for PERF_INTERFERE_BASE_S. */
static void baseline(perf_rank *R, const perf_case *k, int l)
{
    perf_team *T = R->T;
    const perf_lib *L = perf_lib_get(l);
    perf_set_where(R->rank, "--interfere: the library alone");
    if (k->warmup) L->run(R, k, 0, 0, k->warmup);
    load_inputs(R, k);
    perf_barrier(R);
    double t0 = perf_now();
    R->iters = coll_loop(R, L, k, stop_after_base, &t0, t0);
    verify(R, k, l);
    L->quiesce(R);
    perf_barrier(R);
    if (R->rank == 0) {
        double mean_s;
        T->ifr_bw_alone[l] = loop_busbw(T, k, T->rank[0].iters, &mean_s);
        T->ifr_coll_s[l] = mean_s / (double)T->rank[0].iters;
        long long w = tally(T, l == PERF_LIB_NCCL ? "nccl alone" : "pccl alone");
        if (w > 0) T->wrong_total += w;
    }
    perf_barrier(R);
}

/* ---- scenarios --------------------------------------------------------------------- */

/* Rank 0: a row with the compute figures of every GPU (gpu0: GPU 0's only). */
static perf_irow compute_row(perf_team *T, const char *scenario, int lib, int gpu0)
{
    perf_irow x;
    memset(&x, 0, sizeof x);
    x.scenario = scenario;
    x.lib = lib;
    x.gpu0_only = gpu0;
    int n = gpu0 ? 1 : T->nranks;
    for (int r = 0; r < n; r++) {
        x.ms_mean += T->rank[r].cms / n;
        x.ms_alone += T->rank[r].cms_alone / n;
        x.ms_max = fmax(x.ms_max, T->rank[r].cms);
    }
    x.slowdown_pct = x.ms_alone > 0 ? (x.ms_mean / x.ms_alone - 1) * 100 : NAN;
    double scale = T->o->interfere == PERF_KERNEL_GEMM ? 1e12 : 1e9; /* TFLOP/s, GB/s */
    x.rate = x.ms_mean > 0 ? perf_compute_work(T->rank[0].compute) * (double)T->interfere_k / (x.ms_mean / 1e3) / scale
                           : NAN;
    x.colls = -1;
    x.window_ms = x.busbw = x.busbw_alone = x.bw_ratio = NAN;
    x.wrong = -1;
    x.preempt = x.quits = x.launches = -1;
    x.release_ms = x.others_pct = NAN;
    return x;
}

/* Rank 0: pccl's counters over the scenario, per GPU (ranks [r0, r1)).  The
 * quit that quiesce waited for is not counted. */
static void counters_row(perf_team *T, perf_irow *x, int r0, int r1)
{
    double p = 0, q = 0, l = 0;
    for (int r = r0; r < r1; r++) {
        const perf_rank *X = &T->rank[r];
        uint64_t dq = X->st1.quits - X->st0.quits;
        p += (double)(X->st1.preemptions - X->st0.preemptions);
        q += (double)(dq > 0 ? dq - 1 : 0);
        l += (double)(X->st1.launches - X->st0.launches);
    }
    x->preempt = p / (r1 - r0);
    x->quits = q / (r1 - r0);
    x->launches = l / (r1 - r0);
}

static void scenario_alone(perf_rank *R, const perf_case *k, const char *name, int first)
{
    perf_team *T = R->T;
    compute_job j;
    perf_set_where(R->rank, "--interfere: compute kernel alone");
    perf_barrier(R);
    job_start(R, &j);
    job_finish(R, &j);
    R->wrong = 0;
    if (first) R->cms_alone = R->cms;
    perf_barrier(R);
    if (R->rank == 0) {
        tally(T, name);
        perf_irow x = compute_row(T, name, -1, 0);
        perf_report_interfere(T, k, &x);
    }
    perf_barrier(R);
}

static void scenario_lib(perf_rank *R, const perf_case *k, int l)
{
    perf_team *T = R->T;
    const perf_lib *L = perf_lib_get(l);
    const char *name = l == PERF_LIB_NCCL ? "nccl" : "pccl";
    perf_set_where(R->rank, l == PERF_LIB_NCCL ? "--interfere: NCCL with the compute kernel"
                                               : "--interfere: pccl with the compute kernel");
    load_inputs(R, k);
    L->quiesce(R); /* pccl adds a daemon's counters when it quits */
    if (L->counters) L->counters(R, &R->st0);
    compute_job j;
    perf_barrier(R);
    double t0 = perf_now();
    job_start(R, &j);
    R->iters = coll_loop(R, L, k, stop_after_job, &j, t0);
    job_finish(R, &j);
    verify(R, k, l);
    L->quiesce(R);
    if (L->counters) L->counters(R, &R->st1);
    perf_barrier(R);
    if (R->rank == 0) {
        perf_irow x = compute_row(T, name, l, 0);
        x.colls = T->rank[0].iters;
        x.busbw = loop_busbw(T, k, x.colls, &x.window_ms);
        x.window_ms *= 1e3;
        x.busbw_alone = T->ifr_bw_alone[l];
        x.bw_ratio = x.busbw_alone > 0 ? x.busbw / x.busbw_alone : NAN;
        x.wrong = tally(T, name);
        if (L->counters) counters_row(T, &x, 0, T->nranks);
        perf_report_interfere(T, k, &x);
    }
    perf_barrier(R);
}

/* Rank 0 invokes case k with pccl while every GPU computes; the others only
 * once every kernel finished (a barrier), then all wait for it. */
static void scenario_stuck(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    const perf_lib *L = &perf_lib_pccl;
    perf_set_where(R->rank, R->rank ? "--interfere: pccl-stuck, computing (not invoking)"
                                    : "--interfere: pccl-stuck, computing with a collective stuck");
    load_inputs(R, k);
    L->quiesce(R);
    L->counters(R, &R->st0);
    compute_job j;
    perf_barrier(R);
    if (R->rank == 0) perf_pccl_submit(R, k);
    job_start(R, &j);
    job_finish(R, &j);
    perf_barrier(R); /* every kernel finished: now the others join */
    perf_set_where(R->rank, "--interfere: pccl-stuck, completing the collective");
    double t1 = perf_now();
    if (R->rank) perf_pccl_submit(R, k);
    perf_pccl_wait(R, k);
    R->sec = perf_now() - t1;
    R->iters = 1;
    verify(R, k, PERF_LIB_PCCL);
    L->quiesce(R);
    L->counters(R, &R->st1);
    perf_barrier(R);
    if (R->rank == 0) {
        perf_irow x = compute_row(T, "pccl-stuck", PERF_LIB_PCCL, 1);
        x.colls = 1;
        x.wrong = tally(T, "pccl-stuck");
        x.release_ms = T->rank[0].sec * 1e3;
        double m = 0, a = 0;
        for (int r = 1; r < T->nranks; r++) {
            m += T->rank[r].cms;
            a += T->rank[r].cms_alone;
        }
        x.others_pct = a > 0 ? (m / a - 1) * 100 : NAN;
        counters_row(T, &x, 0, 1);
        perf_report_interfere(T, k, &x);
        char others[32];
        if (T->nranks == 2) snprintf(others, sizeof others, "GPU 1");
        else snprintf(others, sizeof others, "GPUs 1-%d", T->nranks - 1);
        perf_report_interfere_note(T, "pccl-stuck: the row is GPU 0's; %s (no daemon): %+.2f%%; the collective "
                                      "completed %.2f ms after the others invoked it",
                                   others, x.others_pct, x.release_ms);
    }
    perf_barrier(R);
}

/* ---- --overlap: the same fixed work with each library ------------------------------ */

/* Rank 0, after a barrier: the slowest rank's R->sec, in ms. */
static double slowest_ms(const perf_team *T)
{
    double x = 0;
    for (int r = 0; r < T->nranks; r++) x = fmax(x, T->rank[r].sec);
    return x * 1e3;
}

static double mean_cms(const perf_team *T)
{
    double x = 0;
    for (int r = 0; r < T->nranks; r++) x += T->rank[r].cms / T->nranks;
    return x;
}

/* The compute alone (R->sec: its wall time; R->cms: its events); rank 0
 * then chooses M, the same for both libraries. */
static void overlap_alone(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    compute_job j;
    perf_set_where(R->rank, "--overlap: compute kernel alone");
    perf_barrier(R);
    job_start(R, &j);
    job_finish(R, &j);
    R->sec = j.wall;
    R->wrong = 0;
    perf_barrier(R);
    if (R->rank == 0) {
        T->ovl_alone_ms = slowest_ms(T);
        long m = T->o->overlap_colls;
        int l = lib_on(T, PERF_LIB_NCCL) ? PERF_LIB_NCCL : PERF_LIB_PCCL;
        if (!m) {
            double want = ceil(T->ovl_alone_ms / 1e3 / fmax(T->ifr_coll_s[l], 1e-9));
            m = want > (double)INTERFERE_MAX_K ? INTERFERE_MAX_K : want < 1 ? 1 : (long)want;
        }
        T->overlap_m = m;
        perf_report_overlap_begin(T, k);
        perf_orow x = {"alone", -1, -1, 0, mean_cms(T), NAN, T->ovl_alone_ms, 1, NAN, NAN, NAN, tally(T, "alone")};
        perf_report_overlap(T, k, &x);
    }
    perf_barrier(R);
}

/* M collectives back to back (as the benchmark's b2b), with the K launches
 * (with_compute) or alone; R->sec: the makespan, R->iters unused. */
static void overlap_lib(perf_rank *R, const perf_case *k, int l, int with_compute)
{
    perf_team *T = R->T;
    const perf_lib *L = perf_lib_get(l);
    perf_set_where(R->rank, with_compute ? "--overlap: collectives with the compute kernel"
                                         : "--overlap: collectives alone");
    load_inputs(R, k);
    L->quiesce(R);
    pcclStats_t st = {0};
    if (L->counters) L->counters(R, &st);
    compute_job j;
    perf_barrier(R);
    double t0 = perf_now();
    if (with_compute) job_start(R, &j);
    L->run(R, k, 0, 0, (int)T->overlap_m);
    double colls = perf_now() - t0;
    R->cms = NAN;
    R->sec = colls;
    if (with_compute) {
        job_finish(R, &j);
        R->sec = fmax(colls, j.t0 + j.wall - t0);
    }
    verify(R, k, l);
    L->quiesce(R);
    double cs = colls;
    perf_barrier(R);
    double make = slowest_ms(T); /* every rank reads the makespans before any writes R->sec again */
    perf_barrier(R);
    R->sec = cs;
    perf_barrier(R);
    if (R->rank == 0) {
        double cms = slowest_ms(T);
        char name[64];
        snprintf(name, sizeof name, "%s%s", L->name, with_compute ? "+kernel" : "-alone");
        perf_orow x = {NULL, l, L->counters ? st.blocks : -1, T->overlap_m, with_compute ? mean_cms(T) : NAN, cms,
                       make, NAN, NAN, NAN, NAN, tally(T, name)};
        x.scenario = with_compute ? (l == PERF_LIB_NCCL ? "nccl+kernel" : "pccl+kernel")
                                  : (l == PERF_LIB_NCCL ? "nccl-alone" : "pccl-alone");
        if (!with_compute) T->ovl_colls_ms[l] = make;
        double a = T->ovl_alone_ms, c = T->ovl_colls_ms[l];
        x.vs_compute = make / a;
        x.vs_colls = make / c;
        if (with_compute) {
            x.vs_serial = make / (a + c);
            x.vs_ideal = make / fmax(a, c);
        }
        perf_report_overlap(T, k, &x);
    }
    perf_barrier(R);
}

/* --overlap: baselines (each library's time per collective, for M), the
 * compute alone, then per library its M collectives alone and with the
 * compute. */
static void overlap_run(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    for (int l = 0; l < PERF_NLIBS; l++)
        if (lib_on(T, l)) baseline(R, k, l);
    overlap_alone(R, k);
    for (int l = 0; l < PERF_NLIBS; l++)
        if (lib_on(T, l)) {
            overlap_lib(R, k, l, 0);
            overlap_lib(R, k, l, 1);
        }
}

void perf_interfere_run(perf_rank *R, const perf_case *k)
{
    perf_team *T = R->T;
    setup_compute(R);
    if (T->o->check) {
        perf_set_where(R->rank, "making inputs and reference");
        perf_data_prepare(R, k, T->o->seed);
        perf_barrier(R);
    }
    if (T->o->overlap) {
        overlap_run(R, k);
        perf_barrier(R);
        perf_compute_free(R->compute);
        R->compute = NULL;
        return;
    }
    for (int l = 0; l < PERF_NLIBS; l++)
        if (lib_on(T, l)) baseline(R, k, l);
    if (R->rank == 0) perf_report_interfere_begin(T, k);
    scenario_alone(R, k, "alone", 1);
    for (int l = 0; l < PERF_NLIBS; l++)
        if (lib_on(T, l)) scenario_lib(R, k, l);
    if (lib_on(T, PERF_LIB_PCCL)) {
        if (T->nranks > 1) scenario_stuck(R, k);
        else if (R->rank == 0) perf_report_interfere_note(T, "pccl-stuck: skipped (needs 2 ranks or more)");
    }
    scenario_alone(R, k, "alone-again", 0);
    perf_barrier(R);
    perf_compute_free(R->compute);
    R->compute = NULL;
}
