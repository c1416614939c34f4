/* grid3d.c: the 3D (tensor x data x pipeline) grouping of paper 001, Fig. 3.
 *
 * GPU id = stage*(tp*dp) + replica*tp + shard.  Per pipeline stage: dp TP
 * groups of tp consecutive GPUs, then tp DP groups (the GPUs holding the
 * same shard, listed by replica).  No group spans stages, as in the paper. */
#include "grouping.h"

#include <stdlib.h>

#include "../util.h"

/* A grid larger than this would spend gigabytes on member lists before the
 * layout's own size check could refuse it. */
#define GRID_MAX_GPUS (1L << 24)

static int grid_check(const dl_layout *L, int tp, int dp, int pp, int tp_colls, int dp_colls,
                      char *err, size_t errlen)
{
    if (tp < 1 || dp < 1 || pp < 1)
        return dl_fail(err, errlen, "tp, dp and pp must be >= 1 (got %d, %d, %d)", tp, dp, pp);
    if (tp_colls < 0 || dp_colls < 0)
        return dl_fail(err, errlen, "collective counts must be >= 0 (got %d, %d)", tp_colls,
                       dp_colls);
    /* tp*dp < 2^62 cannot overflow; checking it first keeps the second
     * product below 2^62 too. */
    long long n = (long long)tp * dp;
    if (n > GRID_MAX_GPUS || n * pp > GRID_MAX_GPUS)
        return dl_fail(err, errlen, "tp*dp*pp is more than %ld GPUs", GRID_MAX_GPUS);
    n *= pp;
    if (n != L->ngpus)
        return dl_fail(err, errlen, "the layout has %d GPUs but tp*dp*pp = %lld", L->ngpus, n);
    /* Parts of one stage times the stages; each factor < 2^24, so this fits. */
    long long parts = ((long long)tp_colls + dp_colls) * tp * dp * pp;
    if (parts > 1LL << 30)
        return dl_fail(err, errlen, "layout too large (over 2^30 collective parts)");
    return 0;
}

int dl_grid3d(dl_layout *L, int tp, int dp, int pp, int tp_colls, int dp_colls,
              char *err, size_t errlen)
{
    if (grid_check(L, tp, dp, pp, tp_colls, dp_colls, err, errlen))
        return -1;
    int *m = dl_xmalloc((size_t)(tp > dp ? tp : dp) * sizeof *m);
    int rc = 0;
    for (int s = 0; s < pp && !rc; s++) {
        int base = s * tp * dp;
        for (int r = 0; r < dp && !rc; r++) {
            for (int k = 0; k < tp; k++)
                m[k] = base + r * tp + k;
            rc = dl_layout_add_group(L, m, tp, tp_colls, err, errlen);
        }
        for (int k = 0; k < tp && !rc; k++) {
            for (int r = 0; r < dp; r++)
                m[r] = base + r * tp + k;
            rc = dl_layout_add_group(L, m, dp, dp_colls, err, errlen);
        }
    }
    free(m);
    return rc;
}
