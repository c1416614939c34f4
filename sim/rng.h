/* rng.h: per-round random streams.
 *
 * Round r of a study with seed s draws from a GSL generator seeded with a
 * hash of (s, r), so every round's events are fixed by (s, r) alone: the
 * result is the same for any thread count or rank, and `dlsim gen --round r`
 * reproduces a round of a study. */
#ifndef DL_RNG_H
#define DL_RNG_H

#include <gsl/gsl_rng.h>

/* The GSL generator type of that name, or NULL. */
const gsl_rng_type *dl_rng_type(const char *name);

/* The seed of round `round` in a study seeded with `seed`. */
unsigned long dl_round_seed(unsigned long seed, long round);

/* Seeds r for that round. */
void dl_rng_seed_round(gsl_rng *r, unsigned long seed, long round);

/* The seed of GPU `gpu`'s own generator in that round (the default stream,
 * streams.h, gives every GPU its own generator). */
unsigned long dl_gpu_seed(unsigned long seed, long round, int gpu);

#endif
