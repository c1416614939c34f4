/* pccl-slice-ab: what pccl's time slice costs back-to-back collectives,
 * measured inside one process (issue 22 allows it 2% at any size).
 *
 * Two communicators on one GPU (or one rank on each of -g GPUs), the same
 * in all but the slice: A with --slice-us (pccl's default on GPUs), B with
 * --base-us (0: no slice).  Each
 * round runs -n all-reduces back to back on A and on B in turn (the order
 * alternating from round to round), depth chains in flight as pccl-perf's
 * b2b timing keeps them (each invocation issued by the completion callback
 * of the one before it), and takes A's time per operation over B's.
 * Separate runs of pccl-perf, one setting each, scatter by 2-4% at small
 * sizes with where the host put the process (results/slice-cost-h200,
 * results/affinity-h200): a cost of 1-2% drowns in that.  Here both sides
 * share the process, and the rounds interleave.  Two communicators made
 * alike still ran up to 1.7% apart, the one made first the slower
 * (results/slice-ab-h200, calls 2 and 4), so the rounds are split among
 * --sets pairs made one after another, A first in odd sets and B first in
 * even ones (the null then gave 1.003-1.006); and each communicator's
 * poller thread (which, back to back, issues and completes every
 * invocation) is made on one CPU (--poller-cpu), where only the active one
 * works, the main thread then running on the others.  Between two runs the
 * process sleeps --idle-ms, so that the other communicator's daemon has
 * quit (PCCL_QUIT_US after its last work) and only one runs at a time.
 *
 * Prints each round's times and ratio, then the mean ratio with its 95%
 * interval (Student's t over the rounds; and over the sets' means, which
 * counts the pairs' own spread) and what the relaunches took
 * (pcclCommGetSliceStats).  Host backend too (PCCL_BACKEND=host), where the
 * figures mean nothing but the tool runs in CI.
 *
 * Exit: 0 done, 2 bad arguments, 1 a pccl call failed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "../../lib/pccl.h"
#include "size.h"

#define MAX_DEPTH 16
#define MAX_RANKS 8
#define MAX_ROUNDS 10000
#define STR_(x) #x
#define STR(x) STR_(x)

static const char *usage =
    "usage: pccl-slice-ab [-g GPUS] [-b BYTES] [-n ITERS] [-r ROUNDS] [-w WARMUP] [--depth D]\n"
    "                     [--slice-us US] [--base-us US] [--idle-ms MS] [--poller-cpu C]\n"
    "                     [--a-env VAR=VALUE ...] [--b-env VAR=VALUE ...]\n"
    "What pccl's time slice costs back-to-back float sum all-reduces, out of place, on\n"
    "one GPU or more: two communicators in one process, A with the slice, B without (or with\n"
    "--base-us), run in turn, -n iterations each, -r rounds; the mean of the rounds'\n"
    "A / B with its 95% interval over the rounds, and over the sets' means (which counts\n"
    "how far pairs of communicators made alike differ).  Other knobs from the environment\n"
    "(PCCL_*), alike on both but for --a-env and --b-env; PCCL_ONE_RANK_COPY_BYTES 0 unless\n"
    "set there (one rank's large invocations would be copies outside the daemon, which no\n"
    "slice touches).\n"
    "  -g GPUS        ranks, one per GPU (devices 0 .. GPUS-1; the host backend emulates them),\n"
    "                 1 to " STR(MAX_RANKS) " [1]\n"
    "  -b BYTES       bytes per all-reduce, a multiple of 4 (K, M, G: powers of 1024) [8]\n"
    "  -n ITERS       iterations per run [20000]\n"
    "  -r ROUNDS      rounds (one run of A and one of B each), 2 to 10000 [48]\n"
    "  --sets K       the rounds split among K pairs of communicators, made one after another,\n"
    "                 A first in odd sets and B first in even ones [12]\n"
    "  -w WARMUP      untimed iterations on each before the first round [2000]\n"
    "  --depth D      invocations in flight, 1 to 16 (pccl-perf's --pccl-depth) [4]\n"
    "  --slice-us US  A's PCCL_SLICE_US [" STR(PCCL_SLICE_US_DEFAULT) ", pccl's default on GPUs]\n"
    "  --base-us US   B's PCCL_SLICE_US [0]\n"
    "  --idle-ms MS   the pause between runs, so that the other daemon has quit [5]\n"
    "  --poller-cpu C the CPU both communicators' poller threads are made on (the main thread\n"
    "                 then runs on the others; with -g G, the G allowed CPUs up to C, each rank's\n"
    "                 pollers on those); -1: where the system puts them [the last allowed]\n"
    "  --a-env VAR=VALUE, --b-env VAR=VALUE\n"
    "                 set in the environment while A (B) is made, as before after: any knob pccl reads\n"
    "                 at init (PCCL_SLICE_GAP_US, PCCL_SLICE_ALIGN ...) set apart; repeatable\n";

static void bad(const char *flag, const char *val, const char *why)
{
    fprintf(stderr, "pccl-slice-ab: %s%s%s: %s (see --help)\n", flag, val ? " " : "", val ? val : "", why);
    exit(2);
}

/* The side whose call failed ("A: ", "B: "), in PC's message. */
static char where[8];

#define PC(call)                                                                                          \
    do {                                                                                                  \
        pcclResult_t r_ = (call);                                                                         \
        if (r_) {                                                                                         \
            fprintf(stderr, "pccl-slice-ab: %s%s: %s (%s)\n", where, #call, pcclGetErrorString(r_),         \
                    pcclGetLastError(NULL));                                                              \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

static long int_arg(const char *flag, const char *v, long lo, long hi)
{
    char *end;
    if (!v) bad(flag, NULL, "missing value");
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi) {
        char why[96];
        snprintf(why, sizeof why, "expected an integer in [%ld, %ld]", lo, hi);
        bad(flag, v, why);
    }
    return x;
}

/* --a-env, --b-env: set while the side's communicator is made */
#define MAX_ENV 16
typedef struct {
    const char *kv[MAX_ENV];
    int n;
} env_list;

/* One communicator (a rank on each GPU) and its depth copies of the
 * all-reduce on each rank. */
typedef struct side side;
typedef struct {
    side *s;
    int rank, id;
    long next, step, n; /* the iteration last issued, the chains' count, the run's iterations */
    pcclResult_t status;
} chain;

struct side {
    const char *name;
    long slice_us;
    pcclComm_t comm[MAX_RANKS];
    chain ch[MAX_RANKS][MAX_DEPTH];
    void *send[MAX_RANKS][MAX_DEPTH], *recv[MAX_RANKS][MAX_DEPTH];
    const env_list *env;  /* its --a-env or --b-env */
    pcclSliceStats_t sl;  /* at the start of the set's timed rounds */
    pcclSliceStats_t acc; /* what the relaunches of every set's timed rounds took */
    uint64_t run0[3];     /* preemptions, quits, launches at the start of the set's timed rounds */
    uint64_t runs[3];     /* and in every set's timed rounds */
    double *t;            /* us per operation, each round */
};

static int depth = 4, nranks = 1;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* On pccl's poller thread: the chain's previous invocation completed. */
static void chain_cb(int id, pcclResult_t status, void *arg)
{
    chain *c = arg;
    if (status != pcclSuccess && c->status == pcclSuccess) c->status = status;
    if (c->status != pcclSuccess || c->next + c->step >= c->n) return;
    c->next += c->step;
    int j = (int)(c - c->s->ch[c->rank]);
    pcclResult_t r = pcclRun(c->s->comm[c->rank], id, c->s->send[c->rank][j], c->s->recv[c->rank][j], chain_cb, c);
    if (r != pcclSuccess) c->status = r;
}

/* n iterations back to back on s, depth chains on every rank; the seconds
 * they took (until every rank's last completed). */
static double run(side *s, long n)
{
    int nch = n < depth ? (int)n : depth;
    for (int q = 0; q < nranks; q++)
        for (int j = 0; j < nch; j++) {
            chain *c = &s->ch[q][j];
            c->next = j; /* chain j runs iterations j, j + nch, ... below n */
            c->step = nch;
            c->n = n;
            c->status = pcclSuccess;
        }
    double t0 = now_s();
    for (int j = 0; j < nch; j++)
        for (int q = 0; q < nranks; q++)
            PC(pcclRun(s->comm[q], s->ch[q][j].id, s->send[q][j], s->recv[q][j], chain_cb, &s->ch[q][j]));
    for (int q = 0; q < nranks; q++)
        for (int j = 0; j < nch; j++) {
            PC(pcclWait(s->comm[q], s->ch[q][j].id));
            if (s->ch[q][j].status != pcclSuccess) {
                fprintf(stderr, "pccl-slice-ab: %s: rank %d: an invocation failed: %s (%s)\n", s->name, q,
                        pcclGetErrorString(s->ch[q][j].status), pcclGetLastError(s->comm[q]));
                exit(1);
            }
        }
    return now_s() - t0;
}

/* The CPUs this process may use, and the one the pollers are made on. */
static cpu_set_t allowed;
static int poller_cpu = -2; /* -2: the last allowed; -1: no pinning */

/* The pollers' CPUs: the nranks allowed ones up to poller_cpu (one rank's
 * pollers on one, the active side's alone working there); 1 if there are
 * that many. */
static cpu_set_t poller_set;

static int poller_set_make(void)
{
    CPU_ZERO(&poller_set);
    for (int c = poller_cpu, k = 0; c >= 0 && k < nranks; c--)
        if (CPU_ISSET(c, &allowed)) CPU_SET(c, &poller_set), k++;
    return CPU_COUNT(&poller_set) == nranks;
}

/* Runs the calling thread on the pollers' CPUs (1), or on the allowed CPUs
 * but those (0; all allowed if none would be left); a thread inherits it. */
static void pin(int pollers)
{
    cpu_set_t set = poller_set;
    if (!pollers) {
        set = allowed;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &poller_set)) CPU_CLR(c, &set);
        if (!CPU_COUNT(&set)) set = allowed;
    }
    if (sched_setaffinity(0, sizeof set, &set)) {
        perror("pccl-slice-ab: sched_setaffinity");
        exit(1);
    }
}


/* set: VAR=VALUE for each, the values they had kept in old[]; else back
 * to those (unset where there was none). */
static void env_apply(const env_list *e, int set, char **old)
{
    for (int i = 0; i < e->n; i++) {
        char name[128];
        const char *eq = strchr(e->kv[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - e->kv[i]), e->kv[i]);
        if (set) {
            const char *o = getenv(name);
            old[i] = o ? strdup(o) : NULL;
            setenv(name, eq + 1, 1);
        } else {
            if (old[i]) setenv(name, old[i], 1);
            else unsetenv(name);
            free(old[i]);
        }
    }
}

static void env_add(env_list *e, const char *flag, const char *v)
{
    if (!v) bad(flag, NULL, "missing value");
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || eq - v >= 128) bad(flag, v, "expected VAR=VALUE");
    if (e->n == MAX_ENV) bad(flag, v, "more than 16 of them");
    e->kv[e->n++] = v;
}

/* Makes s's communicator, its collectives and buffers (a set's start). */
static void side_open(side *s, size_t count)
{
    const env_list *env = s->env;
    snprintf(where, sizeof where, "%s: ", s->name);
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    cfg.sliceUs = s->slice_us;
    if (poller_cpu >= 0) pin(1); /* the poller threads made in the init inherit it */
    char *old[MAX_ENV];
    env_apply(env, 1, old);
    PC(pcclCommInitAllConfig(s->comm, nranks, NULL, &cfg));
    env_apply(env, 0, old);
    if (poller_cpu >= 0) pin(0);
    for (int q = 0; q < nranks; q++)
        for (int j = 0; j < depth; j++) {
            chain *c = &s->ch[q][j];
            PC(pcclRegisterAllReduce(s->comm[q], count, pcclFloat, pcclSum, 0, &c->id));
            c->s = s;
            c->rank = q;
            PC(pcclMemAlloc(s->comm[q], &s->send[q][j], count * sizeof(float)));
            PC(pcclMemAlloc(s->comm[q], &s->recv[q][j], count * sizeof(float)));
        }
    where[0] = 0;
}

static void side_report(const side *s)
{
    const pcclSliceStats_t *e = &s->acc;
    unsigned long long n = e->relaunches;
    printf("# %s (PCCL_SLICE_US=%ld): %llu relaunches in the rounds%s", s->name, s->slice_us, n,
           nranks > 1 ? " (every rank's)" : "");
    if (n) {
        double k = 1e3 * (double)n;
        printf("; per relaunch (us): GPU time lost ~ %.1f (block idle %.1f, dead %.1f, refill %.1f), "
               "host: end seen to relaunch %.1f, launch call %.1f; %llu queued ahead",
               (double)(e->blockIdleNs + e->deadNs + e->refillNs) / k, (double)e->blockIdleNs / k,
               (double)e->deadNs / k, (double)e->refillNs / k, (double)e->gapNs / k, (double)e->launchNs / k,
               (unsigned long long)e->ahead);
    }
    if (e->ends)
        printf("; host: %llu launch ends booked, %.1f us each (the lock held), %llu stream queries by pcclRun",
               (unsigned long long)e->ends, (double)e->endNs / 1e3 / (double)e->ends, (unsigned long long)e->runQueries);
    printf("; %llu preemptions, %llu daemon ends, %llu launches\n", (unsigned long long)s->runs[0],
           (unsigned long long)s->runs[1], (unsigned long long)s->runs[2]);
}

/* to += sign x (sign 1 or -1, in uint64_t's modular arithmetic): the
 * figures side_report prints, the one list of them. */
static void slice_add(pcclSliceStats_t *to, const pcclSliceStats_t *x, uint64_t sign)
{
    to->relaunches += sign * x->relaunches;
    to->blockIdleNs += sign * x->blockIdleNs;
    to->deadNs += sign * x->deadNs;
    to->refillNs += sign * x->refillNs;
    to->gapNs += sign * x->gapNs;
    to->launchNs += sign * x->launchNs;
    to->ahead += sign * x->ahead;
    to->ends += sign * x->ends;
    to->endNs += sign * x->endNs;
    to->runQueries += sign * x->runQueries;
}

/* The side's relaunch figures and its preemptions, quits and launches
 * (run[3]), its ranks' summed. */
static void side_stats(side *s, pcclSliceStats_t *sum, uint64_t run[3])
{
    memset(sum, 0, sizeof *sum);
    run[0] = run[1] = run[2] = 0;
    for (int q = 0; q < nranks; q++) {
        pcclSliceStats_t e;
        pcclStats_t st;
        PC(pcclCommGetStats(s->comm[q], &st));
        run[0] += st.preemptions, run[1] += st.quits, run[2] += st.launches;
        PC(pcclCommGetSliceStats(s->comm[q], &e));
        slice_add(sum, &e, 1);
    }
}

/* Adds the set's relaunch figures to s->acc and frees what side_open made. */
static void side_close(side *s)
{
    pcclSliceStats_t e;
    uint64_t run[3];
    side_stats(s, &e, run);
    for (int k = 0; k < 3; k++) s->runs[k] += run[k] - s->run0[k];
    slice_add(&s->acc, &e, 1);
    slice_add(&s->acc, &s->sl, (uint64_t)-1);
    for (int q = 0; q < nranks; q++) {
        for (int j = 0; j < depth; j++) {
            PC(pcclMemFree(s->comm[q], s->send[q][j]));
            PC(pcclMemFree(s->comm[q], s->recv[q][j]));
        }
        PC(pcclCommDestroy(s->comm[q]));
    }
}

static void pause_ms(long ms)
{
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
    size_t bytes = 8;
    long iters = 20000, warm = 2000, slice_us = PCCL_SLICE_US_DEFAULT, base_us = 0, idle_ms = 5;
    int rounds = 48, sets = 12;
    env_list aenv = {{0}, 0}, benv = {{0}, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "-g") || !strcmp(a, "--gpus")) {
            nranks = (int)int_arg(a, v, 1, MAX_RANKS), i++;
        } else if (!strcmp(a, "-b")) {
            if (!v) bad(a, NULL, "missing value");
            if (perf_parse_size(v, &bytes) || bytes == 0 || bytes % 4) bad(a, v, "expected a size, a multiple of 4 bytes");
            i++;
        } else if (!strcmp(a, "-n")) {
            iters = int_arg(a, v, 1, 1L << 30), i++;
        } else if (!strcmp(a, "-r")) {
            rounds = (int)int_arg(a, v, 2, MAX_ROUNDS), i++;
        } else if (!strcmp(a, "-w")) {
            warm = int_arg(a, v, 0, 1L << 30), i++;
        } else if (!strcmp(a, "--depth")) {
            depth = (int)int_arg(a, v, 1, MAX_DEPTH), i++;
        } else if (!strcmp(a, "--slice-us")) {
            slice_us = int_arg(a, v, 0, 60000000), i++;
        } else if (!strcmp(a, "--base-us")) {
            base_us = int_arg(a, v, 0, 60000000), i++;
        } else if (!strcmp(a, "--idle-ms")) {
            idle_ms = int_arg(a, v, 0, 60000), i++;
        } else if (!strcmp(a, "--sets")) {
            sets = (int)int_arg(a, v, 1, MAX_ROUNDS / 2), i++;
        } else if (!strcmp(a, "--a-env")) {
            env_add(&aenv, a, v), i++;
        } else if (!strcmp(a, "--b-env")) {
            env_add(&benv, a, v), i++;
        } else if (!strcmp(a, "--poller-cpu")) {
            poller_cpu = (int)int_arg(a, v, -1, CPU_SETSIZE - 1), i++;
        } else {
            bad(a, NULL, a[0] == '-' ? "unknown flag" : "unexpected argument");
        }
    }
    if (sched_getaffinity(0, sizeof allowed, &allowed)) {
        perror("pccl-slice-ab: sched_getaffinity");
        return 1;
    }
    if (poller_cpu == -2)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed)) poller_cpu = c;
    if (poller_cpu >= 0 && !CPU_ISSET(poller_cpu, &allowed)) {
        char v[16];
        snprintf(v, sizeof v, "%d", poller_cpu);
        bad("--poller-cpu", v, "not a CPU this process may run on");
    }
    if (poller_cpu >= 0 && !poller_set_make()) {
        char v[16];
        snprintf(v, sizeof v, "%d", poller_cpu);
        bad("--poller-cpu", v, "fewer allowed CPUs up to it than ranks (-g)");
    }
    if (rounds < 2 * sets) {
        char v[16];
        snprintf(v, sizeof v, "%d", sets);
        bad("--sets", v, "needs -r of at least two rounds a set");
    }
    size_t count = bytes / 4;
    side A = {0}, B = {0};
    A.name = "A", A.slice_us = slice_us, A.env = &aenv;
    B.name = "B", B.slice_us = base_us, B.env = &benv;
    double *ratio = calloc((size_t)rounds, sizeof *ratio);
    A.t = calloc((size_t)rounds, sizeof *A.t);
    B.t = calloc((size_t)rounds, sizeof *B.t);
    if (!ratio || !A.t || !B.t) {
        fprintf(stderr, "pccl-slice-ab: out of memory\n");
        return 1;
    }
    /* The daemon's slice is what is measured: one rank's large out-of-place
     * invocations would be copies on pccl's copy stream (lib/direct.c), no
     * daemon in them, unless the environment says otherwise. */
    const char *copy_env = getenv("PCCL_ONE_RANK_COPY_BYTES");
    if (!copy_env || !*copy_env) setenv("PCCL_ONE_RANK_COPY_BYTES", "0", 1);
    char cpus[256] = "(not pinned)";
    for (int c = 0, n = 0; poller_cpu >= 0 && c < CPU_SETSIZE && n < (int)sizeof cpus - 8; c++)
        if (CPU_ISSET(c, &poller_set)) n += snprintf(cpus + n, sizeof cpus - (size_t)n, "%s%d", n ? "," : "", c);
    printf("# pccl-slice-ab: %zu B float sum all-reduce on %d rank%s, out of place, back to back (%d in flight), "
           "%ld iterations a run, %d rounds in %d sets; A: PCCL_SLICE_US=%ld, B: PCCL_SLICE_US=%ld; pollers on CPU%s %s\n",
           bytes, nranks, nranks > 1 ? "s (one per GPU)" : "", depth, iters, rounds, sets, slice_us, base_us,
           nranks > 1 ? "s" : "", cpus);
    printf("# PCCL_ONE_RANK_COPY_BYTES=%s%s\n", getenv("PCCL_ONE_RANK_COPY_BYTES"),
           copy_env && *copy_env ? " (the environment's)" : " (set by pccl-slice-ab: every invocation through the daemon)");
    for (int i = 0; i < aenv.n; i++) printf("# A: %s\n", aenv.kv[i]);
    for (int i = 0; i < benv.n; i++) printf("# B: %s\n", benv.kv[i]);
    printf("%6s %4s %12s %12s %10s\n", "round", "set", "A (us/op)", "B (us/op)", "A / B");
    double *set_mean = calloc((size_t)sets, sizeof *set_mean);
    if (!set_mean) return 1;
    for (int k = 0, r = 0; k < sets; k++) {
        /* the communicator made first ran slower on average in one process
         * (results/slice-ab-h200, call 4): the order alternates by set */
        side *one = k % 2 ? &B : &A, *two = k % 2 ? &A : &B;
        side_open(one, count);
        side_open(two, count);
        if (warm) {
            run(one, warm);
            pause_ms(idle_ms);
            run(two, warm);
            pause_ms(idle_ms);
        }
        side_stats(&A, &A.sl, A.run0);
        side_stats(&B, &B.sl, B.run0);
        int end = rounds * (k + 1) / sets, r0 = r;
        for (; r < end; r++) {
            side *first = r % 2 ? &B : &A, *second = r % 2 ? &A : &B;
            first->t[r] = run(first, iters) * 1e6 / (double)iters;
            pause_ms(idle_ms);
            second->t[r] = run(second, iters) * 1e6 / (double)iters;
            pause_ms(idle_ms);
            ratio[r] = A.t[r] / B.t[r];
            printf("%6d %4d %12.3f %12.3f %10.4f\n", r + 1, k + 1, A.t[r], B.t[r], ratio[r]);
            fflush(stdout);
        }
        set_mean[k] = gsl_stats_mean(ratio + r0, 1, (size_t)(r - r0));
        side_close(one);
        side_close(two);
    }
    double m = gsl_stats_mean(ratio, 1, (size_t)rounds);
    double h = gsl_cdf_tdist_Pinv(0.975, rounds - 1) * gsl_stats_sd_m(ratio, 1, (size_t)rounds, m) / sqrt((double)rounds);
    printf("# A: mean %.3f us/op, B: mean %.3f us/op\n", gsl_stats_mean(A.t, 1, (size_t)rounds),
           gsl_stats_mean(B.t, 1, (size_t)rounds));
    printf("# A / B by set (A made first in odd sets):");
    for (int k = 0; k < sets; k++) printf(" %.4f", set_mean[k]);
    printf("\n# A / B: mean of the rounds %.4f, 95%% interval [%.4f, %.4f] (Student's t, %d rounds)\n", m, m - h,
           m + h, rounds);
    if (sets > 1) {
        /* The rounds of one pair of communicators move together (the pair
         * made first in a process ran up to 1.7% apart, and which of the
         * two is the slower changes from pair to pair): taken as
         * independent, the rounds' interval is too narrow by that.  The
         * sets' means are independent, K of them (results/sharing-final-h200). */
        double ms = gsl_stats_mean(set_mean, 1, (size_t)sets);
        double hs = gsl_cdf_tdist_Pinv(0.975, sets - 1) * gsl_stats_sd_m(set_mean, 1, (size_t)sets, ms) / sqrt((double)sets);
        printf("# A / B: mean of the sets %.4f, 95%% interval [%.4f, %.4f] (Student's t, %d sets)\n", ms, ms - hs,
               ms + hs, sets);
    }
    side_report(&A);
    side_report(&B);
    free(ratio);
    free(set_mean);
    free(A.t);
    free(B.t);
    return 0;
}
