/* sync.c: the synchronization model (paper 001, Fig. 1(d) and Fig. 2).
 * Unlimited resources, so a part executes as soon as it is invoked; a sync
 * suspends its GPU until every part it had invoked is complete. */
#include "model.h"

const dl_model dl_model_sync = {
    .name = "sync",
    .legacy = "StreamWithSync",
    .summary = "unlimited resources, GPUs issue syncs with probability sync_prob",
    .slots = 0,
    .syncs = 1,
};
