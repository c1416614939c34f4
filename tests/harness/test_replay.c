/* test_replay.c: the harness itself (harness/replay.c) and the traces it
 * replays (dlsim gen --full, dl_trace_check_plan).
 *
 * The emulated library (emul.c) behaves like NCCL in software, so on any
 * machine a replay must: follow the trace's global order call for call; hang
 * exactly where dlsim says deadlock (one communicator per collective, the
 * stream choice of the model); report the stuck collectives, who they wait
 * for and a cycle; turn a mismatch of two collectives on one communicator
 * into wrong data; fire its watchdog on a planted hang; report a planted
 * error.  pccl's host backend must complete every trace with exact data. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/libs.h"
#include "../../harness/report.h"
#include "../../sim/config.h"
#include "../../sim/engine.h"
#include "../../sim/play.h"
#include "../../sim/rng.h"
#include "../../sim/util.h"
#include "emul.h"

/* ---- traces of whole rounds, in memory ---------------------------------- */

static void collect(void *ctx, long step, int gpu, int action, int coll, int skipped)
{
    dl_trace *t = ctx;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->ev = dl_xrealloc(t->ev, (size_t)t->cap * sizeof *t->ev);
    }
    t->ev[t->n] = (dl_trace_event){step, gpu, action, coll, t->n + 2};
    t->n++;
    (void)skipped;
}

/* Round r of config c as `dlsim gen --full` writes it; returns the verdict. */
static int gen_round(const dl_config *c, long r, int full, dl_trace *t)
{
    dl_params P = {.disorder = c->disorder, .sync = c->sync, .slots = c->slots};
    dl_player *pl = dl_player_new(&c->layout, &P, dl_rng_type(c->rng), c->seed, c->exact_stream);
    memset(t, 0, sizeof *t);
    dl_sink sink = {collect, t};
    int st = dl_player_round(pl, r, 1, &sink);
    if (st == DL_DEADLOCK && full)
        dl_player_finish_plan(pl, &sink);
    dl_player_free(pl);
    return st;
}

static void parse(dl_config *c, const char *json)
{
    char err[512];
    int rc = dl_config_parse(c, json, "test.json", err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_FATAL(rc == 0);
}

/* Small layouts with many deadlocks, in both models, and a free one. */
static const char *const configs[] = {
    "{\"model\": \"single\", \"tp\": 2, \"dp\": 2, \"pp\": 1, \"tp_colls\": 3, \"dp_colls\": 3,"
    " \"disorder\": 0.3, \"seed\": 7}",
    "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 1, \"tp_colls\": 3, \"dp_colls\": 3,"
    " \"disorder\": 0.3, \"sync\": 0.3, \"seed\": 7}",
    "{\"model\": \"sync\", \"gpus\": 4, \"groups\": [{\"members\": [0, 1, 2], \"colls\": 3},"
    " {\"members\": [1, 2, 3], \"colls\": 2}, {\"members\": [0, 3], \"colls\": 2}],"
    " \"disorder\": 0.25, \"sync\": 0.2, \"seed\": 3}",
    "{\"model\": \"single\", \"gpus\": 3, \"groups\": [{\"members\": [0, 1], \"colls\": 2},"
    " {\"members\": [1, 2], \"colls\": 2}, {\"members\": [0, 2], \"colls\": 2}],"
    " \"disorder\": 0.3, \"exact_stream\": true, \"seed\": 11}",
};
enum { NCONFIGS = sizeof configs / sizeof *configs };

static ck_coll *shapes(const dl_layout *L, size_t count)
{
    ck_coll *k = dl_xcalloc((size_t)L->ncolls, sizeof *k);
    for (int c = 0; c < L->ncolls; c++)
        k[c] = (ck_coll){pcclCollAllReduce, pcclFloat, pcclSum, 0, count,
                         L->groups[L->coll_group[c]].n};
    return k;
}

static dr_setup setup_of(const dl_config *c, ck_coll *k, int comm_mode)
{
    dr_setup S = {.L = &c->layout, .coll = k, .seed = 1, .stream_per_coll = c->model->syncs};
    dr_setup_comms(&S, comm_mode);
    return S;
}

static const dr_options fast_watchdog = {.timeout = 0.3};

/* DR_TEST_QUICK=1 (the sanitizer runs, as the other suites' quick modes):
 * fewer rounds. */
static long rounds(long n)
{
    return getenv("DR_TEST_QUICK") ? (n + 3) / 4 : n;
}

/* ---- gen --full and the plan check ---------------------------------------- */

/* A full trace starts with the plain trace, holds every GPU's whole plan, and
 * dlsim's replay of it gives the round's verdict and deadlock event. */
static void test_full_traces(void)
{
    for (int i = 0; i < NCONFIGS; i++) {
        dl_config c;
        parse(&c, configs[i]);
        dl_round *R = dl_round_new(&c.layout, &(dl_params){c.disorder, c.sync, c.slots, NULL});
        int deadlocks = 0;
        for (long r = 0; r < 40; r++) {
            dl_trace plain, full;
            int st = gen_round(&c, r, 0, &plain);
            CU_ASSERT_EQUAL(gen_round(&c, r, 1, &full), st);
            CU_ASSERT(full.n >= plain.n);
            for (long k = 0; k < plain.n; k++)
                CU_ASSERT(full.ev[k].gpu == plain.ev[k].gpu && full.ev[k].coll == plain.ev[k].coll &&
                          full.ev[k].action == plain.ev[k].action);
            char err[512];
            int ok = dl_trace_check_plan(&full, &c.layout, "t.csv", c.model->syncs, err, sizeof err);
            if (ok)
                fprintf(stderr, "config %d round %ld: %s\n", i, r, err);
            CU_ASSERT_EQUAL(ok, 0);
            long at;
            CU_ASSERT_EQUAL(dl_trace_replay(&full, R, "t.csv", c.model->syncs, &at, err, sizeof err), st);
            if (st == DL_DEADLOCK) {
                deadlocks++;
                CU_ASSERT_EQUAL(at + 1, plain.n); /* the plain trace ends at the deadlock */
                if (full.n > plain.n) { /* else the deadlock came with the last invocation */
                    CU_ASSERT(dl_trace_check_plan(&plain, &c.layout, "t.csv", c.model->syncs, err,
                                                  sizeof err) < 0);
                    CU_ASSERT_PTR_NOT_NULL(strstr(err, "dlsim gen --full"));
                }
            } else {
                CU_ASSERT_EQUAL(full.n, plain.n);
            }
            dl_trace_free(&plain);
            dl_trace_free(&full);
        }
        CU_ASSERT(deadlocks > 0 && deadlocks < 40); /* the configs exercise both */
        dl_round_free(R);
        dl_config_free(&c);
    }
}

static void expect_plan_error(const dl_config *c, const char *csv, const char *needle)
{
    FILE *f = fmemopen((void *)csv, strlen(csv), "r");
    dl_trace t = {0};
    char err[512];
    CU_ASSERT_FATAL(dl_trace_read_stream(f, "bad.csv", &t, err, sizeof err) == 0);
    fclose(f);
    CU_ASSERT(dl_trace_check_plan(&t, &c->layout, "bad.csv", c->model->syncs, err, sizeof err) < 0);
    if (!strstr(err, needle))
        fprintf(stderr, "expected '%s' in: %s\n", needle, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
    dl_trace_free(&t);
}

static void test_plan_errors(void)
{
    dl_config c;
    parse(&c, "{\"model\": \"single\", \"gpus\": 3, \"groups\": [{\"members\": [0, 1], \"colls\": 1},"
              " {\"members\": [1, 2], \"colls\": 1}]}");
    const char *h = "step,gpu,action,coll\n";
    char b[512];
    snprintf(b, sizeof b, "%s0,0,invoke,0\n0,1,invoke,0\n0,1,invoke,1\n", h);
    expect_plan_error(&c, b, "bad.csv:4: the trace ends before GPU 2 invokes collective 1");
    snprintf(b, sizeof b, "%s0,0,invoke,0\n0,0,invoke,0\n", h);
    expect_plan_error(&c, b, "bad.csv:3: GPU 0 has already invoked collective 0");
    snprintf(b, sizeof b, "%s0,0,invoke,1\n", h);
    expect_plan_error(&c, b, "bad.csv:2: GPU 0 is not a member of collective 1's group 1");
    snprintf(b, sizeof b, "%s0,3,invoke,0\n", h);
    expect_plan_error(&c, b, "bad.csv:2: GPU 3 does not exist");
    snprintf(b, sizeof b, "%s0,0,invoke,7\n", h);
    expect_plan_error(&c, b, "bad.csv:2: collective 7 does not exist");
    snprintf(b, sizeof b, "%s0,0,sync,\n", h);
    expect_plan_error(&c, b, "bad.csv:2: GPU 0 syncs, but this model has no syncs");
    dl_config_free(&c);
}

/* ---- the sequencer and the watchdog on the emulated library -------------- */

/* The library saw the trace's invocations in the trace's order, call for
 * call, up to where the replay stopped (all of them when it completed).  A
 * sync blocks, so the cursor moves on just before it is called: it reaches
 * the library after every invocation that precedes it in the trace and
 * before its GPU's next event, but other GPUs' later invocations may come
 * first (as in the model: they go on while it waits). */
static void assert_order(const dl_trace *t, int outcome)
{
    long *pos = dl_xmalloc(((size_t)t->n + 1) * sizeof *pos); /* trace index -> call index */
    long inv = 0, k = 0, bad = 0;
    int *seen_sync = dl_xcalloc((size_t)t->n + 1, sizeof *seen_sync);
    for (long c = 0; c < ht_ncalls; c++) {
        if (ht_calls[c].coll >= 0) { /* the next invocation of the trace */
            while (k < t->n && t->ev[k].action == DL_ACT_SYNC)
                k++;
            if (k == t->n || t->ev[k].gpu != ht_calls[c].gpu || t->ev[k].coll != ht_calls[c].coll)
                bad = 1;
            pos[k++] = c;
            inv++;
            continue;
        }
        long s = -1; /* the first sync of this GPU not matched yet */
        for (long j = 0; j < t->n && s < 0; j++)
            if (t->ev[j].action == DL_ACT_SYNC && t->ev[j].gpu == ht_calls[c].gpu && !seen_sync[j])
                s = j;
        if (s < 0) {
            bad = 1;
            continue;
        }
        seen_sync[s] = 1;
        pos[s] = c;
        for (long j = 0; j < s; j++) /* every invocation before it came before it */
            if (t->ev[j].action == DL_ACT_INVOKE && (j >= k || pos[j] > c))
                bad = 1;
    }
    /* and each GPU's own events reached the library in its order */
    for (long j = 0; j < t->n; j++)
        for (long i = j + 1; i < t->n; i++)
            if (t->ev[i].gpu == t->ev[j].gpu && (t->ev[j].action == DL_ACT_INVOKE ? j < k : seen_sync[j]) &&
                (t->ev[i].action == DL_ACT_INVOKE ? i < k : seen_sync[i]) && pos[i] < pos[j])
                bad = 1;
    if (outcome == DR_COMPLETED)
        CU_ASSERT_EQUAL(ht_ncalls, t->n);
    if (bad)
        CU_FAIL("the library saw the events out of the trace's order");
    CU_ASSERT(inv > 0);
    free(pos);
    free(seen_sync);
}

/* A replay on the emulated library with the short watchdog.  On a loaded
 * machine (sanitizer builds, other jobs) a thread can stall for longer than
 * 0.3 s without any deadlock, and the watchdog then reports a hang; so a
 * hang that was not expected, or whose report has no cycle (every real hang
 * of the emulated library has one), is replayed once more with a 5 s
 * watchdog (knobs and the call log start afresh, as the first run's did).  A
 * real disagreement disagrees again. */
static const dr_options patient_watchdog = {.timeout = 5};

static int settled(int o, int expected, const dr_result *res, int need_cycle)
{
    return o != DR_HANG ||
           (expected == DR_HANG && (!need_cycle || strstr(res->report, "cycle: GPU")));
}

/* need_cycle: every real hang of these replays has a GPU cycle in its
 * report (a stall at a sync under matching by order may have none). */
static int replay_expecting(const dr_setup *S, const dl_trace *t, int expected, int need_cycle,
                            dr_result *res)
{
    ht_reset();
    int o = dr_replay(&ht_emul, S, t, &fast_watchdog, res);
    if (!settled(o, expected, res, need_cycle)) {
        ht_reset();
        o = dr_replay(&ht_emul, S, t, &patient_watchdog, res);
    }
    return o;
}

/* One communicator per collective: the emulated NCCL hangs exactly on
 * dlsim's deadlocks, follows the order, and the report names a cycle. */
static void test_agreement_and_order(void)
{
    for (int i = 0; i < NCONFIGS; i++) {
        dl_config c;
        parse(&c, configs[i]);
        ck_coll *k = shapes(&c.layout, 33);
        dr_setup S = setup_of(&c, k, DR_COMM_COLL);
        for (long r = 0; r < rounds(12); r++) {
            dl_trace t;
            int st = gen_round(&c, r, 1, &t);
            dr_result res;
            int want = st == DL_DEADLOCK ? DR_HANG : DR_COMPLETED;
            int o = replay_expecting(&S, &t, want, 1, &res);
            CU_ASSERT_EQUAL(o, want);
            assert_order(&t, o);
            if (o == DR_COMPLETED) {
                CU_ASSERT_EQUAL(res.wrong, 0);
                CU_ASSERT_EQUAL(res.parts_done, c.layout.nparts);
            } else {
                CU_ASSERT_PTR_NOT_NULL(strstr(res.report, "cycle: GPU"));
                CU_ASSERT_PTR_NOT_NULL(strstr(res.report, "waits for GPU"));
                CU_ASSERT(res.stuck[0] != 0);
            }
            dl_trace_free(&t);
        }
        dr_setup_free(&S);
        free(k);
        dl_config_free(&c);
    }
    ht_reset();
}

/* Communicators per group and per member list: the emulated NCCL matches a
 * communicator's calls by order, so on every round its outcome must be
 * dlsim's three-way verdict under matching by order over the same
 * communicators: completed, hang for deadlock, wrong data for corrupt. */
static void test_three_way_agreement(void)
{
    static const int expect[] = {[DR_V_COMPLETED] = DR_COMPLETED, [DR_V_DEADLOCK] = DR_HANG,
                                 [DR_V_CORRUPT] = DR_WRONG};
    long by[4] = {0}, differ = 0;
    const int modes[2] = {DR_COMM_GROUP, DR_COMM_MEMBERS};
    for (int i = 0; i < NCONFIGS; i++)
        for (int m = 0; m < 2; m++) {
            dl_config c;
            parse(&c, configs[i]);
            ck_coll *k = shapes(&c.layout, 33);
            dr_setup S = setup_of(&c, k, modes[m]);
            for (long r = 0; r < rounds(16); r++) {
                dl_trace t;
                gen_round(&c, r, 1, &t);
                char err[256];
                int v = dr_dlsim_verdict(&c, DL_MATCH_ORDER, &S, &t, "t.csv", err, sizeof err);
                int id = dr_dlsim_verdict(&c, DL_MATCH_IDENTITY, &S, &t, "t.csv", err, sizeof err);
                if (v < 0 || id < 0 || v > DR_V_CORRUPT)
                    fprintf(stderr, "\n  config %d round %ld: %d %d %s\n", i, r, v, id, err);
                CU_ASSERT_FATAL(v >= 0 && v <= DR_V_CORRUPT && id >= 0);
                by[v]++;
                differ += v != id;
                dr_result res;
                int o = replay_expecting(&S, &t, expect[v], 0, &res);
                if (o != expect[v])
                    fprintf(stderr, "\n  config %d, comm %s, round %ld: dlsim %s, emulated NCCL %s\n",
                            i, dr_comm_name(modes[m]), r, dr_verdict_name(v), dr_outcome_name(o));
                CU_ASSERT_EQUAL(o, expect[v]);
                dl_trace_free(&t);
            }
            dr_setup_free(&S);
            free(k);
            dl_config_free(&c);
        }
    ht_reset();
    printf("\n    %ld completed, %ld deadlock, %ld corrupt; %ld differ from matching by identity\n",
           by[0], by[1], by[2], differ);
    CU_ASSERT(by[0] > 0 && by[1] > 0 && by[2] > 0 && differ > 0);
}

static void read_trace(const char *csv, dl_trace *t)
{
    FILE *f = fmemopen((void *)csv, strlen(csv), "r");
    char err[256];
    CU_ASSERT_FATAL(dl_trace_read_stream(f, "t.csv", t, err, sizeof err) == 0);
    fclose(f);
}

static const char fig1c_json[] =
    "{\"model\": \"single\", \"gpus\": 2, \"groups\": [{\"members\": [0, 1], \"colls\": 1},"
    " {\"members\": [0, 1], \"colls\": 1}]}";
static const char fig1c_csv[] = "step,gpu,action,coll\n0,0,invoke,0\n0,1,invoke,1\n"
                                "1,0,invoke,1\n1,1,invoke,0\n";

/* One small replay on the emulated library: a config, a trace, shapes of
 * `count` floats, communicators by `mode`. */
typedef struct fixture {
    dl_config c;
    dl_trace t;
    ck_coll *k;
    dr_setup S;
    dr_result res;
} fixture;

static void fx_open(fixture *f, const char *json, const char *csv, size_t count, int mode)
{
    parse(&f->c, json);
    read_trace(csv, &f->t);
    f->k = shapes(&f->c.layout, count);
    f->S = setup_of(&f->c, f->k, mode);
    ht_reset();
}

/* The fixture's replay, expecting `expected` (replay_expecting; the knobs
 * set for the first run are kept for a second). */
static int fx_replay_expecting(fixture *f, int expected)
{
    ht_knobs keep = ht_knob;
    int o = dr_replay(&ht_emul, &f->S, &f->t, &fast_watchdog, &f->res);
    if (!settled(o, expected, &f->res, 1)) {
        ht_reset();
        ht_knob = keep;
        o = dr_replay(&ht_emul, &f->S, &f->t, &patient_watchdog, &f->res);
    }
    return o;
}

static void fx_close(fixture *f)
{
    dr_setup_free(&f->S);
    free(f->k);
    dl_trace_free(&f->t);
    dl_config_free(&f->c);
    ht_reset();
}

static void assert_has(const char *text, const char *want)
{
    if (!strstr(text, want))
        fprintf(stderr, "missing '%s' in:\n%s\n", want, text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
}

/* Paper 001's Fig. 1(c): the report says who is stuck where, waiting for whom. */
static void test_culprit_report(void)
{
    fixture f;
    fx_open(&f, fig1c_json, fig1c_csv, 8, DR_COMM_GROUP);
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_HANG), DR_HANG);
    assert_has(f.res.report, "4 of 4 events issued");
    assert_has(f.res.report, "GPU 0: stuck in collective 0 (group 0, invoked at line 2); waits for "
                             "GPU 1 (queued: stuck in collective 1)");
    assert_has(f.res.report, "GPU 1: stuck in collective 1 (group 1, invoked at line 3); waits for "
                             "GPU 0 (queued: stuck in collective 0)");
    assert_has(f.res.report, "cycle: GPU 0 -> GPU 1 -> GPU 0");
    CU_ASSERT_STRING_EQUAL(f.res.stuck, "GPU 0: 0<-1; GPU 1: 1<-0");
    CU_ASSERT(f.res.seconds >= fast_watchdog.timeout);
    fx_close(&f);
}

/* The sync model's Fig. 1(d): GPUs blocked in a sync show as such. */
static void test_culprit_sync(void)
{
    fixture f;
    fx_open(&f, "{\"model\": \"sync\", \"gpus\": 2, \"groups\": [{\"members\": [0, 1], \"colls\": 1},"
                " {\"members\": [0, 1], \"colls\": 1}]}",
            "step,gpu,action,coll\n0,0,invoke,0\n0,1,invoke,1\n1,0,sync,\n1,1,sync,\n"
            "2,0,invoke,1\n2,1,invoke,0\n", 8, DR_COMM_COLL);
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_HANG), DR_HANG);
    assert_has(f.res.report, "the sequencer waits for line 6 (GPU 0)");
    assert_has(f.res.report, "GPU 0: in flight: collective 0");
    assert_has(f.res.report, "waits for GPU 1 (not invoked yet: in a sync since line 5)");
    assert_has(f.res.report, "and blocked in a sync since line 4");
    assert_has(f.res.report, "cycle: GPU 0 -> GPU 1 -> GPU 0");
    CU_ASSERT_EQUAL(ht_ncalls, 4); /* the events after the syncs were never issued */
    fx_close(&f);
}

/* One communicator for a group whose two same-shape collectives the GPUs
 * invoke in opposite orders: matched by call order, they complete with each
 * other's data (NCCL's silent corruption), and the check says so. */
static void test_wrong_data(void)
{
    static const char one_group[] =
        "{\"model\": \"single\", \"gpus\": 2, \"groups\": [{\"members\": [0, 1], \"colls\": 2}]}";
    fixture f;
    fx_open(&f, one_group, fig1c_csv, 100, DR_COMM_GROUP);
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_WRONG), DR_WRONG);
    CU_ASSERT(f.res.wrong > 0 && f.res.wrong <= 400);
    assert_has(f.res.detail, "collective 0 (group 0), GPU 0");
    fx_close(&f);
    /* One communicator per collective: the same trace hangs instead. */
    fx_open(&f, one_group, fig1c_csv, 100, DR_COMM_COLL);
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_HANG), DR_HANG);
    fx_close(&f);
    /* Fig. 1(c)'s two groups have the same members: with one communicator
     * per member list they share one, and the swap corrupts again. */
    fx_open(&f, fig1c_json, fig1c_csv, 100, DR_COMM_MEMBERS);
    CU_ASSERT_EQUAL(f.S.ncomms, 1);
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_WRONG), DR_WRONG);
    fx_close(&f);
}

/* A library that never completes anything: the watchdog fires after the
 * timeout even though the trace completes in dlsim. */
static void test_planted_hang(void)
{
    fixture f;
    fx_open(&f, fig1c_json,
            "step,gpu,action,coll\n0,0,invoke,0\n0,1,invoke,0\n1,0,invoke,1\n1,1,invoke,1\n", 8,
            DR_COMM_GROUP);
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_COMPLETED), DR_COMPLETED);
    ht_knob.never_complete = 1;
    double t0 = dl_now();
    CU_ASSERT_EQUAL(dr_replay(&ht_emul, &f.S, &f.t, &fast_watchdog, &f.res), DR_HANG);
    double took = dl_now() - t0;
    CU_ASSERT(took >= 0.3 && took < 5);
    CU_ASSERT_EQUAL(f.res.parts_done, 0);
    assert_has(f.res.report, "GPU 0: stuck in collective 0");
    fx_close(&f);
}

static void test_planted_error(void)
{
    fixture f;
    fx_open(&f, fig1c_json, fig1c_csv, 8, DR_COMM_COLL);
    ht_knob.fail_at = 3;
    CU_ASSERT_EQUAL(fx_replay_expecting(&f, DR_ERROR), DR_ERROR);
    assert_has(f.res.detail, "GPU 0: planted failure at call 3");
    fx_close(&f);
}

/* ---- pccl's host backend: every trace completes with exact data ----------- */

static void test_host_pccl(void)
{
    setenv("PCCL_SPIN_HEAD", "200", 0); /* small thresholds: quick preemptions on 2 cores */
    setenv("PCCL_SPIN_BASE", "50", 0);
    int ran = 0, deadlocks = 0;
    for (int i = 0; i < NCONFIGS; i++) {
        dl_config c;
        parse(&c, configs[i]);
        ck_coll *k = shapes(&c.layout, 300);
        for (int mode = DR_COMM_GROUP; mode <= DR_COMM_MEMBERS; mode++) {
            dr_setup S = setup_of(&c, k, mode);
            for (long r = 0; r < rounds(4); r++) {
                dl_trace t;
                deadlocks += gen_round(&c, r, 1, &t) == DL_DEADLOCK;
                dr_result res;
                dr_options o = {.timeout = 20};
                int out = dr_replay(&dr_lib_host, &S, &t, &o, &res);
                if (out != DR_COMPLETED)
                    fprintf(stderr, "config %d round %ld: %s: %s\n%s", i, r, dr_outcome_name(out),
                            res.detail, res.report);
                CU_ASSERT_EQUAL(out, DR_COMPLETED);
                CU_ASSERT_EQUAL(res.wrong, 0);
                dl_trace_free(&t);
                ran++;
            }
            dr_setup_free(&S);
        }
        free(k);
        dl_config_free(&c);
    }
    CU_ASSERT(ran > 0 && deadlocks > 0);
}

int ht_register_replay(void)
{
    CU_pSuite s = CU_add_suite("replay", NULL, NULL);
    if (!s || !CU_add_test(s, "gen --full traces", test_full_traces) ||
        !CU_add_test(s, "plan errors", test_plan_errors) ||
        !CU_add_test(s, "agreement and order (emulated NCCL)", test_agreement_and_order) ||
        !CU_add_test(s, "three-way agreement by order (emulated NCCL)", test_three_way_agreement) ||
        !CU_add_test(s, "culprit report", test_culprit_report) ||
        !CU_add_test(s, "culprit report, sync", test_culprit_sync) ||
        !CU_add_test(s, "wrong data", test_wrong_data) ||
        !CU_add_test(s, "planted hang", test_planted_hang) ||
        !CU_add_test(s, "planted error", test_planted_error) ||
        !CU_add_test(s, "pccl host backend", test_host_pccl))
        return -1;
    return 0;
}
