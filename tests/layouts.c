/* Random small layouts, shared by the detector and evaluator suites. */
#include <gsl/gsl_rng.h>

#include "../sim/layout.h"
#include "tests.h"

/* Uniform integer in [lo, hi]. */
static int uniform_int(gsl_rng *rng, int lo, int hi)
{
    return lo + (int)gsl_rng_uniform_int(rng, (unsigned long)(hi - lo + 1));
}

/* 2..max_gpus GPUs (at most 8), 1-5 groups of random distinct members
 * (mostly 2 or more, now and then one), 1..max_colls collectives each; a GPU
 * left out of every group joins a random one, since a layout must cover
 * every GPU.  Either planned order. */
void dl_test_random_layout(dl_layout *L, gsl_rng *rng, int max_gpus, int max_colls)
{
    CU_ASSERT_FATAL(max_gpus >= 2 && max_gpus <= 8);
    int G = uniform_int(rng, 2, max_gpus), ngroups = uniform_int(rng, 1, 5);
    int members[5][8], n[5], ncoll[5], covered[8] = {0};
    for (int g = 0; g < ngroups; g++) {
        int perm[8];
        for (int i = 0; i < G; i++)
            perm[i] = i;
        for (int i = G - 1; i > 0; i--) { /* Fisher-Yates */
            int j = uniform_int(rng, 0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        n[g] = gsl_rng_uniform(rng) < 0.1 ? 1 : uniform_int(rng, 2, G);
        ncoll[g] = uniform_int(rng, 1, max_colls);
        for (int m = 0; m < n[g]; m++) {
            members[g][m] = perm[m];
            covered[perm[m]] = 1;
        }
    }
    for (int i = 0; i < G; i++)
        if (!covered[i]) {
            int g = uniform_int(rng, 0, ngroups - 1);
            members[g][n[g]++] = i;
        }
    char err[256];
    dl_layout_init(L, G);
    for (int g = 0; g < ngroups; g++)
        CU_ASSERT_FATAL(dl_layout_add_group(L, members[g], n[g], ncoll[g], err, sizeof err) == 0);
    int order = gsl_rng_uniform(rng) < 0.5 ? DL_ORDER_INTERLEAVE : DL_ORDER_SEQUENTIAL;
    CU_ASSERT_FATAL(dl_layout_finish(L, order, err, sizeof err) == 0);
}
