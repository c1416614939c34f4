/* The hang report (PCCL_HANG_DUMP_MS, lib/dump.c): a rank whose peer has not
 * issued a collective prints, once per quiet spell, its state naming that
 * collective; the peer, with nothing outstanding, prints nothing; the
 * collective still completes exactly once the peer issues it.  The poller's
 * stall report (PCCL_POLLER_STALL_US, lib/poller.c): a pass held up by a
 * slow callback names the callbacks' time and the pcclRun they made, and no
 * pass is reported below the threshold.  A bad value of either is refused at init, naming the
 * variable. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define DUMP_COUNT 100 /* int32 elements */

static void test_report(void)
{
    pt_begin("hang report", 60);
    setenv("PCCL_HANG_DUMP_MS", "100", 1);
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(2, 256);
    int inited = pt_init(c, 2, &cfg) == 0;
    unsetenv("PCCL_HANG_DUMP_MS");
    if (!inited) { pt_end(); return; }
    int id = -1;
    int32_t in[2][DUMP_COUNT], out[2][DUMP_COUNT];
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclRegisterAllReduce(c[r], DUMP_COUNT, pcclInt32, pcclSum, 0, &id));
        for (int i = 0; i < DUMP_COUNT; i++) { in[r][i] = r * 1000 + i; out[r][i] = -1; }
    }
    pt_stderr cap;
    int captured = pt_stderr_begin(&cap) == 0;
    PT_OK(pcclRun(c[0], id, in[0], out[0], NULL, NULL));
    ck_sleep_ms(450); /* four report periods: still one report */
    char *text = captured ? pt_stderr_end(&cap) : NULL;
    PT_OK(pcclRun(c[1], id, in[1], out[1], NULL, NULL));
    for (int r = 0; r < 2; r++) PT_OK(pcclWait(c[r], id));
    int wrong = 0;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < DUMP_COUNT; i++) wrong += out[r][i] != 1000 + 2 * i;
    PT_CHECK(wrong == 0, "%d wrong elements after the report", wrong);
    PT_CHECK(text != NULL, "capturing stderr failed");
    if (text) {
        PT_CHECK(pt_count_of(text, "pccl: rank 0 of 2") == 1, "rank 0 reported %d times, not once:\n%s",
                 pt_count_of(text, "pccl: rank 0 of 2"), text);
        PT_CHECK(!strstr(text, "pccl: rank 1 of 2"), "rank 1, with nothing outstanding, reported:\n%s", text);
        PT_CHECK(strstr(text, "with 1 outstanding (PCCL_HANG_DUMP_MS)") != NULL, "no outstanding count:\n%s", text);
        char want[160];
        snprintf(want, sizeof want, "collective %d: all-reduce of %d elements (4 B each)", id, DUMP_COUNT);
        PT_CHECK(strstr(text, want) != NULL, "no \"%s\" in:\n%s", want, text);
        PT_CHECK(strstr(text, "issued 1, completed 0, in flight 1") != NULL, "no invocation counts:\n%s", text);
        PT_CHECK(pt_count_of(text, "pccl:   block ") == 2, "not one line per block (2):\n%s", text);
        free(text);
    }
    pt_destroy(c, 2);
    pt_end();
}

/* A callback that sleeps, then issues a second collective (a chain's next
 * link, as pccl-perf's back to back issues them). */
typedef struct {
    int ms, id;
    pcclComm_t c;
    int32_t *in, *out;
    pcclResult_t run;
} slow_arg;

static void slow_callback(int id, pcclResult_t st, void *arg)
{
    (void)id;
    (void)st;
    slow_arg *a = arg;
    ck_sleep_ms(a->ms);
    a->run = pcclRun(a->c, a->id, a->in, a->out, NULL, NULL);
}

/* Rank 0's callback sleeps 80 ms; with PCCL_POLLER_STALL_US=threshold_us,
 * returns stderr meanwhile (NULL: not captured) and counts wrong elements
 * of both collectives. */
static char *stall_run(const char *threshold_us, int *wrong)
{
    setenv("PCCL_POLLER_STALL_US", threshold_us, 1);
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(2, 256);
    int inited = pt_init(c, 2, &cfg) == 0;
    unsetenv("PCCL_POLLER_STALL_US");
    *wrong = -1;
    if (!inited) return NULL;
    int id[2] = {-1, -1};
    int32_t in[2][2][DUMP_COUNT], out[2][2][DUMP_COUNT];
    slow_arg arg[2];
    for (int r = 0; r < 2; r++) {
        for (int k = 0; k < 2; k++) {
            PT_OK(pcclRegisterAllReduce(c[r], DUMP_COUNT, pcclInt32, pcclSum, 0, &id[k]));
            for (int i = 0; i < DUMP_COUNT; i++) { in[r][k][i] = r * 1000 + k * 100 + i; out[r][k][i] = -1; }
        }
        arg[r] = (slow_arg){r == 0 ? 80 : 0, id[1], c[r], in[r][1], out[r][1], pcclInternalError};
    }
    pt_stderr cap;
    int captured = pt_stderr_begin(&cap) == 0;
    for (int r = 0; r < 2; r++) PT_OK(pcclRun(c[r], id[0], in[r][0], out[r][0], slow_callback, &arg[r]));
    for (int r = 0; r < 2; r++) PT_OK(pcclWait(c[r], id[0])); /* after the callback, and its pcclRun */
    for (int r = 0; r < 2; r++) PT_OK(pcclWait(c[r], id[1]));
    pt_destroy(c, 2);
    char *text = captured ? pt_stderr_end(&cap) : NULL;
    *wrong = 0;
    for (int r = 0; r < 2; r++) {
        PT_CHECK(arg[r].run == pcclSuccess, "rank %d: the callback's pcclRun: %d", r, (int)arg[r].run);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < DUMP_COUNT; i++) *wrong += out[r][k][i] != 1000 + 2 * (k * 100 + i);
    }
    return text;
}

/* The number after `key` in the report line of rank 0, or -1. */
static double field_of(const char *text, const char *key)
{
    const char *line = strstr(text, "pccl: rank 0 of 2: poller pass of ");
    const char *f = line ? strstr(line, key) : NULL;
    return f ? strtod(f + strlen(key), NULL) : -1;
}

static void test_poller_stall(void)
{
    pt_begin("poller stall report", 60);
    int wrong = 0;
    double t0 = ck_now() * 1e9; /* CLOCK_MONOTONIC, as the report's pass start */
    char *text = stall_run("20000", &wrong);
    double t1 = ck_now() * 1e9;
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    PT_CHECK(text != NULL, "capturing stderr failed");
    if (text) {
        PT_CHECK(strstr(text, "pccl: rank 0 of 2: poller pass of ") != NULL,
                 "rank 0's 80 ms callback was not reported:\n%s", text);
        double cb = field_of(text, "completions, callbacks ") / 1e3;
        PT_CHECK(cb >= 75 && cb < 5000, "callbacks' time %.1f ms, not the callback's 80 ms:\n%s", cb, text);
        double run = field_of(text, "their longest pcclRun ");
        PT_CHECK(run > 0 && run < 1e3 * cb, "the callback's pcclRun: %.1f us:\n%s", run, text);
        double from = field_of(text, "(PCCL_POLLER_STALL_US) from ");
        PT_CHECK(from >= t0 && from <= t1, "the pass's start %.0f ns, not within the run's %.0f-%.0f:\n%s", from, t0,
                 t1, text);
        free(text);
    }
    /* nothing is reported below the threshold: no pass lasts 10 s here */
    text = stall_run("10000000", &wrong);
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    PT_CHECK(text != NULL, "capturing stderr failed");
    if (text) {
        PT_CHECK(!strstr(text, "poller pass of"), "a pass under the threshold reported:\n%s", text);
        free(text);
    }
    pt_end();
}

static void test_bad_value(void)
{
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(2, 256);
    static const char *const vars[] = {"PCCL_HANG_DUMP_MS", "PCCL_POLLER_STALL_US"};
    for (int v = 0; v < 2; v++) {
        setenv(vars[v], "soon", 1);
        PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
        PT_CHECK(strstr(pcclGetLastError(NULL), vars[v]) != NULL, "message: %s", pcclGetLastError(NULL));
        setenv(vars[v], "-5", 1);
        PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
        PT_CHECK(strstr(pcclGetLastError(NULL), vars[v]) != NULL, "message: %s", pcclGetLastError(NULL));
        unsetenv(vars[v]);
    }
}

int pt_register_dump(void)
{
    CU_pSuite s = CU_add_suite("dump", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "PCCL_HANG_DUMP_MS: one report naming the collective a peer has not issued", test_report) ||
        !CU_add_test(s, "PCCL_POLLER_STALL_US: a pass held up by a callback reported, none below the threshold",
                     test_poller_stall) ||
        !CU_add_test(s, "PCCL_HANG_DUMP_MS, PCCL_POLLER_STALL_US: a bad value is refused at init", test_bad_value))
        return -1;
    return 0;
}
