/* Recovery: pcclCommShrink, as ncclCommShrink.  Every surviving rank calls it
 * with the same list of ranks to leave out (pcclCommGetFailedRanks gives the
 * same list on every survivor); the new communicator is an ordinary one,
 * made by pcclCommInitRankConfig under an id derived from the parent's, the
 * list and the number of shrinks before, so the survivors meet without
 * handing a new id around, and two shrinks never meet each other.  Ranks
 * keep their order: the new rank is the old one less the excluded ranks
 * below it. */
#include <string.h>

#include "internal.h"

pcclResult_t pcclCommShrink(pcclComm_t c, const int *excludeRanks, int excludeCount, pcclComm_t *newcomm,
                            const pcclConfig_t *config, int shrinkFlags)
{
    CHECK_COMM(c, "pcclCommShrink");
    if (!newcomm) return pccl_err(c, pcclInvalidArgument, "pcclCommShrink: newcomm is NULL");
    if (excludeCount < 0 || excludeCount >= c->nranks || (excludeCount && !excludeRanks))
        return pccl_err(c, pcclInvalidArgument, "pcclCommShrink: excludeCount %d (of %d ranks) %s", excludeCount,
                        c->nranks, excludeCount > 0 && !excludeRanks ? "with excludeRanks NULL" : "out of range");
    if (shrinkFlags != PCCL_SHRINK_DEFAULT && shrinkFlags != PCCL_SHRINK_ABORT)
        return pccl_err(c, pcclInvalidArgument, "pcclCommShrink: shrinkFlags %d: expected PCCL_SHRINK_DEFAULT or "
                        "PCCL_SHRINK_ABORT", shrinkFlags);
    uint64_t mask = 0;
    for (int i = 0; i < excludeCount; i++) {
        int r = excludeRanks[i];
        if (r < 0 || r >= c->nranks || (mask >> r & 1) || r == c->rank)
            return pccl_err(c, pcclInvalidArgument, "pcclCommShrink: excludeRanks[%d] = %d: %s", i, r,
                            r == c->rank ? "this rank itself" : r < 0 || r >= c->nranks ? "not a rank" : "listed twice");
        mask |= 1ull << r;
    }
    pthread_mutex_lock(&c->mu);
    if (shrinkFlags == PCCL_SHRINK_ABORT) pccl_fail_locked(c, mask, "pcclCommShrink with PCCL_SHRINK_ABORT");
    pcclUniqueId id = c->id;
    /* The parent's random bits, the list in one word, the count in another:
     * distinct for every (list, shrink) of one parent. */
    uint64_t s[2];
    memcpy(s, id.internal + 8, sizeof s);
    s[0] ^= mask;
    s[1] ^= (uint64_t)++c->shrinks * 0x9e3779b97f4a7c15ull;
    pthread_mutex_unlock(&c->mu);
    memcpy(id.internal + 8, s, sizeof s);
    int below = 0;
    for (int r = 0; r < c->rank; r++) below += (int)(mask >> r & 1);
    *newcomm = NULL;
    /* each survivor keeps its device: its new rank need not name it */
    return pccl_init_rank(newcomm, c->nranks - excludeCount, id, c->rank - below, c->dev, config);
}
