/* dlreplay.c: replays dlsim's traces on collective libraries and sets each
 * outcome next to dlsim's verdict (harness/README.md).
 *
 * Each (trace, library) replay runs in a child process: a library that hangs
 * is aborted by the child's watchdog, and a child whose abort never returns
 * is killed, so the next replay starts clean (no threads, no GPU memory
 * left behind) whatever happened to the previous one. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/config.h"
#include "../sim/engine.h"
#include "../sim/trace.h"
#include "../sim/util.h"
#include "libs.h"
#include "report.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Seconds the parent waits for a child's outcome beyond the trace's own
 * no-progress timeout (communicator setup and the data check), and for the
 * child to exit after an abort. */
#define CHILD_SETUP_S 600.0
#define CHILD_ABORT_S 60.0

static const char usage[] =
    "usage: dlreplay [options] CONFIG TRACE.csv...\n"
    "       dlreplay --summary RESULTS.csv... [--summary-csv FILE]\n"
    "\n"
    "Replays traces of whole rounds (dlsim gen --full) on collective libraries, one\n"
    "child process per (trace, library), and prints each outcome (completed, hang,\n"
    "wrong-data, error) next to dlsim's verdict; then a summary.\n"
    "\n"
    "  --lib LIST        comma-separated, in this order per trace: host (pccl's host\n"
    "                    backend, any number of GPUs), pccl, nccl, nccl-implicit (NCCL\n"
    "                    with NCCL_LAUNCH_ORDER_IMPLICIT=1; plain nccl sets it to 0).\n"
    "                    Default: host.  pccl and nccl need the CUDA build\n"
    "                    (build/gpu/dlreplay) and as many GPUs as the layout has\n"
    "  --comm MODE       group: one communicator per group (default); coll: one per\n"
    "                    collective; members: one per list of member GPUs (groups\n"
    "                    with the same members share it, as in the paper's tests)\n"
    "  --matching M      how dlsim's verdict matches calls: order (default: a\n"
    "                    communicator's k-th call meets the k-th call on every rank,\n"
    "                    as NCCL does, over the communicators of --comm; verdicts\n"
    "                    completed, deadlock, corrupt, corrupt-shape) or identity\n"
    "                    (by collective: completed or deadlock)\n"
    "  --streams auto|gpu|coll   NCCL: one stream per GPU (collectives run in trace\n"
    "                    order) or one per collective; auto (default): per GPU for\n"
    "                    models without syncs, per collective for models with syncs\n"
    "  --coll KIND       allreduce (default), allgather, reducescatter, reduce, broadcast\n"
    "  --type T          float32 (default), float64, half, bfloat16, int8, uint8,\n"
    "                    int32, uint32, int64, uint64\n"
    "  --op OP           sum (default), prod, max, min, avg\n"
    "  --bytes LIST      bytes of each collective's count (default 65536); with a\n"
    "                    list, the collectives of group g get entry g mod its length\n"
    "  --seed S          input patterns: collective c uses seed S + c (default 1)\n"
    "  --timeout S       seconds without progress that make a hang (default 5)\n"
    "  --csv FILE        append one row per (trace, library) to FILE\n"
    "  --summary-csv FILE  write the summary's counts per (model, library) to FILE\n"
    "  --quiet           print no culprit report for hangs\n"
    "  --verdicts        replay nothing: print each trace's dlsim verdict (with\n"
    "                    --comm and --matching) as \"TRACE,VERDICT\" lines\n"
    "  -h, --help        this text\n"
    "\n"
    "Every collective gets its own input pattern and every output is checked, so\n"
    "two collectives matched with each other show as wrong-data.  NCCL always runs\n"
    "with NCCL_NVLS_ENABLE=0.\n"
    "Exit status: 0 when every host/pccl replay completed with exact data and no\n"
    "replay ended in an error; 1 otherwise; 2 bad input.\n"
    "\n"
    "example: dlsim gen configs/examples/fig1c.json --round 5 --full -o t.csv\n"
    "         dlreplay --lib host configs/examples/fig1c.json t.csv\n";

typedef struct options {
    char libs[8][24];
    int nlibs;
    int comm_mode;
    int matching; /* how dlsim's verdict matches calls: DL_MATCH_ORDER (default) or identity */
    int streams; /* -1 auto, 0 per GPU, 1 per collective */
    ck_coll shape;
    long bytes[64];
    int nbytes;
    unsigned long seed;
    double timeout;
    const char *csv, *summary_csv;
    int summary, quiet, verdicts;
} options;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("dlreplay: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see dlreplay --help)\n", stderr);
    return EXIT_USAGE;
}

/* ---- options ------------------------------------------------------------ */

static const dr_lib *lib_by_name(const char *name)
{
    if (!strcmp(name, "host"))
        return &dr_lib_host;
#ifdef PCCL_HAVE_CUDA
    if (!strcmp(name, "pccl"))
        return &dr_lib_pccl;
    if (!strcmp(name, "nccl") || !strcmp(name, "nccl-implicit"))
        return &dr_lib_nccl;
#endif
    return NULL;
}

static int parse_libs(options *o, const char *arg)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", arg);
    o->nlibs = 0;
    for (char *s = strtok(tmp, ","); s; s = strtok(NULL, ",")) {
        int known = !strcmp(s, "host") || !strcmp(s, "pccl") || !strcmp(s, "nccl") ||
                    !strcmp(s, "nccl-implicit");
        if (!known)
            return usage_error("--lib: unknown library '%s' (host, pccl, nccl, nccl-implicit)", s);
        if (!lib_by_name(s))
            return usage_error("--lib %s: this dlreplay was built without CUDA; use the CUDA "
                               "build, build/gpu/dlreplay (make gpu)", s);
        if (o->nlibs == 8)
            return usage_error("--lib: at most 8 libraries");
        snprintf(o->libs[o->nlibs++], sizeof o->libs[0], "%s", s);
    }
    return o->nlibs ? 0 : usage_error("--lib: empty list");
}

static int parse_num(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi))
        return usage_error("%s: '%s' is not a number in [%g, %g]", opt, v, lo, hi);
    *out = x;
    return 0;
}

static int parse_bytes(options *o, const char *arg)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", arg);
    o->nbytes = 0;
    for (char *s = strtok(tmp, ","); s; s = strtok(NULL, ",")) {
        double x;
        if (o->nbytes == 64)
            return usage_error("--bytes: at most 64 sizes");
        if (parse_num("--bytes", s, 0, 1UL << 34, &x))
            return EXIT_USAGE;
        o->bytes[o->nbytes++] = (long)x;
    }
    return o->nbytes ? 0 : usage_error("--bytes: empty list");
}

static int parse_enum(const char *opt, const char *v, const char *(*name)(int), int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, name(i))) {
            *out = i;
            return 0;
        }
    if (!strcmp(opt, "--type") && !strcmp(v, "float")) {
        *out = pcclFloat;
        return 0;
    }
    return usage_error("%s: unknown value '%s'", opt, v);
}

static const char *type_name(int i) { return ck_type_name((pcclDataType_t)i); }
static const char *op_name(int i) { return ck_op_name((pcclRedOp_t)i); }
static const char *coll_name(int i) { return ck_coll_name((pcclCollType_t)i); }

enum { O_LIB = 256, O_COMM, O_STREAMS, O_COLL, O_TYPE, O_OP, O_BYTES, O_SEED, O_TIMEOUT, O_CSV,
       O_SUMMARY, O_SUMMARY_CSV, O_QUIET, O_MATCHING, O_VERDICTS };

static int parse_args(int argc, char **argv, options *o)
{
    static const struct option lo[] = {
        {"lib", required_argument, 0, O_LIB},         {"comm", required_argument, 0, O_COMM},
        {"streams", required_argument, 0, O_STREAMS}, {"coll", required_argument, 0, O_COLL},
        {"type", required_argument, 0, O_TYPE},       {"op", required_argument, 0, O_OP},
        {"bytes", required_argument, 0, O_BYTES},     {"seed", required_argument, 0, O_SEED},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"csv", required_argument, 0, O_CSV},
        {"summary", no_argument, 0, O_SUMMARY},
        {"summary-csv", required_argument, 0, O_SUMMARY_CSV},
        {"quiet", no_argument, 0, O_QUIET},           {"help", no_argument, 0, 'h'},
        {"matching", required_argument, 0, O_MATCHING},
        {"verdicts", no_argument, 0, O_VERDICTS},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    snprintf(o->libs[0], sizeof o->libs[0], "host");
    o->nlibs = 1;
    o->streams = -1;
    o->matching = DL_MATCH_ORDER;
    o->shape = (ck_coll){pcclCollAllReduce, pcclFloat, pcclSum, 0, 0, 0};
    o->bytes[0] = 65536;
    o->nbytes = 1;
    o->seed = 1;
    o->timeout = 5;
    int c, v;
    double x;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); exit(EXIT_OK);
        case O_LIB: if (parse_libs(o, optarg)) return EXIT_USAGE; break;
        case O_COMM:
            for (v = DR_COMM_GROUP; v <= DR_COMM_MEMBERS; v++)
                if (!strcmp(optarg, dr_comm_name(v)))
                    break;
            if (v > DR_COMM_MEMBERS)
                return usage_error("--comm: '%s' (expected group, coll or members)", optarg);
            o->comm_mode = v;
            break;
        case O_STREAMS:
            if (!strcmp(optarg, "auto")) o->streams = -1;
            else if (!strcmp(optarg, "gpu")) o->streams = 0;
            else if (!strcmp(optarg, "coll")) o->streams = 1;
            else return usage_error("--streams: '%s' (expected auto, gpu or coll)", optarg);
            break;
        case O_COLL:
            if (parse_enum("--coll", optarg, coll_name, pcclNumColls, &v)) return EXIT_USAGE;
            o->shape.type = (pcclCollType_t)v;
            break;
        case O_TYPE:
            if (parse_enum("--type", optarg, type_name, pcclNumTypes, &v)) return EXIT_USAGE;
            o->shape.dtype = (pcclDataType_t)v;
            break;
        case O_OP:
            if (parse_enum("--op", optarg, op_name, pcclNumOps, &v)) return EXIT_USAGE;
            o->shape.op = (pcclRedOp_t)v;
            break;
        case O_BYTES: if (parse_bytes(o, optarg)) return EXIT_USAGE; break;
        case O_SEED:
            if (parse_num("--seed", optarg, 0, 4e9, &x)) return EXIT_USAGE;
            o->seed = (unsigned long)x;
            break;
        case O_TIMEOUT:
            if (parse_num("--timeout", optarg, 0.01, 86400, &x)) return EXIT_USAGE;
            o->timeout = x;
            break;
        case O_CSV: o->csv = optarg; break;
        case O_SUMMARY: o->summary = 1; break;
        case O_SUMMARY_CSV: o->summary_csv = optarg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_VERDICTS: o->verdicts = 1; break;
        case O_MATCHING:
            if ((o->matching = dl_matching_parse(optarg)) < 0)
                return usage_error("--matching: '%s' (expected order or identity)", optarg);
            break;
        default:
            if (optopt)
                return usage_error("option '-%c' is unknown or needs a value", optopt);
            return usage_error("option '%s' is unknown or needs a value", argv[optind - 1]);
        }
    }
    int need = o->summary ? 1 : 2;
    if (argc - optind < need)
        return usage_error(o->summary ? "--summary needs one or more CSV files"
                                      : "need CONFIG and at least one TRACE.csv");
    return 0;
}

/* ---- the collectives' shapes ---------------------------------------------- */

static int make_shapes(const options *o, const dl_layout *L, ck_coll **out)
{
    size_t esz = ck_type_size(o->shape.dtype);
    ck_coll *k = dl_xcalloc((size_t)L->ncolls, sizeof *k);
    for (int c = 0; c < L->ncolls; c++) {
        int g = L->coll_group[c];
        long bytes = o->bytes[g % o->nbytes];
        if (bytes % (long)esz) {
            free(k);
            return usage_error("--bytes: %ld is not a multiple of %s's %zu bytes", bytes,
                               ck_type_name(o->shape.dtype), esz);
        }
        k[c] = o->shape;
        k[c].count = (size_t)bytes / esz;
        k[c].nranks = L->groups[g].n;
        if (k[c].root >= k[c].nranks)
            k[c].root = 0;
    }
    *out = k;
    return 0;
}

/* ---- one replay in a child process ------------------------------------------ */

typedef struct msg {
    int final;
    dr_result r;
} msg;

static int write_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static void send_early(const dr_result *r, void *ctx)
{
    msg m = {0, *r};
    write_all(*(int *)ctx, &m, sizeof m);
}

/* Reads one message within `limit` seconds: 1 read, 0 end of file, -1 timeout. */
static int read_msg(int fd, msg *m, double limit)
{
    size_t got = 0;
    double t0 = dl_now();
    while (got < sizeof *m) {
        double left = limit - (dl_now() - t0);
        if (left <= 0)
            return -1;
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, left > 1e6 ? INT_MAX : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        ssize_t n = read(fd, (char *)m + got, sizeof *m - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

static void child(int fd, const char *libname, const dr_setup *S, const dl_trace *t,
                  const options *o)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    if (!strncmp(libname, "nccl", 4))
        setenv("NCCL_LAUNCH_ORDER_IMPLICIT", strcmp(libname, "nccl-implicit") ? "0" : "1", 1);
    dr_options ro = {.timeout = o->timeout, .early = send_early, .early_ctx = &fd};
    msg m = {1, {0}};
    dr_replay(lib_by_name(libname), S, t, &ro, &m.r);
    write_all(fd, &m, sizeof m);
    close(fd);
    if (!strcmp(libname, "host"))
        exit(0); /* leak checkers run */
    _exit(0);    /* after an abort, the CUDA runtime's exit handlers could wait */
}

static void replay_in_child(const char *libname, const dr_setup *S, const dl_trace *t,
                            const options *o, dr_result *res)
{
    int fds[2];
    memset(res, 0, sizeof *res);
    res->outcome = DR_ERROR;
    if (pipe(fds) < 0) {
        snprintf(res->detail, sizeof res->detail, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(res->detail, sizeof res->detail, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], libname, S, t, o);
    }
    close(fds[1]);
    msg m;
    int got = read_msg(fds[0], &m, CHILD_SETUP_S + o->timeout * 4);
    if (got == 1) {
        *res = m.r;
        if (!m.final) { /* aborted: wait for the child to come back from the abort */
            msg m2;
            int again = read_msg(fds[0], &m2, CHILD_ABORT_S);
            if (again != 1) {
                kill(pid, SIGKILL);
                size_t l = strlen(res->detail);
                snprintf(res->detail + l, sizeof res->detail - l,
                         "; the abort did not return in %.0f s: child killed", CHILD_ABORT_S);
            }
        }
    } else {
        kill(pid, SIGKILL);
        snprintf(res->detail, sizeof res->detail,
                 got < 0 ? "no outcome within %.0f s: child killed"
                         : "the child died before reporting an outcome",
                 CHILD_SETUP_S + o->timeout * 4);
    }
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == 0 && WIFSIGNALED(status)) {
        size_t l = strlen(res->detail);
        snprintf(res->detail + l, sizeof res->detail - l, " (signal %d)", WTERMSIG(status));
    }
}

/* ---- main ------------------------------------------------------------------ */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* dlsim's verdict on t (DR_V_*), or -1 for a bad trace (message printed). */
static int dlsim_verdict(const dl_config *c, const options *o, const dr_setup *S,
                         const dl_trace *t, const char *path)
{
    char err[512];
    int v = dr_dlsim_verdict(c, o->matching, S, t, path, err, sizeof err);
    if (v < 0)
        fprintf(stderr, "dlreplay: %s\n", err);
    return v;
}

static void print_result(const dr_row *w, const dr_result *r, const options *o, int k, int n)
{
    printf("[%d/%d] %s  %-13s dlsim %-9s -> %-10s %8.3f s", k, n, w->trace, w->lib,
           dr_verdict_name(w->dlsim), dr_outcome_name(r->outcome), r->seconds);
    if (!dr_lib_is_baseline(w->lib) && r->outcome == DR_COMPLETED)
        printf("  preemptions %llu, quits %llu", (unsigned long long)r->stats.preemptions,
               (unsigned long long)r->stats.quits);
    if (r->outcome == DR_WRONG)
        printf("  %ld wrong elements", r->wrong);
    putchar('\n');
    if (*r->detail && r->outcome != DR_HANG)
        printf("    %s\n", r->detail);
    if (r->outcome == DR_HANG && !o->quiet)
        printf("%s", r->report);
    fflush(stdout);
}

static int summary_mode(const options *o, int argc, char **argv)
{
    dr_row *rows = NULL;
    long n = 0, cap = 0;
    char err[512];
    for (int i = optind; i < argc; i++)
        if (dr_rows_read(argv[i], &rows, &n, &cap, err, sizeof err) < 0) {
            fprintf(stderr, "dlreplay: %s\n", err);
            free(rows);
            return EXIT_USAGE;
        }
    int rc = dr_summary(stdout, rows, n, o->summary_csv, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "dlreplay: %s\n", err);
    free(rows);
    return rc < 0 ? EXIT_FAILED : EXIT_OK;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o))
        return EXIT_USAGE;
    if (o.summary)
        return summary_mode(&o, argc, argv);
    setenv("NCCL_NVLS_ENABLE", "0", 1);

    dl_config c;
    char err[512];
    const char *cpath = argv[optind];
    if (dl_config_load(&c, cpath, err, sizeof err) < 0) {
        fprintf(stderr, "dlreplay: %s\n", err);
        return EXIT_USAGE;
    }
    int ntraces = argc - optind - 1;
    dl_trace *t = dl_xcalloc((size_t)ntraces, sizeof *t);
    int *verdict = dl_xcalloc((size_t)ntraces, sizeof *verdict);
    ck_coll *shapes = NULL;
    int rc = make_shapes(&o, &c.layout, &shapes);
    dr_setup S = {.L = &c.layout, .coll = shapes, .seed = o.seed,
                  .stream_per_coll = o.streams < 0 ? c.model->syncs : o.streams};
    dr_setup_comms(&S, o.comm_mode);
    for (int i = 0; i < ntraces && !rc; i++) {
        const char *p = argv[optind + 1 + i];
        if (dl_trace_read(p, &t[i], err, sizeof err) < 0) {
            fprintf(stderr, "dlreplay: %s\n", err);
            rc = EXIT_USAGE;
        } else if ((verdict[i] = dlsim_verdict(&c, &o, &S, &t[i], p)) < 0) {
            rc = EXIT_USAGE;
        }
    }
    if (o.verdicts && !rc) {
        for (int i = 0; i < ntraces; i++)
            printf("%s,%s\n", base_name(argv[optind + 1 + i]), dr_verdict_name(verdict[i]));
        o.nlibs = 0;
    }
    dr_row *rows = dl_xcalloc((size_t)ntraces * (size_t)o.nlibs + 1, sizeof *rows);
    long nrows = 0;
    int failed = 0;
    for (int i = 0; i < ntraces && !rc; i++)
        for (int l = 0; l < o.nlibs; l++) {
            dr_result r;
            replay_in_child(o.libs[l], &S, &t[i], &o, &r);
            dr_row *w = &rows[nrows++];
            snprintf(w->trace, sizeof w->trace, "%s", base_name(argv[optind + 1 + i]));
            snprintf(w->config, sizeof w->config, "%s", cpath);
            snprintf(w->model, sizeof w->model, "%s", c.model->name);
            snprintf(w->lib, sizeof w->lib, "%s", o.libs[l]);
            snprintf(w->comm, sizeof w->comm, "%s", dr_comm_name(o.comm_mode));
            snprintf(w->streams, sizeof w->streams, "%s", S.stream_per_coll ? "coll" : "gpu");
            snprintf(w->matching, sizeof w->matching, "%s", dl_matching_name(o.matching));
            w->gpus = c.layout.ngpus;
            w->colls = c.layout.ncolls;
            w->events = t[i].n;
            w->dlsim = verdict[i];
            w->outcome = r.outcome;
            w->seconds = r.seconds;
            w->wrong = r.wrong;
            w->preemptions = r.stats.preemptions;
            w->quits = r.stats.quits;
            snprintf(w->stuck, sizeof w->stuck, "%s", r.stuck);
            snprintf(w->detail, sizeof w->detail, "%s", r.detail);
            print_result(w, &r, &o, (int)nrows, ntraces * o.nlibs);
            if (r.outcome == DR_ERROR || (!dr_lib_is_baseline(w->lib) && r.outcome != DR_COMPLETED))
                failed = 1;
            if (o.csv && dr_row_append(o.csv, w, err, sizeof err) < 0) {
                fprintf(stderr, "dlreplay: %s\n", err);
                rc = EXIT_FAILED;
            }
        }
    if (!rc && nrows) {
        printf("\n");
        if (dr_summary(stdout, rows, nrows, o.summary_csv, err, sizeof err) < 0) {
            fprintf(stderr, "dlreplay: %s\n", err);
            rc = EXIT_FAILED;
        }
    }
    for (int i = 0; i < ntraces; i++)
        dl_trace_free(&t[i]);
    free(t);
    free(verdict);
    free(shapes);
    dr_setup_free(&S);
    free(rows);
    dl_config_free(&c);
    return rc ? rc : failed ? EXIT_FAILED : EXIT_OK;
}
