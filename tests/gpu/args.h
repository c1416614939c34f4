/* Command-line numbers of the GPU test programs: a bad one is refused with
 * the program's name and the option's range, exit 2. */
#ifndef DL_GPU_ARGS_H
#define DL_GPU_ARGS_H

#include <stdio.h>
#include <stdlib.h>

static long dl_arg_num(const char *prog, const char *opt, const char *v, long lo, long hi)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x < lo || x > hi) {
        fprintf(stderr, "%s: %s needs an integer in [%ld, %ld], got '%s'\n", prog, opt, lo, hi, v ? v : "");
        exit(2);
    }
    return x;
}

#endif
