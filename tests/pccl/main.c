/* main.c: the CUnit runner of the pccl host-backend suite.
 *
 *   build/pccl-tests [SUITE [TEST]]      (PCCL_TEST_QUICK=1: fewer iterations)
 *
 * CU_basic_run_tests() returns success even when assertions fail, so the exit
 * status is whether any test failed. */
#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>

#include "harness.h"

int main(int argc, char **argv)
{
    /* The library's plain entry points (pcclCommInitAll, pcclCommInitRank)
     * take the backend from the environment: the host backend here.  Tests
     * that use a config set it there too. */
    setenv("PCCL_BACKEND", "host", 1);
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    int (*reg[])(void) = {
        pt_register_api,      pt_register_correctness, pt_register_callbacks, pt_register_initrank,
        pt_register_abort,    pt_register_priority,    pt_register_chaos,     pt_register_deadlock,
        pt_register_regressions,
    };
    for (size_t i = 0; i < sizeof reg / sizeof reg[0]; i++)
        if (reg[i]() != 0) {
            fprintf(stderr, "cannot register suite %zu: %s\n", i, CU_get_error_msg());
            CU_cleanup_registry();
            return 1;
        }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    double t0 = ck_now();
    if (argc > 1) {
        CU_pSuite s = CU_get_suite(argv[1]);
        if (!s) {
            fprintf(stderr, "no suite named '%s'\n", argv[1]);
            CU_cleanup_registry();
            return 2;
        }
        if (argc > 2) {
            CU_pTest t = CU_get_test(s, argv[2]);
            if (!t) {
                fprintf(stderr, "no test named '%s' in suite '%s'\n", argv[2], argv[1]);
                CU_cleanup_registry();
                return 2;
            }
            CU_basic_run_test(s, t);
        } else {
            CU_basic_run_suite(s);
        }
    } else {
        CU_basic_run_tests();
    }
    unsigned failed = CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    printf("\n%u passed, %u failed (%.1f s%s)\n", run - failed, failed, ck_now() - t0,
           ck_quick() ? ", quick" : "");
    CU_cleanup_registry();
    return failed != 0;
}
