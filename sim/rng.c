/* rng.c: per-round random streams. */
#include "rng.h"

#include <stdint.h>
#include <string.h>

const gsl_rng_type *dl_rng_type(const char *name)
{
    for (const gsl_rng_type **t = gsl_rng_types_setup(); *t; t++)
        if (!strcmp((*t)->name, name))
            return *t;
    return NULL;
}

/* splitmix64 finaliser: consecutive inputs give unrelated outputs. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

unsigned long dl_round_seed(unsigned long seed, long round)
{
    uint64_t s = mix(mix((uint64_t)seed) ^ (uint64_t)round);
    /* Most GSL generators read 32 bits of the seed; fold the high half in. */
    s ^= s >> 32;
    return (unsigned long)(s ? s : 1);
}

void dl_rng_seed_round(gsl_rng *r, unsigned long seed, long round)
{
    gsl_rng_set(r, dl_round_seed(seed, round));
}
