/* The hang report (PCCL_HANG_DUMP_MS, lib/dump.c): a rank whose peer has not
 * issued a collective prints, once per quiet spell, its state naming that
 * collective; the peer, with nothing outstanding, prints nothing; the
 * collective still completes exactly once the peer issues it; a bad value is
 * refused at init, naming the variable. */
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

static void test_bad_value(void)
{
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(2, 256);
    setenv("PCCL_HANG_DUMP_MS", "soon", 1);
    PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
    PT_CHECK(strstr(pcclGetLastError(NULL), "PCCL_HANG_DUMP_MS") != NULL, "message: %s", pcclGetLastError(NULL));
    setenv("PCCL_HANG_DUMP_MS", "-5", 1);
    PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
    PT_CHECK(strstr(pcclGetLastError(NULL), "PCCL_HANG_DUMP_MS") != NULL, "message: %s", pcclGetLastError(NULL));
    unsetenv("PCCL_HANG_DUMP_MS");
}

int pt_register_dump(void)
{
    CU_pSuite s = CU_add_suite("dump", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "PCCL_HANG_DUMP_MS: one report naming the collective a peer has not issued", test_report) ||
        !CU_add_test(s, "PCCL_HANG_DUMP_MS: a bad value is refused at init", test_bad_value))
        return -1;
    return 0;
}
