/* main.c: the harness's test binary, through tests/runner.c.
 *
 *   build/harness-tests [SUITE [TEST]] */
#include <stdlib.h>

#include "../runner.h"

int ht_register_replay(void);

int main(int argc, char **argv)
{
    setenv("PCCL_BACKEND", "host", 1);
    int (*const reg[])(void) = {ht_register_replay};
    return dl_test_main(argc, argv, reg, sizeof reg / sizeof reg[0], NULL);
}
