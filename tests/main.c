/* main.c: dlsim's test binary: every suite, through tests/runner.c.
 *
 *   build/dlsim-tests [SUITE [TEST]]      (DL_TEST_QUICK=1: fewer rounds) */
#include <stdio.h>
#include <stdlib.h>

#include "runner.h"
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
    int (*const reg[])(void) = {
        dl_register_layout_tests,  dl_register_config_tests,     dl_register_engine_tests,
        dl_register_detector_tests, dl_register_montecarlo_tests, dl_register_trace_tests,
        dl_register_fast_tests,     dl_register_reference_tests, dl_register_andor_tests,
        dl_register_matching_tests,
    };
    return dl_test_main(argc, argv, reg, sizeof reg / sizeof reg[0], getenv("DL_TEST_QUICK") ? "quick" : NULL);
}
