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

/* A bijection of 32-bit values (lowbias32, by C. Wellons). */
static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Most GSL generators read 32 bits of a seed: the GPUs of one round get
 * distinct 32-bit seeds (a bijection of base + gpu), so no two of them share
 * a stream. */
unsigned long dl_gpu_seed(unsigned long seed, long round, int gpu)
{
    uint32_t base = (uint32_t)mix(mix((uint64_t)seed ^ 0x243f6a8885a308d3ULL) ^ (uint64_t)round);
    uint32_t s = mix32(base + (uint32_t)gpu);
    return (unsigned long)(s ? s : 0x9e3779b9U);
}
