/* Ranks as separate processes (mproc.h): the host backend's shared-memory
 * arenas, exact results, the random-order test with syncs and chaos with
 * failure detection on (no false alarm); then faults: a rank killed (-9) or
 * stopped (SIGSTOP) at a random point of init, registration, a collective, a
 * synchronization or destroy, over many seeds.  Every survivor must get
 * pcclRemoteError within its deadline (destroy: or finish), shrink (or
 * re-init, where the init itself failed), complete the next collectives
 * exactly, and leave no thread, mapping, /dev/shm entry or process behind. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"
#include "mproc.h"

#define BOOT_S 2     /* PCCL_BOOT_TIMEOUT for the children: a rank that never joins */
#define TIMEOUT_MS 700 /* PCCL_PEER_TIMEOUT_MS: a stopped rank (well above a 2-core hiccup) */

static const char *const phase_names[MP_NPH] = {"none", "init", "register", "collective", "sync", "destroy"};

static char *old_boot;
static void env_set(void)
{
    const char *o = getenv("PCCL_BOOT_TIMEOUT");
    old_boot = o ? strdup(o) : NULL;
    setenv("PCCL_BOOT_TIMEOUT", "2", 1);
}
static void env_restore(void)
{
    if (old_boot) setenv("PCCL_BOOT_TIMEOUT", old_boot, 1);
    else unsetenv("PCCL_BOOT_TIMEOUT");
    free(old_boot);
}

static void clean_exit(const mp_report *r, int rank, const char *what)
{
    PT_CHECK(r->reported && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
             "%s: rank %d did not report and exit 0 (status 0x%x): %s", what, rank, r->status, r->msg);
    PT_CHECK(!r->wrong, "%s: rank %d: %d wrong: %s", what, rank, r->wrong, r->msg);
    PT_CHECK(r->threads == 0 && r->maps == 0, "%s: rank %d left %d threads and %d pccl mappings", what, rank,
             r->threads, r->maps);
}

static void run_clean(const char *what, int n, int iters, int sync, int chaos, uint64_t seed)
{
    mp_opts o;
    memset(&o, 0, sizeof o);
    o.nranks = n;
    o.seed = seed;
    o.iters = iters;
    o.sync = sync;
    o.chaos = chaos;
    o.timeout_ms = 300; /* detection on, tighter than the fault tests': no false alarm */
    o.victim = -1;
    PT_OK(pcclGetUniqueId(&o.id));
    mp_report rep[8];
    double t0 = ck_now();
    PT_CHECK(mp_run(&o, rep, 120) == 0, "%s: a rank hung or could not start", what);
    for (int r = 0; r < n; r++) {
        clean_exit(&rep[r], r, what);
        PT_CHECK(rep[r].err == pcclSuccess, "%s: rank %d: %s", what, r, rep[r].msg);
    }
    PT_CHECK(mp_shm_left(&o.id) == 0, "%s: /dev/shm entries left", what);
    fprintf(stderr, "\n  %s: %d ranks, %d iterations x 5 collectives, %.2f s", what, n, iters, ck_now() - t0);
}

static void test_exact(void)
{
    pt_begin("multiproc exact", 300);
    env_set();
    for (int n = 2; n <= 4; n++) run_clean("processes", n, ck_scaled(20, 4), 0, 0, (uint64_t)n);
    env_restore();
    pt_end();
}

static void test_randorder(void)
{
    pt_begin("multiproc random order", 300);
    env_set();
    run_clean("random order + chaos, detection 300 ms", 3, ck_scaled(20, 4), 0, 1, 11);
    run_clean("random order + syncs + chaos, detection 300 ms", 3, ck_scaled(6, 2), 1, 1, 12);
    run_clean("random order + syncs, detection 300 ms", 4, ck_scaled(6, 2), 1, 0, 13);
    env_restore();
    pt_end();
}

/* ---- faults ------------------------------------------------------------------ */

typedef struct {
    int injected, survived, detected[3];
    double sum[3], max[3];
} fault_stats;

static int fault_case(uint64_t seed, fault_stats *fs)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 7;
    mp_opts o;
    memset(&o, 0, sizeof o);
    o.nranks = 2 + (int)(ck_rand(&s) % 3);
    o.seed = seed;
    o.iters = 8;
    o.timeout_ms = TIMEOUT_MS;
    o.victim = (int)(ck_rand(&s) % (uint64_t)o.nranks);
    o.phase = 1 + (int)(seed % (MP_NPH - 1));
    o.kind = ck_rand(&s) % 2 ? MP_KILL : MP_STOP;
    o.sync = o.phase == MP_PH_SYNC || ck_rand(&s) % 4 == 0;
    o.chaos = ck_rand(&s) % 3 == 0;
    PT_OK(pcclGetUniqueId(&o.id));
    PT_OK(pcclGetUniqueId(&o.reinit));
    char what[160];
    snprintf(what, sizeof what, "seed %llu: %s rank %d of %d during %s%s%s", (unsigned long long)seed,
             o.kind == MP_KILL ? "kill -9" : "SIGSTOP", o.victim, o.nranks, phase_names[o.phase],
             o.sync ? ", syncs" : "", o.chaos ? ", chaos" : "");
    mp_report rep[8];
    unsigned failures = CU_get_number_of_failures();
    int bad = mp_run(&o, rep, 60);
    PT_CHECK(bad == 0, "%s: %d ranks hung (killed at the deadline) or could not start", what, bad);
    fs->injected++;
    const mp_report *v = &rep[o.victim];
    PT_CHECK(WIFSIGNALED(v->status) && WTERMSIG(v->status) == SIGKILL && v->t_fault > 0,
                    "%s: the victim was not killed (status 0x%x)", what, v->status);
    /* A survivor's deadline: the init's timeout for a rank that never
     * joined, the stall timeout for a stopped one, and slack for the 2-core
     * machine under sanitizers. */
    double deadline = BOOT_S + TIMEOUT_MS / 1000.0 + 3.0;
    for (int r = 0; r < o.nranks; r++) {
        if (r == o.victim) continue;
        const mp_report *p = &rep[r];
        clean_exit(p, r, what);
        if (o.phase != MP_PH_DESTROY || p->err) {
            double dt = p->t_err - v->t_fault;
            PT_CHECK(p->err == pcclRemoteError, "%s: rank %d: expected pcclRemoteError, got %d: %s", what, r, p->err,
                     p->msg);
            PT_CHECK(p->recovered, "%s: rank %d did not recover: %s", what, r, p->msg);
            PT_CHECK(dt < deadline, "%s: rank %d got its error %.2f s after the fault (deadline %.1f s)", what, r, dt,
                     deadline);
            int k = o.phase == MP_PH_INIT ? 2 : o.kind == MP_KILL ? 0 : 1;
            if (fs->detected[k] == 0) fprintf(stderr, "\n  %s: rank %d: %s", what, r, p->msg); /* what a user sees */
            fs->detected[k]++;
            fs->sum[k] += dt;
            if (dt > fs->max[k]) fs->max[k] = dt;
        }
    }
    PT_CHECK(mp_shm_left(&o.id) == 0 && mp_shm_left(&o.reinit) == 0, "%s: /dev/shm entries left", what);
    int ok = CU_get_number_of_failures() == failures;
    fs->survived += ok;
    if (!ok) fprintf(stderr, "\n  FAULT CASE FAILED: %s", what);
    return ok;
}

static void test_faults(void)
{
    pt_begin("faults", 600);
    env_set();
    const char *e = getenv("PCCL_FAULT_SEEDS");
    int n = e ? atoi(e) : ck_quick() ? 5 : 15;
    fault_stats fs;
    memset(&fs, 0, sizeof fs);
    double t0 = ck_now();
    for (int i = 1; i <= n; i++) fault_case((uint64_t)i, &fs);
    static const char *const kinds[3] = {"kill -9 after init", "SIGSTOP after init", "during init"};
    fprintf(stderr, "\n  faults: %d injected, %d survived (every survivor: error, shrink or re-init, exact "
            "results, nothing left) in %.1f s", fs.injected, fs.survived, ck_now() - t0);
    for (int k = 0; k < 3; k++)
        if (fs.detected[k])
            fprintf(stderr, "\n  time to detection, %s: mean %.3f s, max %.3f s (%d survivors)", kinds[k],
                    fs.sum[k] / fs.detected[k], fs.max[k], fs.detected[k]);
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
