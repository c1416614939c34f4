/* resource.c: resource depletion (paper 001, Sec. 2.3 case 2).  K execution
 * slots per GPU, admitted in invocation order; K=1 is the single-queue
 * model.  Syncs combine with it when sync_prob > 0. */
#include "model.h"

const dl_model dl_model_resource = {
    .name = "resource",
    .legacy = 0,
    .summary = "K execution slots per GPU (key \"slots\"), FIFO admission, optional syncs",
    .slots = -1,
    .syncs = 1,
};
