/* Where a relaunch after a time slice goes (issue 22's cost): each daemon
 * block stamps its launch's start, the slice's cut, its first step and its
 * end on the daemon's clock (scheduler.h; the GPU's globaltimer), and the
 * poller adds them up here, once per launch end it sees, together with its
 * own host-clock figures: how long after the end it relaunched, and the
 * launch call.  The two clocks are never compared with each other.
 *
 * A relaunch is measured once its next launch has ended too (its start and
 * first step are published then), and only when the poller saw every launch
 * in between: pcclRun may launch a daemon the poller never saw end, and
 * stamps from two launches apart would make no sense together. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One launch's stamps: the extremes over its blocks. */
typedef struct {
    uint64_t begin_min, begin_max, cut_min, pick_min, first_min, end_min, end_max, idle_sum, work_min, plan_min;
    int nblocks;
    int sms, sm_shared; /* the multiprocessors its blocks ran on; blocks beside another of its blocks */
    int sm0;            /* block 0's (it reads the host's SQ and completes one-block invocations) */
} launch_span;

static uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* Where the launch's blocks ran (each block's SM, pccl_begin), for
 * PCCL_SLICE_LOG: a launch whose blocks paired up on SMs would move its data
 * with fewer SMs' load and store units (on 2 H200s none did: 64 blocks on
 * 64 SMs in every relaunch, results/slice-x2/ call 13). */
static void span_sms(pcclComm_t c, launch_span *s)
{
    unsigned char on[1024] = {0};
    for (int b = 0; b < c->G.k.blocks; b++) {
        uint64_t sm = ld(&c->G.stats[b].sm);
        if (sm && sm <= sizeof on && on[sm - 1] < 255) on[sm - 1]++;
    }
    for (size_t i = 0; i < sizeof on; i++) {
        s->sms += on[i] != 0;
        s->sm_shared += on[i] > 1 ? on[i] : 0;
    }
    s->sm0 = (int)ld(&c->G.stats[0].sm) - 1;
}

static void span_read(pcclComm_t c, launch_span *s)
{
    memset(s, 0, sizeof *s);
    s->begin_min = s->cut_min = s->pick_min = s->first_min = s->end_min = s->work_min = s->plan_min = UINT64_MAX;
    for (int b = 0; b < c->G.k.blocks; b++) {
        const pccl_blk_stats *t = &c->G.stats[b];
        uint64_t bg = ld(&t->t_begin), cut = ld(&t->t_cut), pk = ld(&t->t_pick), f = ld(&t->t_first),
                 e = ld(&t->t_end), w = ld(&t->t_work), pl = ld(&t->t_plan);
        if (!bg || !e) continue; /* a block that never ran (cannot happen once launched) */
        s->nblocks++;
        if (bg < s->begin_min) s->begin_min = bg;
        if (bg > s->begin_max) s->begin_max = bg;
        if (cut && cut < s->cut_min) s->cut_min = cut;
        if (pk && pk < s->pick_min) s->pick_min = pk;
        if (w && w < s->work_min) s->work_min = w;
        if (b == 0 && pl) s->plan_min = pl; /* block 0's: the one that reads the host's SQ */
        if (f && f < s->first_min) s->first_min = f;
        if (e < s->end_min) s->end_min = e;
        if (e > s->end_max) s->end_max = e;
    }
    for (int b = 0; b < c->G.k.blocks && s->nblocks; b++) {
        uint64_t e = ld(&c->G.stats[b].t_end);
        if (e) s->idle_sum += s->end_max - e;
    }
    if (c->slice_acc.log) span_sms(c, s);
}

/* The slice's end for the launch about to be made.  Aligned, a point of a
 * grid of the host's clock (multiples of the slice), which every rank of the
 * host shares, so ranks streaming together end their slices together and
 * relaunch in the same few microseconds, instead of each rank's relaunch
 * stalling its peers at its own moment.  The daemon is told the point on its
 * own clock, through the least offset seen between a launch call and its
 * first block's start (the clocks' offset plus the launch's least latency).
 * The grid was on the daemon's clock before; two H200s' globaltimers were
 * 160-670 us apart (their offsets to the host's clock, pccl-perf's "clock
 * offset"), more than a relaunch, and their slices never ended together
 * (results/perf-2gpu-h200/, run 3).  A grid point less than
 * PCCL_SLICE_EARLY_US ahead is passed over: a launch that ended that early
 * (idle) served it, and a relaunch that took it again was cut again at its
 * first idle moment or, under half a slice, off the grid: two relaunches a
 * slice (one H200, round trips: results/early-h200/, call 1).  from_ns:
 * when the launch is expected to begin, the call's start or, for a launch
 * queued ahead, the running launch's end (its own point then is the next).
 * Sets the launch's parameter (G.deadline); the caller keeps it with the
 * launch it belongs to (slice_acc's deadline, or next_deadline ahead). */
uint64_t pccl_slice_plan_locked(pcclComm_t c, uint64_t from_ns)
{
    pccl_slice_acc *a = &c->slice_acc;
    uint64_t s = (uint64_t)c->G.k.slice_ns, g = 0;
    if (s && c->slice_align && a->off_known) g = ((from_ns + (uint64_t)c->G.k.slice_early_ns) / s + 1) * s;
    c->G.deadline = g ? g + (uint64_t)a->off : 0;
    if (!s) return UINT64_MAX;
    return g ? g : from_ns + s;
}

/* Host-clock figures of the relaunch that follows a cut launch, made
 * gap_ns after the poller saw the end (0: queued ahead of it), its launch
 * call launch_ns long. */
void pccl_slice_on_launch_locked(pcclComm_t c, uint64_t gap_ns, uint64_t launch_ns)
{
    pccl_slice_acc *a = &c->slice_acc;
    if (a->cut_launch && a->cut_launch + 1 == c->launches) {
        a->gap_ns = gap_ns;
        a->launch_ns = launch_ns;
        a->queued = c->outstanding;
        a->owed = c->outstanding - (uint64_t)pccl_cq_ready_locked(c);
        a->cq1_ns = 0;
        a->want_cq1 = 1;
    }
}

/* The first completion after a relaunch call, on the host's clock: the
 * refill as the host sees it, whatever the daemon's clock says. */
void pccl_slice_on_completion_locked(pcclComm_t c, uint64_t now)
{
    pccl_slice_acc *a = &c->slice_acc;
    if (!a->want_cq1) return;
    a->want_cq1 = 0;
    a->cq1_ns = now - a->call_ns;
}

/* PCCL_SLICE_LOG=FILE: each relaunch measured, one CSV line (us), to see
 * the spread behind pcclCommGetSliceStats's sums; then its moments (ns,
 * columns *_at): the cut launch's first cut and last end, the relaunch's
 * first start and first step on the daemon's clock; on the host's clock the
 * end seen and the relaunch call; and the clock offset (ns, daemon - host,
 * with the least launch latency), through which the ranks' relaunches are
 * lined up on the host's clock (scripts/slice-log --ranks: each GPU's
 * globaltimer is its own); then the relaunch's own figures, and last the
 * cut launch's deadline as told and as taken (daemon clock), whether it
 * counted on the grid, and whether the relaunch was queued ahead (1) or
 * followed the end (0). */
pcclResult_t pccl_slice_log_open(pcclComm_t c)
{
    const char *f = getenv("PCCL_SLICE_LOG");
    if (!f || !*f) return pcclSuccess;
    c->slice_acc.log = fopen(f, "a");
    if (!c->slice_acc.log) return pccl_err(NULL, pcclInvalidArgument, "PCCL_SLICE_LOG=%s: cannot open for appending", f);
    /* a line per write, appended: the ranks of a process share the file */
    setvbuf(c->slice_acc.log, NULL, _IOLBF, 0);
    fprintf(c->slice_acc.log,
            "rank,launch,late,drain,block_idle,dead,start_spread,refill,pick,work,gap,launch_call,queued,owed,"
            "host_cq1,launch_latency,plan0,cut_at,end_at,begin_at,first_at,seen_at,call_at,clock_offset,"
            "sms,sm_shared,span,completed,ended_seen_at,sm0,told_at,due_at,on_grid,ahead\n");
    return pcclSuccess;
}

void pccl_slice_log_close(pcclComm_t c)
{
    if (c->slice_acc.log) fclose(c->slice_acc.log);
    c->slice_acc.log = NULL;
}

static void log_line(pcclComm_t c, uint64_t e, const launch_span *s, uint64_t dead)
{
    pccl_slice_acc *a = &c->slice_acc;
    double first = s->first_min != UINT64_MAX ? (s->first_min - s->begin_min) / 1e3 : -1;
    double pick = s->pick_min != UINT64_MAX ? (s->pick_min - s->begin_min) / 1e3 : -1;
    double work = s->work_min != UINT64_MAX ? (s->work_min - s->begin_min) / 1e3 : -1;
    double plan = s->plan_min != UINT64_MAX ? (s->plan_min - s->begin_min) / 1e3 : -1;
    fprintf(a->log, "%d,%llu,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%llu,%llu,%.1f,%.1f,%.1f,%llu,%llu,%llu,%llu,%llu,%llu,%lld", c->rank,
            (unsigned long long)e, a->late_ns / 1e3, a->drain_ns / 1e3, a->block_idle_ns / 1e3, dead / 1e3,
            (s->begin_max - s->begin_min) / 1e3, first, pick, work, a->gap_ns / 1e3, a->launch_ns / 1e3,
            (unsigned long long)a->queued, (unsigned long long)a->owed, a->cq1_ns / 1e3,
            ((int64_t)(s->begin_min - a->call_ns) - a->off) / 1e3, plan, (unsigned long long)a->cut_at,
            (unsigned long long)a->prev_end, (unsigned long long)s->begin_min,
            (unsigned long long)(s->first_min != UINT64_MAX ? s->first_min : 0),
            (unsigned long long)(a->call_ns - a->gap_ns), (unsigned long long)a->call_ns, (long long)a->off);
    /* the relaunch's own: where its blocks ran, how long it lasted and the
     * completions seen in it (its pace, against the SMs) */
    fprintf(a->log, ",%d,%d,%.1f,%llu,%llu,%d", s->sms, s->sm_shared, (s->end_max - s->begin_min) / 1e3,
            (unsigned long long)(c->completed - a->done_at_end), (unsigned long long)a->cut_ended_ns, s->sm0);
    /* the cut launch's deadline, told and taken, and whether it was a grid
     * point reached (pcclSliceStats_t's aligned) */
    fprintf(a->log, ",%llu,%llu,%d,%d\n", (unsigned long long)a->told, (unsigned long long)a->due, a->on_grid,
            e == a->ahead_epoch);
}

/* The clock offset (with the launch latency), from launch e, which began
 * at `begin` on the daemon's clock: the least seen, drifting up slowly
 * should the clocks drift apart.  Not from a launch queued ahead: it began
 * when the one before ended, a slice's part after its call.  Each sample is
 * the offset and then some (the launch cannot begin before its call); a
 * call the driver held (the module's load, another thread's call holding
 * the context lock) adds its length: the offset then is not good enough
 * for the grid, and the launch ahead waits for a good one (launch.c). */
static void offset_sample(pcclComm_t c, uint64_t e, uint64_t begin)
{
    pccl_slice_acc *a = &c->slice_acc;
    if (e == a->ahead_epoch) return;
    int64_t off = (int64_t)(begin - a->call_ns);
    int good = a->call_end_ns - a->call_ns < c->call_short_ns;
    if (!a->off_known || off < a->off) a->off = off;
    else if (good) a->off += (off - a->off) / 64;
    a->off_known = 1;
    if (good) a->off_good = 1, a->since_good = 0;
}

/* A relaunch found launch e ended (idle) before the poller saw it (mu
 * held): the offset's sample alone, from block 0's start, one word of
 * pinned memory where on_end reads every block's figures (on the path of
 * the first invocation after a pause).  Without it, where every pause's end
 * was found so (pccl-perf quiesces between its rows, then issues at once),
 * the only sample was the first launch's, whose call the driver held: on
 * 2 and 4 H200s no relaunch was queued ahead for whole runs, and slices
 * ended 0.2-2.8 ms past the host's grid point (results/x4-h200/, calls
 * 21-23).  Block 0 starts with the others (0.1 us apart on 4 H200s). */
void pccl_slice_sample_locked(pcclComm_t c, uint64_t e)
{
    const pccl_blk_stats *t = &c->G.stats[0];
    uint64_t bg = ld(&t->t_begin);
    if (bg && ld(&t->t_end)) offset_sample(c, e, bg);
}

/* The poller saw launch number e end (mu held): the latest, or the one
 * before a launch queued ahead. */
static void on_end(pcclComm_t c, uint64_t e)
{
    pccl_slice_acc *a = &c->slice_acc;
    launch_span s;
    span_read(c, &s);
    if (!s.nblocks) return;
    offset_sample(c, e, s.begin_min);
    pcclSliceStats_t *o = &a->sum;
    if (a->cut_launch && a->cut_launch + 1 == e && s.begin_min >= a->prev_end) {
        /* the relaunch after launch cut_launch, now complete */
        o->relaunches++;
        o->lateNs += a->late_ns;
        o->drainNs += a->drain_ns;
        o->blockIdleNs += a->block_idle_ns;
        o->deadNs += s.begin_min - a->prev_end;
        o->startNs += s.begin_max - s.begin_min;
        if (s.first_min != UINT64_MAX) {
            o->refillNs += s.first_min - s.begin_min;
            if (s.pick_min <= s.first_min) o->pickNs += s.pick_min - s.begin_min;
        } else {
            o->noStep++;
        }
        o->gapNs += a->gap_ns;
        o->launchNs += a->launch_ns;
        o->aligned += (uint64_t)a->on_grid;
        o->ahead += e == a->ahead_epoch;
        if (a->log) log_line(c, e, &s, s.begin_min - a->prev_end);
    }
    a->done_at_end = c->completed;
    a->cut_launch = 0;
    if (s.cut_min == UINT64_MAX || pccl_ld_acq32(&c->G.hdr->sliced) != (uint32_t)e) return;
    /* Cut by its slice while work progressed: the poller relaunches it, at
     * once if work is outstanding.  With none (the application between
     * phases) the relaunch waits for the next invocation, which makes it
     * (run.c): not the slice's cost, not measured. */
    if (!c->outstanding || a->idle_end) return;
    /* the deadline the first block took (scheduler.h, pccl_begin).  Against
     * the host's alone, a launch that began within half a slice of it, and
     * so took half a slice, counted up to half a slice late: in
     * results/slice-x2/ call 18, sizes a few ms apart, 0.25-1.45 ms a
     * relaunch where some were off the grid, ~1 us where all were on it */
    uint64_t due = pccl_slice_deadline(s.begin_min, a->deadline, (uint64_t)c->G.k.slice_ns,
                                       (uint64_t)c->G.k.slice_early_ns);
    a->cut_launch = e;
    a->prev_end = s.end_max;
    a->late_ns = s.cut_min > due ? s.cut_min - due : 0;
    /* a point of the grid taken (the one told, or a later one: a launch
     * queued ahead that began past its point takes the grid's next), and
     * reached */
    a->on_grid = a->deadline && due >= a->deadline && (due - a->deadline) % (uint64_t)c->G.k.slice_ns == 0 &&
                 s.cut_min >= due;
    a->told = a->deadline;
    a->due = due;
    a->drain_ns = s.end_max - s.cut_min;
    a->cut_at = s.cut_min;
    a->cut_ended_ns = a->ended_ns;
    a->block_idle_ns = s.idle_sum / (uint64_t)s.nblocks;
    a->gap_ns = a->launch_ns = 0;
}

/* The poller saw launch number e end (mu held); its time counted. */
void pccl_slice_on_end_locked(pcclComm_t c, uint64_t e)
{
    uint64_t t0 = pccl_now_ns();
    on_end(c, e);
    c->slice_acc.sum.ends++;
    c->slice_acc.sum.endNs += pccl_now_ns() - t0;
}

pcclResult_t pcclCommGetSliceStats(pcclComm_t c, pcclSliceStats_t *s)
{
    CHECK_COMM(c, "pcclCommGetSliceStats");
    if (!s) return pccl_err(c, pcclInvalidArgument, "pcclCommGetSliceStats: stats is NULL");
    pthread_mutex_lock(&c->mu);
    *s = c->slice_acc.sum;
    s->clockOffsetNs = c->slice_acc.off;
    s->watch = c->watch;
    s->watchAsks = c->watch_asks;
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}
