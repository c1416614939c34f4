/* main.c: the dlsim command line: run, gen, check, info. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csv.h>
#include <jansson.h>

#include "config.h"
#include "depgraph.h"
#include "montecarlo.h"
#include "play.h"
#include "ranks.h"
#include "rng.h"
#include "stats.h"
#include "trace.h"
#include "util.h"

#define DLSIM_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_DEADLOCK = 3, EXIT_CORRUPT = 4 };

static const char *verb = "dlsim";

static const char usage_main[] =
    "dlsim " DLSIM_VERSION ": GPU collective deadlock simulator\n"
    "\n"
    "usage: dlsim VERB [options]\n"
    "\n"
    "  run CONFIG      Monte Carlo study: deadlock ratio with a 95% interval\n"
    "  gen CONFIG      write one round's events as a trace (CSV)\n"
    "  check CONFIG TRACE.csv\n"
    "                  run a trace through a model: exit 0 completes, 3 deadlock,\n"
    "                  4 corrupt (--matching order), 2 bad input\n"
    "  info CONFIG     show the layout: GPUs, groups, collectives, planned orders\n"
    "  help [VERB]     this text, or a verb's options\n"
    "\n"
    "Models: single (one queue per GPU), sync (unlimited resources + syncs),\n"
    "resource (K slots per GPU, FIFO admission, optional syncs).\n"
    "Configs: JSON, our keys or the public reference simulator's (docs/config.md).\n"
    "Traces: CSV step,gpu,action,coll[,...] (docs/trace.md).\n";

static const char usage_overrides[] =
    "  --rounds N        rounds of the study (config: rounds / total_rounds)\n"
    "  --seed S          base seed (config: seed / fix_seed)\n"
    "  --disorder P      disorder probability\n"
    "  --sync P          sync probability\n"
    "  --model M         single | sync | resource\n"
    "  --slots K         execution slots per GPU (resource model; 0 = unlimited)\n"
    "  --order O         planned order: interleave | sequential\n"
    "  --rng NAME        GSL generator (default taus2)\n"
    "  --matching M      identity (default) | order: a communicator's (here: a\n"
    "                    group's) k-th call on each GPU meets the k-th call on the\n"
    "                    others, as in NCCL; a round may then end corrupt (config: matching)\n"
    "  --exact-stream    the plain random stream: one draw per action and per\n"
    "                    candidate, from one generator per round (config: exact_stream);\n"
    "                    default: one generator per GPU with geometric gaps between\n"
    "                    syncs and skips, the same distribution, much faster\n"
    "  --semantics S     exact (default) | reference: decide rounds by the rules of the\n"
    "                    authors' public simulator (config: semantics; run only, default\n"
    "                    stream, no --verify; docs/semantics.md \"Reference semantics\")\n"
    "                    | reference-nodrop: an ablation, those rules with the single-queue\n"
    "                    drop switched off (each group compares its members' k-th\n"
    "                    submissions)\n";

static const char usage_run[] =
    "usage: dlsim run CONFIG [options]\n"
    "\n"
    "Runs the study and prints a summary on stdout.\n"
    "\n"
    "  --threads T       worker threads (0 = one per core; config: threads / num_process);\n"
    "                    under MPI (dlsim-mpi) per rank, each rank running a share of the rounds\n"
    "  --json            print one JSON object instead of the summary\n"
    "  --csv FILE        append a row for this study to FILE (header if new)\n"
    "  --rounds-csv FILE write one row per round (per-round details)\n"
    "  --verify          check every event with the igraph checker as well (slow)\n"
    "  --progress / --no-progress   progress with ETA on stderr (default: if a terminal)\n"
    "%s"
    "\n"
    "example: dlsim run configs/paper/3d-444-sync-4e-3-4e-3.json --rounds 2000 --json\n";

static const char usage_gen[] =
    "usage: dlsim gen CONFIG (--round K | --first-deadlock) [options]\n"
    "\n"
    "Writes the events of round K of the study (the same round `dlsim run` plays\n"
    "with the same seed) as a trace, and reports its verdict on stderr.\n"
    "\n"
    "  --round K         round index (0-based)\n"
    "  --first-deadlock  the first round (from 0) that deadlocks, up to --rounds\n"
    "  --full            after a deadlock, go on with every GPU's whole plan as on a\n"
    "                    library that cannot deadlock (what dlreplay needs); dlsim\n"
    "                    check still stops at the deadlock\n"
    "  -o, --output FILE trace file (default: stdout)\n"
    "  --dot FILE        write the dependency graph at the deadlock (Graphviz)\n"
    "  --graphml FILE    the same as GraphML\n"
    "%s"
    "\n"
    "example: dlsim gen configs/examples/fig1c.json --first-deadlock -o fig1c.csv\n";

static const char usage_check[] =
    "usage: dlsim check CONFIG TRACE.csv [options]\n"
    "\n"
    "Replays the trace's events in file order through the model and prints the\n"
    "verdict and, on a deadlock, the cycle as (GPU, collective) pairs.\n"
    "Exit status: 0 completes, 3 deadlock, 4 corrupt (--matching order: two\n"
    "different collectives matched; the pair is named), 2 bad input.\n"
    "A sync may come at any point of a GPU's plan, also after its last collective.\n"
    "\n"
    "  --dot FILE        write the dependency graph at the deadlock (Graphviz)\n"
    "  --graphml FILE    the same as GraphML\n"
    "  --json            print the verdict as JSON\n"
    "The overrides below are those of every verb; a replay's verdict depends on\n"
    "--model, --slots and --matching only (the others are checked and change\n"
    "nothing here).\n"
    "%s"
    "\n"
    "example: dlsim check configs/examples/fig1c.json tests/data/fig1c.csv\n";

static const char usage_info[] =
    "usage: dlsim info CONFIG [--groups] [--plan GPU]\n"
    "\n"
    "  --groups          list every group: members and collectives\n"
    "  --plan GPU        print the planned order of one GPU\n"
    "%s";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", verb);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see: dlsim help %s)\n", strncmp(verb, "dlsim ", 6) ? "" : verb + 6);
    return EXIT_USAGE;
}

/* getopt returned '?': an unknown option or one missing its argument. */
static int bad_option(char **argv)
{
    return usage_error("unknown option or missing argument: '%s'", argv[optind - 1]);
}

/* ---- strict number parsing ---- */

static int parse_long(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno)
        return usage_error("%s: '%s' is not a whole number", opt, s);
    if (v < min || v > max)
        return usage_error("%s: %ld is outside %ld..%ld", opt, v, min, max);
    *out = v;
    return 0;
}

static int parse_prob(const char *opt, const char *s, double max, int max_open, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || v != v)
        return usage_error("%s: '%s' is not a number", opt, s);
    if (v < 0 || v > max || (max_open && v == max))
        return usage_error("%s: %g is outside [0, %g%s", opt, v, max, max_open ? ")" : "]");
    *out = v;
    return 0;
}

/* ---- options shared by run and gen ---- */

typedef struct overrides {
    long rounds, seed, slots, threads;
    double disorder, sync;
    const char *model, *order, *rng, *semantics, *matching;
    int has_rounds, has_seed, has_slots, has_threads, has_disorder, has_sync, exact_stream;
} overrides;

enum {
    OPT_ROUNDS = 256, OPT_SEED, OPT_DISORDER, OPT_SYNC, OPT_MODEL, OPT_SLOTS, OPT_ORDER, OPT_RNG,
    OPT_THREADS, OPT_JSON, OPT_CSV, OPT_ROUNDS_CSV, OPT_VERIFY, OPT_PROGRESS, OPT_NO_PROGRESS,
    OPT_ROUND, OPT_FIRST, OPT_FULL, OPT_DOT, OPT_GRAPHML, OPT_GROUPS, OPT_PLAN, OPT_HELP, OPT_EXACT,
    OPT_SEMANTICS, OPT_MATCHING
};

#define OVERRIDE_OPTIONS                                                                        \
    {"rounds", required_argument, 0, OPT_ROUNDS}, {"seed", required_argument, 0, OPT_SEED},     \
        {"disorder", required_argument, 0, OPT_DISORDER},                                       \
        {"sync", required_argument, 0, OPT_SYNC}, {"model", required_argument, 0, OPT_MODEL},   \
        {"slots", required_argument, 0, OPT_SLOTS}, {"order", required_argument, 0, OPT_ORDER}, \
        {"rng", required_argument, 0, OPT_RNG}, {"help", no_argument, 0, OPT_HELP},        \
        {"exact-stream", no_argument, 0, OPT_EXACT},                                          \
        {"semantics", required_argument, 0, OPT_SEMANTICS},                                   \
        {"matching", required_argument, 0, OPT_MATCHING}

/* Returns 1 if opt was an override (parsed into o), 0 if not, -1 on error. */
static int parse_override(int opt, overrides *o)
{
    long v;
    switch (opt) {
    case OPT_ROUNDS:
        if (parse_long("--rounds", optarg, 1, LONG_MAX / 2, &o->rounds))
            return -1;
        o->has_rounds = 1;
        return 1;
    case OPT_SEED:
        if (parse_long("--seed", optarg, 0, LONG_MAX, &o->seed))
            return -1;
        o->has_seed = 1;
        return 1;
    case OPT_DISORDER:
        if (parse_prob("--disorder", optarg, 1, 0, &o->disorder))
            return -1;
        o->has_disorder = 1;
        return 1;
    case OPT_SYNC:
        if (parse_prob("--sync", optarg, 1, 1, &o->sync))
            return -1;
        o->has_sync = 1;
        return 1;
    case OPT_MODEL:
        o->model = optarg;
        return 1;
    case OPT_SLOTS:
        if (parse_long("--slots", optarg, 0, INT_MAX, &v))
            return -1;
        o->slots = v;
        o->has_slots = 1;
        return 1;
    case OPT_ORDER:
        o->order = optarg;
        return 1;
    case OPT_RNG:
        o->rng = optarg;
        return 1;
    case OPT_EXACT:
        o->exact_stream = 1;
        return 1;
    case OPT_SEMANTICS:
        o->semantics = optarg;
        return 1;
    case OPT_MATCHING:
        o->matching = optarg;
        return 1;
    case OPT_THREADS:
        if (parse_long("--threads", optarg, 0, 4096, &o->threads))
            return -1;
        o->has_threads = 1;
        return 1;
    }
    return 0;
}

/* Applies command-line overrides to a loaded config. */
static int apply_overrides(dl_config *c, const overrides *o)
{
    char err[512];
    if (o->has_rounds)
        c->rounds = o->rounds;
    if (o->has_seed)
        c->seed = (unsigned long)o->seed;
    if (o->has_threads)
        c->threads = (int)o->threads;
    if (o->has_disorder)
        c->disorder = o->disorder;
    if (o->has_sync)
        c->sync = o->sync;
    if (o->exact_stream)
        c->exact_stream = 1;
    if (o->semantics) {
        int sem = dl_semantics_parse(o->semantics);
        if (sem < 0)
            return usage_error("--semantics: unknown semantics '%s' (exact, reference, reference-nodrop)",
                               o->semantics);
        c->semantics = sem;
    }
    if (o->rng) {
        if (!dl_rng_type(o->rng))
            return usage_error("--rng: unknown GSL generator '%s' (e.g. taus2, mt19937)", o->rng);
        snprintf(c->rng, sizeof c->rng, "%s", o->rng);
    }
    if (o->model) {
        const dl_model *m = dl_model_find(o->model);
        if (!m)
            return usage_error("--model: unknown model '%s' (single, sync, resource)", o->model);
        c->model = m;
        c->slots = m->slots >= 0 ? m->slots : c->slots;
    }
    if (o->has_slots) {
        if (c->model == &dl_model_single && o->slots != 1)
            return usage_error("--slots: the single model has one slot; use --model resource");
        c->slots = (int)o->slots;
        if (c->model == &dl_model_sync && o->slots > 0)
            c->model = &dl_model_resource;
    }
    if (c->model == &dl_model_resource && c->slots < 1)
        return usage_error("model resource needs --slots K (K >= 1) or the config key 'slots'");
    if (o->matching) {
        int m = dl_matching_parse(o->matching);
        if (m < 0)
            return usage_error("--matching: unknown matching '%s' (identity, order)", o->matching);
        c->matching = m;
    }
    if (o->order) {
        int ord = dl_order_parse(o->order);
        if (ord < 0)
            return usage_error("--order: unknown order '%s' (interleave, sequential)", o->order);
        if (ord != c->order && dl_config_set_order(c, ord, err, sizeof err) < 0)
            return usage_error("--order: %s", err);
    }
    /* the reference's rules have no notion of calls matched by order */
    if (dl_semantics_is_reference(c->semantics) && c->matching == DL_MATCH_ORDER)
        return usage_error("semantics reference decides by the authors' rules, which match calls by identity: "
                           "drop --matching order (or matching: \"order\")");
    return 0;
}

static dl_params params_of(dl_config *c)
{
    dl_params P = {.disorder = c->disorder, .sync = c->model->syncs ? c->sync : 0.0,
                   .slots = c->slots, .match = dl_config_matching(c)};
    return P;
}

static int load_config(dl_config *c, const char *path)
{
    char err[1024];
    if (dl_config_load(c, path, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", verb, err);
        return EXIT_USAGE;
    }
    return 0;
}

/* The positional arguments after the options: CONFIG (and TRACE.csv when
 * nargs is 2).  Loads the config and applies the overrides; returns 0, or
 * the exit status after saying what is wrong. */
static int config_from_args(int argc, char **argv, int nargs, const overrides *o, dl_config *c)
{
    if (optind + nargs > argc)
        return usage_error(nargs == 1 ? "missing CONFIG" : "need CONFIG and TRACE.csv");
    if (optind + nargs < argc)
        return usage_error("unexpected argument '%s'", argv[optind + nargs]);
    if (load_config(c, argv[optind]))
        return EXIT_USAGE;
    int rc = apply_overrides(c, o);
    if (rc)
        dl_config_free(c);
    return rc;
}

/* gen and check replay rounds event by event in the exact semantics' engine;
 * the reference rules decide whole rounds only (run). */
static int exact_only(dl_config *c)
{
    if (c->semantics == DL_SEM_EXACT)
        return 0;
    dl_config_free(c);
    return usage_error("semantics reference: only 'run' takes it (gen and check follow the "
                       "exact semantics event by event)");
}

static const char *stream_name(const dl_config *c)
{
    return c->exact_stream ? "exact" : "fast";
}

static void describe(FILE *f, const dl_config *c)
{
    const dl_layout *L = &c->layout;
    fprintf(f, "%s: model %s, %s grouping, %d GPUs, %d groups, %d collectives, order %s\n",
            c->name, c->model->name, c->grouping, L->ngpus, L->ngroups, L->ncolls,
            dl_order_name(L->order));
    char slots[32];
    if (c->slots)
        snprintf(slots, sizeof slots, "%d", c->slots);
    else
        snprintf(slots, sizeof slots, "unlimited");
    fprintf(f, "  disorder %g, sync %g, slots %s, seed %lu, rng %s, stream %s%s%s%s\n", c->disorder,
            c->model->syncs ? c->sync : 0.0, slots, c->seed, c->rng, stream_name(c),
            c->semantics != DL_SEM_EXACT ? ", semantics " : "",
            c->semantics != DL_SEM_EXACT ? dl_semantics_name(c->semantics) : "",
            c->matching == DL_MATCH_ORDER ? ", matching order (one communicator per group)" : "");
}

static void print_cycle(FILE *f, const dl_cycle_part *cy, int n)
{
    for (int k = 0; k < n; k++)
        fprintf(f, "%s(GPU %d, coll %d)", k ? " -> " : "", cy[k].gpu, cy[k].coll);
    if (n)
        fprintf(f, " -> (GPU %d, coll %d)", cy[0].gpu, cy[0].coll);
    fputc('\n', f);
}

/* The first mismatch of a round matched by order. */
static void print_mismatch(FILE *f, const dl_round *R)
{
    const dl_layout *L = R->L;
    int s = R->mix_slot, k = L->coll_group[s];
    fprintf(f, "mismatch: call %d of group %d's communicator matched collective %d on GPU %d with "
            "collective %d on GPU %d (%ld call%s matched wrongly)\n",
            s - L->groups[k].first_coll, k, R->mix_coll[0], R->mix_gpu[0], R->mix_coll[1],
            R->mix_gpu[1], R->nmixed, R->nmixed == 1 ? "" : "s");
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* ---- run ---- */

/* rss: peak RSS in kB (of the largest rank under MPI). */
static json_t *study_json(const dl_config *c, const dl_study *S, double lo, double hi, long rss)
{
    double ratio = (double)S->deadlocks / (double)S->rounds;
    double clo, chi;
    dl_binom_ci(S->corrupts, S->rounds, 0.95, &clo, &chi);
    json_t *obj = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:i, s:I, s:s, s:s, s:i, s:i,"
        " s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:b, s:I}",
        "name", c->name, "config", c->path, "model", c->model->name, "grouping", c->grouping,
        "order", dl_order_name(c->layout.order), "gpus", c->layout.ngpus, "groups",
        c->layout.ngroups, "collectives", c->layout.ncolls, "disorder", c->disorder, "sync",
        c->model->syncs ? c->sync : 0.0, "slots", c->slots, "seed", (json_int_t)c->seed, "rng",
        c->rng, "stream", stream_name(c), "threads", S->threads_used, "ranks", S->ranks, "rounds", (json_int_t)S->rounds, "deadlocks",
        (json_int_t)S->deadlocks, "ratio", ratio, "ci_low", lo, "ci_high", hi, "events",
        (json_int_t)S->events, "invocations", (json_int_t)S->invocations, "syncs",
        (json_int_t)S->syncs, "skips", (json_int_t)S->skips, "seconds", S->seconds,
        "rounds_per_s", (double)S->rounds / S->seconds, "events_per_s",
        (double)S->events / S->seconds, "peak_rss_kb", (json_int_t)rss,
        "first_deadlock_round", (json_int_t)S->first_deadlock, "verified", S->verify != 0,
        "mismatches", (json_int_t)S->mismatches);
    /* at the end, so that CSV columns keep their places */
    json_object_set_new(obj, "matching", json_string(dl_matching_name(c->matching)));
    json_object_set_new(obj, "corrupts", json_integer(S->corrupts));
    json_object_set_new(obj, "corrupt_ratio", json_real((double)S->corrupts / (double)S->rounds));
    json_object_set_new(obj, "corrupt_ci_low", json_real(clo));
    json_object_set_new(obj, "corrupt_ci_high", json_real(chi));
    json_object_set_new(obj, "semantics", json_string(dl_semantics_name(c->semantics)));
    return obj;
}

/* Appends one CSV row (the JSON fields, in order) to path; header if new. */
static int append_csv(const char *path, json_t *obj)
{
    FILE *f = fopen(path, "a+");
    if (!f) {
        fprintf(stderr, "%s: --csv %s: %s\n", verb, path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    int fresh = ftell(f) == 0;
    const char *key;
    json_t *v;
    int first = 1;
    if (fresh) {
        json_object_foreach(obj, key, v) {
            if (!first)
                fputc(',', f);
            fputs(key, f);
            first = 0;
        }
        fputc('\n', f);
    }
    first = 1;
    json_object_foreach(obj, key, v) {
        if (!first)
            fputc(',', f);
        first = 0;
        if (json_is_string(v))
            csv_fwrite(f, json_string_value(v), strlen(json_string_value(v)));
        else if (json_is_integer(v))
            fprintf(f, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            fprintf(f, "%.9g", json_real_value(v));
        else if (json_is_boolean(v))
            fputs(json_is_true(v) ? "1" : "0", f);
    }
    fputc('\n', f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "%s: --csv %s: write error\n", verb, path);
        return -1;
    }
    return 0;
}

static int write_rounds_csv(const char *path, const dl_study *S)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: --rounds-csv %s: %s\n", verb, path, strerror(errno));
        return -1;
    }
    fprintf(f, "round,deadlock,steps,events,invocations,syncs,skips,deadlock_event,corrupt\n");
    for (long r = 0; r < S->rounds; r++) {
        const dl_round_result *x = &S->per_round[r];
        fprintf(f, "%ld,%d,%ld,%ld,%ld,%ld,%ld,%ld,%d\n", r, x->deadlock, x->steps, x->events,
                x->invocations, x->syncs, x->skips, x->deadlock_event, x->corrupt);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: --rounds-csv %s: write error\n", verb, path);
        return -1;
    }
    return 0;
}

static void print_summary(const dl_config *c, const dl_study *S, double lo, double hi, long rss)
{
    char ranks[32] = "";
    if (S->ranks > 1)
        snprintf(ranks, sizeof ranks, " in %d MPI ranks", S->ranks);
    describe(stdout, c);
    printf("rounds     %ld\n", S->rounds);
    printf("deadlocks  %ld\n", S->deadlocks);
    printf("ratio      %.4f%%  95%% CI [%.4f%%, %.4f%%] (Clopper-Pearson)\n",
           100.0 * (double)S->deadlocks / (double)S->rounds, 100 * lo, 100 * hi);
    if (c->matching == DL_MATCH_ORDER) { /* under identity no round can be corrupt */
        double clo, chi;
        dl_binom_ci(S->corrupts, S->rounds, 0.95, &clo, &chi);
        printf("corrupt    %ld: completed with two different collectives matched\n", S->corrupts);
        printf("ratio      %.4f%%  95%% CI [%.4f%%, %.4f%%] (Clopper-Pearson)\n",
               100.0 * (double)S->corrupts / (double)S->rounds, 100 * clo, 100 * chi);
    }
    printf("events     %ld (%.0f per round; %ld invocations, %ld syncs, %ld skips)\n", S->events,
           (double)S->events / (double)S->rounds, S->invocations, S->syncs, S->skips);
    printf("time       %.3f s on %d thread%s%s: %.1f rounds/s, %.1f M events/s, peak RSS %.0f MB\n",
           S->seconds, S->threads_used, S->threads_used == 1 ? "" : "s", ranks,
           (double)S->rounds / S->seconds, (double)S->events / S->seconds / 1e6,
           (double)rss / 1024.0);
    if (S->first_deadlock >= 0)
        printf("first deadlock in round %ld (dlsim gen %s --round %ld)\n", S->first_deadlock,
               c->path, S->first_deadlock);
    if (S->verify)
        printf("verify     every event checked with igraph: %ld mismatches\n", S->mismatches);
}

static int cmd_run(int argc, char **argv)
{
    static const struct option lo[] = {
        OVERRIDE_OPTIONS,
        {"threads", required_argument, 0, OPT_THREADS},
        {"json", no_argument, 0, OPT_JSON},
        {"csv", required_argument, 0, OPT_CSV},
        {"rounds-csv", required_argument, 0, OPT_ROUNDS_CSV},
        {"verify", no_argument, 0, OPT_VERIFY},
        {"progress", no_argument, 0, OPT_PROGRESS},
        {"no-progress", no_argument, 0, OPT_NO_PROGRESS},
        {0, 0, 0, 0}};
    overrides o = {0};
    int json = 0, verify = 0, progress = isatty(2);
    const char *csv = NULL, *rounds_csv = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        int r = parse_override(opt, &o);
        if (r < 0)
            return EXIT_USAGE;
        if (r)
            continue;
        switch (opt) {
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_ROUNDS_CSV: rounds_csv = optarg; break;
        case OPT_VERIFY: verify = 1; break;
        case OPT_PROGRESS: progress = 1; break;
        case OPT_NO_PROGRESS: progress = 0; break;
        case OPT_HELP: printf(usage_run, usage_overrides); return EXIT_OK;
        default: return bad_option(argv);
        }
    }
    dl_config c;
    char err[256];
    int rc = config_from_args(argc, argv, 1, &o, &c);
    if (!rc && dl_ranks_check(c.rounds, rounds_csv != NULL, err, sizeof err) < 0) {
        dl_config_free(&c);
        rc = usage_error("%s", err);
    }
    /* Under MPI every rank loaded the config: all go on, or all stop. */
    int all = dl_ranks_agree(rc);
    if (all) {
        if (!rc)
            dl_config_free(&c);
        return all;
    }
    if (dl_ranks_rank() > 0)
        progress = 0;
    dl_study S = {.L = &c.layout, .P = params_of(&c), .rounds = c.rounds, .seed = c.seed,
                  .rng = c.rng, .threads = c.threads, .verify = verify, .progress = progress,
                  .keep_rounds = rounds_csv != NULL, .exact_stream = c.exact_stream,
                  .semantics = c.semantics};
    if (progress)
        describe(stderr, &c);
    if (dl_ranks_study_run(&S, err, sizeof err) < 0) {
        dl_config_free(&c);
        return usage_error("%s", err);
    }
    long rss = dl_ranks_max(peak_rss_kb());
    if (dl_ranks_rank() > 0) { /* rank 0 holds the totals and writes every output */
        free(S.per_round);
        dl_config_free(&c);
        return EXIT_OK;
    }
    double clo, chi;
    dl_binom_ci(S.deadlocks, S.rounds, 0.95, &clo, &chi);
    json_t *obj = study_json(&c, &S, clo, chi, rss);
    if (json) {
        char *s = json_dumps(obj, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        puts(s);
        free(s);
    } else {
        print_summary(&c, &S, clo, chi, rss);
    }
    rc = EXIT_OK;
    if (csv && append_csv(csv, obj) < 0)
        rc = EXIT_FAIL;
    if (rounds_csv && write_rounds_csv(rounds_csv, &S) < 0)
        rc = EXIT_FAIL;
    if (S.mismatches) {
        fprintf(stderr, "%s: --verify: the incremental detector and igraph disagreed on %ld events\n",
                verb, S.mismatches);
        rc = EXIT_FAIL;
    }
    json_decref(obj);
    free(S.per_round);
    dl_config_free(&c);
    return rc;
}

/* ---- export of the graph at the deadlock (gen, check) ---- */

static int export_graph(const dl_round *R, const char *dot, const char *graphml)
{
    if (!dot && !graphml)
        return 0;
    if (R->status != DL_DEADLOCK)
        fprintf(stderr, "%s: no deadlock: the exported graph is the final (empty) state\n", verb);
    dl_depgraph *D = dl_depgraph_build(R);
    int rc = 0;
    const char *paths[2] = {dot, graphml};
    for (int k = 0; k < 2; k++) {
        if (!paths[k])
            continue;
        FILE *f = fopen(paths[k], "w");
        int bad = !f || (k == 0 ? dl_depgraph_write_dot(D, f) : dl_depgraph_write_graphml(D, f));
        if (f && fclose(f) != 0)
            bad = 1;
        if (bad) {
            fprintf(stderr, "%s: cannot write %s: %s\n", verb, paths[k], strerror(errno));
            rc = -1;
        }
    }
    dl_depgraph_free(D);
    return rc;
}

/* ---- gen ---- */

static int cmd_gen(int argc, char **argv)
{
    static const struct option lo[] = {
        OVERRIDE_OPTIONS,
        {"round", required_argument, 0, OPT_ROUND},
        {"first-deadlock", no_argument, 0, OPT_FIRST},
        {"full", no_argument, 0, OPT_FULL},
        {"output", required_argument, 0, 'o'},
        {"dot", required_argument, 0, OPT_DOT},
        {"graphml", required_argument, 0, OPT_GRAPHML},
        {0, 0, 0, 0}};
    overrides o = {0};
    long round = -1;
    int first = 0, full = 0, opt;
    const char *out = NULL, *dot = NULL, *graphml = NULL;
    while ((opt = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
        int r = parse_override(opt, &o);
        if (r < 0)
            return EXIT_USAGE;
        if (r)
            continue;
        switch (opt) {
        case OPT_ROUND:
            if (parse_long("--round", optarg, 0, LONG_MAX / 2, &round))
                return EXIT_USAGE;
            break;
        case OPT_FIRST: first = 1; break;
        case OPT_FULL: full = 1; break;
        case 'o': out = optarg; break;
        case OPT_DOT: dot = optarg; break;
        case OPT_GRAPHML: graphml = optarg; break;
        case OPT_HELP: printf(usage_gen, usage_overrides); return EXIT_OK;
        default: return bad_option(argv);
        }
    }
    if ((round >= 0) == first)
        return usage_error("give exactly one of --round K and --first-deadlock");
    dl_config c;
    int rc = config_from_args(argc, argv, 1, &o, &c);
    if (rc)
        return rc;
    if ((rc = exact_only(&c)))
        return rc;
    dl_params P = params_of(&c);
    dl_player *pl = dl_player_new(&c.layout, &P, dl_rng_type(c.rng), c.seed, c.exact_stream);
    dl_round *R = pl->R;
    if (first) {
        for (round = 0; round < c.rounds; round++)
            if (dl_player_round(pl, round, 0, NULL) == DL_DEADLOCK)
                break;
        if (round == c.rounds) {
            fprintf(stderr, "%s: no deadlock in rounds 0..%ld (raise --rounds)\n", verb,
                    c.rounds - 1);
            rc = EXIT_FAIL;
            goto done;
        }
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", verb, out, strerror(errno));
        rc = EXIT_FAIL;
        goto done;
    }
    dl_trace_writer w = {.f = f, .L = &c.layout};
    dl_trace_write_header(f);
    dl_sink sink = dl_trace_sink(&w);
    int st = dl_player_round(pl, round, 1, &sink);
    if (st == DL_DEADLOCK && full)
        dl_player_finish_plan(pl, &sink);
    if ((out && fclose(f) != 0) || (!out && fflush(f) != 0)) {
        fprintf(stderr, "%s: write error on %s\n", verb, out ? out : "stdout");
        rc = EXIT_FAIL;
        goto done;
    }
    if (st == DL_DEADLOCK) {
        fprintf(stderr, "round %ld: deadlock at step %ld, event %ld; cycle: ", round,
                R->deadlock_step, R->deadlock_event);
        print_cycle(stderr, R->cycle, R->ncycle);
        if (full)
            fprintf(stderr, "then the rest of every GPU's plan (--full)\n");
    } else if (dl_round_verdict(R) == DL_CORRUPT) {
        fprintf(stderr, "round %ld: corrupt: completes after %ld events, ", round, R->events);
        print_mismatch(stderr, R);
    } else {
        fprintf(stderr, "round %ld: completes after %ld events\n", round, R->events);
    }
    if (export_graph(R, dot, graphml) < 0)
        rc = EXIT_FAIL;
done:
    dl_player_free(pl);
    dl_config_free(&c);
    return rc;
}

/* ---- check ---- */

static int cmd_check(int argc, char **argv)
{
    static const struct option lo[] = {
        OVERRIDE_OPTIONS,
        {"dot", required_argument, 0, OPT_DOT},
        {"graphml", required_argument, 0, OPT_GRAPHML},
        {"json", no_argument, 0, OPT_JSON},
        {0, 0, 0, 0}};
    overrides o = {0};
    const char *dot = NULL, *graphml = NULL;
    int json = 0, opt;
    while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        int r = parse_override(opt, &o);
        if (r < 0)
            return EXIT_USAGE;
        if (r)
            continue;
        switch (opt) {
        case OPT_DOT: dot = optarg; break;
        case OPT_GRAPHML: graphml = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_HELP: printf(usage_check, usage_overrides); return EXIT_OK;
        default: return bad_option(argv);
        }
    }
    dl_config c;
    int rc = config_from_args(argc, argv, 2, &o, &c);
    if (rc)
        return rc;
    if ((rc = exact_only(&c)))
        return rc;
    const char *tpath = argv[optind + 1];
    char err[1024];
    dl_trace t = {0};
    if (dl_trace_read(tpath, &t, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", verb, err);
        dl_config_free(&c);
        return EXIT_USAGE;
    }
    dl_params P = params_of(&c);
    dl_round *R = dl_round_new(&c.layout, &P);
    long at = -1;
    int st = dl_trace_replay(&t, R, tpath, c.model->syncs, &at, err, sizeof err);
    if (st < 0) {
        fprintf(stderr, "%s: %s\n", verb, err);
        rc = EXIT_USAGE;
    } else if (json) {
        int v = dl_round_verdict(R);
        json_t *cy = json_array();
        for (int k = 0; k < R->ncycle; k++)
            json_array_append_new(cy, json_pack("{s:i, s:i}", "gpu", R->cycle[k].gpu, "coll",
                                                R->cycle[k].coll));
        json_t *obj = json_pack("{s:s, s:s, s:s, s:I, s:I, s:o}", "trace", tpath, "model",
                                c.model->name, "verdict",
                                v == DL_DEADLOCK  ? "deadlock"
                                : v == DL_CORRUPT ? "corrupt"
                                                  : "completes",
                                "events", (json_int_t)R->events, "line",
                                (json_int_t)(at >= 0 ? t.ev[at].line : -1), "cycle", cy);
        json_object_set_new(obj, "matching", json_string(dl_matching_name(c.matching)));
        if (R->nmixed)
            json_object_set_new(
                obj, "mismatch",
                json_pack("{s:i, s:i, s:i, s:i, s:i, s:I}", "group", c.layout.coll_group[R->mix_slot],
                          "call", R->mix_slot - c.layout.groups[c.layout.coll_group[R->mix_slot]].first_coll,
                          "gpu", R->mix_gpu[0], "coll", R->mix_coll[0], "with_gpu", R->mix_gpu[1],
                          "with_coll", R->mix_coll[1]));
        char *s = json_dumps(obj, JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(obj);
    } else if (st == DL_DEADLOCK) {
        printf("%s: deadlock (model %s) at line %ld, event %ld of %ld\ncycle: ", tpath,
               c.model->name, t.ev[at].line, at + 1, t.n);
        print_cycle(stdout, R->cycle, R->ncycle);
    } else if (dl_round_verdict(R) == DL_CORRUPT) {
        printf("%s: corrupt (model %s, matching order): %ld events, all complete, but two "
               "different collectives were matched\n", tpath, c.model->name, R->events);
        print_mismatch(stdout, R);
    } else {
        printf("%s: completes (model %s): %ld events, all %d collectives complete\n", tpath,
               c.model->name, R->events, c.layout.ncolls);
    }
    if (st >= 0) {
        int v = dl_round_verdict(R);
        rc = v == DL_DEADLOCK ? EXIT_DEADLOCK : v == DL_CORRUPT ? EXIT_CORRUPT : EXIT_OK;
        if (export_graph(R, dot, graphml) < 0)
            rc = EXIT_FAIL;
    }
    dl_round_free(R);
    dl_trace_free(&t);
    dl_config_free(&c);
    return rc;
}

/* ---- info ---- */

static int cmd_info(int argc, char **argv)
{
    static const struct option lo[] = {
        OVERRIDE_OPTIONS,
        {"groups", no_argument, 0, OPT_GROUPS},
        {"plan", required_argument, 0, OPT_PLAN},
        {0, 0, 0, 0}};
    overrides o = {0};
    int groups = 0, opt;
    long plan = -1;
    while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        int r = parse_override(opt, &o);
        if (r < 0)
            return EXIT_USAGE;
        if (r)
            continue;
        switch (opt) {
        case OPT_GROUPS: groups = 1; break;
        case OPT_PLAN:
            if (parse_long("--plan", optarg, 0, INT_MAX, &plan))
                return EXIT_USAGE;
            break;
        case OPT_HELP: printf(usage_info, usage_overrides); return EXIT_OK;
        default: return bad_option(argv);
        }
    }
    dl_config c;
    int rc = config_from_args(argc, argv, 1, &o, &c);
    if (rc)
        return rc;
    const dl_layout *L = &c.layout;
    if (plan >= L->ngpus) {
        dl_config_free(&c);
        return usage_error("--plan: GPU %ld does not exist (0..%d)", plan, L->ngpus - 1);
    }
    describe(stdout, &c);
    int lmin = INT_MAX, lmax = 0;
    int *ng = dl_xcalloc((size_t)L->ngpus, sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++)
            ng[L->groups[g].gpus[m]]++;
    int gmin = INT_MAX, gmax = 0;
    for (int i = 0; i < L->ngpus; i++) {
        int len = L->plan_off[i + 1] - L->plan_off[i];
        lmin = len < lmin ? len : lmin;
        lmax = len > lmax ? len : lmax;
        gmin = ng[i] < gmin ? ng[i] : gmin;
        gmax = ng[i] > gmax ? ng[i] : gmax;
    }
    free(ng);
    printf("  %d collective parts (events per round without syncs); per GPU: %d..%d "
           "collectives, %d..%d groups\n",
           L->nparts, lmin, lmax, gmin, gmax);
    if (groups)
        for (int g = 0; g < L->ngroups; g++) {
            const dl_group *G = &L->groups[g];
            printf("group %d: %d collectives (%d..%d), GPUs", g, G->ncoll, G->first_coll,
                   G->first_coll + G->ncoll - 1);
            for (int m = 0; m < G->n; m++)
                printf(" %d", G->gpus[m]);
            putchar('\n');
        }
    if (plan >= 0) {
        printf("planned order of GPU %ld:", plan);
        for (int k = L->plan_off[plan]; k < L->plan_off[plan + 1]; k++)
            printf(" %d", L->plan[k].coll);
        putchar('\n');
    }
    dl_config_free(&c);
    return EXIT_OK;
}

static int dlsim_main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } verbs[] = {{"run", cmd_run}, {"gen", cmd_gen}, {"check", cmd_check}, {"info", cmd_info}};
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    opterr = 0;
    const char *v = argv[1];
    if (!strcmp(v, "--help") || !strcmp(v, "-h") || !strcmp(v, "help")) {
        if (argc > 2 && strcmp(v, "help") == 0) {
            if (!strcmp(argv[2], "run")) printf(usage_run, usage_overrides);
            else if (!strcmp(argv[2], "gen")) printf(usage_gen, usage_overrides);
            else if (!strcmp(argv[2], "check")) printf(usage_check, usage_overrides);
            else if (!strcmp(argv[2], "info")) printf(usage_info, usage_overrides);
            else {
                fprintf(stderr, "dlsim: no verb '%s' (run, gen, check, info)\n", argv[2]);
                return EXIT_USAGE;
            }
            return EXIT_OK;
        }
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    if (!strcmp(v, "--version")) {
        puts("dlsim " DLSIM_VERSION);
        return EXIT_OK;
    }
    for (size_t k = 0; k < sizeof verbs / sizeof verbs[0]; k++)
        if (!strcmp(v, verbs[k].name)) {
            if (dl_ranks_size() > 1 && verbs[k].fn != cmd_run) {
                fprintf(stderr, "dlsim: under MPI only 'run' is split over ranks; run '%s' with "
                        "build/dlsim (one process)\n", v);
                return EXIT_USAGE;
            }
            static char vb[32];
            snprintf(vb, sizeof vb, "dlsim %s", v);
            verb = vb;
            return verbs[k].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "dlsim: unknown verb '%s' (run, gen, check, info; see dlsim --help)\n", v);
    return EXIT_USAGE;
}

/* The MPI build (dlsim-mpi) starts and stops MPI around the command; the
 * plain build's dl_ranks_* are one-process stand-ins (ranks.h). */
int main(int argc, char **argv)
{
    dl_ranks_init(&argc, &argv);
    return dl_ranks_finalize(dlsim_main(argc, argv));
}
