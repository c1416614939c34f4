/* streams.c: per-GPU generators with geometric gaps (streams.h). */
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>

#include "rng.h"
#include "util.h"

dl_streams *dl_streams_new(const gsl_rng_type *type, int ngpus, const dl_params *P)
{
    dl_streams *S = dl_xcalloc(1, sizeof *S);
    S->ngpus = ngpus;
    S->psync = P->sync > 0 ? P->sync : 0;
    S->pskip = P->disorder > 0 ? P->disorder : 0;
    S->lsync = log1p(-S->psync);
    S->lskip = log1p(-S->pskip);
    S->rng = dl_xcalloc((size_t)ngpus, sizeof *S->rng);
    for (int i = 0; i < ngpus; i++) {
        S->rng[i] = gsl_rng_alloc(type);
        if (!S->rng[i]) {
            fprintf(stderr, "dlsim: out of memory (generator %d of %d)\n", i, ngpus);
            exit(1);
        }
    }
    S->sync_gap = dl_xcalloc((size_t)ngpus, sizeof(long));
    S->skip_gap = dl_xcalloc((size_t)ngpus, sizeof(long));
    return S;
}

void dl_streams_free(dl_streams *S)
{
    if (!S)
        return;
    for (int i = 0; i < S->ngpus; i++)
        gsl_rng_free(S->rng[i]);
    free(S->rng);
    free(S->sync_gap);
    free(S->skip_gap);
    free(S);
}

static void seed_one(dl_streams *S, int i, unsigned long seed, long round, int gpu)
{
    gsl_rng_set(S->rng[i], dl_gpu_seed(seed, round, gpu));
    S->sync_gap[i] = S->psync > 0 ? dl_geometric_gap(S->rng[i], S->psync, S->lsync) : LONG_MAX;
    S->skip_gap[i] = dl_geometric_gap(S->rng[i], S->pskip, S->lskip);
}

void dl_streams_seed(dl_streams *S, unsigned long seed, long round)
{
    for (int i = 0; i < S->ngpus; i++)
        seed_one(S, i, seed, round, i);
}

void dl_streams_seed_gpus(dl_streams *S, unsigned long seed, long round, const int *gpus)
{
    for (int i = 0; i < S->ngpus; i++)
        seed_one(S, i, seed, round, gpus[i]);
}
