/* single.c: the single-queue model (paper 001, Fig. 1(c)).  One stream per
 * GPU: only the head of its FIFO executes; invoking never blocks. */
#include "model.h"

const dl_model dl_model_single = {
    .name = "single",
    .legacy = "Single",
    .summary = "one queue per GPU: only its head executes; no syncs",
    .slots = 1,
    .syncs = 0,
};
