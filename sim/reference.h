/* reference.h: --semantics reference: the decision rules of the authors'
 * public simulator (Oneflow-Inc/dfccl, simulator/simulator.py), applied to
 * the rounds dlsim draws.
 *
 * The rounds are dlsim's: the same layout and planned order, the same
 * lockstep (GPUs act in id order, a released GPU acts in the same step), the
 * same per-GPU streams (streams.h).  Only the rules differ from the exact
 * semantics (docs/semantics.md, "Reference semantics", says what the
 * reference does and how it was measured):
 *
 *   single    no GPU ever blocks.  Each group keeps one batch of pending
 *             submissions and the GPUs in it.  A GPU that invokes a
 *             collective of a group while it is in that group's batch is
 *             DROPPED: the collective leaves its list, is never submitted,
 *             and the GPU moves on.  Otherwise its collective joins the batch;
 *             two different collectives in one batch = deadlock; a batch with
 *             every member in it is cleared.  There is no cross-group check.
 *   sync      a GPU executes what it invokes; a sync with submitted,
 *             incomplete collectives hangs it until they complete.  When a
 *             GPU n hangs and at least two GPUs hang: deadlock iff some
 *             collective n submitted is unsubmitted on some other hung GPU
 *             AND some collective n has not submitted is submitted and
 *             incomplete on some other hung GPU (the two other GPUs may
 *             differ: the sets of all other hung GPUs are united first).
 *   resource  (sync trajectory, K = slots) after every invocation: deadlock
 *             if some group has every member with K or more submitted,
 *             incomplete collectives.  Nothing ever waits for a slot.
 *
 * The round ends at the first deadlock or when every GPU has gone through
 * its whole list (dropped collectives included). */
#ifndef DL_REFERENCE_H
#define DL_REFERENCE_H

#include <stdint.h>

#include "engine.h"
#include "streams.h"

/* DL_SEM_REFERENCE_NODROP: an ablation, not the authors' code: their
 * single-queue rules with the drop switched off.  A GPU already in a
 * group's batch submits anyway, so batches queue up, and the check compares
 * each member's k-th submission to the group with every other member's
 * k-th: the per-group check alone.  The sync and resource rules are those
 * of DL_SEM_REFERENCE (they drop nothing). */
enum { DL_SEM_EXACT = 0, DL_SEM_REFERENCE = 1, DL_SEM_REFERENCE_NODROP = 2 };

const char *dl_semantics_name(int sem);
int dl_semantics_parse(const char *s); /* -1 if unknown */
int dl_semantics_is_reference(int sem); /* either reference variant */

typedef struct dl_ref {
    const dl_layout *L;
    dl_params P;
    int single; /* the single-queue rules (slots == 1, no syncs) */
    int nodrop; /* DL_SEM_REFERENCE_NODROP: no drops, k-th submissions compared */

    /* per GPU */
    dl_plan_entry *rem;          /* remaining lists, like the engine's */
    int *rem_head, *rem_len;
    uint8_t *hung, *active;
    int *sub_head;               /* submitted, incomplete parts (linked by part) */
    int *nsub;                   /* their number */
    int *comp;                   /* component (GPUs linked by groups) */
    int *ggroup_off, *ggroup;     /* GPU i's groups: ggroup[ggroup_off[i] ...] */

    /* per part */
    uint8_t *submitted;
    int *sprev, *snext;

    /* per collective */
    int *left; /* members that have not submitted it */

    /* per group (single) */
    int *batch_coll, *batch_n;
    uint8_t *in_batch; /* [nparts of group members]: by node = node_off[g] + member */
    int *node_off;
    int *nsubmit;  /* nodrop: [node] submissions so far by this member to its group */
    int *seq_len;  /* nodrop: [group] k-th submissions recorded so far */
    int *seq;      /* nodrop: [ncolls] group g's k-th submission at seq[first_coll + k] */

    /* components whose GPUs never skip in this round follow the planned,
     * aligned orders and cannot trip the single-queue check: not run */
    int ncomps, aligned;
    int *comp_off, *comp_gpus; /* component c's GPUs, ascending: comp_gpus[comp_off[c] ...] */
    int *all_gpus;             /* 0 .. ngpus-1 */
    /* Play each component alone (default with two or more): every rule
     * looks at one group or at hung GPUs of one component, so a component
     * runs in lockstep exactly as it would alone, and one component's state
     * fits in the cache where the whole round's does not (3072 GPUs).  0:
     * the whole round in one lockstep (tests compare the two). */
    int split;
    uint8_t *comp_live;
    int *hung_list, nhung;

    /* outcome of the last round */
    int status;                              /* DL_COMPLETED or DL_DEADLOCK */
    long steps, events, invocations, syncs, skips, drops;
    long deadlock_event;                     /* -1 if completed */
    long replays; /* rounds played again up to their first deadlock (split play), all rounds */
} dl_ref;

dl_ref *dl_ref_new(const dl_layout *L, const dl_params *P);
/* The nodrop ablation (DL_SEM_REFERENCE_NODROP) from the next round on. */
void dl_ref_set_nodrop(dl_ref *X, int nodrop);
void dl_ref_free(dl_ref *X);

/* Plays round `round` of a study seeded with `seed` from the streams S
 * (which it seeds): DL_COMPLETED or DL_DEADLOCK.  Split play stops each
 * component at the earliest deadlock found so far; where a component played
 * before went past the round's first deadlock, the round is played again up
 * to it (rare: deadlocked rounds only), so the counts are those of the
 * whole round in lockstep. */
int dl_ref_run(dl_ref *X, dl_streams *S, unsigned long seed, long round);

/* Event by event (tests): a fresh round with every GPU played, then GPU i's
 * action: DL_DRAW_SYNC or invoke the k-th entry of its remaining list
 * (legal actions only).  Returns DL_RUNNING or DL_DEADLOCK. */
void dl_ref_begin(dl_ref *X);
int dl_ref_apply(dl_ref *X, int gpu, int k);

#endif
