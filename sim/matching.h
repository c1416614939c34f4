/* matching.h: how a library matches the collective calls of one
 * communicator across its ranks.
 *
 * identity  a call meets the calls of the same collective (dlsim's model of
 *           the paper: collectives are named);
 * order     a communicator's k-th call on one rank meets the k-th call on
 *           every other rank, whatever collective each rank meant: NCCL's
 *           rule.  Two different collectives matched with each other run
 *           as one: with the same shape they give wrong data, silently.
 *
 * Under `order` the engine runs on call slots instead of collectives: the
 * k-th call of communicator m is the slot named after m's k-th collective
 * (in id order); a GPU's n-th call on m fills its part of slot n, whichever
 * collective it invoked.  Every member of a communicator calls each of its
 * collectives once, so the slots fill exactly as the collectives would under
 * identity, and the waits, completions and the verdict are those of the
 * slots.  A slot whose parts came from different collectives is a mismatch.
 *
 * Communicators: by default one per group (dlsim --matching order).  dlreplay
 * passes its own choice (--comm: per group, per collective, per member list)
 * so that the verdict is the one for the communicators NCCL was given; one
 * per collective makes `order` the same as `identity`. */
#ifndef DL_MATCHING_H
#define DL_MATCHING_H

#include <stddef.h>

#include "layout.h"

enum { DL_MATCH_IDENTITY = 0, DL_MATCH_ORDER = 1 };

typedef struct dl_matching {
    int ncomms;
    int *comm_of;   /* [ncolls] communicator of each collective */
    int *comm_off;  /* [ncomms+1] */
    int *comm_coll; /* [ncolls] each communicator's collectives in id order */
    int *call_off;  /* [ncomms+1] its members' call counters: call_off[m] + member */
} dl_matching;

/* Communicators from comm_of[c] (NULL: one per group).  Every collective of
 * a communicator must have the same member list (in the same order).
 * Returns 0, or -1 with a message in err. */
int dl_matching_init(dl_matching *M, const dl_layout *L, const int *comm_of, char *err,
                     size_t errlen);
void dl_matching_free(dl_matching *M);

const char *dl_matching_name(int matching);
int dl_matching_parse(const char *s); /* -1 if unknown */

#endif
