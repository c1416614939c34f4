/* options.c: pccl-perf's flags.  The nccl-tests flags keep their letters,
 * long names, meanings and defaults (nccl-tests README, "Arguments"); the
 * ones that have no meaning here are refused by name.  Every bad value exits
 * PERF_EXIT_ARGS with a message naming the flag. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf.h"
#include "size.h"

void perf_usage(FILE *f)
{
    fprintf(f,
        "usage: pccl-perf [options]\n"
        "nccl-tests-style benchmark: pccl against NCCL, same process, same GPUs, same buffers.\n"
        "Every collective asked for runs each size out of place and in place with each library;\n"
        "the table has nccl-tests' columns and bus bandwidth, plus pccl's busbw / NCCL's (ratio)\n"
        "and pccl's time - NCCL's (dtime).\n"
        "\n"
        "nccl-tests flags (its meanings and defaults, except -g, -T and -w per size):\n"
        "  -t,--nthreads T       threads; ranks = T x G, and every rank has its own thread [1]\n"
        "  -g,--ngpus G          GPUs per thread (--gpus G: the same) [all visible GPUs; host build 4]\n"
        "  -b,--minbytes S       smallest size (K, M, G: powers of 1024) [32M]\n"
        "  -e,--maxbytes S       largest size [32M]\n"
        "  -i,--stepbytes S      add S between sizes [1M]\n"
        "  -f,--stepfactor F     multiply by F between sizes (F > 1; instead of -i) [off]\n"
        "  -n,--iters N          timed iterations [20]\n"
        "  -w,--warmup_iters N   untimed iterations before them, per size and placement [5]\n"
        "  -c,--check N          data checks per size, placement and library (0: none) [1]\n"
        "  -o,--op OP            sum, prod, max, min, avg or all [sum]\n"
        "  -d,--datatype T       int8 uint8 int32 uint32 int64 uint64 half float double bfloat16, or all [float]\n"
        "  -r,--root R           root of reduce and broadcast, or all [0]\n"
        "  -z,--blocking 0|1     1: wait for every iteration, then a barrier of the rank threads [0]\n"
        "  -a,--average 0-3      time reported: 0 rank 0's, 1 mean, 2 min, 3 max over ranks [1]\n"
        "  -T,--timeout S        an iteration not done after S seconds: report, abort, exit 3 (0: never) [60]\n"
        "Not supported (refused): -m agg_iters, -p parallel_init, -G cudagraph, -y stream_null,\n"
        "  -C report_cputime, -F output_file (use --csv).\n"
        "\n"
        "pccl-perf flags:\n"
        "  --coll LIST           all_reduce,all_gather,reduce_scatter,reduce,broadcast or all [all]\n"
        "  --lib LIST            nccl,pccl [both where built; the host build has pccl only]\n"
        "  --timing LIST         b2b (back to back: -n iterations in flight, one wait), rt (round\n"
        "                        trip: each iteration waited for before the next) or all; both\n"
        "                        libraries, a row each [b2b; -z 1: rt]\n"
        "  --pccl-depth K        b2b: pccl invocations in flight, over K registered copies of each\n"
        "                        size (1-16) [4]\n"
        "  --iter-bytes S        fewer iterations for large sizes: a size runs about S/size\n"
        "                        iterations (at most -n, at least --min-iters), warm-up in proportion\n"
        "  --min-iters N         [5]\n"
        "  --check-max S         check sizes up to S only (#wrong N/A above) [no limit]\n"
        "  --seed N              seed of the checked inputs [1]\n"
        "  --csv FILE            one line per library, placement and size (written as they come)\n"
        "  --json FILE           the same, with the configuration, at the end\n"
        "  --delay-us LIST       preemption-cost mode: rank --delay-rank invokes each iteration this\n"
        "                        many microseconds late (busy wait), for each value of LIST; every\n"
        "                        iteration is waited for; pccl's preemptions and quits are counted\n"
        "  --delay-rank R        [last rank]\n"
        "  --interfere KERNEL    compute-slowdown mode (paper 004), GPU build only: KERNEL (gemm: SGEMM\n"
        "                        of n x n floats; stream: triad over 3 buffers of n MiB) runs K times\n"
        "                        on every GPU, on its own stream: alone, while NCCL's and while pccl's\n"
        "                        collectives run back to back, and while rank 0's pccl collective is\n"
        "                        stuck (pccl-stuck); its slowdown, the collectives' busbw against the\n"
        "                        library alone, pccl's preemptions, quits and launches.  One collective\n"
        "                        (--coll, default all_reduce), one size (-b, default 64M), out of place;\n"
        "                        -w warms the libraries up, -c 0 skips the checks, -n is not used\n"
        "  --interfere-n N       gemm: matrix size, a multiple of 128 [4096]; stream: MiB per buffer [256]\n"
        "  --interfere-k K       launches per scenario [about 1.5 s alone on the slowest GPU]\n"
        "  --overlap             with --interfere: fixed work instead of paper 004's scenarios: the K\n"
        "                        launches alone, M collectives alone (back to back) with each library,\n"
        "                        then both at once; the makespan against each alone\n"
        "  --overlap-colls M     the collectives [as many as take about the compute's time alone\n"
        "                        with the first library, NCCL where it runs]\n"
        "  --split               latency-split mode: pccl with PCCL_PROFILE=1; per size, the time per\n"
        "                        iteration (NCCL's too, where it runs) and where pccl's went, per\n"
        "                        invocation: SQ read, flag waits, primitives, commits, completion and\n"
        "                        CQ write, the daemon's SQ-to-CQ total, and the rest (host: submit,\n"
        "                        poller, callback); out of place, no checks\n"
        "  --share-gpu[=M]       rank r on GPU r %% M (M: 1 if not given), as threads of this process\n"
        "                        (pccl only: NCCL refuses a GPU twice): with M = 1 the daemons run\n"
        "                        side by side on one GPU's SMs and meet in its memory, a proxy for\n"
        "                        protocol costs where one GPU is all there is (no NVLink in the\n"
        "                        figures); with -g 4 --share-gpu=2 every ring hop crosses NVLink\n"
        "                        (0 -> 1 -> 0 -> 1), a proxy for 4 GPUs where 2 are lent\n"
        "  --times FILE          every completion's time (ns, the host's CLOCK_MONOTONIC,\n"
        "                        PCCL_SLICE_LOG's *_at clock on the host side): pccl back to back\n"
        "                        as its callback runs, round trips (both libraries) as the wait\n"
        "                        returns; one CSV line each: rank, bytes, in place, the rank's run\n"
        "                        (pccl's b2b warm-ups of 2 or more too), ns, timing, library (a\n"
        "                        diagnosis of stalls; --pccl-times: the same)\n"
        "  -h,--help             this text\n"
        "\n"
        "Timing: as nccl-tests, wall clock from a barrier of the rank threads to the completion of\n"
        "the last of -n iterations, divided by -n, then averaged over the issuing threads (-a).\n"
        "NCCL as nccl-tests runs it: blocking communicators, one thread per -g GPUs launching them\n"
        "in a group; b2b: -n launches on the streams, then one wait.  pccl: one invocation of a\n"
        "collective may be in flight, so b2b cycles over --pccl-depth copies, each copy's next\n"
        "iteration issued by its completion callback.  Collectives whose count is 0 at a size\n"
        "(all_gather, reduce_scatter: count < ranks) are skipped.\n"
        "Environment: PCCL_* knobs apply to pccl (lib/README.md); NCCL_NVLS_ENABLE is forced to 0.\n"
        "Exit: 0 ok; 1 a library or CUDA error; 2 bad flag; 3 timeout; 4 wrong data; 77 no GPU.\n");
}

static void bad(const char *flag, const char *value, const char *why)
{
    fprintf(stderr, "pccl-perf: %s%s%s: %s (see --help)\n", flag, value ? " " : "", value ? value : "", why);
    exit(PERF_EXIT_ARGS);
}

static long long parse_int(const char *flag, const char *v, long long lo, long long hi)
{
    char *end, why[96];
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        snprintf(why, sizeof why, "expected an integer in [%lld, %lld]", lo, hi);
        bad(flag, v, why);
    }
    return x;
}

static double parse_num(const char *flag, const char *v, double lo, double hi)
{
    char *end, why[96];
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi)) {
        snprintf(why, sizeof why, "expected a number in [%g, %g]", lo, hi);
        bad(flag, v, why);
    }
    return x;
}

static size_t parse_size(const char *flag, const char *v)
{
    size_t bytes;
    if (perf_parse_size(v, &bytes))
        bad(flag, v, "expected a whole number of bytes up to 64G, with an optional K, M or G");
    return bytes;
}

/* Comma-separated names; parse returns -1 for an unknown one.  "all" sets
 * every bit below n. */
static unsigned parse_set(const char *flag, const char *v, int (*parse)(const char *), int n, const char *expected)
{
    if (!strcasecmp(v, "all")) return (1u << n) - 1;
    unsigned set = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int x = parse(tok);
        if (x < 0) {
            char why[256];
            snprintf(why, sizeof why, "unknown name '%s' (expected %s)", tok, expected);
            bad(flag, v, why);
        }
        set |= 1u << x;
    }
    if (!set) bad(flag, v, "empty list");
    return set;
}

static int parse_lib(const char *s)
{
    return !strcasecmp(s, "nccl") ? PERF_LIB_NCCL : !strcasecmp(s, "pccl") ? PERF_LIB_PCCL : -1;
}

static int parse_timing(const char *s)
{
    for (int m = 0; m < PERF_NTIMINGS; m++)
        if (!strcasecmp(s, perf_timing_name(m))) return m;
    return -1;
}

const char *perf_timing_name(int timing) { return timing == PERF_TIMING_RT ? "rt" : "b2b"; }

enum { O_COLL = 256, O_LIB, O_PMODE, O_ITERB, O_MINIT, O_CHECKMAX, O_SEED, O_CSV, O_JSON, O_DELAY, O_DRANK,
       O_IFR, O_IFRN, O_IFRK, O_SPLIT, O_BCSV, O_TIMING, O_DEPTH, O_OVL, O_OVLM, O_SHARE, O_TIMES };

/* --interfere's cross-checks: one collective at one size; the kernel's size. */
static void check_interfere(perf_opts *o, int coll_given, int b_given, int e_given, const char *ifr_arg)
{
    if (!o->interfere) {
        if (o->interfere_n) bad("--interfere-n", NULL, "only with --interfere");
        if (o->interfere_k) bad("--interfere-k", NULL, "only with --interfere");
        if (o->overlap) bad("--overlap", NULL, "only with --interfere gemm|stream (the compute kernel)");
        return;
    }
    if (o->overlap_colls && !o->overlap) bad("--overlap-colls", NULL, "only with --overlap");
    if (o->overlap && o->blocking) bad("--overlap", NULL, "runs its collectives back to back: not with -z 1");
    if (o->ndelays) bad("--interfere", ifr_arg, "not with --delay-us");
    if (!coll_given) o->colls = 1u << pcclCollAllReduce;
    if (o->colls & (o->colls - 1)) bad("--coll", NULL, "--interfere runs one collective");
    if (o->ntypes != 1) bad("-d/--datatype", NULL, "--interfere runs one data type");
    if (o->nops != 1) bad("-o/--op", NULL, "--interfere runs one op");
    if (o->root < 0) bad("-r/--root", "all", "--interfere runs one root");
    if (!b_given) o->minbytes = 64u << 20;
    if (e_given && o->maxbytes != o->minbytes) bad("-e/--maxbytes", NULL, "--interfere runs one size: give -b only");
    o->maxbytes = o->minbytes;
    char v[32];
    snprintf(v, sizeof v, "%ld", o->interfere_n);
    if (o->interfere == PERF_KERNEL_GEMM) {
        if (!o->interfere_n) o->interfere_n = PERF_GEMM_DEFAULT_N;
        if (o->interfere_n % PERF_GEMM_TILE || o->interfere_n > 32768)
            bad("--interfere-n", v, "gemm: the matrix size must be a multiple of 128, at most 32768");
    } else {
        if (!o->interfere_n) o->interfere_n = PERF_STREAM_DEFAULT_MIB;
        if (o->interfere_n > 16384) bad("--interfere-n", v, "stream: at most 16384 MiB per buffer");
    }
}

void perf_parse_args(perf_opts *o, int argc, char **argv, int visible, int default_ranks)
{
    static const struct option longopts[] = {
        {"nthreads", required_argument, 0, 't'},   {"ngpus", required_argument, 0, 'g'},
        {"gpus", required_argument, 0, 'g'},       {"minbytes", required_argument, 0, 'b'},
        {"maxbytes", required_argument, 0, 'e'},   {"stepbytes", required_argument, 0, 'i'},
        {"stepfactor", required_argument, 0, 'f'}, {"iters", required_argument, 0, 'n'},
        {"warmup_iters", required_argument, 0, 'w'}, {"check", required_argument, 0, 'c'},
        {"op", required_argument, 0, 'o'},         {"datatype", required_argument, 0, 'd'},
        {"root", required_argument, 0, 'r'},       {"blocking", required_argument, 0, 'z'},
        {"average", required_argument, 0, 'a'},    {"timeout", required_argument, 0, 'T'},
        {"agg_iters", required_argument, 0, 'm'},  {"parallel_init", required_argument, 0, 'p'},
        {"cudagraph", required_argument, 0, 'G'},  {"stream_null", required_argument, 0, 'y'},
        {"report_cputime", required_argument, 0, 'C'}, {"output_file", required_argument, 0, 'F'},
        {"coll", required_argument, 0, O_COLL},    {"lib", required_argument, 0, O_LIB},
        {"pccl-mode", required_argument, 0, O_PMODE}, {"timing", required_argument, 0, O_TIMING},
        {"pccl-depth", required_argument, 0, O_DEPTH}, {"iter-bytes", required_argument, 0, O_ITERB},
        {"min-iters", required_argument, 0, O_MINIT}, {"check-max", required_argument, 0, O_CHECKMAX},
        {"seed", required_argument, 0, O_SEED},    {"csv", required_argument, 0, O_CSV},
        {"json", required_argument, 0, O_JSON},    {"delay-us", required_argument, 0, O_DELAY},
        {"delay-rank", required_argument, 0, O_DRANK}, {"help", no_argument, 0, 'h'},
        {"interfere", required_argument, 0, O_IFR}, {"interfere-n", required_argument, 0, O_IFRN},
        {"interfere-k", required_argument, 0, O_IFRK}, {"split", no_argument, 0, O_SPLIT},
        {"blocks-csv", required_argument, 0, O_BCSV}, {"overlap", no_argument, 0, O_OVL},
        {"overlap-colls", required_argument, 0, O_OVLM}, {"share-gpu", optional_argument, 0, O_SHARE},
        {"times", required_argument, 0, O_TIMES},
        {"pccl-times", required_argument, 0, O_TIMES}, /* its first name */
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->nthreads = o->ngpus = 1;
    o->minbytes = o->maxbytes = 32u << 20;
    o->stepbytes = 1u << 20;
    o->stepfactor = 1;
    o->iters = 20;
    o->warmup = 5;
    o->check = 1;
    o->average = PERF_AVG_MEAN;
    o->timeout = 60;
    o->min_iters = 5;
    o->colls = (1u << pcclNumColls) - 1;
    o->ntypes = 1;
    o->types[0] = pcclFloat;
    o->nops = 1;
    o->ops[0] = pcclSum;
    o->seed = 1;
    o->delay_rank = -1;
    o->timings = 1u << PERF_TIMING_B2B;
    o->pccl_depth = 4;
    o->libs = 1u << PERF_LIB_PCCL;
    if (perf_lib_nccl.available) o->libs |= 1u << PERF_LIB_NCCL;
    const char *root_arg = NULL, *ifr_arg = NULL;
    int step_given = 0, factor_given = 0, timing_given = 0, coll_given = 0, b_given = 0, e_given = 0;

    opterr = 0;
    optind = 1;
    for (;;) {
        int li = -1, c = getopt_long(argc, argv, ":t:g:b:e:i:f:n:w:c:o:d:r:z:a:T:m:p:G:y:C:F:h", longopts, &li);
        if (c == -1) break;
        /* the flag as the user wrote it, for messages */
        char flag[64];
        if (li >= 0) snprintf(flag, sizeof flag, "--%s", longopts[li].name);
        else snprintf(flag, sizeof flag, "-%c", c);
        const char *v = optarg;
        switch (c) {
        case 't': o->nthreads = (int)parse_int(flag, v, 1, PERF_MAX_RANKS); o->ranks_given = 1; break;
        case 'g': o->ngpus = (int)parse_int(flag, v, 1, PERF_MAX_RANKS); o->ranks_given = 1; break;
        case 'b': o->minbytes = parse_size(flag, v); b_given = 1; break;
        case 'e': o->maxbytes = parse_size(flag, v); e_given = 1; break;
        case 'i': o->stepbytes = parse_size(flag, v); step_given = 1; break;
        case 'f': o->stepfactor = parse_num(flag, v, 1, 1024); factor_given = o->stepfactor > 1; break;
        case 'n': o->iters = (int)parse_int(flag, v, 1, 100000000); break;
        case 'w': o->warmup = (int)parse_int(flag, v, 0, 100000000); break;
        case 'c': o->check = (int)parse_int(flag, v, 0, 1000); break;
        case 'o': {
            unsigned set = parse_set(flag, v, perf_parse_op, pcclNumOps, "sum, prod, max, min, avg or all");
            o->nops = 0;
            for (int i = 0; i < pcclNumOps; i++)
                if (set & (1u << i)) o->ops[o->nops++] = (pcclRedOp_t)i;
            break;
        }
        case 'd': {
            unsigned set = parse_set(flag, v, perf_parse_type, pcclNumTypes,
                                     "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 or all");
            o->ntypes = 0;
            for (int i = 0; i < pcclNumTypes; i++)
                if (set & (1u << i)) o->types[o->ntypes++] = (pcclDataType_t)i;
            break;
        }
        case 'r': root_arg = v; break;
        case 'z': o->blocking = (int)parse_int(flag, v, 0, 1); break;
        case 'a': o->average = (int)parse_int(flag, v, 0, 3); break;
        case 'T': o->timeout = parse_num(flag, v, 0, 1e6); break;
        case 'm': case 'p': case 'G': case 'y': case 'C': case 'F':
            bad(flag, v, c == 'F' ? "not supported: use --csv FILE (pccl-perf's own format)"
                                  : "nccl-tests flag not supported by pccl-perf (see --help)");
            break;
        case O_COLL:
            o->colls = parse_set(flag, v, perf_parse_coll, pcclNumColls,
                                 "all_reduce, all_gather, reduce_scatter, reduce, broadcast or all");
            coll_given = 1;
            break;
        case O_LIB:
            o->libs = parse_set(flag, v, parse_lib, PERF_NLIBS, "nccl, pccl");
            if ((o->libs & (1u << PERF_LIB_NCCL)) && !perf_lib_nccl.available)
                bad(flag, v, "this build of pccl-perf has no NCCL (the host build runs pccl only; "
                             "build/gpu/pccl-perf has both)");
            break;
        case O_PMODE: bad(flag, v, "replaced by --timing rt (was wait) and --timing b2b --pccl-depth 1 (was chain)");
            break;
        case O_TIMING:
            o->timings = parse_set(flag, v, parse_timing, PERF_NTIMINGS, "b2b, rt or all");
            timing_given = 1;
            break;
        case O_OVL: o->overlap = 1; break;
        case O_OVLM: o->overlap_colls = (long)parse_int(flag, v, 1, 10000000); break;
        case O_DEPTH: o->pccl_depth = (int)parse_int(flag, v, 1, PERF_MAX_DEPTH); break;
        case O_ITERB: o->iter_bytes = parse_size(flag, v); break;
        case O_MINIT: o->min_iters = (int)parse_int(flag, v, 1, 100000000); break;
        case O_CHECKMAX: o->check_max = parse_size(flag, v); break;
        case O_SEED: o->seed = (uint64_t)parse_int(flag, v, 0, LLONG_MAX); break;
        case O_CSV: o->csv = v; break;
        case O_JSON: o->json = v; break;
        case O_TIMES: o->times = v; break;
        case O_DELAY: {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            o->ndelays = 0;
            for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (o->ndelays == PERF_MAX_DELAYS) bad(flag, v, "at most 16 delays");
                o->delays_us[o->ndelays++] = (long)parse_int(flag, tok, 0, 60000000);
            }
            if (!o->ndelays) bad(flag, v, "empty list");
            break;
        }
        case O_DRANK: o->delay_rank = (int)parse_int(flag, v, 0, PERF_MAX_RANKS - 1); break;
        case O_IFR:
            if (!strcmp(v, "gemm")) o->interfere = PERF_KERNEL_GEMM;
            else if (!strcmp(v, "stream")) o->interfere = PERF_KERNEL_STREAM;
            else bad(flag, v, "expected gemm or stream");
            ifr_arg = v;
            break;
        case O_IFRN: o->interfere_n = (long)parse_int(flag, v, 1, 32768); break;
        case O_IFRK: o->interfere_k = (long)parse_int(flag, v, 1, 10000000); break;
        case O_SPLIT: o->split = 1; break;
        case O_SHARE: o->share_gpu = v ? (int)parse_int(flag, v, 1, PERF_MAX_RANKS) : 1; break;
        case O_BCSV: o->blocks_csv = v; break;
        case 'h': perf_usage(stdout); exit(PERF_EXIT_OK);
        case ':': {
            const char *a = argv[optind - 1];
            bad(a, NULL, "missing value");
            break;
        }
        default: {
            const char *a = optopt ? NULL : argv[optind - 1];
            char f[8];
            snprintf(f, sizeof f, "-%c", optopt);
            bad(a ? a : f, NULL, "unknown flag");
        }
        }
    }
    if (optind < argc) bad(argv[optind], NULL, "unexpected argument (flags only)");

    /* cross-checks */
    if (o->ranks_given) {
        if ((long)o->nthreads * o->ngpus > PERF_MAX_RANKS) bad("-t x -g", NULL, "more than 64 ranks");
        o->nranks = o->nthreads * o->ngpus;
    } else {
        o->nranks = default_ranks > PERF_MAX_RANKS ? PERF_MAX_RANKS : default_ranks;
        o->ngpus = o->nranks; /* nccl-tests' -g: one thread drives them all */
    }
    if (o->share_gpu && (o->libs & (1u << PERF_LIB_NCCL)))
        bad("--share-gpu", NULL, "pccl only (NCCL refuses a GPU twice): add --lib pccl");
    if (o->share_gpu && o->interfere) bad("--share-gpu", NULL, "not with --interfere");
    if (o->share_gpu > visible && visible >= 1) {
        char why[96];
        snprintf(why, sizeof why, "%d GPUs asked for, %d visible", o->share_gpu, visible);
        bad("--share-gpu", NULL, why);
    }
    if (o->nranks > visible && !(o->share_gpu && visible >= 1)) {
        char why[96];
        snprintf(why, sizeof why, "%d ranks asked for, %d GPUs visible", o->nranks, visible);
        bad("-g/-t", NULL, why);
    }
    o->root = 0;
    if (root_arg) {
        if (!strcasecmp(root_arg, "all")) o->root = -1;
        else o->root = (int)parse_int("-r/--root", root_arg, 0, o->nranks - 1);
    }
    check_interfere(o, coll_given, b_given, e_given, ifr_arg);
    if (o->split && o->ndelays) bad("--split", NULL, "not with --delay-us");
    if (o->split && o->interfere) bad("--split", NULL, "not with --interfere");
    if (o->blocks_csv && !o->split) bad("--blocks-csv", NULL, "needs --split");
    if (o->split && !((o->libs >> PERF_LIB_PCCL) & 1u)) bad("--split", NULL, "measures pccl: --lib must include pccl");
    if (!o->minbytes) bad("-b/--minbytes", "0", "must be at least 1 byte");
    if (o->minbytes > o->maxbytes) bad("-b/--minbytes", NULL, "larger than -e/--maxbytes");
    if (step_given && factor_given) bad("-i/--stepbytes", NULL, "give -i or -f, not both");
    if (!factor_given && !o->stepbytes && o->maxbytes > o->minbytes)
        bad("-i/--stepbytes", "0", "must be > 0 (or use -f)");
    if (o->ndelays) {
        if (o->delay_rank < 0) o->delay_rank = o->nranks - 1;
        if (o->delay_rank >= o->nranks) {
            char why[64];
            snprintf(why, sizeof why, "must be below the number of ranks (%d)", o->nranks);
            bad("--delay-rank", NULL, why);
        }
        if (o->nranks < 2) bad("--delay-us", NULL, "needs at least 2 ranks");
    } else if (o->delay_rank >= 0) {
        bad("--delay-rank", NULL, "only with --delay-us");
    }
    if (o->blocking) {
        if (timing_given && (o->timings >> PERF_TIMING_B2B & 1u))
            bad("--timing", "b2b", "-z 1 waits for every iteration: use --timing rt (or -z 0)");
        o->timings = 1u << PERF_TIMING_RT;
    }
    if (o->times && (o->ndelays || o->interfere || o->split))
        bad("--times", o->times, "the table's rows only: no --delay-us, --interfere or --split");
#ifndef PERF_HAVE_CUDA
    /* last, so that bad values are named first.  Test knob (tests/perf.sh): a
     * CPU stand-in for the kernel (compute_host.c) runs the scenarios' logic */
    if (o->interfere && !getenv("PCCL_PERF_TEST_HOST_COMPUTE"))
        bad("--interfere", ifr_arg, "needs the CUDA build (build/gpu/pccl-perf, make gpu): the host build has no "
                                    "GPU to run the compute kernel on");
#endif
}
