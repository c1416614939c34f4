/* main.c: the CUnit runner for every suite.  CU_basic_run_tests() returns
 * success even when assertions fail, so the exit status is the failure
 * count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "tests.h"

const char *dl_test_data(const char *name)
{
    static char buf[1024];
    const char *dir = getenv("DL_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "tests/data", name);
    return buf;
}

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    int (*reg[])(void) = {
        dl_register_layout_tests,  dl_register_config_tests,     dl_register_engine_tests,
        dl_register_detector_tests, dl_register_montecarlo_tests, dl_register_trace_tests,
        dl_register_fast_tests,
    };
    for (size_t i = 0; i < sizeof reg / sizeof reg[0]; i++)
        if (reg[i]() != 0) {
            fprintf(stderr, "cannot register suite %zu: %s\n", i, CU_get_error_msg());
            CU_cleanup_registry();
            return 1;
        }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (argc > 1) {
        /* run one suite by name */
        CU_pSuite s = CU_get_suite(argv[1]);
        if (!s) {
            fprintf(stderr, "no suite named '%s'\n", argv[1]);
            CU_cleanup_registry();
            return 2;
        }
        CU_basic_run_suite(s);
    } else {
        CU_basic_run_tests();
    }
    unsigned failed = CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    printf("\n%u passed, %u failed\n", run - failed, failed);
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
