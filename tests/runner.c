/* runner.c: see runner.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <CUnit/TestRun.h>

#include "runner.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Each test's time, so that the slowest are named after the run: what
 * costs make test its minutes shows in every log.  Every test function is replaced
 * by one that times the original, found by CUnit's current test; a test
 * that fails a fatal assertion leaves through CUnit's long jump and keeps
 * its time unknown (-1). */
typedef struct {
    CU_pTest test;
    CU_pSuite suite;
    CU_TestFunc fn;
    double secs;
} timed_test;

static timed_test *timed;
static size_t ntimed;

/* The watchdog: a test still running after DL_TEST_TIMEOUT seconds (300
 * by default; 0: none) is named on stderr and the binary exits with 124, as
 * timeout(1) does.  make test prints each step's output only when the step
 * ends (--output-sync), so a hang would otherwise show nothing at all, not
 * even the name CUnit printed before it. */
static double limit_s = 300;
static timed_test *running;    /* the test in progress (the main thread's); after a fatal
                                 * assertion's long jump, until the next one starts */
static uint64_t running_since; /* its start, in ns of now()'s clock */

static void *watchdog(void *arg)
{
    (void)arg;
    const struct timespec tick = {0, 20 * 1000 * 1000};
    for (;;) {
        nanosleep(&tick, NULL);
        timed_test *t = __atomic_load_n(&running, __ATOMIC_ACQUIRE);
        double since = (double)__atomic_load_n(&running_since, __ATOMIC_ACQUIRE) * 1e-9;
        if (!t || now() - since < limit_s) continue;
        fflush(stdout);
        fprintf(stderr, "\nTIMEOUT: %s: %s still running after %.1f s (DL_TEST_TIMEOUT=%g)\n", t->suite->pName,
                t->test->pName, now() - since, limit_s);
        _exit(124);
    }
    return NULL;
}

static void start_watchdog(void)
{
    const char *e = getenv("DL_TEST_TIMEOUT");
    if (e) {
        char *end;
        double v = strtod(e, &end);
        if (end == e || *end || v < 0) {
            fprintf(stderr, "DL_TEST_TIMEOUT=%s: not a number of seconds (0: no limit)\n", e);
            exit(2);
        }
        limit_s = v;
    }
    pthread_t th;
    if (limit_s > 0 && pthread_create(&th, NULL, watchdog, NULL) == 0) pthread_detach(th);
}

static void timed_run(void)
{
    CU_pTest t = CU_get_current_test();
    for (size_t i = 0; i < ntimed; i++)
        if (timed[i].test == t) {
            double t0 = now();
            __atomic_store_n(&running_since, (uint64_t)(t0 * 1e9), __ATOMIC_RELEASE);
            __atomic_store_n(&running, &timed[i], __ATOMIC_RELEASE);
            timed[i].fn();
            __atomic_store_n(&running, NULL, __ATOMIC_RELEASE);
            timed[i].secs = now() - t0;
            return;
        }
}

static void time_every_test(void)
{
    size_t n = 0;
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        for (CU_pTest t = s->pTest; t; t = t->pNext) n++;
    timed = calloc(n ? n : 1, sizeof *timed);
    if (!timed) return; /* untimed: the tests still run */
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            timed[ntimed++] = (timed_test){t, s, t->pTestFunc, -1};
            t->pTestFunc = timed_run;
        }
}

static int slower(const void *a, const void *b)
{
    double x = ((const timed_test *)a)->secs, y = ((const timed_test *)b)->secs;
    return (x < y) - (x > y);
}

/* The slowest tests that ran, slowest first: 5, or DL_TEST_SLOWEST of them
 * (where the minutes of make test go, test by test). */
static void print_slowest(void)
{
    const char *e = getenv("DL_TEST_SLOWEST");
    size_t slowest = e && atoi(e) > 0 ? (size_t)atoi(e) : 5;
    qsort(timed, ntimed, sizeof *timed, slower);
    for (size_t i = 0; i < ntimed && i < slowest && timed[i].secs >= 0; i++)
        printf("%s %6.1f s  %s: %s\n", i ? "       " : "slowest", timed[i].secs, timed[i].suite->pName,
               timed[i].test->pName);
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
    time_every_test();
    start_watchdog();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    double t0 = now();
    int rc = run_selected(argc, argv);
    if (rc == 0) {
        unsigned failed = CU_get_number_of_tests_failed();
        unsigned run = CU_get_number_of_tests_run();
        printf("\n%u passed, %u failed (%.1f s%s%s)\n", run - failed, failed, now() - t0, note ? ", " : "",
               note ? note : "");
        print_slowest();
        rc = failed != 0;
    }
    CU_cleanup_registry();
    free(timed);
    return rc;
}
