/* stats.c: binomial confidence interval (GSL).
 *
 * The Clopper-Pearson bounds are beta quantiles.  GSL's gsl_cdf_beta_Pinv
 * fails to converge (and aborts through the default error handler) for
 * large balanced counts, e.g. 5000 of 10000, so we invert the beta CDF by
 * bisection instead: it is monotone, and 200 halvings reach double
 * precision whatever the parameters. */
#include "stats.h"

#include <gsl/gsl_cdf.h>

/* x in [0,1] with P(Beta(a,b) <= x) = p. */
static double beta_quantile(double p, double a, double b)
{
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 200; k++) {
        double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi)
            break;
        if (gsl_cdf_beta_P(mid, a, b) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void dl_binom_ci(long k, long n, double conf, double *lo, double *hi)
{
    double a = (1.0 - conf) / 2.0;
    if (n <= 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    *lo = k == 0 ? 0.0 : beta_quantile(a, (double)k, (double)(n - k + 1));
    *hi = k == n ? 1.0 : beta_quantile(1.0 - a, (double)(k + 1), (double)(n - k));
}
