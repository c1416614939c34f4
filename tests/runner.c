/* runner.c: see runner.h. */
#include <stdio.h>
#include <time.h>

#include <CUnit/Basic.h>

#include "runner.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int run_selected(int argc, char **argv)
{
    if (argc < 2) {
        CU_basic_run_tests();
        return 0;
    }
    CU_pSuite s = CU_get_suite(argv[1]);
    if (!s) {
        fprintf(stderr, "no suite named '%s'\n", argv[1]);
        return 2;
    }
    if (argc < 3) {
        CU_basic_run_suite(s);
        return 0;
    }
    CU_pTest t = CU_get_test(s, argv[2]);
    if (!t) {
        fprintf(stderr, "no test named '%s' in suite '%s'\n", argv[2], argv[1]);
        return 2;
    }
    CU_basic_run_test(s, t);
    return 0;
}

int dl_test_main(int argc, char **argv, int (*const reg[])(void), size_t nreg, const char *note)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]() != 0) {
            fprintf(stderr, "cannot register suite %zu: %s\n", i, CU_get_error_msg());
            CU_cleanup_registry();
            return 1;
        }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    double t0 = now();
    int rc = run_selected(argc, argv);
    if (rc == 0) {
        unsigned failed = CU_get_number_of_tests_failed();
        unsigned run = CU_get_number_of_tests_run();
        printf("\n%u passed, %u failed (%.1f s%s%s)\n", run - failed, failed, now() - t0, note ? ", " : "",
               note ? note : "");
        rc = failed != 0;
    }
    CU_cleanup_registry();
    return rc;
}
