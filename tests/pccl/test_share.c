/* Sharing the GPU (issue 22, host edition): a device synchronization issued
 * while another thread streams collectives returns within the time slice
 * (PCCL_SLICE_US) plus scheduling noise, not when the stream happens to
 * pause; collectives cut by slices, in chaos mode too, stay exact.
 *
 * Without the slice (PCCL_SLICE_US=0) the first test fails: on one
 * emulated GPU with 64 Ki-float all-reduces streamed back to back,
 * pcclDeviceSynchronize took 0.2 to 10 s (issue 22). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "../../lib/host/host.h" /* the scheduler's decisions, called directly below */

#define SLICE_US 2000
/* What a synchronization may take beyond the slice: the daemon thread, the
 * poller and this one descheduled on a loaded 2-core machine (at a load of
 * 18, 8 synchronizations took 2 ms at worst in most runs, 0.69 and 1.18 s
 * in two).  Without the slice the stream pauses only by chance: the
 * synchronization waits until then, or until CAP_S; and no launch is ended
 * by a slice, which is asserted too. */
#define MARGIN_S 2.0
/* A synchronization that waited this long pauses the stream (it fails the
 * bound then; without the pause it would wait as long as the stream goes). */
#define CAP_S 5.0
#define MEAN_MARGIN_S 0.008 /* test_cross_rank: the mean's */
#define SAMPLES 8
#define COUNT (64 << 10)

typedef struct {
    pcclComm_t c;
    int id, stop, bad;
    uint64_t done;
    uint64_t sync_us; /* when the running synchronization began (0: none) */
    float *send, *recv;
} streamer;

static void *stream_main(void *p)
{
    streamer *s = p;
    for (uint64_t i = 0; !__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE); i++) {
        uint64_t t0 = __atomic_load_n(&s->sync_us, __ATOMIC_ACQUIRE);
        if (t0 && ck_now() * 1e6 - (double)t0 > CAP_S * 1e6) {
            usleep(1000);
            i--;
            continue;
        }
        s->send[i % COUNT] = (float)i; /* a different input each time */
        if (pcclRun(s->c, s->id, s->send, s->recv, NULL, NULL) || pcclWait(s->c, s->id)) { s->bad++; break; }
        /* one rank: the sum is the input; checked every 8th time, so that the
         * library is busy most of the time (sanitizer builds check slowly) */
        for (size_t k = 0; i % 8 == 0 && k < COUNT; k++)
            if (s->recv[k] != s->send[k]) { s->bad++; break; }
        __atomic_store_n(&s->done, i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* One device synchronization after another while a thread streams
 * collectives: each within `bound_us` (the slice, or the watch's threshold)
 * plus MARGIN_S, their mean within MEAN_MARGIN_S; with the slice alone, the
 * slice ended launches; with the watch alone, the watch asked for every cut.
 * drain: the synchronization holds the emulated context lock while it waits
 * (PCCL_TEST_DRAIN_LOCKS=1), as a lazy module load does, and the launch
 * ahead (PCCL_SLICE_AHEAD_US=100, the default, set whatever the
 * environment says) is asserted: a synchronization made after the
 * relaunch was queued waits for it too, so the bound is two slices; one
 * made before keeps it out (the launch call waits for the lock). */
static void devsync_while_streaming(const char *name, long slice_us, long watch_us, int drain)
{
    pt_begin(name, 120);
    pcclComm_t c;
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.sliceUs = slice_us;
    cfg.watchUs = watch_us;
    cfg.sliceAlign = 0; /* unaligned; the grid is cut_midway's and test_grid_host_clock's */
    if (drain) setenv("PCCL_TEST_DRAIN_LOCKS", "1", 1), setenv("PCCL_SLICE_AHEAD_US", "100", 1);
    int failed = pt_init(&c, 1, &cfg);
    if (drain) unsetenv("PCCL_TEST_DRAIN_LOCKS"), unsetenv("PCCL_SLICE_AHEAD_US");
    if (failed) { pt_end(); return; }
    streamer s = {c, 0, 0, 0, 0, 0, calloc(COUNT, sizeof(float)), calloc(COUNT, sizeof(float))};
    PT_OK(pcclRegisterAllReduce(c, COUNT, pcclFloat, pcclSum, 0, &s.id));
    for (size_t k = 0; k < COUNT; k++) s.send[k] = (float)k;
    pthread_t t;
    PT_CHECK(pthread_create(&t, NULL, stream_main, &s) == 0, "cannot start the streaming thread");
    while (__atomic_load_n(&s.done, __ATOMIC_ACQUIRE) < 3) usleep(1000);
    double worst = 0, sum = 0, bound_s = (slice_us ? slice_us : watch_us) * 1e-6 * (drain ? 2 : 1);
    int streamed = 0;
    for (int i = 0; i < SAMPLES; i++) {
        usleep(3000);
        uint64_t d0 = __atomic_load_n(&s.done, __ATOMIC_ACQUIRE);
        double t0 = ck_now();
        __atomic_store_n(&s.sync_us, (uint64_t)(t0 * 1e6), __ATOMIC_RELEASE);
        PT_OK(pcclDeviceSynchronize(c));
        double dt = ck_now() - t0;
        __atomic_store_n(&s.sync_us, 0, __ATOMIC_RELEASE);
        if (dt > worst) worst = dt;
        sum += dt;
        /* the stream went on meanwhile (reported, not asserted: on a loaded
         * machine a synchronization may fall between two invocations; that
         * launches were cut is asserted below) */
        if (__atomic_load_n(&s.done, __ATOMIC_ACQUIRE) > d0) streamed++;
        ck_watchdog_kick();
    }
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    pcclStats_t st;
    PT_OK(pcclCommGetStats(c, &st));
    pcclSliceStats_t sl; /* unaligned (above): no cut on a grid */
    PT_OK(pcclCommGetSliceStats(c, &sl));
    PT_CHECK(s.bad == 0, "%d wrong results or failed calls while streaming", s.bad);
    PT_CHECK(worst < bound_s + MARGIN_S,
             "pcclDeviceSynchronize took %.3f s while collectives streamed; the bound is %.1f ms + %.2f s", worst,
             bound_s * 1e3, MARGIN_S);
    PT_CHECK(sum / SAMPLES < bound_s + MEAN_MARGIN_S, "the synchronizations took %.1f ms on average; the bound is "
             "%.1f ms + %.0f ms", sum / SAMPLES * 1e3, bound_s * 1e3, MEAN_MARGIN_S * 1e3);
    PT_CHECK(st.slices > 0, "no daemon launch was cut (%llu launches, %llu completed)",
             (unsigned long long)st.launches, (unsigned long long)st.completed);
    PT_CHECK(sl.aligned == 0, "PCCL_SLICE_ALIGN=0, yet %llu cuts on the grid", (unsigned long long)sl.aligned);
    PT_CHECK(sl.watch == (watch_us ? 2 : 0), "the watch is %d (PCCL_WATCH_US=%ld on the host backend)", sl.watch,
             watch_us);
    PT_CHECK(watch_us ? sl.watchAsks > 0 : sl.watchAsks == 0, "PCCL_WATCH_US=%ld, and the watch asked for %llu cuts",
             watch_us, (unsigned long long)sl.watchAsks);
    PT_CHECK(!drain || sl.ahead > 0, "no relaunch was queued ahead (%llu measured)", (unsigned long long)sl.relaunches);
    printf("\n    worst %.1f ms, mean %.2f ms of %d (%d overlapped completions), %llu invocations, "
           "%llu cuts (%llu asked by the watch), %llu launches ",
           worst * 1e3, sum / SAMPLES * 1e3, SAMPLES, streamed, (unsigned long long)st.completed,
           (unsigned long long)st.slices, (unsigned long long)sl.watchAsks, (unsigned long long)st.launches);
    pt_destroy(&c, 1);
    free(s.send);
    free(s.recv);
    pt_end();
}

static void test_devsync_while_streaming(void)
{
    devsync_while_streaming("devsync while streaming, the slice alone", SLICE_US, 0, 0);
}

/* The same with the synchronization holding the context lock while it
 * waits (a lazy module load's way), beside the launch ahead. */
static void test_devsync_drain_locks(void)
{
    devsync_while_streaming("devsync holding the context lock while streaming, the launch ahead", SLICE_US, 0, 1);
}

/* The watch alone (PCCL_SLICE_US=0): the synchronization itself asks for
 * the cut, after WATCH_US. */
#define WATCH_US 500
static void test_devsync_watched(void)
{
    devsync_while_streaming("devsync while streaming, the watch alone", 0, WATCH_US, 0);
}

/* A call that waits for something else than the daemon (here a bracket of
 * pccl_watch_enter/exit around a sleep, as CUPTI brackets a stream
 * synchronization behind a long kernel) gets cuts at its threshold, then at
 * twice its wait so far (pccl_watch_due): about log2(300 ms / 1 ms) + 1 = 9
 * in 300 ms, not one per millisecond. */
static void test_watch_pace(void)
{
    pt_begin("watch pace", 120);
    pcclComm_t c;
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.sliceUs = 0;
    cfg.watchUs = 1000;
    if (pt_init(&c, 1, &cfg)) { pt_end(); return; }
    streamer s = {c, 0, 0, 0, 0, 0, calloc(COUNT, sizeof(float)), calloc(COUNT, sizeof(float))};
    PT_OK(pcclRegisterAllReduce(c, COUNT, pcclFloat, pcclSum, 0, &s.id));
    pthread_t t;
    PT_CHECK(pthread_create(&t, NULL, stream_main, &s) == 0, "cannot start the streaming thread");
    while (__atomic_load_n(&s.done, __ATOMIC_ACQUIRE) < 3) usleep(1000);
    pcclSliceStats_t a, b;
    PT_OK(pcclCommGetSliceStats(c, &a));
    uint64_t d0 = __atomic_load_n(&s.done, __ATOMIC_ACQUIRE);
    pccl_watch_enter();
    usleep(300000);
    pccl_watch_exit();
    PT_OK(pcclCommGetSliceStats(c, &b));
    uint64_t d1 = __atomic_load_n(&s.done, __ATOMIC_ACQUIRE);
    usleep(20000); /* no call waits: no cut asked */
    pcclSliceStats_t e;
    PT_OK(pcclCommGetSliceStats(c, &e));
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    unsigned long long n = (unsigned long long)(b.watchAsks - a.watchAsks);
    PT_CHECK(s.bad == 0, "%d wrong results or failed calls while streaming", s.bad);
    PT_CHECK(n >= 3 && n <= 12, "a 300 ms call with a 1 ms threshold: %llu cuts asked (about 9 expected)", n);
    PT_CHECK(e.watchAsks == b.watchAsks, "%llu cuts asked after the call returned",
             (unsigned long long)(e.watchAsks - b.watchAsks));
    printf("\n    %llu cuts asked in 300 ms, %llu invocations meanwhile ", n, (unsigned long long)(d1 - d0));
    pt_destroy(&c, 1);
    free(s.send);
    free(s.recv);
    pt_end();
}

/* PCCL_SLICE_LOG's file: per rank, one line per relaunch measured
 * (want[r] of them), each with the header's 17 fields and the daemon's
 * stamps in their order (work found <= first pick <= first step), with
 * work outstanding at the relaunch call (queued >= owed, queued >= 1), then
 * the cut launch's deadline: on the grid (aligned[r] of them, as
 * pcclSliceStats_t counts) where it was a grid point told, a whole number
 * of slices (slice_ns) before the one taken; last whether the relaunch was
 * queued ahead (ahead[r] of them), with no gap then. */
static void check_slice_log(const char *path, const unsigned long long *want, const unsigned long long *aligned,
                            const unsigned long long *ahead, int nranks, uint64_t slice_ns)
{
    FILE *f = fopen(path, "r");
    PT_CHECK(f != NULL, "PCCL_SLICE_LOG=%s: no file", path);
    if (!f) return;
    char line[512];
    unsigned long long got[2] = {0, 0}, on[2] = {0, 0}, queued_ahead[2] = {0, 0};
    int headers = 0, bad = 0, with_work = 0, planned = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "rank,", 5)) {
            headers++;
            /* the relaunch's own columns last; sm0: block 0's SM (-1 on the host backend) */
            PT_CHECK(strstr(line, ",sms,sm_shared,span,completed,ended_seen_at,sm0,told_at,due_at,on_grid,ahead\n"),
                     "PCCL_SLICE_LOG: header %s", line);
            continue;
        }
        /* the last five: sm0, the cut launch's deadline told and taken, on the grid, ahead */
        const char *tail = line + strlen(line);
        for (int k = 0; k < 5 && tail > line; k++)
            while (--tail > line && *tail != ',') {}
        int sm0 = -2, grid = -1, early = -1;
        unsigned long long told = 0, due = 0;
        if (sscanf(tail, ",%d,%llu,%llu,%d,%d", &sm0, &told, &due, &grid, &early) != 5 || sm0 < -1 || grid < 0 ||
            grid > 1 || early < 0 || early > 1 || (grid && (!told || due < told || (due - told) % slice_ns))) {
            if (!bad++) PT_CHECK(0, "PCCL_SLICE_LOG: sm0, told_at, due_at, on_grid, ahead not at the line's end (or "
                                 "not a grid point where on_grid): %s", line);
            continue;
        }
        int rank;
        unsigned long long launch, queued, owed;
        double late, drain, idle, dead, spread, refill, pick, work, gap, call, cq1, lat, plan;
        int n = sscanf(line, "%d,%llu,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%llu,%llu,%lf,%lf,%lf", &rank, &launch,
                       &late, &drain, &idle, &dead, &spread, &refill, &pick, &work, &gap, &call, &queued, &owed, &cq1,
                       &lat, &plan);
        /* plan -1 with work found: block 0 ended the relaunch at its first
         * look (its deadline past, on a loaded machine), before it fetched,
         * while another block restored saved work; seen once in make test
         * (late 1559.7 us).  So a missing plan is allowed, not a plan in
         * none of the lines with work (below). */
        if (n != 17 || plan < -1 || rank < 0 || rank >= nranks || queued < 1 || owed > queued ||
            (refill >= 0 && (pick < 0 || pick > refill || work < 0 || work > pick)) || (early && gap != 0)) {
            if (!bad++) PT_CHECK(0, "PCCL_SLICE_LOG: bad line (%d fields): %s", n, line);
            continue;
        }
        if (work >= 0) with_work++, planned += plan >= 0;
        got[rank]++;
        on[rank] += (unsigned long long)grid;
        queued_ahead[rank] += (unsigned long long)early;
    }
    fclose(f);
    PT_CHECK(with_work == 0 || planned > 0, "PCCL_SLICE_LOG: %d relaunches found work, none with a plan stamp",
             with_work);
    PT_CHECK(headers == nranks, "PCCL_SLICE_LOG: %d header lines for %d ranks", headers, nranks);
    for (int r = 0; r < nranks; r++)
        PT_CHECK(got[r] == want[r] && on[r] == aligned[r] && queued_ahead[r] == ahead[r],
                 "PCCL_SLICE_LOG: rank %d: %llu lines (%llu on the grid, %llu ahead), %llu relaunches measured (%llu "
                 "on the grid, %llu ahead)", r, got[r], on[r], queued_ahead[r], want[r], aligned[r], ahead[r]);
}

/* Collectives longer than a slice: cut mid-way (between steps, their
 * context saved as in a preemption), resumed by the next launch, exact;
 * with PCCL_SLICE_GAP_US, pcclRun leaves the relaunch to the poller.
 * ahead: PCCL_SLICE_AHEAD_US (0: each relaunch waits for the end and the
 * gap; else the poller queues it that long before the slice's end, and a
 * relaunch made so has no gap). */
static void cut_midway(int ahead)
{
    pt_begin("collectives cut by slices", 300);
    char ahead_us[16];
    snprintf(ahead_us, sizeof ahead_us, "%d", ahead);
    setenv("PCCL_SLICE_AHEAD_US", ahead_us, 1);
    char log[64];
    snprintf(log, sizeof log, "/tmp/pccl-slice-log-%d.csv", (int)getpid());
    unlink(log);
    setenv("PCCL_SLICE_LOG", log, 1);
    unsigned long long measured[2] = {0, 0}, aligned[2] = {0, 0}, early[2] = {0, 0};
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(2, 4096);
    cfg.sliceUs = 200;
    cfg.sliceGapUs = 50; /* and the relaunch after a slice left to the poller, 50 us late */
    cfg.sliceAlign = 1;  /* and on the grid */
    int failed = pt_init(c, 2, &cfg);
    unsetenv("PCCL_SLICE_LOG");
    unsetenv("PCCL_SLICE_AHEAD_US");
    if (failed) { unlink(log); pt_end(); return; }
    pt_case cases[] = {
        {{pcclCollAllReduce, pcclFloat, pcclSum, 0, ck_scaled(1 << 20, 1 << 18), 2}, 0, 0, 0},
        {{pcclCollAllGather, pcclInt32, pcclSum, 0, ck_scaled(1 << 19, 1 << 17), 2}, 0, 0, 0},
        {{pcclCollReduceScatter, pcclDouble, pcclMax, 0, ck_scaled(1 << 18, 1 << 16), 2}, 0, 1, 0},
    };
    pt_run_cases(c, 2, cases, 3, 7, 2, 1);
    for (int r = 0; r < 2; r++) {
        pcclStats_t st;
        PT_OK(pcclCommGetStats(c[r], &st));
        PT_CHECK(st.slices > 0, "rank %d: no launch was cut by the 200 us slice (%llu launches)", r,
                 (unsigned long long)st.launches);
        /* The relaunch cost split (lib/slice.c).  On the host backend the
         * daemon's clock is the host's, so its figures and the poller's
         * meet: no thread of the relaunch starts before the poller's call,
         * which comes >= the 50 us gap after the last thread ended; a
         * relaunch queued ahead has no gap, and its threads start once the
         * last one of the launch before has ended (the host backend's
         * stream order: a relaunch is measured only if so, slice.c). */
        pcclSliceStats_t sl;
        PT_OK(pcclCommGetSliceStats(c[r], &sl));
        unsigned long long n = measured[r] = sl.relaunches;
        aligned[r] = sl.aligned;
        early[r] = sl.ahead;
        PT_CHECK(n > 0 && n <= st.slices, "rank %d: %llu relaunches measured, %llu slices", r, n,
                 (unsigned long long)st.slices);
        PT_CHECK(ahead ? sl.ahead > 0 && sl.ahead <= n : sl.ahead == 0,
                 "rank %d: %llu of %llu relaunches queued ahead (PCCL_SLICE_AHEAD_US=%d)", r,
                 (unsigned long long)sl.ahead, n, ahead);
        PT_CHECK(sl.gapNs >= (n - sl.ahead) * 50000,
                 "rank %d: relaunched %.1f us after the end on average, the gap is 50", r,
                 n > sl.ahead ? sl.gapNs / 1e3 / (n - sl.ahead) : 0.0);
        /* the poller knows the stream idle once it saw the end: no driver
         * query in the gap (poller.c, daemon_query) */
        PT_CHECK(sl.gapQueries == 0, "rank %d: %llu stream queries in %llu gaps", r,
                 (unsigned long long)sl.gapQueries, n);
        PT_CHECK(sl.deadNs >= sl.gapNs, "rank %d: no daemon thread for %.1f us per relaunch, less than the "
                 "poller's %.1f us from the end to its call", r, n ? sl.deadNs / 1e3 / n : 0.0,
                 n ? sl.gapNs / 1e3 / n : 0.0);
        PT_CHECK(sl.drainNs >= sl.blockIdleNs && sl.drainNs < n * 1000000000ull,
                 "rank %d: drain %llu ns, block idle %llu ns over %llu relaunches", r,
                 (unsigned long long)sl.drainNs, (unsigned long long)sl.blockIdleNs, n);
        PT_CHECK(sl.refillNs + sl.noStep > 0 || sl.startNs > 0 || sl.deadNs > 0, "rank %d: nothing measured", r);
        /* PCCL_SLICE_ALIGN=1: the host backend's daemon clock is the host's
         * (no skew here), so the grid deadline is exact and the cuts land on it */
        PT_CHECK(sl.aligned > 0 && sl.aligned <= n, "rank %d: %llu of %llu relaunches after a cut on the grid", r,
                 (unsigned long long)sl.aligned, n);
        printf("\n    rank %d: %llu relaunches after a slice; per relaunch (us): late %.1f, drain %.1f, block idle "
               "%.1f, dead %.1f, start %.1f, refill %.1f (first pick %.1f), host gap %.1f, launch call %.1f; %llu on the grid, "
               "%llu queued ahead ",
               r, n, sl.lateNs / 1e3 / n, sl.drainNs / 1e3 / n, sl.blockIdleNs / 1e3 / n, sl.deadNs / 1e3 / n,
               sl.startNs / 1e3 / n, sl.refillNs / 1e3 / n, sl.pickNs / 1e3 / n, sl.gapNs / 1e3 / n, sl.launchNs / 1e3 / n,
               (unsigned long long)sl.aligned, (unsigned long long)sl.ahead);
    }
    pcclSliceStats_t none;
    PT_CHECK(pcclCommGetSliceStats(c[0], NULL) == pcclInvalidArgument, "NULL stats accepted");
    PT_CHECK(pcclCommGetSliceStats(NULL, &none) == pcclInvalidArgument, "NULL comm accepted");
    pt_destroy(c, 2);
    check_slice_log(log, measured, aligned, early, 2, (uint64_t)cfg.sliceUs * 1000);
    unlink(log);
    pt_end();
}
static void test_cut_midway(void) { cut_midway(0); }
static void test_cut_midway_ahead(void) { cut_midway(100); }

/* Chaos mode and random orders with a slice shorter than most collectives:
 * cuts land anywhere, between any two primitives. */
static void test_chaos_slices(void)
{
    setenv("PCCL_SLICE_US", "50", 1); /* the random-order harness leaves sliceUs to the environment */
    pt_rand_opts o;
    pt_rand_defaults(&o, "chaos, random order, 3 gpus, 2 blocks, 50 us slices", 3, ck_scaled(60, 6));
    o.chaos = 1;
    o.blocks = 2;
    o.chunk = 256;
    o.seed = 2222;
    pt_rand_stats st;
    pt_begin(o.name, 600);
    if (pt_random_order(&o, &st) == 0) PT_CHECK(st.preemptions > 0, "%s: never preempted", o.name);
    pt_end();
    unsetenv("PCCL_SLICE_US");
}

/* The cross-rank version (issue 22, item 3, host edition): every rank runs
 * the random-order test while a second thread per rank synchronizes its
 * device at random points; no deadlock, exact data (pt_random_order), and
 * every synchronization within the slice plus MARGIN_S.  (The GPU edition,
 * with the CUDA calls themselves: pccl-share --gpus N.) */
static void cross_rank(const char *name, long slice_us, long watch_us)
{
    pt_rand_opts o;
    pt_rand_defaults(&o, name, 2, ck_scaled(150, 15));
    o.sync_thread = 1;
    o.slice_us = slice_us;
    o.watch_us = watch_us;
    o.seed = 2202;
    pt_rand_stats st;
    double bound_s = (slice_us ? slice_us : watch_us) * 1e-6;
    pt_begin(o.name, 300);
    if (pt_random_order(&o, &st) == 0) {
        PT_CHECK(st.syncs_min > 0, "%s: a rank's second thread never synchronized", o.name);
        PT_CHECK(st.sync_max_s < bound_s + MARGIN_S, "%s: a synchronization took %.3f s; the bound is %.1f ms + %.2f s",
                 o.name, st.sync_max_s, bound_s * 1e3, MARGIN_S);
        /* The mean, which a few descheduled threads move little: with the
         * slice about 1 ms here; with neither slice nor watch 15, 240 and
         * 348 ms in three runs, the longest 66-362 ms. */
        double mean = st.sync_sum_s / (double)(st.syncs ? st.syncs : 1);
        PT_CHECK(mean < bound_s + MEAN_MARGIN_S, "%s: the synchronizations took %.1f ms on average; the "
                 "bound is %.1f ms + %.0f ms", o.name, mean * 1e3, bound_s * 1e3, MEAN_MARGIN_S * 1e3);
        printf("\n    %d ranks, %.2f s: at least %llu synchronizations per rank, mean %.2f ms, the longest %.1f ms ",
               o.G, st.seconds, (unsigned long long)st.syncs_min, st.sync_sum_s / (double)st.syncs * 1e3,
               st.sync_max_s * 1e3);
    }
    pt_end();
}

static void test_cross_rank(void)
{
    cross_rank("random orders, 2 gpus, each rank's second thread synchronizing at random points, the slice alone",
               SLICE_US, 0);
}

static void test_cross_rank_watched(void)
{
    cross_rank("random orders, 2 gpus, each rank's second thread synchronizing at random points, the watch alone", 0,
               WATCH_US);
}

/* The grid is the host's clock (slice.c): two ranks whose daemon clocks
 * are 2 ms apart (PCCL_TEST_CLOCK_SKEW_US, as two H200s' globaltimers were
 * 160-670 us apart) still end their slices together, on the host's grid.
 * Both stream 4 Ki-float all-reduces for GRID_MS or more; each relaunch's cut
 * (PCCL_SLICE_LOG's cut_at, less the rank's skew: the host's time) is placed
 * on the grid of GRID_SLICE_US, and the two ranks' cuts must fall together
 * there (their circular means).  Only cuts on time count (late < GRID_LATE_US):
 * on a loaded machine an emulated block waits for a core in ticks of the
 * kernel's (4 ms here, as long as the slice), and its cut comes that much
 * later, on a tick, whichever grid its launch had.  On the daemon's clock, as
 * the grid was, rank 1's cuts sat 1.49-1.50 ms from the grid's points with a
 * 1.5 ms skew (test failed), as far as the skew. */
#define GRID_SKEW_US 2000 /* half the slice: the old grid's cuts as far from the host's as can be */
#define GRID_SLICE_US 4000
#define GRID_LATE_US 300
#define GRID_MS 400       /* at least; until each rank has GRID_ON_TIME cuts on time, GRID_MAX_MS at most */
#define GRID_MAX_MS 6000
#define GRID_ON_TIME 5

/* Rank 0 announces each invocation before it issues it (go: how many),
 * and rank 1 issues those alone, so that neither waits for an invocation
 * its peer never issues; rank 1 sleeps meanwhile (spinning, it took a core
 * from the emulated GPUs, whose block threads then started in ticks of the
 * kernel's, 4 ms, and every cut with them, grid or no grid). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t go;
} grid_turn;

typedef struct {
    pcclComm_t c;
    int r, id, bad, *stop;
    grid_turn *turn;
    float send[4096], recv[4096];
} grid_rank;

static void grid_announce(grid_turn *t, uint64_t go)
{
    pthread_mutex_lock(&t->mu);
    t->go = go;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static void *grid_stream(void *p)
{
    grid_rank *g = p;
    for (int i = 0; i < 4096; i++) g->send[i] = 1.0f;
    for (uint64_t i = 0;; i++) {
        if (g->r == 0) {
            if (__atomic_load_n(g->stop, __ATOMIC_ACQUIRE)) {
                grid_announce(g->turn, UINT64_MAX); /* no more */
                break;
            }
            grid_announce(g->turn, i + 1);
        } else {
            pthread_mutex_lock(&g->turn->mu);
            while (g->turn->go <= i) pthread_cond_wait(&g->turn->cv, &g->turn->mu);
            uint64_t n = g->turn->go;
            pthread_mutex_unlock(&g->turn->mu);
            if (n == UINT64_MAX) break;
        }
        if (pcclRun(g->c, g->id, g->send, g->recv, NULL, NULL) || pcclWait(g->c, g->id) || g->recv[7] != 2.0f) {
            g->bad++;
            if (g->r == 0) grid_announce(g->turn, UINT64_MAX);
            break;
        }
    }
    return NULL;
}

/* Rank r's cuts on time, from the log: where they fall on the grid (us,
 * host's clock, in [0, GRID_SLICE_US)), their circular mean (a cut just
 * before a grid point and one just after are close); *n: how many. */
static double grid_phase(const char *path, int r, int *n)
{
    double sx = 0, sy = 0;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[1024];
    int cut_col = -1, late_col = -1;
    while (fgets(line, sizeof line, f)) {
        char *save = NULL, *tok = strtok_r(line, ",\n", &save);
        if (!tok) continue;
        if (!strcmp(tok, "rank")) {
            for (int i = 1; (tok = strtok_r(NULL, ",\n", &save)); i++) {
                if (!strcmp(tok, "cut_at")) cut_col = i;
                if (!strcmp(tok, "late")) late_col = i;
            }
            continue;
        }
        if (atoi(tok) != r || cut_col < 0 || late_col < 0) continue;
        double late = -1;
        for (int i = 1; i <= cut_col && tok; i++) {
            tok = strtok_r(NULL, ",\n", &save);
            if (tok && i == late_col) late = atof(tok);
        }
        if (!tok || late < 0 || late >= GRID_LATE_US || *n >= 2 * GRID_MAX_MS) continue;
        uint64_t host_ns = strtoull(tok, NULL, 10) - (r == 1 ? GRID_SKEW_US * 1000ull : 0);
        double a = 2 * M_PI * (double)(host_ns % (GRID_SLICE_US * 1000ull)) / (GRID_SLICE_US * 1000.0);
        sx += cos(a), sy += sin(a);
        (*n)++;
    }
    fclose(f);
    if (cut_col < 0 || !*n) return -1;
    double a = atan2(sy, sx);
    return (a < 0 ? a + 2 * M_PI : a) * GRID_SLICE_US / (2 * M_PI);
}

/* How far apart two places on the grid are (us), around the circle. */
static double grid_apart(double a, double b)
{
    double d = fabs(a - b);
    return d < GRID_SLICE_US / 2.0 ? d : GRID_SLICE_US - d;
}

static void test_grid_host_clock(void)
{
    pt_begin("the grid is the host's clock", 120);
    char log[64], skew[32];
    snprintf(log, sizeof log, "/tmp/pccl-grid-log-%d.csv", (int)getpid());
    snprintf(skew, sizeof skew, "1:%d", GRID_SKEW_US);
    unlink(log);
    setenv("PCCL_SLICE_LOG", log, 1);
    setenv("PCCL_TEST_CLOCK_SKEW_US", skew, 1); /* read at each launch: kept until the ranks are gone */
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.sliceUs = GRID_SLICE_US;
    cfg.sliceAlign = 1;
    int failed = pt_init(c, 2, &cfg);
    unsetenv("PCCL_SLICE_LOG");
    if (failed) { unsetenv("PCCL_TEST_CLOCK_SKEW_US"); unlink(log); pt_end(); return; }
    static grid_rank g[2];
    int stop = 0;
    static grid_turn turn = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    turn.go = 0;
    pthread_t t[2];
    for (int r = 0; r < 2; r++) {
        g[r].c = c[r], g[r].r = r, g[r].bad = 0, g[r].stop = &stop, g[r].turn = &turn;
        PT_OK(pcclRegisterAllReduce(c[r], 4096, pcclFloat, pcclSum, 0, &g[r].id));
    }
    for (int r = 0; r < 2; r++) PT_CHECK(pthread_create(&t[r], NULL, grid_stream, &g[r]) == 0, "no thread");
    int n[2] = {0, 0};
    double ph[2];
    for (int ms = 0; ms < GRID_MAX_MS && (ms < GRID_MS || n[0] < GRID_ON_TIME || n[1] < GRID_ON_TIME); ms += 100) {
        usleep(100000);
        for (int r = 0; r < 2; r++) ph[r] = grid_phase(log, r, &n[r]);
        ck_watchdog_kick();
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < 2; r++) pthread_join(t[r], NULL);
    pt_destroy(c, 2);
    unsetenv("PCCL_TEST_CLOCK_SKEW_US");
    PT_CHECK(g[0].bad == 0 && g[1].bad == 0, "a collective failed or returned wrong data");
    for (int r = 0; r < 2; r++) {
        ph[r] = grid_phase(log, r, &n[r]);
        PT_CHECK(n[r] >= GRID_ON_TIME, "PCCL_SLICE_LOG: rank %d: %d cuts on time in %d ms of %d ms slices", r, n[r],
                 GRID_MAX_MS, GRID_SLICE_US / 1000);
    }
    /* The ranks' cuts together on the host's clock, whatever their daemon
     * clocks say: rank 1's, GRID_SKEW_US ahead, would put its cuts that far
     * from rank 0's on the old grid.  Not their distance from the grid's
     * points: a cut comes the least launch latency after its point (the
     * offset through which the daemon is told it), 1.5-1.7 ms under TSan on
     * a loaded 2-core machine, which failed that check once. */
    /* Under TSan on 2 cores the ranks' least launch latencies, through which
     * each daemon is told its grid, differ by up to 1.6 ms (a fresh clone's
     * make test: 2030 and 441 us on the grid, 10 and 9 cuts on time): there
     * the run checks the threads, the optimized and ASan+UBSan runs this. */
#if !defined(__SANITIZE_THREAD__)
    if (n[0] >= GRID_ON_TIME && n[1] >= GRID_ON_TIME)
        PT_CHECK(grid_apart(ph[0], ph[1]) < GRID_SKEW_US / 2.0,
                 "the ranks' cuts %.0f us apart on the host's grid (at %.0f and %.0f us of %d), rank 1's daemon "
                 "clock %d us ahead", grid_apart(ph[0], ph[1]), ph[0], ph[1], GRID_SLICE_US, GRID_SKEW_US);
#else
    printf("\n    (TSan: where the cuts fall not checked)");
#endif
    unlink(log);
    printf("\n    cuts on time %d and %d, at %.0f and %.0f us of the host's %d us grid (circular means), %.0f us "
           "apart; rank 1's clock %d us ahead ", n[0], n[1], ph[0], ph[1], GRID_SLICE_US, grid_apart(ph[0], ph[1]),
           GRID_SKEW_US);
    pt_end();
}

/* PCCL_SLICE_EARLY_US: a block with nothing to run ends its launch up to
 * that long before the slice's end, and the relaunch takes the next point
 * of the grid (the one it ended before was served): one end a slice, at an
 * idle moment.  Invocations 300 us apart (shorter than PCCL_QUIT_US, 2 ms
 * here), early ends from half a slice before the grid point: about one end
 * a slice (test_follow_pace checks where the early look falls).  With the
 * host backend's gap of 0 pcclRun relaunches, and the grid's offset comes
 * from its reading of the ended launch (poller.c).  The relaunch took the point just
 * served again, and ended at its next idle moment or, under half a slice,
 * off the grid: two ends a slice at least (one H200, round trips:
 * results/early-h200/, call 1).  Exact results throughout. */
static void test_early_cut(void)
{
    pt_begin("slice early: an idle block ends the launch before the deadline, once a slice", 120);
    pcclComm_t c;
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.sliceUs = SLICE_US;
    cfg.sliceEarlyUs = SLICE_US / 2;
    if (pt_init(&c, 1, &cfg)) { pt_end(); return; }
    int id, n = ck_scaled(100, 40), bad = 0;
    float *send = calloc(1024, sizeof(float)), *recv = calloc(1024, sizeof(float));
    PT_OK(pcclRegisterAllReduce(c, 1024, pcclFloat, pcclSum, 0, &id));
    double t0 = ck_now();
    for (int i = 0; i < n; i++) {
        send[i % 1024] = (float)i;
        PT_OK(pcclRun(c, id, send, recv, NULL, NULL));
        PT_OK(pcclWait(c, id));
        bad += memcmp(send, recv, 1024 * sizeof(float)) != 0;
        ck_sleep_us(300);
    }
    double slices_run = (ck_now() - t0) * 1e6 / SLICE_US;
    pcclStats_t st;
    pcclSliceStats_t sl;
    PT_OK(pcclCommGetStats(c, &st));
    PT_OK(pcclCommGetSliceStats(c, &sl));
    PT_CHECK(bad == 0, "%d wrong results", bad);
    PT_CHECK(st.slices >= 2 && (double)st.slices <= slices_run + 2,
             "%llu launches ended by the slice in %.1f slices of time: one a slice at most (and some)",
             (unsigned long long)st.slices, slices_run);
    printf("\n    %d invocations 300 us apart, %.1f slices: %llu launches, %llu ended by the slice (%llu relaunches "
           "measured, %llu on the grid) ", n, slices_run, (unsigned long long)st.launches, (unsigned long long)st.slices,
           (unsigned long long)sl.relaunches, (unsigned long long)sl.aligned);
    pt_destroy(&c, 1);
    free(send);
    free(recv);
    pt_end();
}

/* Block 0 alone decides a launch's end (cut.h, pccl_may_quit): it
 * reads the host's hold and sets the pinned quitting word; the other blocks
 * read neither and follow its decision through device memory (G->quit: the
 * launch's epoch and whether block 0 cut it or quit it idle), so that 64
 * blocks do not serialize on one pinned word at every cut.  Called directly
 * on a block's state: a block past its deadline does not end the launch on
 * its own, follows block 0's decision of this launch only, and block 0 stays
 * while the hold is set.  An idle end is followed mid-pass only past the
 * follower's own slice; at its idle point, at once. */
static void test_block0_decides(void)
{
    pt_begin("block 0 decides", 30);
    pccl_pinned_hdr hdr;
    uint64_t quit = 0, progress = 7, fin[1] = {0};
    memset(&hdr, 0, sizeof hdr);
    /* the stream waits for invocation 1 of collective 0, not complete */
    hdr.hold_n = 1;
    hdr.hold_id[0] = 0;
    hdr.hold_tk[0] = 1;
    pccl_gpu G;
    memset(&G, 0, sizeof G);
    G.k.max_colls = 1;
    G.fin = fin;
    G.k.slice_ns = 1000;
    G.k.quit_ns = 500;
    G.hdr = &hdr;
    G.quit = &quit;
    G.progress = &progress;
    G.epoch = 5;
    pccl_blk S[2];
    for (int b = 0; b < 2; b++) {
        memset(&S[b], 0, sizeof S[b]);
        S[b].blk = b;
        S[b].epoch = G.epoch;
        S[b].t_begin = 0;
        S[b].deadline = 1000;
        S[b].progress0 = 6; /* it progressed: the slice may end it */
    }
    /* block 1 past its deadline, before block 0 decided: it goes on, and
     * touches no pinned word */
    PT_CHECK(!pccl_cut_idle(&S[1], &G, 5000, 0), "block 1 ended the launch on its own");
    PT_CHECK(!hdr.quitting && !quit, "block 1 decided for the launch (quitting %u, quit %llu)", hdr.quitting,
             (unsigned long long)quit);
    /* a decision of an older launch is not this one's (looked at now: cut_at 0) */
    quit = PCCL_QUIT_WORD(4, 1);
    S[1].cut_at = 0;
    PT_CHECK(!pccl_cut_idle(&S[1], &G, 5000, 0), "block 1 followed launch 4's decision in launch 5");
    PT_CHECK(!pccl_may_quit(&S[1], &G, 0), "an idle block 1 followed launch 4's decision in launch 5");
    /* block 0, held: a new slice, no decision */
    hdr.hold = 1;
    PT_CHECK(!pccl_cut_idle(&S[0], &G, 5000, 0), "block 0 ended a held launch");
    PT_CHECK(S[0].deadline == 6000 && !hdr.quitting && quit == PCCL_QUIT_WORD(4, 1),
             "held: deadline %llu, quitting %u, quit %llu", (unsigned long long)S[0].deadline, hdr.quitting,
             (unsigned long long)quit);
    /* held and idle: no decision either */
    PT_CHECK(!pccl_may_quit(&S[0], &G, 0), "block 0 ended a held launch for idleness");
    /* the held invocation complete (pccl_hold_done), the hold still set:
     * block 0 decides at its (new) deadline, tells the host and the other
     * blocks, which follow */
    fin[0] = 1;
    PT_CHECK(pccl_cut_idle(&S[0], &G, 6000, 0) && S[0].st.t_cut == 6000, "block 0 did not end the launch");
    PT_CHECK(hdr.quitting == 5 && quit == PCCL_QUIT_WORD(5, 1), "block 0's decision: quitting %u, quit %llu",
             hdr.quitting, (unsigned long long)quit);
    S[1].cut_at = 0;
    PT_CHECK(pccl_cut_idle(&S[1], &G, 6001, 0) && S[1].st.t_cut == 6001, "block 1 did not follow block 0");
    /* an idle block 1 quits once block 0 decided, not before */
    pccl_blk T = S[1];
    T.cut = 0;
    T.epoch = 6;
    PT_CHECK(!pccl_may_quit(&T, &G, 0), "an idle block 1 quit before block 0 of its launch decided");
    /* launch 6: block 0 ends it for idleness (no hold) */
    hdr.hold = 0;
    pccl_blk U[2] = {S[0], T};
    for (int b = 0; b < 2; b++) {
        U[b].cut = 0;
        U[b].epoch = 6;
        U[b].t_begin = 10000;
        U[b].deadline = 11000;
        U[b].cut_at = U[b].follow_gap = 0;
        U[b].st.t_cut = 0;
    }
    PT_CHECK(pccl_may_quit(&U[0], &G, 0) && quit == PCCL_QUIT_WORD(6, 0), "block 0's idle end: quit %llu",
             (unsigned long long)quit);
    /* block 1, mid-pass within its slice, stays: its queue's head may be
     * waiting for a peer, and the collectives behind it get their turn */
    PT_CHECK(!pccl_cut_idle(&U[1], &G, 10500, 0) && !U[1].cut, "block 1 left mid-pass for block 0's idleness");
    /* at its own idle point it follows */
    PT_CHECK(pccl_may_quit(&U[1], &G, 0), "an idle block 1 did not follow block 0's idle end");
    /* mid-pass past a slice of its own, it follows too */
    PT_CHECK(pccl_cut_idle(&U[1], &G, 11000, 0) && U[1].st.t_cut == 11000,
             "block 1 went on past its slice after block 0's idle end");
    pt_end();
}

/* When the others look at block 0's decision (cut.h, pccl_next_check),
 * found by trying a decision at every 100 ns of a follower's life (a 4 ms
 * slice begun at 1 ms): a copy of its state is checked with the decision
 * made, the block itself with none.  Not before the deadline (less
 * PCCL_SLICE_EARLY_US), then every 1 us for 32 us, then 2, 4 .. 64 us apart
 * while block 0 keeps the launch; with the watch on, also every 16 us
 * before the deadline.  Returns how many looks fell before `to` (-1: the
 * block cut its launch with no decision) and writes their times. */
static int follow_looks(int64_t early_ns, int watch, uint64_t to, uint64_t *at, int max)
{
    static pccl_pinned_hdr hdr;
    static pccl_blk_saved saved[2];
    static int32_t saved_tq[8], tq[4];
    uint64_t quit = 0, progress = 0;
    pccl_gpu G;
    memset(&G, 0, sizeof G);
    G.k.blocks = 2;
    G.k.depth = 4;
    G.k.slice_ns = 4000000;
    G.k.slice_early_ns = early_ns;
    G.k.watch = watch;
    G.k.quit_ns = 50000;
    G.hdr = &hdr;
    G.quit = &quit;
    G.progress = &progress;
    G.saved = saved;
    G.saved_tq = saved_tq;
    G.epoch = 3;
    pccl_blk S;
    memset(&S, 0, sizeof S);
    S.tq = tq;
    pccl_begin(&S, &G, 1, 1000000); /* deadline 5,000,000 */
    int n = 0;
    for (uint64_t u = 1000000; u < to; u += 100) {
        pccl_blk C = S;
        quit = PCCL_QUIT_WORD(3, 1);
        int seen = pccl_cut_idle(&C, &G, u, 0);
        quit = 0;
        if (pccl_cut_idle(&S, &G, u, 0)) return -1; /* cut with no decision */
        if (seen && n < max) at[n++] = u;
    }
    return n;
}

static void test_follow_pace(void)
{
    pt_begin("the others look at block 0's decision from the deadline on", 30);
    uint64_t at[64];
    /* no watch: nothing before the deadline, then every 1 us for 32 us,
     * then 2, 4 .. 64, 64 us apart */
    uint64_t want[64];
    int nw = 0;
    for (uint64_t u = 5000000; u <= 5032000; u += 1000) want[nw++] = u;
    const uint64_t later[] = {5034000, 5038000, 5046000, 5062000, 5094000, 5158000, 5222000, 5286000};
    for (int i = 0; i < 8; i++) want[nw++] = later[i];
    int n = follow_looks(0, 0, 5300000, at, 64);
    PT_CHECK(n == nw, "%d looks in the 0.3 ms after a 4 ms slice's start and deadline, want %d", n, nw);
    for (int i = 0; i < n && i < nw; i++)
        PT_CHECK(at[i] == want[i], "look %d at %llu ns, want %llu", i, (unsigned long long)at[i],
                 (unsigned long long)want[i]);
    /* an early end allowed: from 200 us before the deadline */
    n = follow_looks(200000, 0, 4800500, at, 64);
    PT_CHECK(n == 1 && at[0] == 4800000, "with PCCL_SLICE_EARLY_US=200: %d looks, the first at %llu ns", n,
             n > 0 ? (unsigned long long)at[0] : 0ull);
    /* the watch: every 16 us before the deadline too */
    n = follow_looks(0, 1, 2000000, at, 64);
    PT_CHECK(n == 62 && at[0] == 1016000 && at[61] == 1992000,
             "with the watch: %d looks in the launch's first 1 ms (16 us apart: 62), the first at %llu ns", n,
             n > 0 ? (unsigned long long)at[0] : 0ull);
    pt_end();
}

/* The blocks of a launch take turns to look at the abort flag (pinned
 * memory; scheduler.h, pccl_begin): 63 idle blocks, started together, never
 * all in the same pass.  With the flag set from the start, each block's
 * passes (pccl_plan) run round by round until it sees it and quits. */
static void test_abort_turns(void)
{
    pt_begin("abort turns", 30);
    enum { NB = 64, DEPTH = 4 };
    pccl_pinned_hdr hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.ctl = PCCL_CTL_ABORT;
    uint64_t progress = 0, quit = 0, dsq[NB * DEPTH];
    memset(dsq, 0, sizeof dsq);
    pccl_blk_saved saved[NB];
    memset(saved, 0, sizeof saved);
    int32_t saved_tq[NB * DEPTH], tq[NB][DEPTH];
    pccl_gpu G;
    memset(&G, 0, sizeof G);
    G.k.blocks = NB;
    G.k.depth = DEPTH;
    G.k.quit_ns = 1000000000; /* never idle here */
    G.hdr = &hdr;
    G.progress = &progress;
    G.quit = &quit;
    uint64_t looked[NB] = {0};
    G.looked = looked;
    G.dsq = dsq;
    G.saved = saved;
    G.saved_tq = saved_tq;
    static pccl_blk S[NB];
    int quitted[NB] = {0}, most = 0, left = NB - 1;
    for (int b = 1; b < NB; b++) {
        memset(&S[b], 0, sizeof S[b]);
        S[b].tq = tq[b];
        pccl_begin(&S[b], &G, b, 1000);
    }
    for (int round = 1; round <= 64 && left; round++) {
        int n = 0;
        for (int b = 1; b < NB; b++) {
            if (quitted[b]) continue;
            pccl_plan(&S[b], &G, b, 1000 + (uint64_t)round);
            if (S[b].cmd == PCCL_CMD_QUIT) { quitted[b] = round; n++; left--; }
        }
        if (n > most) most = n;
    }
    PT_CHECK(left == 0, "%d idle blocks never looked at the abort flag in 64 passes", left);
    PT_CHECK(most <= 1, "%d idle blocks looked at the abort flag in the same pass", most);
    pt_end();
}

/* Block 0 of a one-block GPU, for calling its decisions directly: the
 * launch (epoch 1) begun at 0, nothing queued. */
typedef struct {
    pccl_pinned_hdr hdr;
    pccl_sqe sq[4];
    uint64_t progress, quit, looked[1];
    pccl_blk_saved saved[1];
    int32_t saved_tq[4], tq[4];
    pccl_gpu G;
    pccl_blk S;
} one_block;

static void one_block_begin(one_block *o, int64_t quit_ns, uint64_t progress, int watch)
{
    memset(o, 0, sizeof *o);
    o->progress = progress;
    o->G.k.blocks = 1;
    o->G.k.depth = 4;
    o->G.k.quit_ns = quit_ns;
    o->G.k.watch = watch;
    o->G.hdr = &o->hdr;
    o->G.sq = o->sq;
    o->G.progress = &o->progress;
    o->G.quit = &o->quit;
    o->G.looked = o->looked;
    o->G.saved = o->saved;
    o->G.saved_tq = o->saved_tq;
    o->G.epoch = 1;
    o->S.tq = o->tq;
    pccl_begin(&o->S, &o->G, 0, 0);
}

/* The idle quit (scheduler.h, pccl_plan): a block reads the GPU's step
 * count only once it has been idle quit_ns itself, and another block's
 * steps since its last look keep the launch another quit_ns.  Called on
 * block 0's state, its SQ empty: it runs on while another block stepped,
 * and quits quit_ns after the first look that saw no new step. */
static void test_idle_quit_sees_others(void)
{
    pt_begin("idle quit waits for the other blocks", 30);
    static one_block o;
    one_block_begin(&o, 1000, 3, 0);
    pccl_blk *S = &o.S;
    const pccl_gpu *G = &o.G;
    pccl_plan(S, G, 0, 500); /* the launch's first pass counts as progress: idle from here */
    PT_CHECK(S->cmd == PCCL_CMD_RUN, "block 0 quit in its first pass");
    o.progress = 4; /* another block's step */
    pccl_plan(S, G, 0, 1600);
    PT_CHECK(S->cmd == PCCL_CMD_RUN, "block 0 quit while another block had stepped since its last look");
    pccl_plan(S, G, 0, 2500);
    PT_CHECK(S->cmd == PCCL_CMD_RUN, "block 0 quit 900 ns after it saw another block's step");
    pccl_plan(S, G, 0, 2700);
    PT_CHECK(S->cmd == PCCL_CMD_QUIT && o.quit == PCCL_QUIT_WORD(1, 0),
             "block 0 did not quit 1100 ns after the GPU's last step it saw (cmd %d, quit %llu)", S->cmd,
             (unsigned long long)o.quit);
    pt_end();
}

/* Polls the n invocations (c[i], id[i]) every millisecond until all are
 * done or `until` (ck_now's clock) has passed; returns how many are done. */
static int done_by(const pcclComm_t *c, const int *id, int n, double until)
{
    for (;;) {
        int done = 0;
        for (int i = 0; i < n; i++) {
            int d = 0;
            PT_OK(pcclTest(c[i], id[i], &d));
            done += d;
        }
        if (done == n || ck_now() >= until) return done;
        usleep(1000);
    }
}

/* A wait longer than a slice (pccl_wait): two ranks run two all-reduces in
 * opposite orders on one block each, with 100 us slices and a head
 * threshold of 20,000 polls (each a sched_yield, 0.1 us at least: 2 ms
 * and more).  Each head must yield to let the other collective run, which
 * takes many slices' worth of polls.  With every launch counting its polls
 * from 0 again the heads never yielded: cut, relaunched, for ever (the
 * deadline below fails it).  Exact results, both in bounded time. */
static void test_wait_spans_slices(void)
{
    enum { RANKS = 2, N = 64 };
    const double deadline_s = 30;
    pcclComm_t c[RANKS];
    pcclConfig_t cfg = pt_config(1, 256);
    cfg.sliceUs = 100;
    cfg.spinHead = 20000;
    pt_begin("share: a wait longer than a slice", 90);
    if (pt_init(c, RANKS, &cfg)) { pt_end(); return; }
    float buf[RANKS][2][N];
    int id[RANKS][2];
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < 2; k++) {
            PT_OK(pcclRegisterAllReduce(c[r], N, pcclFloat, pcclSum, 0, &id[r][k]));
            for (int e = 0; e < N; e++) buf[r][k][e] = (float)(r + 1) * (float)(k + 1);
        }
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < 2; k++) { /* rank 0: 0, 1; rank 1: 1, 0 */
            int kk = r ? 1 - k : k;
            PT_OK(pcclRun(c[r], id[r][kk], buf[r][kk], buf[r][kk], NULL, NULL));
        }
    pcclComm_t cs[RANKS * 2];
    int ids[RANKS * 2];
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < 2; k++) cs[2 * r + k] = c[r], ids[2 * r + k] = id[r][k];
    int done = done_by(cs, ids, RANKS * 2, ck_now() + deadline_s);
    PT_CHECK(done == RANKS * 2, "%d of %d invocations done after %.0f s (heads never yielding across slices)",
             done, RANKS * 2, deadline_s);
    if (done < RANKS * 2) {
        for (int r = 0; r < RANKS; r++) pcclCommAbort(c[r]);
        pt_end();
        return;
    }
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < 2; k++)
            PT_CHECK(buf[r][k][0] == 3.0f * (float)(k + 1) && buf[r][k][N - 1] == 3.0f * (float)(k + 1),
                     "rank %d, all-reduce %d: %g", r, k, (double)buf[r][k][0]);
    uint64_t slices = 0, preemptions = 0;
    for (int r = 0; r < RANKS; r++) {
        pcclStats_t st;
        /* a launch publishes its counts when it ends (pccl_end): the one
         * that preempted may still run, idle, until PCCL_QUIT_US (read
         * before it ended, make test once saw "2 slices, 0 preemptions") */
        PT_OK(pcclDeviceSynchronize(c[r]));
        PT_OK(pcclCommGetStats(c[r], &st));
        slices += st.slices;
        preemptions += st.preemptions;
    }
    PT_CHECK(slices > 1 && preemptions > 0, "%llu slices, %llu preemptions: the test covers no wait across slices",
             (unsigned long long)slices, (unsigned long long)preemptions);
    pt_destroy(c, RANKS);
    pt_end();
}

/* A launch slower to start than its slice (cut.h, pccl_all_looked): every
 * block thread sleeps 8 ms as its launch begins (PCCL_TEST_SLOW_START_US),
 * past a 2 ms slice and quit_ns, as under compute-sanitizer's racecheck on
 * the GPU.  Block 0 must not end a launch that moved nothing before every
 * block has looked at its work once: cut at its first pass instead, each
 * launch ran nothing, and the collectives never completed (the deadline
 * below fails it; so did racecheck on one H100). */
static void test_slow_start(void)
{
    enum { RANKS = 2, N = 16 << 10, K = 2 };
    const double deadline_s = 30;
    pt_begin("a launch slower to start than its slice", 120);
    pcclComm_t c[RANKS];
    pcclConfig_t cfg = pt_config(3, 4096);
    cfg.sliceUs = 2000;
    cfg.quitUs = 1000;
    setenv("PCCL_TEST_SLOW_START_US", "8000", 1);
    if (pt_init(c, RANKS, &cfg)) {
        unsetenv("PCCL_TEST_SLOW_START_US");
        pt_end();
        return;
    }
    static float buf[RANKS][N];
    int id[RANKS];
    for (int r = 0; r < RANKS; r++) PT_OK(pcclRegisterAllReduce(c[r], N, pcclFloat, pcclSum, 0, &id[r]));
    int done = 0;
    double t0 = ck_now();
    for (int k = 0; k < K && done == RANKS * k; k++) {
        for (int r = 0; r < RANKS; r++) {
            for (int i = 0; i < N; i++) buf[r][i] = (float)(r + 1 + k);
            PT_OK(pcclRun(c[r], id[r], buf[r], buf[r], NULL, NULL));
        }
        done += done_by(c, id, RANKS, t0 + deadline_s);
    }
    PT_CHECK(done == RANKS * K, "%d of %d invocations done after %.1f s (launches cut before their first step)",
             done, RANKS * K, ck_now() - t0);
    if (done < RANKS * K) {
        for (int r = 0; r < RANKS; r++) pcclCommAbort(c[r]);
        unsetenv("PCCL_TEST_SLOW_START_US");
        pt_end();
        return;
    }
    for (int r = 0; r < RANKS; r++)
        PT_CHECK(buf[r][0] == (float)(3 + 2 * (K - 1)) && buf[r][N - 1] == (float)(3 + 2 * (K - 1)),
                 "rank %d: %g, not %d", r, (double)buf[r][0], 3 + 2 * (K - 1));
    pcclStats_t st;
    PT_OK(pcclCommGetStats(c[0], &st));
    PT_CHECK(st.slices > 0, "no launch was cut by the slice (%llu launches): the test covers nothing",
             (unsigned long long)st.launches);
    pt_destroy(c, RANKS);
    unsetenv("PCCL_TEST_SLOW_START_US");
    pt_end();
}

/* A block that reaches its work after the others looked at theirs (cut.h,
 * pccl_looked): one rank on 4 blocks, every collective on block 0
 * (PCCL_SPREAD=0), which sleeps 3 ms before each one it tries
 * (PCCL_TEST_SLOW_TRY), in launches 3 ms slow to start, past a 2 ms slice
 * and quit_ns; the other blocks, idle, have looked by then.  A block that
 * counted as having looked once it began to try cut its own launch before
 * the step it was about to run, in every launch, and the invocations never
 * completed (compute-sanitizer's racecheck on one H200, where block 0's SQ
 * read and hand-on were that slow); a look counts once it is over: a pass
 * ended, or a wait that polled and found nothing ready. */
static void test_slow_try(void)
{
    enum { N = 4096, K = 3 };
    const double deadline_s = 20;
    pt_begin("a block that reaches its work after the others looked", 90);
    pcclComm_t c;
    pcclConfig_t cfg = pt_config(4, 4096);
    cfg.sliceUs = 2000;
    cfg.quitUs = 1000;
    setenv("PCCL_SPREAD", "0", 1);
    setenv("PCCL_TEST_SLOW_START_US", "3000", 1);
    setenv("PCCL_TEST_SLOW_TRY", "0:3000", 1);
    int failed = pt_init(&c, 1, &cfg);
    unsetenv("PCCL_SPREAD");
    if (failed) {
        unsetenv("PCCL_TEST_SLOW_START_US");
        unsetenv("PCCL_TEST_SLOW_TRY");
        pt_end();
        return;
    }
    static float in[N], buf[N]; /* out of place: one rank's in place completes on the host (run.c) */
    int id, done = 0;
    PT_OK(pcclRegisterAllReduce(c, N, pcclFloat, pcclSum, 0, &id));
    double t0 = ck_now();
    for (int k = 0; k < K && done == k; k++) {
        for (int i = 0; i < N; i++) in[i] = (float)(k + i % 7);
        PT_OK(pcclRun(c, id, in, buf, NULL, NULL));
        done += done_by(&c, &id, 1, t0 + deadline_s);
    }
    PT_CHECK(done == K, "%d of %d invocations done after %.1f s (each launch cut before its first step)", done, K,
             ck_now() - t0);
    if (done == K) {
        PT_CHECK(buf[0] == (float)(K - 1) && buf[N - 1] == (float)(K - 1 + (N - 1) % 7), "wrong data: %g, %g",
                 (double)buf[0], (double)buf[N - 1]);
        pcclStats_t st;
        PT_OK(pcclCommGetStats(c, &st));
        PT_CHECK(st.slices > 0, "no launch was cut by the slice (%llu launches): the test covers nothing",
                 (unsigned long long)st.launches);
        pt_destroy(&c, 1);
    } else {
        pcclCommAbort(c);
    }
    unsetenv("PCCL_TEST_SLOW_START_US");
    unsetenv("PCCL_TEST_SLOW_TRY");
    pt_end();
}

/* The daemon's side of the watch (cut.h, pccl_cut_idle): with the
 * slice off, block 0 ends its launch once the host set PCCL_CTL_CUT, seen
 * at its next look (every PCCL_CTL_LOOK_NS), not before it is set, and not
 * while a stream holds the launch. */
static void test_ctl_cut(void)
{
    pt_begin("ctl cut", 30);
    static one_block o;
    one_block_begin(&o, 1000000000, 0, 1); /* never idle here; the watch, and no slice */
    pccl_blk *S = &o.S;
    const pccl_gpu *G = &o.G;
    pccl_pinned_hdr *hdr = &o.hdr;
    uint64_t now = 0;
    o.progress = 1; /* the launch moved work: a cut may end it */
    for (int i = 0; i < 100; i++) {
        now += PCCL_CTL_LOOK_NS;
        PT_CHECK(!pccl_cut(S, G, now), "block 0 cut its launch at %llu ns, none asked", (unsigned long long)now);
    }
    hdr->ctl = PCCL_CTL_CUT;
    hdr->hold = 1; /* a stream waits for an invocation of this GPU's: held */
    hdr->hold_n = PCCL_HOLD_MANY;
    now += PCCL_CTL_LOOK_NS;
    PT_CHECK(!pccl_cut(S, G, now), "block 0 cut a held launch");
    PT_CHECK(!S->asked, "a held launch's ask stayed noted: the hold would be read at every step");
    hdr->hold = 0;
    PT_CHECK(!pccl_cut(S, G, now + PCCL_CTL_LOOK_NS / 2), "block 0 looked at ctl before PCCL_CTL_LOOK_NS");
    now += PCCL_CTL_LOOK_NS;
    PT_CHECK(pccl_cut(S, G, now) && S->cut, "block 0 did not cut the launch when asked");
    PT_CHECK(o.quit == PCCL_QUIT_WORD(1, 1), "block 0's decision %llu is not a cut of launch 1",
             (unsigned long long)o.quit);
    PT_CHECK(S->st.t_cut == now, "the cut's stamp %llu, not %llu", (unsigned long long)S->st.t_cut,
             (unsigned long long)now);
    pt_end();
}

/* The end of a launch's slice (core.h, pccl_slice_deadline), which the
 * daemon takes and the relaunch split measures cuts against: the host's
 * grid point within one slice (or one slice and PCCL_SLICE_EARLY_US: the
 * next point after an early end), else a slice from the start, and half a
 * slice at least; none without a slice. */
/* A slice that ends while the daemon has nothing to run (between two
 * bursts of work): the next invocation relaunches at once, as after an
 * idle quit, without PCCL_SLICE_GAP_US (a call that waited for the GPU
 * had it from the end on).  Through the poller, after its gap, in
 * pccl-perf's sweeps on 2 H200s such a relaunch cost the next row's first
 * invocation 80-130 us (results/offset-h200/).  Here the gap is 200 ms and
 * each invocation comes 25 ms after the one before, past the daemon's 20 ms
 * slice (no idle quit: quitUs 0.5 s): without the relaunch at once, each
 * waits out the gap's rest. */
static void test_idle_cut_no_gap(void)
{
    pt_begin("a slice that ends idle: the next invocation relaunches at once, no gap", 60);
    pcclComm_t c;
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.sliceUs = 20000;
    cfg.sliceGapUs = 200000;
    cfg.quitUs = 500000;
    cfg.sliceAlign = 0;
    if (pt_init(&c, 1, &cfg)) { pt_end(); return; }
    int id, bad = 0;
    float send[256] = {0}, recv[256];
    PT_OK(pcclRegisterAllReduce(c, 256, pcclFloat, pcclSum, 0, &id));
    double worst = 0;
    for (int i = 0; i < 5; i++) {
        send[i] = (float)i;
        double t0 = ck_now();
        if (pcclRun(c, id, send, recv, NULL, NULL) || pcclWait(c, id) || recv[i] != send[i]) bad++;
        double t = ck_now() - t0;
        if (i && t > worst) worst = t; /* the first launches the daemon */
        ck_sleep_us(25000);
        ck_watchdog_kick();
    }
    pcclStats_t st;
    PT_OK(pcclCommGetStats(c, &st));
    PT_CHECK(bad == 0, "%d wrong results or failed calls", bad);
    PT_CHECK(st.slices >= 3, "%llu launches ended by the slice in 5 pauses past it", (unsigned long long)st.slices);
    PT_CHECK(worst < 0.100, "an invocation after a slice that ended idle took %.1f ms (the gap is 200 ms)", worst * 1e3);
    printf("\n    %llu slices, the longest invocation after one %.2f ms ", (unsigned long long)st.slices, worst * 1e3);
    pt_destroy(&c, 1);
    pt_end();
}

static void test_slice_deadline(void)
{
    const uint64_t s = 4000, t = 100000, e = 1000;
    PT_CHECK(pccl_slice_deadline(t, t + 3000, 0, 0) == UINT64_MAX, "no slice: no deadline");
    PT_CHECK(pccl_slice_deadline(t, t + 3000, s, 0) == t + 3000, "a grid point within the slice is taken");
    PT_CHECK(pccl_slice_deadline(t, t + s, s, 0) == t + s, "a grid point a slice away is taken");
    PT_CHECK(pccl_slice_deadline(t, t + s / 2, s, 0) == t + s / 2, "a grid point half a slice away is taken");
    PT_CHECK(pccl_slice_deadline(t, t + 500, s, 0) == t + s / 2, "a grid point too near: half a slice");
    PT_CHECK(pccl_slice_deadline(t, t + s + 1, s, 0) == t + s, "a grid point past a slice: a slice from the start");
    PT_CHECK(pccl_slice_deadline(t, t + s + 1, s, e) == t + s + 1, "early ends: a grid point past a slice, within early");
    PT_CHECK(pccl_slice_deadline(t, t + s + e, s, e) == t + s + e, "early ends: a slice and early away is taken");
    PT_CHECK(pccl_slice_deadline(t, t + s + e + 1, s, e) == t + s, "early ends: past a slice and early: a slice");
    /* a point already past (a launch queued ahead that began after it): the grid's next point */
    PT_CHECK(pccl_slice_deadline(t, t + 3000 - s, s, 0) == t + 3000, "a point a slice past: the grid's next");
    PT_CHECK(pccl_slice_deadline(t, t + 3000 - 3 * s, s, 0) == t + 3000, "a point three slices past: the grid's next");
    PT_CHECK(pccl_slice_deadline(t, t - s, s, 0) == t + s, "a point on the start's grid, past: a slice on");
    PT_CHECK(pccl_slice_deadline(t, t, s, 0) == t + s, "a point at the start: the grid's next, a slice on");
    PT_CHECK(pccl_slice_deadline(t, t + 500 - s, s, 0) == t + s / 2, "a past point whose next is too near: half a slice");
    PT_CHECK(pccl_slice_deadline(t, t, s, 0) == t + s, "a grid point already past: a slice");
    PT_CHECK(pccl_slice_deadline(t, 0, s, e) == t + s, "no grid point: a slice");
}

int pt_register_share(void)
{
    CU_pSuite s = CU_add_suite("share", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "a launch's slice: the host's grid point within a slice, half a slice at least",
                     test_slice_deadline) ||
        !CU_add_test(s, "device sync while a thread streams collectives, within the slice (no watch)",
                     test_devsync_while_streaming) ||
        !CU_add_test(s, "the same, holding the context lock as a module load, the launch ahead: within two slices",
                     test_devsync_drain_locks) ||
        !CU_add_test(s, "collectives longer than a slice: cut, resumed, exact (relaunched after the gap)", test_cut_midway) ||
        !CU_add_test(s, "the same, each relaunch queued ahead of the slice's end (PCCL_SLICE_AHEAD_US)", test_cut_midway_ahead) ||
        !CU_add_test(s, "chaos, random orders, 50 us slices", test_chaos_slices) ||
        !CU_add_test(s, "random orders while each rank's second thread synchronizes, within the slice (no watch)",
                     test_cross_rank) ||
        !CU_add_test(s, "the grid is the host's clock: ranks whose daemon clocks differ cut together",
                     test_grid_host_clock) ||
        !CU_add_test(s, "PCCL_SLICE_EARLY_US: an idle block ends its launch early, once a slice", test_early_cut) ||
        !CU_add_test(s, "block 0 alone decides a launch's end, the others follow (a cut at once, idleness at their own idle point)", test_block0_decides) ||
        !CU_add_test(s, "the others look at block 0's decision from the deadline on, paced", test_follow_pace) ||
        !CU_add_test(s, "the blocks take turns to look at the abort flag", test_abort_turns) ||
        !CU_add_test(s, "an idle block quits quit_ns after the GPU's last step it saw", test_idle_quit_sees_others) ||
        !CU_add_test(s, "a head whose threshold outlasts a slice still yields, exact", test_wait_spans_slices) ||
        !CU_add_test(s, "a launch slower to start than its slice still runs its work (racecheck)", test_slow_start) ||
        !CU_add_test(s, "a block that reaches its work after the others looked still runs it (racecheck)",
                     test_slow_try) ||
        !CU_add_test(s, "device sync while a thread streams collectives, within the watch's threshold (no slice)",
                     test_devsync_watched) ||
        !CU_add_test(s, "random orders while each rank's second thread synchronizes, within the watch's threshold",
                     test_cross_rank_watched) ||
        !CU_add_test(s, "a call that waits long gets cuts at a doubling pace", test_watch_pace) ||
        !CU_add_test(s, "block 0 ends its launch when the host asks (PCCL_CTL_CUT), not while held",
                     test_ctl_cut) ||
        !CU_add_test(s, "a slice that ends idle: the next invocation relaunches at once, no gap", test_idle_cut_no_gap))
        return -1;
    return 0;
}
