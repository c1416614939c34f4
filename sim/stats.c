/* stats.c: binomial confidence interval (GSL). */
#include "stats.h"

#include <gsl/gsl_cdf.h>

void dl_binom_ci(long k, long n, double conf, double *lo, double *hi)
{
    double a = (1.0 - conf) / 2.0;
    if (n <= 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    *lo = k == 0 ? 0.0 : gsl_cdf_beta_Pinv(a, (double)k, (double)(n - k + 1));
    *hi = k == n ? 1.0 : gsl_cdf_beta_Pinv(1.0 - a, (double)(k + 1), (double)(n - k));
}
