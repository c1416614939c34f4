/* Ranks as separate processes (mproc.h): the host backend's shared-memory
 * arenas, exact results, the random-order test with syncs and chaos with
 * failure detection on (no false alarm); then faults: a rank killed (-9) or
 * stopped (SIGSTOP) at a random point of init, registration, a collective, a
 * synchronization or destroy, over many seeds.  Every survivor must get
 * pcclRemoteError within its deadline (destroy: or finish), shrink (or
 * re-init, where the init itself failed), complete the next collectives
 * exactly, and leave no thread, mapping, /dev/shm entry or process behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"
#include "mproc.h"

static char *old_boot;
static void env_set(void)
{
    const char *o = getenv("PCCL_BOOT_TIMEOUT");
    old_boot = o ? strdup(o) : NULL;
    char b[16];
    snprintf(b, sizeof b, "%d", MP_BOOT_S);
    setenv("PCCL_BOOT_TIMEOUT", b, 1);
}
static void env_restore(void)
{
    if (old_boot) setenv("PCCL_BOOT_TIMEOUT", old_boot, 1);
    else unsetenv("PCCL_BOOT_TIMEOUT");
    free(old_boot);
}

static void run_clean(const char *what, int n, int iters, int sync, int chaos, uint64_t seed)
{
    char why[1024];
    double t0 = ck_now();
    int ok = mp_clean_case(PCCL_BACKEND_HOST, n, iters, sync, chaos, seed, why, sizeof why);
    PT_CHECK(ok, "%s: %s", what, why);
    fprintf(stderr, "\n  %s: %d ranks, %d iterations x 5 collectives, %.2f s", what, n, iters, ck_now() - t0);
}

static void test_exact(void)
{
    pt_begin("multiproc exact", 300);
    env_set();
    for (int n = 2; n <= 4; n++) run_clean("processes", n, ck_scaled(40, 6), 0, 0, (uint64_t)n);
    env_restore();
    pt_end();
}

static void test_randorder(void)
{
    pt_begin("multiproc random order", 300);
    env_set();
    run_clean("random order + chaos, detection 500 ms", 3, ck_scaled(40, 6), 0, 1, 11);
    run_clean("random order + syncs + chaos, detection 500 ms", 3, ck_scaled(20, 4), 1, 1, 12);
    run_clean("random order + syncs, detection 500 ms", 4, ck_scaled(20, 4), 1, 0, 13);
    env_restore();
    pt_end();
}

/* ---- faults (mp_fault_case judges each: mproc.c) ------------------------------ */

static void test_faults(void)
{
    pt_begin("faults", 600);
    env_set();
    const char *e = getenv("PCCL_FAULT_SEEDS");
    int n = e ? atoi(e) : ck_quick() ? 5 : 15;
    mp_stats st;
    memset(&st, 0, sizeof st);
    double t0 = ck_now();
    for (int i = 1; i <= n; i++) {
        char why[1024];
        int ok = mp_fault_case((uint64_t)i, PCCL_BACKEND_HOST, 2, 4, &st, why, sizeof why);
        PT_CHECK(ok, "%s", why);
    }
    fprintf(stderr, "\n");
    mp_print_stats(&st, stderr);
    fprintf(stderr, "  (%.1f s)", ck_now() - t0);
    env_restore();
    pt_end();
}

int pt_register_multiproc(void)
{
    CU_pSuite s = CU_add_suite("multiproc", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "2-4 ranks as processes, shared-memory arenas: exact", test_exact) ||
        !CU_add_test(s, "random order, syncs, chaos, detection on: no false alarm", test_randorder))
        return -1;
    return 0;
}

int pt_register_faults(void)
{
    CU_pSuite s = CU_add_suite("faults", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "kill -9 / SIGSTOP a rank at random points", test_faults)) return -1;
    return 0;
}
