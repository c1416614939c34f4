/* tests.h: each test file registers one CUnit suite. */
#ifndef DL_TESTS_H
#define DL_TESTS_H

#include <CUnit/CUnit.h>

/* Each returns 0, or -1 if CUnit could not register the suite. */
int dl_register_layout_tests(void);
int dl_register_config_tests(void);
int dl_register_engine_tests(void);
int dl_register_detector_tests(void);
int dl_register_montecarlo_tests(void);
int dl_register_trace_tests(void);
int dl_register_fast_tests(void);

/* Path of a file under tests/data, for tests that read fixtures. */
const char *dl_test_data(const char *name);

#endif
