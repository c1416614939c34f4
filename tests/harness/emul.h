/* emul.h: an NCCL-like library in software, used only by the harness's own
 * tests: it blocks, hangs and mismatches the way NCCL does, on any machine.
 *
 *   - Calls on a communicator are matched by their order: the k-th call of
 *     every rank forms one instance (as NCCL does), whatever collectives the
 *     ranks meant.  With one communicator per collective that is exact.
 *   - One stream per GPU: only the GPU's oldest incomplete call can run.
 *     One stream per collective: every call can run.
 *   - An instance runs when every rank's call of it can run, and completes at
 *     once; each rank gets the all-reduce (sum) of the inputs of the calls it
 *     was matched with, so a mismatch gives wrong data, not an error.
 *   - sync blocks until the GPU's calls are complete (or the abort).
 * Knobs plant faults; every call is logged for the sequencer tests. */
#ifndef HT_EMUL_H
#define HT_EMUL_H

#include "../../harness/replay.h"

extern const dr_lib ht_emul;

typedef struct ht_knobs {
    int never_complete; /* nothing ever runs: a planted hang */
    long fail_at;       /* the call with this index (from 1) fails; 0 never */
} ht_knobs;

typedef struct ht_call {
    int gpu, coll; /* coll -1: a sync */
} ht_call;

/* Set before dr_replay; reset by ht_reset. */
extern ht_knobs ht_knob;
/* The calls (invoke and sync) in the order the library received them. */
extern ht_call *ht_calls;
extern long ht_ncalls;

void ht_reset(void);

#endif
