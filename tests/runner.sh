#!/usr/bin/env bash
# runner.sh TESTS: the CUnit runner's own behaviour (tests/runner.c), on a
# test binary built with it (dlsim-tests): a test that outlives
# DL_TEST_TIMEOUT is named and ends the binary with 124 (make test prints a
# step's output only when it ends, so a hang must end); a bad value is
# refused with 2; one suite, one test, an unknown one.
set -u
bin=${1:?usage: tests/runner.sh path/to/dlsim-tests}
. "$(dirname "$0")/expect.sh"

# andor's brute-force test takes 2-14 s: 0.2 s cannot be enough
slow=("andor" "engine = brute force run to quiescence")
expect "a test past DL_TEST_TIMEOUT: named, exit 124" 124 \
  "TIMEOUT: andor: engine = brute force run to quiescence still running after 0\.[2-9]" -- \
  env DL_TEST_TIMEOUT=0.2 "$bin" "${slow[@]}"
expect "DL_TEST_TIMEOUT not a number: refused" 2 "DL_TEST_TIMEOUT=abc: not a number" -- \
  env DL_TEST_TIMEOUT=abc "$bin" layout
expect "DL_TEST_TIMEOUT negative: refused" 2 "DL_TEST_TIMEOUT=-1" -- env DL_TEST_TIMEOUT=-1 "$bin" layout
expect "DL_TEST_TIMEOUT=0: no limit" 0 "^[1-9][0-9]* passed, 0 failed" -- env DL_TEST_TIMEOUT=0 "$bin" layout
expect "one suite, within the limit" 0 "^[1-9][0-9]* passed, 0 failed" -- env DL_TEST_TIMEOUT=60 "$bin" config
expect "one test" 0 "^1 passed, 0 failed" -- "$bin" layout "grid3d errors"
expect "an unknown suite: exit 2" 2 "no suite named 'nosuch'" -- "$bin" nosuch
expect "an unknown test: exit 2" 2 "no test named 'nosuch' in suite 'layout'" -- "$bin" layout nosuch
finish runner.sh
