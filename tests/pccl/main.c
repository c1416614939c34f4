/* main.c: the pccl host-backend test binary, through tests/runner.c.
 *
 *   build/pccl-tests [SUITE [TEST]]      (PCCL_TEST_QUICK=1: fewer iterations) */
#include <stdlib.h>
#include <string.h>

#include "../runner.h"
#include "harness.h"
#include "mproc.h"

int main(int argc, char **argv)
{
    /* The library's plain entry points (pcclCommInitAll, pcclCommInitRank)
     * take the backend from the environment: the host backend here.  Tests
     * that use a config set it there too. */
    setenv("PCCL_BACKEND", "host", 1);
    if (argc > 1 && !strcmp(argv[1], "--child")) return mp_child_main(argc, argv); /* a rank (mproc.h) */
    int (*const reg[])(void) = {
        pt_register_api,      pt_register_correctness, pt_register_callbacks, pt_register_initrank,
        pt_register_abort,    pt_register_priority,    pt_register_chaos,     pt_register_deadlock,
        pt_register_regressions, pt_register_fuzz, pt_register_multiproc, pt_register_faults,
        pt_register_stream, pt_register_share, pt_register_offset, pt_register_proto, pt_register_hostpath,
        pt_register_dump, pt_register_sqcq,
    };
    return dl_test_main(argc, argv, reg, sizeof reg / sizeof reg[0], ck_quick() ? "quick" : NULL);
}
