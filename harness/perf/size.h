/* size.h: a byte size as the benchmarks' flags take it (pccl-perf's -b, -e,
 * -i, --iter-bytes, --check-max; pccl-perf-proc's -b): a number with an
 * optional K, M or G (powers of 1024, as nccl-tests), optionally followed by
 * B, a whole number of bytes up to 64G.  Each program says what is wrong in
 * its own words. */
#ifndef PCCL_PERF_SIZE_H
#define PCCL_PERF_SIZE_H

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* 0 and *out, or -1 if v is not such a size. */
static inline int perf_parse_size(const char *v, size_t *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    double unit = 1;
    if (end != v && *end) {
        switch (*end) {
        case 'k': case 'K': unit = 1024.0; end++; break;
        case 'm': case 'M': unit = 1024.0 * 1024; end++; break;
        case 'g': case 'G': unit = 1024.0 * 1024 * 1024; end++; break;
        default: break;
        }
        if (*end == 'b' || *end == 'B') end++;
    }
    double bytes = x * unit;
    if (errno || end == v || *end || !(bytes >= 0) || bytes > 64.0 * 1024 * 1024 * 1024 || bytes != floor(bytes))
        return -1;
    *out = (size_t)bytes;
    return 0;
}

#endif
