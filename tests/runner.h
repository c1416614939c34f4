/* runner.h: the CUnit runner both test binaries share (dlsim-tests and
 * pccl-tests). */
#ifndef DL_RUNNER_H
#define DL_RUNNER_H

#include <stddef.h>

/* Registers the suites (each function returns 0, or -1 if CUnit could not
 * register it), runs all of them, one suite (argv[1]) or one test of it
 * (argv[2]), prints "N passed, N failed (T s[, note])" and the five slowest
 * tests with their times, and returns the exit
 * status: 0 all passed, 1 a failure, 2 no such suite or test (or a bad
 * DL_TEST_TIMEOUT); a test still running after DL_TEST_TIMEOUT seconds
 * (default 300, 0: none) is named on stderr and exits the binary with 124.
 * CU_basic_run_tests() returns success even when tests fail, hence this. */
int dl_test_main(int argc, char **argv, int (*const reg[])(void), size_t nreg, const char *note);

#endif
