/* tests.h: each test file registers one CUnit suite. */
#ifndef DL_TESTS_H
#define DL_TESTS_H

#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>

#include "../sim/layout.h"

/* Each returns 0, or -1 if CUnit could not register the suite. */
int dl_register_layout_tests(void);
int dl_register_config_tests(void);
int dl_register_engine_tests(void);
int dl_register_detector_tests(void);
int dl_register_montecarlo_tests(void);
int dl_register_trace_tests(void);
int dl_register_fast_tests(void);
int dl_register_reference_tests(void);
int dl_register_andor_tests(void);
int dl_register_matching_tests(void);

/* A random small layout (tests/layouts.c): 2..max_gpus GPUs (<= 8), 1-5
 * groups, 1..max_colls collectives each, either planned order. */
void dl_test_random_layout(dl_layout *L, gsl_rng *rng, int max_gpus, int max_colls);

/* Path of a file under tests/data, for tests that read fixtures. */
const char *dl_test_data(const char *name);

#endif
