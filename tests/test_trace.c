/* test_trace.c: the trace format, its writer, reader and replay.
 *
 * The paper's situations are hand-made traces in tests/data (fig1c, fig1d,
 * fig2); their layouts are built here to match configs/examples/fig*.json,
 * so the same files also work with `dlsim check`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "../sim/config.h"
#include "../sim/engine.h"
#include "../sim/layout.h"
#include "../sim/trace.h"
#include "tests.h"

/* ---- layouts ---- */

/* Fig. 1(c)/(d): GPUs 0 and 1, collective A (0) in group 0 = {0,1} and
 * collective B (1) in group 1 = {0,1}. */
static void layout_fig1(dl_layout *L)
{
    static const int both[] = {0, 1};
    dl_layout_init(L, 2);
    dl_layout_add_group(L, both, 2, 1, NULL, 0);
    dl_layout_add_group(L, both, 2, 1, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(dl_layout_finish(L, DL_ORDER_INTERLEAVE, NULL, 0), 0);
}

/* Fig. 2 as configs/examples/fig2.json places it: A = {0,1}, B = {0,1,2},
 * C = {0,2,3}, D = {0,1,2,3}, E = {0,3}, one collective each (A = 0 ...
 * E = 4). */
static const int fig2_members[5][4] = {{0, 1}, {0, 1, 2}, {0, 2, 3}, {0, 1, 2, 3}, {0, 3}};
static const int fig2_size[5] = {2, 3, 3, 4, 2};

static void layout_fig2(dl_layout *L)
{
    dl_layout_init(L, 4);
    for (int g = 0; g < 5; g++)
        dl_layout_add_group(L, fig2_members[g], fig2_size[g], 1, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(dl_layout_finish(L, DL_ORDER_INTERLEAVE, NULL, 0), 0);
}

/* Two TP-like groups of four and four DP-like pairs, three collectives each:
 * enough for both outcomes in a few hundred random rounds. */
static void layout_mesh(dl_layout *L)
{
    static const int tp[2][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}};
    dl_layout_init(L, 8);
    for (int g = 0; g < 2; g++)
        dl_layout_add_group(L, tp[g], 4, 3, NULL, 0);
    for (int s = 0; s < 4; s++) {
        int pair[2] = {s, s + 4};
        dl_layout_add_group(L, pair, 2, 3, NULL, 0);
    }
    CU_ASSERT_EQUAL_FATAL(dl_layout_finish(L, DL_ORDER_INTERLEAVE, NULL, 0), 0);
}

static const dl_params single_queue = {.disorder = 0, .sync = 0, .slots = 1};
static const dl_params sync_model = {.disorder = 0, .sync = 0, .slots = 0};

/* ---- reading and replaying a fixture ---- */

typedef struct replay {
    dl_layout L;
    dl_round *R;
    dl_trace t;
    int read_rc; /* dl_trace_read's result */
    int verdict; /* dl_trace_replay's result (if the read succeeded) */
    long at;
    char err[512];
} replay;

static void replay_file(replay *x, void (*layout)(dl_layout *), const dl_params *P,
                        int syncs_allowed, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dl_test_data(name));
    memset(x, 0, sizeof *x);
    layout(&x->L);
    x->R = dl_round_new(&x->L, P);
    x->verdict = -1;
    x->at = -1;
    x->read_rc = dl_trace_read(path, &x->t, x->err, sizeof x->err);
    if (x->read_rc == 0)
        x->verdict = dl_trace_replay(&x->t, x->R, path, syncs_allowed, &x->at, x->err,
                                     sizeof x->err);
}

static void replay_done(replay *x)
{
    dl_trace_free(&x->t);
    dl_round_free(x->R);
    dl_layout_free(&x->L);
}

/* The file must be rejected (by the reader or the replay) with a message
 * containing `want`, which starts "NAME:LINE: ".  Returns the replay's *at. */
static long expect_error(void (*layout)(dl_layout *), const dl_params *P, int syncs_allowed,
                         const char *name, const char *want)
{
    replay x;
    replay_file(&x, layout, P, syncs_allowed, name);
    CU_ASSERT_EQUAL(x.verdict, -1);
    if (!strstr(x.err, want)) {
        fprintf(stderr, "\n  %s: got \"%s\"\n  expected it to contain \"%s\"\n", name, x.err,
                want);
        CU_FAIL("error message");
    }
    replay_done(&x);
    return x.at;
}

/* ---- the paper's situations ---- */

static void test_fig1c_single_queue(void)
{
    replay x;
    replay_file(&x, layout_fig1, &single_queue, 0, "fig1c.csv");
    CU_ASSERT_EQUAL(x.read_rc, 0);
    CU_ASSERT_EQUAL(x.t.n, 4);
    /* GPU1's second invocation (A, behind its executing B) closes the cycle. */
    CU_ASSERT_EQUAL(x.verdict, DL_DEADLOCK);
    CU_ASSERT_EQUAL(x.at, 3);
    CU_ASSERT_EQUAL(x.R->deadlock_event, 4); /* the engine counts from 1 */
    CU_ASSERT_EQUAL(x.R->deadlock_step, 1);
    CU_ASSERT_EQUAL(x.R->ncycle, 4);
    replay_done(&x);
}

static void test_fig1d_sync(void)
{
    replay x;
    replay_file(&x, layout_fig1, &sync_model, 1, "fig1d.csv");
    CU_ASSERT_EQUAL(x.verdict, DL_DEADLOCK);
    CU_ASSERT_EQUAL(x.at, 3); /* the second sync; after the first, GPU1 can still invoke A */
    replay_done(&x);
}

static void test_fig1d_without_syncs_completes(void)
{
    replay x;
    replay_file(&x, layout_fig1, &sync_model, 1, "fig1d-nosync.csv");
    CU_ASSERT_EQUAL(x.verdict, DL_COMPLETED);
    CU_ASSERT_EQUAL(x.at, -1);
    CU_ASSERT_EQUAL(x.R->ndone, 2);
    replay_done(&x);
    /* The same events in single-queue are Fig. 1(c). */
    replay_file(&x, layout_fig1, &single_queue, 0, "fig1d-nosync.csv");
    CU_ASSERT_EQUAL(x.verdict, DL_DEADLOCK);
    replay_done(&x);
}

static void test_fig1d_syncs_rejected_without_model(void)
{
    expect_error(layout_fig1, &single_queue, 0, "fig1d.csv",
                 "fig1d.csv:4: GPU 0 syncs, but this model has no syncs");
}

/* Real programs synchronize at the end of every iteration, after their
 * last collective: GPU 0 syncs with B still running and is released when B
 * completes; the later syncs come after every collective completed and do
 * nothing. */
static void test_sync_after_last_collective(void)
{
    static const dl_params one_slot_syncs = {.disorder = 0, .sync = 0.5, .slots = 1};
    const dl_params *models[2] = {&sync_model, &one_slot_syncs};
    for (int m = 0; m < 2; m++) {
        replay x;
        replay_file(&x, layout_fig1, models[m], 1, "sync-after-last.csv");
        CU_ASSERT_EQUAL(x.verdict, DL_COMPLETED);
        CU_ASSERT_EQUAL(x.R->syncs, 3);
        CU_ASSERT_EQUAL(x.R->events, 7);
        CU_ASSERT_EQUAL(x.R->nsuspended, 0);
        replay_done(&x);
    }
    /* With one slot, GPU 0 queues B behind A and syncs after its last
     * invocation; GPU 1 runs B and queues A: the cycle closes at line 6. */
    replay x;
    replay_file(&x, layout_fig1, &one_slot_syncs, 1, "sync-after-last-deadlock.csv");
    CU_ASSERT_EQUAL(x.verdict, DL_DEADLOCK);
    CU_ASSERT_EQUAL(x.at, 4);
    CU_ASSERT(x.R->suspended[0]);
    replay_done(&x);
}

/* Fig. 2: GPU0 executes A, B and C, GPU1 B, GPU2 C, GPU3 D (and E), and all
 * four are suspended.  The state has several cycles (e.g. C2 -> C3 -> D3 ->
 * D2 -> C2), so the trace orders the syncs to make GPU3's the event that
 * closes them all; before it, no GPU can reach GPU3.  The paper's cycle
 * A0 -> A1 -> B1 -> B2 -> C2 -> C3 -> D3 -> D0 -> A0 is in the graph; the
 * one reported must be a real cycle through all four GPUs. */
static void test_fig2_ring(void)
{
    /* (gpu, coll) of the paper's cycle: executing part, blocked counterpart. */
    static const dl_cycle_part paper[8] = {{0, 0}, {1, 0}, {1, 1}, {2, 1},
                                           {2, 2}, {3, 2}, {3, 3}, {0, 3}};
    replay x;
    replay_file(&x, layout_fig2, &sync_model, 1, "fig2.csv");
    CU_ASSERT_EQUAL(x.verdict, DL_DEADLOCK);
    CU_ASSERT_EQUAL_FATAL(x.at, 11); /* GPU3's sync, the last line */
    CU_ASSERT_EQUAL(x.t.ev[x.at].gpu, 3);

    const dl_layout *L = &x.L;
    for (int k = 0; k < 8; k += 2) {
        int c = paper[k].coll;
        CU_ASSERT_EQUAL(x.R->state[L->part_off[c] + dl_layout_member(L, c, paper[k].gpu)],
                        DL_EXECUTING);
        CU_ASSERT(dl_part_blocked(x.R, L->part_off[c] + dl_layout_member(L, c, paper[k + 1].gpu)));
    }

    /* The reported cycle: pairs (executing X_i, blocked X_j), the next pair
     * starting on GPU j, closing on the first; every GPU visited. */
    int n = x.R->ncycle, seen[4] = {0};
    CU_ASSERT_EQUAL_FATAL(n % 2, 0);
    CU_ASSERT_FATAL(n >= 2);
    for (int k = 0; k < n; k += 2) {
        const dl_cycle_part *a = &x.R->cycle[k], *b = &x.R->cycle[k + 1];
        const dl_cycle_part *next = &x.R->cycle[(k + 2) % n];
        CU_ASSERT_EQUAL(a->coll, b->coll);
        CU_ASSERT_EQUAL(b->gpu, next->gpu);
        CU_ASSERT_EQUAL(x.R->state[L->part_off[a->coll] + dl_layout_member(L, a->coll, a->gpu)],
                        DL_EXECUTING);
        CU_ASSERT(dl_part_blocked(x.R, L->part_off[b->coll] + dl_layout_member(L, b->coll, b->gpu)));
        seen[a->gpu] = 1;
    }
    for (int g = 0; g < 4; g++)
        CU_ASSERT_EQUAL(seen[g], 1);
    replay_done(&x);
}

/* The layouts above stand for configs/examples/fig*.json: check they agree,
 * so the fixtures also work with `dlsim check CONFIG TRACE`. */
static void check_config(const char *json, void (*layout)(dl_layout *), int syncs)
{
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s", dl_test_data(json));
    dl_config c;
    if (dl_config_load(&c, path, err, sizeof err) != 0) {
        fprintf(stderr, "\n  %s\n", err);
        CU_FAIL("example config does not load");
        return;
    }
    dl_layout L;
    layout(&L);
    CU_ASSERT_EQUAL(c.model->syncs, syncs);
    CU_ASSERT_EQUAL(c.layout.ngpus, L.ngpus);
    CU_ASSERT_EQUAL_FATAL(c.layout.ngroups, L.ngroups);
    for (int g = 0; g < L.ngroups; g++) {
        const dl_group *a = &c.layout.groups[g], *b = &L.groups[g];
        CU_ASSERT(a->n == b->n && a->ncoll == b->ncoll &&
                  !memcmp(a->gpus, b->gpus, (size_t)b->n * sizeof *b->gpus));
    }
    dl_layout_free(&L);
    dl_config_free(&c);
}

static void test_fixtures_match_configs(void)
{
    check_config("../../configs/examples/fig1c.json", layout_fig1, 0);
    check_config("../../configs/examples/fig1d.json", layout_fig1, 1);
    check_config("../../configs/examples/fig2.json", layout_fig2, 1);
}

static void test_consistent_completes(void)
{
    replay x;
    replay_file(&x, layout_fig1, &single_queue, 0, "consistent.csv");
    CU_ASSERT_EQUAL(x.verdict, DL_COMPLETED);
    CU_ASSERT_EQUAL(x.at, -1);
    replay_done(&x);
}

/* Reordered columns, an ignored column with a quoted comma and line break,
 * blank lines and CRLF: still read, and the line numbers are physical. */
static void test_reordered_columns(void)
{
    static const long lines[] = {3, 6, 7, 9};
    replay x;
    replay_file(&x, layout_fig1, &single_queue, 0, "reordered.csv");
    CU_ASSERT_EQUAL(x.read_rc, 0);
    CU_ASSERT_EQUAL_FATAL(x.t.n, 4);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(x.t.ev[i].line, lines[i]);
    CU_ASSERT_EQUAL(x.t.ev[3].gpu, 1);
    CU_ASSERT_EQUAL(x.t.ev[3].coll, 1);
    CU_ASSERT_EQUAL(x.t.ev[3].step, 1);
    CU_ASSERT_EQUAL(x.verdict, DL_COMPLETED);
    replay_done(&x);
}

/* Only the order of the lines matters: the Fig. 1(c) events with every
 * step 0, GPU0 acting twice before GPU1, still deadlock at the last event. */
static void test_replay_ignores_steps(void)
{
    dl_trace_event ev[] = {
        {.step = 0, .gpu = 0, .action = DL_ACT_INVOKE, .coll = 0, .line = 2},
        {.step = 0, .gpu = 0, .action = DL_ACT_INVOKE, .coll = 1, .line = 3},
        {.step = 0, .gpu = 1, .action = DL_ACT_INVOKE, .coll = 1, .line = 4},
        {.step = 0, .gpu = 1, .action = DL_ACT_INVOKE, .coll = 0, .line = 5},
    };
    dl_trace t = {.n = 4, .cap = 4, .ev = ev};
    dl_layout L;
    layout_fig1(&L);
    dl_round *R = dl_round_new(&L, &single_queue);
    long at = -1;
    CU_ASSERT_EQUAL(dl_trace_replay(&t, R, "mem", 0, &at, NULL, 0), DL_DEADLOCK);
    CU_ASSERT_EQUAL(at, 3);
    dl_round_free(R);
    dl_layout_free(&L);
}

/* ---- write, read back, replay ---- */

/* One generated round through the sink and back: same verdict, events,
 * deadlock event and cycle.  Returns the verdict. */
static int round_trip_one(dl_round *R, dl_round *R2, gsl_rng *rng, int syncs)
{
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    dl_trace_writer w = {.f = f, .L = R->L};
    dl_sink sink = dl_trace_sink(&w);
    dl_trace_write_header(f);
    int st = dl_round_run(R, rng, &sink);
    CU_ASSERT_FALSE(ferror(f));
    rewind(f);

    dl_trace t;
    char err[512] = "";
    long at = -1;
    CU_ASSERT_EQUAL_FATAL(dl_trace_read_stream(f, "tmp", &t, err, sizeof err), 0);
    fclose(f);
    CU_ASSERT_EQUAL(t.n, R->events);
    int st2 = dl_trace_replay(&t, R2, "tmp", syncs, &at, err, sizeof err);
    CU_ASSERT_EQUAL(st2, st);
    if (st2 < 0)
        fprintf(stderr, "\n  replay: %s\n", err);
    CU_ASSERT_EQUAL(R2->events, R->events);
    CU_ASSERT_EQUAL(R2->invocations, R->invocations);
    CU_ASSERT_EQUAL(R2->syncs, R->syncs);
    if (st == DL_DEADLOCK) {
        CU_ASSERT_EQUAL(at, t.n - 1);
        CU_ASSERT_EQUAL(R2->deadlock_event, R->deadlock_event);
        CU_ASSERT_EQUAL(R2->deadlock_step, R->deadlock_step);
        CU_ASSERT_EQUAL(R2->ncycle, R->ncycle);
        CU_ASSERT(R2->ncycle == R->ncycle &&
                  !memcmp(R2->cycle, R->cycle, (size_t)R->ncycle * sizeof *R->cycle));
    }
    dl_trace_free(&t);
    return st;
}

static void round_trip(const dl_params *P, int syncs)
{
    dl_layout L;
    layout_mesh(&L);
    dl_round *R = dl_round_new(&L, P), *R2 = dl_round_new(&L, P);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 12345);
    int count[3] = {0};
    for (int r = 0; r < 300; r++)
        count[round_trip_one(R, R2, rng, syncs)]++;
    /* Both outcomes were exercised. */
    CU_ASSERT(count[DL_DEADLOCK] > 0);
    CU_ASSERT(count[DL_COMPLETED] > 0);
    gsl_rng_free(rng);
    dl_round_free(R);
    dl_round_free(R2);
    dl_layout_free(&L);
}

static void test_round_trip_single(void)
{
    dl_params P = {.disorder = 0.05, .sync = 0, .slots = 1};
    round_trip(&P, 0);
}

static void test_round_trip_sync(void)
{
    dl_params P = {.disorder = 0.05, .sync = 0.1, .slots = 0};
    round_trip(&P, 1);
}

static void test_round_trip_resource(void)
{
    dl_params P = {.disorder = 0.3, .sync = 0.05, .slots = 2};
    round_trip(&P, 1);
}

static void test_writer_lines(void)
{
    dl_layout L;
    layout_fig1(&L);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dl_trace_write_header(f);
    dl_trace_write_event(f, &L, 0, 1, DL_ACT_INVOKE, 1, 1);
    dl_trace_write_event(f, &L, 3, 0, DL_ACT_SYNC, -1, 0);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "step,gpu,action,coll,group,skipped\n"
                                "0,1,invoke,1,1,1\n"
                                "3,0,sync,,,0\n");
    free(buf);
    dl_layout_free(&L);
}

/* ---- bad traces: the reader ---- */

static void test_bad_missing_column(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-missing-column.csv",
                 "bad-missing-column.csv:1: missing required column 'coll'");
}

static void test_bad_duplicate_column(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-duplicate-column.csv",
                 "bad-duplicate-column.csv:1: duplicated column 'gpu'");
}

static void test_bad_step_not_integer(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-step-not-integer.csv",
                 "bad-step-not-integer.csv:3: column 'step': 'x' is not an integer");
}

static void test_bad_gpu_negative(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-gpu-negative.csv",
                 "bad-gpu-negative.csv:2: column 'gpu': -1 is negative");
}

static void test_bad_coll_not_integer(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-coll-not-integer.csv",
                 "bad-coll-not-integer.csv:2: column 'coll': '1.5' is not an integer");
}

static void test_bad_action(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-action.csv",
                 "bad-action.csv:3: column 'action': unknown action 'launch'");
}

static void test_bad_sync_with_coll(void)
{
    expect_error(layout_fig1, &sync_model, 1, "bad-sync-coll.csv",
                 "bad-sync-coll.csv:3: column 'coll': a sync has no collective");
}

static void test_bad_invoke_without_coll(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-invoke-no-coll.csv",
                 "bad-invoke-no-coll.csv:2: column 'coll': missing collective id for invoke");
}

static void test_bad_step_decreasing(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-step-decreasing.csv",
                 "bad-step-decreasing.csv:4: column 'step': step 1 after step 2");
}

static void test_bad_field_count(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-fields.csv",
                 "bad-fields.csv:3: 5 fields, but the header has 6");
}

static void test_bad_empty(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-empty.csv", "bad-empty.csv:1: empty file");
}

static void test_bad_csv_syntax(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-csv-syntax.csv",
                 "bad-csv-syntax.csv:3: CSV syntax error");
    expect_error(layout_fig1, &single_queue, 0, "bad-csv-unterminated.csv",
                 "bad-csv-unterminated.csv:3: CSV syntax error: unterminated quoted field");
}

static void test_bad_line_after_blank_lines(void)
{
    expect_error(layout_fig1, &sync_model, 1, "bad-after-blank.csv",
                 "bad-after-blank.csv:7: column 'coll': a sync has no collective (got '2')");
}

static void test_missing_file(void)
{
    dl_trace t;
    char err[256] = "";
    CU_ASSERT_EQUAL(dl_trace_read("/nonexistent/trace.csv", &t, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/trace.csv: "));
    CU_ASSERT_EQUAL(t.n, 0);
}

/* ---- bad traces: the replay ---- */

static void test_bad_gpu_out_of_range(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-gpu-range.csv",
                 "bad-gpu-range.csv:3: GPU 2 does not exist");
}

static void test_bad_coll_out_of_range(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-coll-range.csv",
                 "bad-coll-range.csv:2: collective 7 does not exist");
}

static void test_bad_not_member(void)
{
    expect_error(layout_fig2, &single_queue, 0, "bad-not-member.csv",
                 "bad-not-member.csv:4: GPU 3 is not a member of collective 1");
}

static void test_bad_invoked_twice(void)
{
    long at = expect_error(layout_fig1, &single_queue, 0, "bad-twice.csv",
                           "bad-twice.csv:3: GPU 0 has already invoked collective 0");
    CU_ASSERT_EQUAL(at, 1); /* the index of the bad event */
}

static void test_bad_suspended(void)
{
    expect_error(layout_fig1, &sync_model, 1, "bad-suspended.csv",
                 "bad-suspended.csv:4: GPU 0 is suspended");
}

static void test_bad_after_completion(void)
{
    expect_error(layout_fig1, &single_queue, 0, "bad-after-complete.csv",
                 "bad-after-complete.csv:6: every collective has already completed");
}

static void test_bad_truncated(void)
{
    long at = expect_error(layout_fig1, &single_queue, 0, "bad-truncated.csv",
                           "bad-truncated.csv:3: trace ends with 2 collectives incomplete and "
                           "no deadlock: truncated?");
    CU_ASSERT_EQUAL(at, -1);
}

int dl_register_trace_tests(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"Fig. 1(c): single-queue deadlock", test_fig1c_single_queue},
        {"Fig. 1(d): deadlock at the second sync", test_fig1d_sync},
        {"Fig. 1(d) without syncs completes", test_fig1d_without_syncs_completes},
        {"syncs rejected in a model without", test_fig1d_syncs_rejected_without_model},
        {"sync after the last collective", test_sync_after_last_collective},
        {"Fig. 2: four-GPU cycle", test_fig2_ring},
        {"fixtures match configs/examples", test_fixtures_match_configs},
        {"consistent order completes", test_consistent_completes},
        {"reordered and extra columns", test_reordered_columns},
        {"replay follows line order only", test_replay_ignores_steps},
        {"round trip: single-queue", test_round_trip_single},
        {"round trip: sync", test_round_trip_sync},
        {"round trip: resource + syncs", test_round_trip_resource},
        {"writer lines", test_writer_lines},
        {"bad: missing column", test_bad_missing_column},
        {"bad: duplicated column", test_bad_duplicate_column},
        {"bad: step not an integer", test_bad_step_not_integer},
        {"bad: negative gpu", test_bad_gpu_negative},
        {"bad: coll not an integer", test_bad_coll_not_integer},
        {"bad: unknown action", test_bad_action},
        {"bad: sync with a collective", test_bad_sync_with_coll},
        {"bad: invoke without a collective", test_bad_invoke_without_coll},
        {"bad: step decreasing", test_bad_step_decreasing},
        {"bad: wrong number of fields", test_bad_field_count},
        {"bad: empty file", test_bad_empty},
        {"bad: CSV syntax", test_bad_csv_syntax},
        {"bad: line numbers after blank lines", test_bad_line_after_blank_lines},
        {"bad: missing file", test_missing_file},
        {"bad: GPU out of range", test_bad_gpu_out_of_range},
        {"bad: collective out of range", test_bad_coll_out_of_range},
        {"bad: collective not of that GPU", test_bad_not_member},
        {"bad: invoked twice", test_bad_invoked_twice},
        {"bad: GPU suspended", test_bad_suspended},
        {"bad: event after completion", test_bad_after_completion},
        {"bad: truncated", test_bad_truncated},
    };
    CU_pSuite s = CU_add_suite("trace", NULL, NULL);
    if (!s)
        return -1;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (!CU_add_test(s, tests[i].name, tests[i].fn))
            return -1;
    return 0;
}
