/* report.c: what pccl-perf writes.
 *
 *   stdout  nccl-tests' table (size count type redop root, then time algbw
 *           busbw #wrong out of place and in place), one row per library,
 *           with `lib` after root and, on pccl's rows when NCCL ran too,
 *           ratio = pccl busbw / NCCL busbw (= NCCL time / pccl time) and
 *           dtime = pccl time - NCCL time (us), per placement;
 *   --csv   one line per library, placement and size, written as they come
 *           (a run cut short by a timeout keeps what it measured);
 *   --json  the same rows with the configuration, at the end.
 * --interfere has its own table, CSV header and JSON list (one row per
 * scenario), written the same way.
 * Times are printed as nccl-tests prints them (%7.2f below 100 us ...). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

extern char **environ;

static const char *csv_header =
    "mode,coll,nranks,lib,placement,size,count,type,redop,root,iters,warmup,time_us,algbw_GBs,busbw_GBs,wrong,"
    "ratio,dtime_us,delay_us,preempt_per_iter_block,quits_per_iter,timing\n";

static const char *interfere_csv_header =
    "mode,kernel,kernel_n,launches,scenario,lib,gpus,coll,nranks,size,count,type,redop,root,compute_ms,"
    "compute_ms_max,compute_ms_alone,slowdown_pct,rate,rate_unit,colls,window_ms,busbw_GBs,busbw_alone_GBs,"
    "busbw_ratio,wrong,preemptions_per_gpu,quits_per_gpu,launches_per_gpu,release_ms,others_slowdown_pct\n";

static const char *overlap_csv_header =
    "mode,kernel,kernel_n,launches,scenario,lib,pccl_blocks,coll,nranks,size,type,redop,colls,compute_ms,colls_ms,"
    "makespan_ms,vs_compute,vs_colls,vs_serial,vs_ideal,wrong\n";

static const char *split_csv_header =
    "mode,coll,nranks,size,count,type,redop,root,iters,nccl_time_us,pccl_time_us,sq_us,wait_us,exec_us,"
    "commit_us,cq_us,daemon_us,host_us,preempt_per_iter_block,slowest_block_us\n";

static int both_libs(const perf_team *T) { return (T->o->libs & 3u) == 3u; }
/* The GPUs the ranks run on: with --share-gpu=M the first M (a look at GPU 1
 * of a one-GPU host was an invalid device ordinal, which compute-sanitizer
 * counts as an error). */
static int perf_devices(const perf_team *T)
{
    int m = T->o->share_gpu;
    return m && m < T->nranks ? m : T->nranks;
}

static void fmt_time(char *b, size_t n, double us)
{
    if (us >= 10000.0) snprintf(b, n, "%7.0f", us);
    else if (us >= 100.0) snprintf(b, n, "%7.1f", us);
    else snprintf(b, n, "%7.2f", us);
}

static void command_line(const perf_team *T, char *b, size_t n)
{
    size_t k = 0;
    b[0] = 0;
    for (int i = 0; i < T->argc && k < n; i++) k += (size_t)snprintf(b + k, n - k, "%s%s", i ? " " : "", T->argv[i]);
}

static const char *libs_line(const perf_team *T, char *b, size_t n)
{
    size_t k = 0;
    b[0] = 0;
    for (int l = 0; l < PERF_NLIBS && k < n; l++)
        if ((T->o->libs >> l) & 1u) k += (size_t)snprintf(b + k, n - k, "%s%s", k ? ", " : "", perf_lib_get(l)->version());
    return b;
}

void perf_report_header(perf_team *T)
{
    const perf_opts *o = T->o;
    char cmd[2048], libs[128], devs[2048], host[256] = "?";
    command_line(T, cmd, sizeof cmd);
    dev_describe(devs, sizeof devs, perf_devices(T));
    gethostname(host, sizeof host - 1);
    printf("# pccl-perf: %s\n", cmd);
    char step[64];
    if (o->stepfactor > 1) snprintf(step, sizeof step, "%g(factor)", o->stepfactor);
    else snprintf(step, sizeof step, "%zu(bytes)", o->stepbytes);
    printf("# nranks %d (one thread each) minBytes %zu maxBytes %zu step: %s warmup iters: %d iters: %d "
           "validation: %d blocking: %d average: %d\n",
           T->nranks, o->minbytes, o->maxbytes, step, o->warmup, o->iters, o->check, o->blocking, o->average);
    if (o->iter_bytes)
        printf("# iterations per size: about %zu bytes / size, between --min-iters %d and -n %d\n", o->iter_bytes,
               o->min_iters, o->iters);
    printf("# libraries: %s; timing:%s%s\n", libs_line(T, libs, sizeof libs),
           o->timings & 1u << PERF_TIMING_B2B ? " b2b (back to back)" : "",
           o->timings & 1u << PERF_TIMING_RT ? " rt (round trip: each iteration waited for)" : "");
    if (o->libs & 1u << PERF_LIB_PCCL)
        printf("# pccl b2b: %d invocations in flight (copies of each size), each issued by the completion callback "
               "of the one before\n", o->pccl_depth);
    if (o->libs & 1u << PERF_LIB_NCCL)
        printf("# NCCL as nccl-tests runs it: blocking communicators, %s\n",
               perf_nccl_grouped(o) ? "one thread per -g GPUs issuing them in a group" : "one thread per rank");
    if (o->interfere)
        printf("# --interfere %s --interfere-n %ld --interfere-k %s (one collective, one size: -b)\n",
               o->interfere == PERF_KERNEL_GEMM ? "gemm" : "stream", o->interfere_n,
               o->interfere_k ? "given" : "auto");
    printf("# host %s; %s\n", host, devs);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "PCCL_", 5) || !strncmp(*e, "NCCL_", 5)) printf("# env %s\n", *e);
}

/* ---- the nccl-tests table ------------------------------------------------------ */

#define PREFIX_FMT "%12zu  %12zu  %8s  %6s  %6d  %4s  %6s"
#define PREFIX_HDR "# %10s  %12s  %8s  %6s  %6s  %4s  %6s"
#define GROUP_HDR "  %7s  %6s  %6s  %6s"
#define VS_HDR "  %6s  %8s"

void perf_report_table_begin(perf_team *T, const perf_test *t)
{
    int vs = both_libs(T);
    int group = 2 + 7 + 3 * (2 + 6) + (vs ? 2 + 6 + 2 + 8 : 0);
    printf("#\n# %s: %s", perf_coll_name(t->coll), perf_type_name(t->dtype));
    if (ck_has_op(t->coll)) printf(" %s", perf_op_name(t));
    if (t->root >= 0) printf(", root %d", t->root);
    printf("%s\n", vs ? "  (ratio = pccl busbw / NCCL busbw; dtime = pccl time - NCCL time)" : "");
    printf("# %64s  %-*s%s\n", "", group - 2, "out-of-place", "in-place");
    printf(PREFIX_HDR, "size", "count", "type", "redop", "root", "lib", "timing");
    for (int g = 0; g < 2; g++) {
        printf(GROUP_HDR, "time", "algbw", "busbw", "#wrong");
        if (vs) printf(VS_HDR, "ratio", "dtime");
    }
    printf("\n" PREFIX_HDR, "(B)", "(elements)", "", "", "", "", "");
    for (int g = 0; g < 2; g++) {
        printf(GROUP_HDR, "(us)", "(GB/s)", "(GB/s)", "");
        if (vs) printf(VS_HDR, "(x)", "(us)");
    }
    printf("\n");
    fflush(stdout);
}

static void csv_row(perf_team *T, const perf_row *r)
{
    if (!T->csv) return;
    FILE *f = T->csv;
    fprintf(f, "%s,%s,%d,%s,%s,%zu,%zu,%s,%s,%d,%d,%d,%.6g,%.6g,%.6g,", r->delay_us >= 0 ? "delay" : "bench",
            perf_coll_name(r->t.coll), r->nranks, perf_lib_get(r->lib)->name, r->inplace ? "in" : "out", r->bytes,
            r->count, perf_type_name(r->t.dtype), perf_op_name(&r->t), r->t.root, r->iters, r->warmup, r->time_us,
            r->algbw, r->busbw);
    if (r->wrong >= 0) fprintf(f, "%lld", r->wrong);
    fputc(',', f);
    if (!isnan(r->ratio)) fprintf(f, "%.6g,%.6g", r->ratio, r->dtime_us);
    else fputc(',', f);
    fputc(',', f);
    if (r->delay_us >= 0) fprintf(f, "%ld", r->delay_us);
    fputc(',', f);
    if (r->preempt_per_iter >= 0) fprintf(f, "%.6g,%.6g", r->preempt_per_iter, r->quits_per_iter);
    else fputc(',', f);
    fprintf(f, ",%s\n", perf_timing_name(r->timing));
    fflush(f);
}

void perf_report_add(perf_team *T, const perf_row *r)
{
    if (T->nrows == T->cap) {
        T->cap = T->cap ? 2 * T->cap : 256;
        T->rows = realloc(T->rows, (size_t)T->cap * sizeof *T->rows);
        if (!T->rows) perf_fatal(PERF_EXIT_ERROR, "out of host memory");
    }
    T->rows[T->nrows++] = *r;
    /* a size is checked once per library and placement; every timing's row
     * shows that check: count it on the first timing's */
    int first = r->delay_us >= 0 || r->timing == __builtin_ctz(T->o->timings | 1u << PERF_NTIMINGS);
    if (r->wrong > 0 && first) T->wrong_total += r->wrong;
    csv_row(T, r);
}

void perf_report_size(perf_team *T, const perf_case *k, perf_row rows[PERF_NLIBS][2])
{
    int vs = both_libs(T);
    for (int ip = 0; vs && ip < 2; ip++) {
        perf_row *n = &rows[PERF_LIB_NCCL][ip], *p = &rows[PERF_LIB_PCCL][ip];
        p->ratio = p->time_us > 0 ? n->time_us / p->time_us : NAN;
        p->dtime_us = p->time_us - n->time_us;
    }
    for (int l = 0; l < PERF_NLIBS; l++) {
        if (rows[l][0].lib < 0) continue;
        printf(PREFIX_FMT, k->bytes, k->c.count, perf_type_name(k->t.dtype), perf_op_name(&k->t), k->t.root,
               perf_lib_get(l)->name, perf_timing_name(rows[l][0].timing));
        for (int ip = 0; ip < 2; ip++) {
            perf_row *r = &rows[l][ip];
            char t[32], w[32], ra[32] = "-", dt[32] = "-";
            fmt_time(t, sizeof t, r->time_us);
            if (r->wrong >= 0) snprintf(w, sizeof w, "%lld", r->wrong);
            else snprintf(w, sizeof w, "N/A");
            printf("  %7s  %6.2f  %6.2f  %6s", t, r->algbw, r->busbw, w);
            if (vs) {
                if (!isnan(r->ratio)) {
                    snprintf(ra, sizeof ra, "%.2f", r->ratio);
                    snprintf(dt, sizeof dt, "%+.2f", r->dtime_us);
                }
                printf(VS_HDR, ra, dt);
            }
            perf_report_add(T, r);
        }
        printf("\n");
    }
    fflush(stdout);
}

/* ---- preemption-cost table ------------------------------------------------------ */

static double delay_base[PERF_NLIBS];
static const perf_case *delay_case;

void perf_report_delay_begin(perf_team *T, const perf_test *t)
{
    printf("#\n# preemption cost: %s %s", perf_coll_name(t->coll), perf_type_name(t->dtype));
    if (ck_has_op(t->coll)) printf(" %s", perf_op_name(t));
    if (t->root >= 0) printf(", root %d", t->root);
    printf("; rank %d invokes every iteration `delay` us late (busy wait), the others at once;\n"
           "# every iteration is waited for.  extra = (time - delay) - (time - delay at delay 0);\n"
           "# pccl's preemptions per iteration and daemon block, and daemon quits per iteration, mean over ranks\n",
           T->o->delay_rank);
#define DELAY_HDR "# %10s  %12s  %8s  %6s  %6s  %8s  %4s  %8s  %8s  %8s  %8s  %8s\n"
    printf(DELAY_HDR, "size", "count", "type", "redop", "root", "delay", "lib", "time", "-delay", "extra", "preempt",
           "quits");
    printf(DELAY_HDR, "(B)", "(elements)", "", "", "", "(us)", "", "(us)", "(us)", "(us)", "/it/blk", "/it");
    fflush(stdout);
}

void perf_report_delay(perf_team *T, const perf_case *k, perf_row rows[PERF_NLIBS])
{
    if (delay_case != k) { /* a new size: no base yet */
        delay_case = k;
        for (int l = 0; l < PERF_NLIBS; l++) delay_base[l] = NAN;
    }
    for (int l = 0; l < PERF_NLIBS; l++) {
        perf_row *r = &rows[l];
        if (r->lib < 0) continue;
        double net = r->time_us - (double)r->delay_us;
        if (r->delay_us == 0) delay_base[l] = net;
        char ex[32] = "-", pre[32] = "-", qu[32] = "-";
        if (!isnan(delay_base[l])) snprintf(ex, sizeof ex, "%+.2f", net - delay_base[l]);
        if (r->preempt_per_iter >= 0) {
            snprintf(pre, sizeof pre, "%.2f", r->preempt_per_iter);
            snprintf(qu, sizeof qu, "%.3f", r->quits_per_iter);
        }
        printf("%12zu  %12zu  %8s  %6s  %6d  %8ld  %4s  %8.2f  %8.2f  %8s  %8s  %8s\n", k->bytes, k->c.count,
               perf_type_name(k->t.dtype), perf_op_name(&k->t), k->t.root, r->delay_us,
               perf_lib_get(l)->name, r->time_us, net, ex, pre, qu);
        perf_report_add(T, r);
    }
    fflush(stdout);
}

/* "-" where v is not applicable (NAN; negative too unless signed) */
static const char *cell(char *b, size_t n, const char *fmt, double v, int is_signed)
{
    if (isnan(v) || (!is_signed && v < 0)) snprintf(b, n, "-");
    else snprintf(b, n, fmt, v);
    return b;
}

/* the same, empty where not applicable (the CSV's convention) */
static const char *csv_cell(char *b, size_t n, const char *fmt, double v, int is_signed)
{
    if (!strcmp(cell(b, n, fmt, v, is_signed), "-")) b[0] = 0;
    return b;
}

/* ---- latency split (--split) ------------------------------------------------------ */

#define SPLIT_HDR "# %10s  %12s  %8s  %6s  %6s  %8s  %8s  %7s  %7s  %7s  %7s  %7s  %8s  %8s  %7s  %8s\n"
#define SPLIT_ROW "%12zu  %12zu  %8s  %6s  %6d  %8s  %8s  %7s  %7s  %7s  %7s  %7s  %8s  %8s  %7s  %8s\n"

void perf_report_split_begin(perf_team *T, const perf_test *t)
{
    printf("#\n# latency split: %s %s", perf_coll_name(t->coll), perf_type_name(t->dtype));
    if (ck_has_op(t->coll)) printf(" %s", perf_op_name(t));
    if (t->root >= 0) printf(", root %d", t->root);
    static int explained;
    printf(", out of place, %d ranks\n", T->nranks);
    if (explained++) goto header;
    printf("# pccl with PCCL_PROFILE=1 (its daemon reads the clock around\n"
           "# each phase: the time column is not the benchmark's).  time: per iteration, as the benchmark\n"
           "# measures it.  Per invocation, mean over ranks and daemon blocks: sq = reading the SQ, wait =\n"
           "# polling flags (peers, free slots), prims = moving and reducing data (barriers, and posts of the\n"
           "# step before, included), commit = the posts (fence, flag stores) the block waited for, cq =\n"
           "# completing (blocks' count, CQ entry); daemon = from the SQ read to the CQ entry (sq, wait,\n"
           "# prims, commit, cq and the scheduler's own time); host = time - daemon: submitting, the poller\n"
           "# seeing the CQ entry, the callback or wake-up, a relaunch, and the blocks finishing apart;\n"
           "# slowest = daemon for the slowest block (its mean over its invocations; the largest over\n"
           "# ranks and blocks): an iteration ends with its last block\n");
header:
    printf(SPLIT_HDR, "size", "count", "type", "redop", "root", "nccl", "pccl", "sq", "wait", "prims", "commit",
           "cq", "daemon", "host", "preempt", "slowest");
    printf(SPLIT_HDR, "(B)", "(elements)", "", "", "", "(us)", "(us)", "(us)", "(us)", "(us)", "(us)", "(us)", "(us)",
           "(us)", "/it/blk", "(us)");
    fflush(stdout);
}

void perf_report_split(perf_team *T, const perf_case *k, const perf_split *s)
{
    char b[12][32];
    double daemon = s->life + s->cq, host = s->pccl_us - daemon, slowest = s->slowest + s->cq;
    printf(SPLIT_ROW, k->bytes, k->c.count, perf_type_name(k->t.dtype), perf_op_name(&k->t), k->t.root,
           cell(b[0], 32, "%.2f", s->nccl_us, 0), cell(b[1], 32, "%.2f", s->pccl_us, 0),
           cell(b[2], 32, "%.2f", s->sq, 0), cell(b[3], 32, "%.2f", s->wait, 0), cell(b[4], 32, "%.2f", s->exec, 0),
           cell(b[5], 32, "%.2f", s->commit, 0), cell(b[6], 32, "%.2f", s->cq, 0), cell(b[7], 32, "%.2f", daemon, 0),
           cell(b[8], 32, "%.2f", host, 1), cell(b[9], 32, "%.2f", s->preempt, 0), cell(b[10], 32, "%.2f", slowest, 0));
    fflush(stdout);
    if (!T->csv) return;
    fprintf(T->csv, "split,%s,%d,%zu,%zu,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", perf_coll_name(k->t.coll),
            T->nranks, k->bytes, k->c.count, perf_type_name(k->t.dtype), perf_op_name(&k->t), k->t.root, k->iters,
            csv_cell(b[0], 32, "%.6g", s->nccl_us, 0), csv_cell(b[1], 32, "%.6g", s->pccl_us, 0),
            csv_cell(b[2], 32, "%.6g", s->sq, 0), csv_cell(b[3], 32, "%.6g", s->wait, 0),
            csv_cell(b[4], 32, "%.6g", s->exec, 0), csv_cell(b[5], 32, "%.6g", s->commit, 0),
            csv_cell(b[6], 32, "%.6g", s->cq, 0), csv_cell(b[7], 32, "%.6g", daemon, 0),
            csv_cell(b[8], 32, "%.6g", host, 1), csv_cell(b[9], 32, "%.6g", s->preempt, 0),
            csv_cell(b[10], 32, "%.6g", slowest, 0));
    fflush(T->csv);
}

/* ---- --interfere ----------------------------------------------------------------------- */

static const char *kernel_name(int kind) { return kind == PERF_KERNEL_GEMM ? "gemm" : "stream"; }
static const char *rate_unit(int kind) { return kind == PERF_KERNEL_GEMM ? "TFLOP/s" : "GB/s"; }

#define IFR_FMT "%12s  %4s  %4s  %9s  %9s  %9s  %8s  %9s  %8s  %8s  %8s  %8s  %8s  %6s  %8s  %7s  %8s\n"
#define IFR_HDR "# %10s  %4s  %4s  %9s  %9s  %9s  %8s  %9s  %8s  %8s  %8s  %8s  %8s  %6s  %8s  %7s  %8s\n"

void perf_report_interfere_begin(perf_team *T, const perf_case *k)
{
    const perf_opts *o = T->o;
    printf("#\n# interference (paper 004): %s\n", T->ifr_kernel);
    printf("#   on every GPU at once, each on its own non-blocking stream: %ld launches per scenario (%s)\n",
           T->interfere_k, o->interfere_k ? "--interfere-k" : "about 1.5 s alone on the slowest GPU");
    printf("# collectives: %s %s", perf_coll_name(k->t.coll), perf_type_name(k->t.dtype));
    if (ck_has_op(k->t.coll)) printf(" %s", perf_op_name(&k->t));
    if (k->t.root >= 0) printf(", root %d", k->t.root);
    printf(", %zu B (count %zu), out of place, in batches of %d back to back\n"
           "#   until every GPU's kernels finished (a barrier of the rank threads after each batch decides)\n",
           k->bytes, k->c.count, o->blocking ? 1 : PERF_INTERFERE_BATCH);
    printf("# the libraries alone (the same loop, no kernels, %.1f s): busbw", PERF_INTERFERE_BASE_S);
    for (int l = 0, first = 1; l < PERF_NLIBS; l++)
        if ((o->libs >> l) & 1u) {
            printf("%s %s %.2f GB/s", first ? "" : ",", perf_lib_get(l)->name, T->ifr_bw_alone[l]);
            first = 0;
        }
    printf("\n# slowdown = compute time / alone's - 1 (mean over GPUs; pccl-stuck: GPU 0's); busbw over the\n"
           "#   window (the collective loop, mean over ranks); pccl's counters per GPU (pcclCommGetStats;\n"
           "#   preemptions summed over its daemon blocks, not counting the last quit)\n");
    printf(IFR_HDR, "scenario", "lib", "gpus", "compute", "max", "alone", "slowdown", "rate", "colls", "window",
           "busbw", "bw-alone", "bw-ratio", "#wrong", "preempt", "quits", "launches");
    char unit[16];
    snprintf(unit, sizeof unit, "(%s)", rate_unit(o->interfere));
    printf(IFR_HDR, "", "", "", "(ms)", "(ms)", "(ms)", "(%)", unit, "", "(ms)", "(GB/s)",
           "(GB/s)", "(x)", "", "/GPU", "/GPU", "/GPU");
    fflush(stdout);
}

static void interfere_csv_row(perf_team *T, const perf_case *k, const perf_irow *r)
{
    if (!T->csv) return;
    const perf_opts *o = T->o;
    FILE *f = T->csv;
    char b[16][32];
    fprintf(f, "interfere,%s,%ld,%ld,%s,%s,%s,%s,%d,%zu,%zu,%s,%s,%d,%.6g,%.6g,%.6g,%s,%s,%s,", kernel_name(o->interfere),
            o->interfere_n, T->interfere_k, r->scenario, r->lib >= 0 ? perf_lib_get(r->lib)->name : "",
            r->gpu0_only ? "0" : "all", perf_coll_name(k->t.coll), T->nranks, k->bytes, k->c.count,
            perf_type_name(k->t.dtype), perf_op_name(&k->t), k->t.root, r->ms_mean, r->ms_max, r->ms_alone,
            csv_cell(b[0], 32, "%.6g", r->slowdown_pct, 1), csv_cell(b[1], 32, "%.6g", r->rate, 0), rate_unit(o->interfere));
    fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_cell(b[2], 32, "%.0f", (double)r->colls, 0),
            csv_cell(b[3], 32, "%.6g", r->window_ms, 0), csv_cell(b[4], 32, "%.6g", r->busbw, 0),
            csv_cell(b[5], 32, "%.6g", r->busbw_alone, 0), csv_cell(b[6], 32, "%.6g", r->bw_ratio, 0),
            csv_cell(b[7], 32, "%.0f", (double)r->wrong, 0), csv_cell(b[8], 32, "%.6g", r->preempt, 0),
            csv_cell(b[9], 32, "%.6g", r->quits, 0), csv_cell(b[10], 32, "%.6g", r->launches, 0),
            csv_cell(b[11], 32, "%.6g", r->release_ms, 0), csv_cell(b[12], 32, "%.6g", r->others_pct, 1));
    fflush(f);
}

void perf_report_interfere(perf_team *T, const perf_case *k, const perf_irow *r)
{
    char b[16][32];
    printf(IFR_FMT, r->scenario, r->lib >= 0 ? perf_lib_get(r->lib)->name : "-", r->gpu0_only ? "0" : "all",
           cell(b[0], 32, "%.1f", r->ms_mean, 0), cell(b[1], 32, "%.1f", r->ms_max, 0),
           cell(b[2], 32, "%.1f", r->ms_alone, 0), cell(b[3], 32, "%+.2f", r->slowdown_pct, 1),
           cell(b[4], 32, "%.2f", r->rate, 0), cell(b[5], 32, "%.0f", (double)r->colls, 0),
           cell(b[6], 32, "%.1f", r->window_ms, 0), cell(b[7], 32, "%.2f", r->busbw, 0),
           cell(b[8], 32, "%.2f", r->busbw_alone, 0), cell(b[9], 32, "%.3f", r->bw_ratio, 0),
           cell(b[10], 32, "%.0f", (double)r->wrong, 0), cell(b[11], 32, "%.1f", r->preempt, 0),
           cell(b[12], 32, "%.1f", r->quits, 0), cell(b[13], 32, "%.1f", r->launches, 0));
    fflush(stdout);
    perf_irow *n = realloc(T->irows, (size_t)(T->nirows + 1) * sizeof *n);
    if (!n) perf_fatal(PERF_EXIT_ERROR, "out of host memory");
    T->irows = n;
    T->irows[T->nirows++] = *r;
    if (r->wrong > 0) T->wrong_total += r->wrong;
    interfere_csv_row(T, k, r);
}

/* ---- --overlap ------------------------------------------------------------------------ */

#define OVL_HDR "# %-12s %4s %6s %8s %10s %10s %11s %7s %7s %7s %7s %6s\n"
#define OVL_FMT "  %-12s %4s %6s %8s %10s %10s %11s %7s %7s %7s %7s %6s\n"

void perf_report_overlap_begin(perf_team *T, const perf_case *k)
{
    printf("#\n# --overlap: %s, %ld launches per GPU, and %ld x %s %zu B (%s %s, out of place, back to back) per "
           "rank, alone and at once\n# makespan: from the start to the end of both (wall, slowest rank); vs_*: "
           "makespan / compute alone, / collectives alone, / their sum (1: no overlap), / their max (1: perfect)\n",
           T->ifr_kernel, T->interfere_k, T->overlap_m, perf_coll_name(k->t.coll), k->bytes,
           perf_type_name(k->t.dtype), perf_op_name(&k->t));
    printf(OVL_HDR, "scenario", "lib", "blocks", "colls", "compute", "colls", "makespan", "vs", "vs", "vs", "vs",
           "#wrong");
    printf(OVL_HDR, "", "", "", "", "(ms)", "(ms)", "(ms)", "compute", "colls", "serial", "ideal", "");
    fflush(stdout);
}

void perf_report_overlap(perf_team *T, const perf_case *k, const perf_orow *r)
{
    char b[12][32];
    printf(OVL_FMT, r->scenario, r->lib >= 0 ? perf_lib_get(r->lib)->name : "-", cell(b[0], 32, "%.0f", r->blocks, 0),
           cell(b[1], 32, "%.0f", (double)r->colls, 0), cell(b[2], 32, "%.1f", r->compute_ms, 0),
           cell(b[3], 32, "%.1f", r->colls_ms, 0), cell(b[4], 32, "%.1f", r->makespan_ms, 0),
           cell(b[5], 32, "%.3f", r->vs_compute, 0), cell(b[6], 32, "%.3f", r->vs_colls, 0),
           cell(b[7], 32, "%.3f", r->vs_serial, 0), cell(b[8], 32, "%.3f", r->vs_ideal, 0),
           cell(b[9], 32, "%.0f", (double)r->wrong, 0));
    fflush(stdout);
    if (r->wrong > 0) T->wrong_total += r->wrong;
    T->norows++;
    if (!T->csv) return;
    fprintf(T->csv, "overlap,%s,%ld,%ld,%s,%s,%s,%s,%d,%zu,%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s,%s\n",
            T->o->interfere == PERF_KERNEL_GEMM ? "gemm" : "stream", T->o->interfere_n, T->interfere_k, r->scenario,
            r->lib >= 0 ? perf_lib_get(r->lib)->name : "", csv_cell(b[0], 32, "%.0f", r->blocks, 0),
            perf_coll_name(k->t.coll), T->nranks, k->bytes, perf_type_name(k->t.dtype), perf_op_name(&k->t), r->colls,
            csv_cell(b[1], 32, "%.6g", r->compute_ms, 0), csv_cell(b[2], 32, "%.6g", r->colls_ms, 0),
            csv_cell(b[3], 32, "%.6g", r->makespan_ms, 0), csv_cell(b[4], 32, "%.6g", r->vs_compute, 0),
            csv_cell(b[5], 32, "%.6g", r->vs_colls, 0), csv_cell(b[6], 32, "%.6g", r->vs_serial, 0),
            csv_cell(b[7], 32, "%.6g", r->vs_ideal, 0), csv_cell(b[8], 32, "%.0f", (double)r->wrong, 0));
    fflush(T->csv);
}

void perf_report_interfere_note(perf_team *T, const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* ---- the end ----------------------------------------------------------------------- */

void perf_report_summary(perf_team *T)
{
    double sum[PERF_NTIMINGS][PERF_NLIBS] = {{0}}, logr[PERF_NTIMINGS] = {0};
    int n[PERF_NTIMINGS][PERF_NLIBS] = {{0}}, nr[PERF_NTIMINGS] = {0};
    for (int i = 0; i < T->nrows; i++) {
        const perf_row *r = &T->rows[i];
        if (r->delay_us >= 0) continue;
        sum[r->timing][r->lib] += r->busbw;
        n[r->timing][r->lib]++;
        if (!isnan(r->ratio) && r->ratio > 0) {
            logr[r->timing] += log(r->ratio);
            nr[r->timing]++;
        }
    }
    printf("#\n# Out of bounds values : %lld %s\n", T->wrong_total, T->wrong_total ? "FAILED" : "OK");
    if (T->unchecked) printf("# Not checked          : %d sizes (above --check-max or -c 0)\n", T->unchecked);
    for (int m = 0; m < PERF_NTIMINGS; m++) {
        for (int l = 0; l < PERF_NLIBS; l++)
            if (n[m][l])
                printf("# Avg bus bandwidth    : %.4g GB/s (%s, %s, mean of %d rows)\n", sum[m][l] / n[m][l],
                       perf_lib_get(l)->name, perf_timing_name(m), n[m][l]);
        if (nr[m])
            printf("# pccl / NCCL busbw    : %.3f (%s, geometric mean of %d ratios)\n", exp(logr[m] / nr[m]),
                   perf_timing_name(m), nr[m]);
    }
    printf("#\n");
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* "key": v, or null where v is not measured: NaN, or (json_num) negative. */
static void json_value(FILE *f, const char *key, double v, int last, int may_be_negative)
{
    fprintf(f, "\"%s\": ", key);
    if (isnan(v) || (v < 0 && !may_be_negative)) fprintf(f, "null");
    else fprintf(f, "%.6g", v);
    fprintf(f, last ? "" : ", ");
}
static void json_num(FILE *f, const char *key, double v, int last) { json_value(f, key, v, last, 0); }
static void json_signed(FILE *f, const char *key, double v, int last) { json_value(f, key, v, last, 1); }

/* ,"interfere": [...] : the scenarios' rows, as in the CSV. */
static void write_json_interfere(perf_team *T, FILE *f)
{
    fprintf(f, ",\n  \"interfere\": [\n");
    for (int i = 0; i < T->nirows; i++) {
        const perf_irow *r = &T->irows[i];
        fprintf(f, "    {\"scenario\": \"%s\", \"lib\": ", r->scenario);
        if (r->lib >= 0) json_str(f, perf_lib_get(r->lib)->name);
        else fprintf(f, "null");
        fprintf(f, ", \"gpus\": \"%s\", \"rate_unit\": \"%s\", ", r->gpu0_only ? "0" : "all", rate_unit(T->o->interfere));
        json_num(f, "compute_ms", r->ms_mean, 0);
        json_num(f, "compute_ms_max", r->ms_max, 0);
        json_num(f, "compute_ms_alone", r->ms_alone, 0);
        json_signed(f, "slowdown_pct", r->slowdown_pct, 0);
        json_num(f, "rate", r->rate, 0);
        json_num(f, "colls", (double)r->colls, 0);
        json_num(f, "window_ms", r->window_ms, 0);
        json_num(f, "busbw_GBs", r->busbw, 0);
        json_num(f, "busbw_alone_GBs", r->busbw_alone, 0);
        json_num(f, "busbw_ratio", r->bw_ratio, 0);
        json_num(f, "wrong", (double)r->wrong, 0);
        json_num(f, "preemptions_per_gpu", r->preempt, 0);
        json_num(f, "quits_per_gpu", r->quits, 0);
        json_num(f, "launches_per_gpu", r->launches, 0);
        json_num(f, "release_ms", r->release_ms, 0);
        json_signed(f, "others_slowdown_pct", r->others_pct, 1);
        fprintf(f, "}%s\n", i + 1 < T->nirows ? "," : "");
    }
    fprintf(f, "  ]");
}

static int write_json(perf_team *T, const char *path)
{
    const perf_opts *o = T->o;
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    char cmd[2048], devs[2048];
    command_line(T, cmd, sizeof cmd);
    dev_describe(devs, sizeof devs, perf_devices(T));
    fprintf(f, "{\n  \"program\": \"pccl-perf\",\n  \"command\": ");
    json_str(f, cmd);
    fprintf(f, ",\n  \"devices\": ");
    json_str(f, devs);
    fprintf(f, ",\n  \"libraries\": {");
    int first = 1;
    for (int l = 0; l < PERF_NLIBS; l++)
        if ((o->libs >> l) & 1u) {
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", perf_lib_get(l)->name);
            json_str(f, perf_lib_get(l)->version());
            first = 0;
        }
    fprintf(f, "},\n  \"config\": {\"nranks\": %d, \"minbytes\": %zu, \"maxbytes\": %zu, \"stepbytes\": %zu, "
               "\"stepfactor\": %g, \"iters\": %d, \"warmup\": %d, \"check\": %d, \"blocking\": %d, \"average\": %d, "
               "\"timing\": \"%s%s%s\", \"pccl_depth\": %d, \"iter_bytes\": %zu, \"min_iters\": %d, \"check_max\": %zu, \"timeout\": %g, "
               "\"seed\": %llu, \"delay_rank\": %d, \"interfere\": %s%s%s, \"interfere_n\": %ld, "
               "\"interfere_k\": %ld},\n  \"env\": {",
            T->nranks, o->minbytes, o->maxbytes, o->stepbytes, o->stepfactor, o->iters, o->warmup, o->check,
            o->blocking, o->average, o->timings & 1u << PERF_TIMING_B2B ? "b2b" : "",
            o->timings == 3u ? "," : "", o->timings & 1u << PERF_TIMING_RT ? "rt" : "", o->pccl_depth, o->iter_bytes, o->min_iters,
            o->check_max, o->timeout, (unsigned long long)o->seed, o->ndelays ? o->delay_rank : -1,
            o->interfere ? "\"" : "", o->interfere ? kernel_name(o->interfere) : "null", o->interfere ? "\"" : "",
            o->interfere_n, T->interfere_k);
    first = 1;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "PCCL_", 5) && strncmp(*e, "NCCL_", 5)) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - *e), *e);
        fprintf(f, "%s", first ? "" : ", ");
        json_str(f, key);
        fprintf(f, ": ");
        json_str(f, eq + 1);
        first = 0;
    }
    fprintf(f, "},\n  \"wrong\": %lld,\n  \"results\": [\n", T->wrong_total);
    for (int i = 0; i < T->nrows; i++) {
        const perf_row *r = &T->rows[i];
        fprintf(f, "    {\"mode\": \"%s\", \"coll\": \"%s\", \"nranks\": %d, \"lib\": \"%s\", \"placement\": \"%s\", "
                   "\"size\": %zu, \"count\": %zu, \"type\": \"%s\", \"redop\": \"%s\", \"root\": %d, \"iters\": %d, "
                   "\"warmup\": %d, \"timing\": \"%s\", ",
                r->delay_us >= 0 ? "delay" : "bench", perf_coll_name(r->t.coll), r->nranks,
                perf_lib_get(r->lib)->name, r->inplace ? "in" : "out", r->bytes, r->count,
                perf_type_name(r->t.dtype), perf_op_name(&r->t), r->t.root, r->iters, r->warmup,
                perf_timing_name(r->timing));
        json_num(f, "time_us", r->time_us, 0);
        json_num(f, "algbw_GBs", r->algbw, 0);
        json_num(f, "busbw_GBs", r->busbw, 0);
        json_num(f, "wrong", (double)r->wrong, 0);
        json_num(f, "ratio", r->ratio, 0);
        fprintf(f, "\"dtime_us\": ");
        if (isnan(r->dtime_us)) fprintf(f, "null, ");
        else fprintf(f, "%.6g, ", r->dtime_us);
        json_num(f, "delay_us", (double)r->delay_us, 0);
        json_num(f, "preempt_per_iter_block", r->preempt_per_iter, 0);
        json_num(f, "quits_per_iter", r->quits_per_iter, 1);
        fprintf(f, "}%s\n", i + 1 < T->nrows ? "," : "");
    }
    fprintf(f, "  ]");
    if (o->interfere) write_json_interfere(T, f);
    fprintf(f, "\n}\n");
    return fclose(f) ? -1 : 0;
}

static const char *blocks_csv_header = "coll,bytes,rank,block,sm,invocations,life_us,wait_us,exec_us,commit_us\n";

void perf_report_split_blocks(perf_team *T, const perf_case *k)
{
    if (!T->bcsv) return;
    for (int r = 0; r < T->nranks; r++)
        for (int b = 0; b < T->rank[r].nblk; b++) {
            const pcclStats_t *a = &T->rank[r].bst0[b], *e = &T->rank[r].bst1[b];
            uint64_t n = e->blockCompletions - a->blockCompletions;
            char c[4][32];
            fprintf(T->bcsv, "%s,%zu,%d,%d,%d,%llu,%s,%s,%s,%s\n", perf_coll_name(k->t.coll), k->bytes, r, b, e->smId,
                    (unsigned long long)n, csv_cell(c[0], 32, "%.6g", perf_us_per(e->lifeNs - a->lifeNs, n), 0),
                    csv_cell(c[1], 32, "%.6g", perf_us_per(e->waitNs - a->waitNs, n), 0),
                    csv_cell(c[2], 32, "%.6g", perf_us_per(e->execNs - a->execNs, n), 0),
                    csv_cell(c[3], 32, "%.6g", perf_us_per(e->commitNs - a->commitNs, n), 0));
        }
    fflush(T->bcsv);
}

int perf_report_files(perf_team *T)
{
    int bad = 0;
    if (T->bcsv && fclose(T->bcsv)) {
        fprintf(stderr, "pccl-perf: writing %s failed\n", T->o->blocks_csv);
        bad = 1;
    }
    T->bcsv = NULL;
    if (T->csv && fclose(T->csv)) {
        fprintf(stderr, "pccl-perf: writing %s failed\n", T->o->csv);
        bad = 1;
    }
    T->csv = NULL;
    if (T->o->json && write_json(T, T->o->json)) {
        fprintf(stderr, "pccl-perf: cannot write %s\n", T->o->json);
        bad = 1;
    }
    return bad;
}

/* Opens --csv (truncating) and writes the header; called by main before the
 * run, so a path that cannot be written is a bad flag, not a lost run. */
int perf_report_open_csv(perf_team *T)
{
    if (T->o->blocks_csv) {
        T->bcsv = fopen(T->o->blocks_csv, "w");
        if (!T->bcsv) return -1;
        fputs(blocks_csv_header, T->bcsv);
    }
    if (!T->o->csv) return 0;
    T->csv = fopen(T->o->csv, "w");
    if (!T->csv) return -1;
    fputs(T->o->overlap     ? overlap_csv_header
          : T->o->interfere ? interfere_csv_header
          : T->o->split     ? split_csv_header
                            : csv_header,
          T->csv);
    fflush(T->csv);
    return 0;
}
