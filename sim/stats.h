/* stats.h: the binomial confidence interval of a deadlock ratio. */
#ifndef DL_STATS_H
#define DL_STATS_H

/* Clopper-Pearson (exact) interval at confidence `conf` (e.g. 0.95) for k
 * successes in n trials, from GSL's beta quantiles.  0 and n successes give
 * [0, upper] and [lower, 1]; n == 0 gives [0, 1]. */
void dl_binom_ci(long k, long n, double conf, double *lo, double *hi);

#endif
