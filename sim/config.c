/* config.c: reads a study's JSON configuration (docs/config.md).
 *
 * Two spellings are accepted: ours, and the public reference simulator's,
 * whose files must run unchanged.  Everything is checked strictly (unknown
 * keys, JSON types, ranges) because a typo that silently falls back to a
 * default would produce a plausible but wrong deadlock ratio.  Every error
 * reads "FILE: key 'KEY': PROBLEM", syntax errors "FILE:LINE:COL: ...". */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "grouping/grouping.h"
#include "util.h"

/* Free layouts and grids are capped here: beyond it the member lists alone
 * would take gigabytes before the layout's own size check could refuse. */
#define MAX_GPUS (1L << 24)
#define MAX_THREADS 4096

typedef struct parser {
    const char *file; /* name used in messages */
    char *err;
    size_t errlen;
} parser;

static int bad(const parser *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(const parser *p, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dl_fail(p->err, p->errlen, "%s: key '%s': %s", p->file, key, msg);
}

/* ---- keys ---------------------------------------------------------------- */

static const char *const top_keys[] = {
    "rounds", "total_rounds", "threads", "num_process", "seed", "fix_seed",
    "disorder", "disorder_prob", "sync", "sync_prob", "model", "slots", "resource_limit",
    "grouping", "grouping_policy",
    "tp", "dp", "pp", "tp_group_size", "dp_group_size", "pp_group_size",
    "tp_colls", "dp_colls", "coll_cnt_per_tp_group", "coll_cnt_per_dp_group",
    "gpus", "gpu_num", "group_num", "gpu_per_group", "coll_cnt_per_group", "groups", "recipe",
    "order", "rng", "exact_stream", "semantics", "matching", "name", "paper_ratio", "comment", NULL,
};
static const char *const keys_3d[] = {
    "tp", "dp", "pp", "tp_group_size", "dp_group_size", "pp_group_size",
    "tp_colls", "dp_colls", "coll_cnt_per_tp_group", "coll_cnt_per_dp_group", NULL,
};
static const char *const keys_free[] = {
    "gpus", "gpu_num", "group_num", "gpu_per_group", "coll_cnt_per_group", "groups", "recipe", NULL,
};
static const char *const group_keys[] = {"members", "colls", NULL};
static const char *const recipe_keys[] = {"seed", "classes", NULL};
static const char *const class_keys[] = {"count", "size", "colls", NULL};

/* Edit distance counting a swap of neighbours as one edit ("modle"). */
static int distance(const char *a, const char *b)
{
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n > 63 || m > 63)
        return 99;
    int d[64][64];
    for (int i = 0; i <= n; i++)
        d[i][0] = i;
    for (int j = 0; j <= m; j++)
        d[0][j] = j;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

static int known(const char *const *keys, const char *k)
{
    for (int i = 0; keys[i]; i++)
        if (!strcmp(keys[i], k))
            return 1;
    return 0;
}

/* Rejects keys of obj not in keys; path prefixes nested keys in messages. */
static int check_keys(const parser *p, json_t *obj, const char *const *keys, const char *path)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        if (known(keys, k))
            continue;
        char full[256];
        snprintf(full, sizeof full, "%s%s%s", path, *path ? "." : "", k);
        const char *best = NULL;
        int bestd = 3;
        for (int i = 0; keys[i]; i++) {
            int d = distance(k, keys[i]);
            if (d < bestd) {
                bestd = d;
                best = keys[i];
            }
        }
        if (best)
            return bad(p, full, "unknown key (did you mean '%s'?)", best);
        return bad(p, full, "unknown key");
    }
    return 0;
}

/* First of keys present in obj, or NULL. */
static const char *first_present(json_t *obj, const char *const *keys)
{
    for (int i = 0; keys[i]; i++)
        if (json_object_get(obj, keys[i]))
            return keys[i];
    return NULL;
}

/* A setting given under our key or the reference's (legacy may be NULL).
 * *key becomes the name used, for messages.  Both at once is an error. */
static int lookup(const parser *p, json_t *obj, const char *ours, const char *legacy,
                  json_t **v, const char **key)
{
    json_t *a = json_object_get(obj, ours);
    json_t *b = legacy ? json_object_get(obj, legacy) : NULL;
    *v = a ? a : b;
    *key = b ? legacy : ours;
    if (a && b)
        return bad(p, ours, "give either '%s' or '%s', not both", ours, legacy);
    return 0;
}

/* ---- typed values ------------------------------------------------------- */

static const char *kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

static int as_int(const parser *p, const char *key, const json_t *v, long long lo,
                  long long hi, long long *out)
{
    *out = 0; /* set even on error: keeps -Wmaybe-uninitialized quiet */
    if (json_is_real(v))
        return bad(p, key, "must be an integer, not %g", json_real_value(v));
    if (!json_is_integer(v))
        return bad(p, key, "must be an integer, not %s", kind(v));
    long long x = json_integer_value(v);
    /* Name only the bound that matters: "between 1 and 2147483647" puzzles. */
    if ((x < lo || x > hi) && hi < INT_MAX && lo > LLONG_MIN)
        return bad(p, key, "must be between %lld and %lld (found %lld)", lo, hi, x);
    if (x < lo)
        return bad(p, key, "must be >= %lld (found %lld)", lo, x);
    if (x > hi)
        return bad(p, key, "must be <= %lld (found %lld)", hi, x);
    *out = x;
    return 0;
}

/* An int-sized integer in [lo, hi]. */
static int as_int32(const parser *p, const char *key, const json_t *v, int lo, int hi, int *out)
{
    long long x;
    int rc = as_int(p, key, v, lo, hi, &x);
    *out = (int)x;
    return rc;
}

/* A probability in [0, 1], or [0, 1) when below_one. */
static int as_prob(const parser *p, const char *key, const json_t *v, int below_one, double *out)
{
    if (!json_is_number(v))
        return bad(p, key, "must be a number, not %s", kind(v));
    double x = json_number_value(v);
    if (x < 0 || x > 1 || (below_one && x >= 1))
        return bad(p, key, "must be in [0, %s (found %g)", below_one ? "1)" : "1]", x);
    *out = x;
    return 0;
}

static int as_str(const parser *p, const char *key, const json_t *v, const char **out)
{
    *out = "";
    if (!json_is_string(v))
        return bad(p, key, "must be a string, not %s", kind(v));
    *out = json_string_value(v);
    return 0;
}

static int required(const parser *p, const char *key, const char *legacy, const json_t *v,
                    const char *why)
{
    if (v)
        return 0;
    if (legacy)
        return bad(p, key, "missing (the reference calls it '%s'); %s", legacy, why);
    return bad(p, key, "missing; %s", why);
}

/* ---- run settings -------------------------------------------------------- */

static int parse_rounds(dl_config *c, json_t *root, const parser *p)
{
    json_t *r = json_object_get(root, "rounds"), *tr = json_object_get(root, "total_rounds");
    json_t *np;
    const char *k;
    long long x, procs = 1;
    if (r && tr)
        return bad(p, "rounds", "give either 'rounds' or 'total_rounds', not both");
    if (lookup(p, root, "threads", "num_process", &np, &k))
        return -1;
    if (np && !strcmp(k, "num_process")) {
        /* The reference starts num_process processes of total_rounds each. */
        if (as_int(p, k, np, 1, MAX_THREADS, &procs))
            return -1;
        c->threads = (int)procs;
    } else if (np) {
        if (as_int(p, k, np, 0, MAX_THREADS, &x))
            return -1;
        c->threads = (int)x;
    }
    c->rounds = 1000;
    if (r) {
        if (as_int(p, "rounds", r, 1, LONG_MAX, &x))
            return -1;
        c->rounds = (long)x;
    } else if (tr) {
        /* The study runs what the reference's processes ran together. */
        if (as_int(p, "total_rounds", tr, 1, LONG_MAX / procs, &x))
            return -1;
        c->rounds = (long)(x * procs);
    }
    return 0;
}

/* A seed that differs from run to run, as the reference's fix_seed 0. */
static unsigned long clock_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((unsigned long)ts.tv_sec * 1000003UL) ^ (unsigned long)ts.tv_nsec ^
           ((unsigned long)getpid() << 20);
}

static int parse_seed(dl_config *c, json_t *root, const parser *p)
{
    json_t *v;
    const char *k;
    long long x;
    if (lookup(p, root, "seed", "fix_seed", &v, &k))
        return -1;
    c->seed = 2023;
    if (!v)
        return 0;
    if (!strcmp(k, "seed")) {
        if (as_int(p, k, v, 0, LLONG_MAX, &x))
            return -1;
        c->seed = (unsigned long)x;
        return 0;
    }
    /* The reference tests fix_seed == 1, which Python also holds for true. */
    if (json_is_boolean(v))
        x = json_is_true(v);
    else if (as_int(p, k, v, 0, 1, &x))
        return -1;
    c->seed = x ? 2023 : clock_seed();
    return 0;
}

/* ---- model --------------------------------------------------------------- */

/* K, the execution slots per GPU: -1 absent, 0 unlimited. */
static int parse_slots(json_t *root, const parser *p, int *K, const char **key)
{
    json_t *v;
    long long x;
    if (lookup(p, root, "slots", "resource_limit", &v, key))
        return -1;
    *K = -1;
    if (!v)
        return 0;
    if (!strcmp(*key, "slots")) {
        if (as_int(p, *key, v, 1, INT_MAX, &x))
            return -1;
    } else {
        /* The reference reads resource_limit <= 0 as unlimited. */
        if (as_int(p, *key, v, LLONG_MIN, INT_MAX, &x))
            return -1;
        if (x < 0)
            x = 0;
    }
    *K = (int)x;
    return 0;
}

/* Combines the model and K: sync with K slots is the resource model; single
 * has exactly one slot. */
static int apply_slots(dl_config *c, int K, const char *key, const parser *p)
{
    if (c->model == &dl_model_resource) {
        if (K < 1)
            return bad(p, K < 0 ? "slots" : key, "model resource needs a slot count >= 1");
        c->slots = K;
    } else if (c->model == &dl_model_single) {
        if (K > 1)
            return bad(p, key, "model single has exactly one slot per GPU, not %d; use model "
                       "\"resource\" for %d slots", K, K);
        c->slots = 1;
    } else {
        if (K >= 1)
            c->model = &dl_model_resource;
        c->slots = K >= 1 ? K : 0;
    }
    return 0;
}

static int parse_model(dl_config *c, json_t *root, const parser *p)
{
    json_t *v = json_object_get(root, "model");
    const char *s = NULL, *k;
    if (required(p, "model", NULL, v, "one of \"single\", \"sync\", \"resource\""))
        return -1;
    if (as_str(p, "model", v, &s))
        return -1;
    c->model = dl_model_find(s);
    if (!c->model)
        return bad(p, "model", "unknown model '%s' (known: single, sync, resource, or the "
                   "reference's Single, StreamWithSync)", s);

    int K;
    const char *skey;
    if (parse_slots(root, p, &K, &skey) || apply_slots(c, K, skey, p))
        return -1;

    if (lookup(p, root, "disorder", "disorder_prob", &v, &k))
        return -1;
    if (v && as_prob(p, k, v, 0, &c->disorder))
        return -1;
    if (lookup(p, root, "sync", "sync_prob", &v, &k))
        return -1;
    if (v && as_prob(p, k, v, 1, &c->sync))
        return -1;
    if (c->sync > 0 && !c->model->syncs) {
        fprintf(stderr, "%s: key '%s': ignored by model %s\n", p->file, k, c->model->name);
        c->sync = 0;
    }
    return 0;
}

/* ---- names and options ----------------------------------------------------- */

static int rng_known(const char *name)
{
    for (const gsl_rng_type **t = gsl_rng_types_setup(); *t; t++)
        if (!strcmp((*t)->name, name))
            return 1;
    return 0;
}

/* The file's base name without ".json". */
static void default_name(dl_config *c, const char *file)
{
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    size_t n = strlen(b);
    if (n > 5 && !strcmp(b + n - 5, ".json"))
        n -= 5;
    if (n >= sizeof c->name)
        n = sizeof c->name - 1;
    memcpy(c->name, b, n);
    c->name[n] = '\0';
}

static int parse_options(dl_config *c, json_t *root, const parser *p)
{
    json_t *v;
    const char *s = NULL;
    double ratio;
    c->order = DL_ORDER_INTERLEAVE;
    if ((v = json_object_get(root, "order"))) {
        if (as_str(p, "order", v, &s))
            return -1;
        if ((c->order = dl_order_parse(s)) < 0)
            return bad(p, "order", "unknown order '%s' (known: interleave, sequential)", s);
    }
    strcpy(c->rng, "taus2");
    if ((v = json_object_get(root, "rng"))) {
        if (as_str(p, "rng", v, &s))
            return -1;
        if (strlen(s) >= sizeof c->rng || !rng_known(s))
            return bad(p, "rng", "unknown GSL generator '%s' (e.g. taus2, mt19937, ranlxd2)", s);
        strcpy(c->rng, s);
    }
    c->exact_stream = 0;
    if ((v = json_object_get(root, "exact_stream"))) {
        if (!json_is_boolean(v))
            return bad(p, "exact_stream", "must be true or false, not %s", kind(v));
        c->exact_stream = json_is_true(v);
    }
    c->semantics = DL_SEM_EXACT;
    if ((v = json_object_get(root, "semantics"))) {
        if (as_str(p, "semantics", v, &s))
            return -1;
        if ((c->semantics = dl_semantics_parse(s)) < 0)
            return bad(p, "semantics", "unknown semantics '%s' (known: exact, reference, reference-nodrop)",
                       s);
    }
    c->matching = DL_MATCH_IDENTITY;
    if ((v = json_object_get(root, "matching"))) {
        if (as_str(p, "matching", v, &s))
            return -1;
        if ((c->matching = dl_matching_parse(s)) < 0)
            return bad(p, "matching", "unknown matching '%s' (known: identity, order)", s);
    }
    default_name(c, p->file);
    if ((v = json_object_get(root, "name"))) {
        if (as_str(p, "name", v, &s))
            return -1;
        if (!*s || strlen(s) >= sizeof c->name)
            return bad(p, "name", "must have 1 to %zu characters", sizeof c->name - 1);
        strcpy(c->name, s);
    }
    if ((v = json_object_get(root, "paper_ratio")) && as_prob(p, "paper_ratio", v, 0, &ratio))
        return -1;
    if ((v = json_object_get(root, "comment")) && as_str(p, "comment", v, &s))
        return -1;
    return 0;
}

/* ---- layouts --------------------------------------------------------------- */

static int finish(dl_config *c, const parser *p, const char *key)
{
    char msg[256];
    if (dl_layout_finish(&c->layout, c->order, msg, sizeof msg))
        return bad(p, key, "%s", msg);
    return 0;
}

static int parse_3d(dl_config *c, json_t *root, const parser *p)
{
    static const char *const ours[] = {"tp", "dp", "pp", "tp_colls", "dp_colls"};
    static const char *const legacy[] = {"tp_group_size", "dp_group_size", "pp_group_size",
                                         "coll_cnt_per_tp_group", "coll_cnt_per_dp_group"};
    int x[5];
    const char *k[5];
    for (int i = 0; i < 5; i++) {
        json_t *v;
        if (lookup(p, root, ours[i], legacy[i], &v, &k[i]) ||
            required(p, ours[i], legacy[i], v, "grouping 3d needs tp, dp, pp, tp_colls, dp_colls") ||
            as_int32(p, k[i], v, i < 3 ? 1 : 0, i < 3 ? (int)MAX_GPUS : INT_MAX, &x[i]))
            return -1;
    }
    long long n = (long long)x[0] * x[1];
    if (n > MAX_GPUS || n * x[2] > MAX_GPUS)
        return bad(p, k[2], "tp*dp*pp is more than %ld GPUs", MAX_GPUS);
    dl_layout_init(&c->layout, (int)(n * x[2]));
    char msg[256];
    if (dl_grid3d(&c->layout, x[0], x[1], x[2], x[3], x[4], msg, sizeof msg))
        return bad(p, k[0], "%s", msg);
    return finish(c, p, k[3]);
}

/* Reads a member list (array of GPU ids) into a fresh array. */
static int read_members(const parser *p, const char *key, const json_t *v, int ngpus,
                        int **out, int *n)
{
    if (!json_is_array(v))
        return bad(p, key, "must be an array of GPU ids, not %s", kind(v));
    *n = (int)json_array_size(v);
    *out = dl_xmalloc((size_t)(*n ? *n : 1) * sizeof **out);
    for (int i = 0; i < *n; i++) {
        char ek[128];
        snprintf(ek, sizeof ek, "%s[%d]", key, i);
        if (as_int32(p, ek, json_array_get(v, (size_t)i), 0, ngpus - 1, &(*out)[i])) {
            free(*out);
            *out = NULL;
            return -1;
        }
    }
    return 0;
}

static int add_group(dl_config *c, const parser *p, const char *key, const json_t *members,
                     int colls)
{
    int *m = NULL, n = 0;
    char msg[256];
    if (read_members(p, key, members, c->layout.ngpus, &m, &n))
        return -1;
    int rc = dl_layout_add_group(&c->layout, m, n, colls, msg, sizeof msg);
    free(m);
    return rc ? bad(p, key, "%s", msg) : 0;
}

/* The reference's form: gpu_per_group and coll_cnt_per_group. */
static int parse_lists(dl_config *c, json_t *root, const parser *p)
{
    json_t *gl = json_object_get(root, "gpu_per_group");
    json_t *cl = json_object_get(root, "coll_cnt_per_group");
    if (required(p, "gpu_per_group", NULL, gl, "it goes with 'coll_cnt_per_group'") ||
        required(p, "coll_cnt_per_group", NULL, cl, "it goes with 'gpu_per_group'"))
        return -1;
    if (!json_is_array(gl))
        return bad(p, "gpu_per_group", "must be an array of GPU lists, not %s", kind(gl));
    if (!json_is_array(cl))
        return bad(p, "coll_cnt_per_group", "must be an array of integers, not %s", kind(cl));
    if (json_array_size(gl) != json_array_size(cl))
        return bad(p, "coll_cnt_per_group", "lists %zu groups but 'gpu_per_group' lists %zu",
                   json_array_size(cl), json_array_size(gl));
    for (size_t g = 0; g < json_array_size(gl); g++) {
        char key[64];
        int colls;
        snprintf(key, sizeof key, "coll_cnt_per_group[%zu]", g);
        if (as_int32(p, key, json_array_get(cl, g), 0, INT_MAX, &colls))
            return -1;
        snprintf(key, sizeof key, "gpu_per_group[%zu]", g);
        if (add_group(c, p, key, json_array_get(gl, g), colls))
            return -1;
    }
    return finish(c, p, "gpu_per_group");
}

/* Our form: groups = [{"members": [...], "colls": N}, ...]. */
static int parse_groups(dl_config *c, json_t *root, const parser *p)
{
    json_t *gl = json_object_get(root, "groups");
    if (!json_is_array(gl))
        return bad(p, "groups", "must be an array of groups, not %s", kind(gl));
    for (size_t g = 0; g < json_array_size(gl); g++) {
        json_t *o = json_array_get(gl, g), *m, *n;
        char key[64];
        int colls;
        snprintf(key, sizeof key, "groups[%zu]", g);
        if (!json_is_object(o))
            return bad(p, key, "must be an object with \"members\" and \"colls\", not %s", kind(o));
        if (check_keys(p, o, group_keys, key))
            return -1;
        m = json_object_get(o, "members");
        n = json_object_get(o, "colls");
        snprintf(key, sizeof key, "groups[%zu].colls", g);
        if (required(p, key, NULL, n, "each group needs \"members\" and \"colls\"") ||
            as_int32(p, key, n, 0, INT_MAX, &colls))
            return -1;
        snprintf(key, sizeof key, "groups[%zu].members", g);
        if (required(p, key, NULL, m, "each group needs \"members\" and \"colls\"") ||
            add_group(c, p, key, m, colls))
            return -1;
    }
    return finish(c, p, "groups");
}

static int parse_class(const parser *p, json_t *o, int i, int ngpus, dl_recipe_class *k)
{
    char key[96], path[40];
    snprintf(path, sizeof path, "recipe.classes[%d]", i);
    if (!json_is_object(o))
        return bad(p, path, "must be an object with \"count\", \"size\", \"colls\", not %s",
                   kind(o));
    if (check_keys(p, o, class_keys, path))
        return -1;
    static const char *const need[] = {"count", "size", "colls"};
    for (int j = 0; j < 3; j++) {
        snprintf(key, sizeof key, "%s.%s", path, need[j]);
        if (required(p, key, NULL, json_object_get(o, need[j]),
                     "each class needs \"count\", \"size\" and \"colls\""))
            return -1;
    }
    snprintf(key, sizeof key, "%s.count", path);
    if (as_int32(p, key, json_object_get(o, "count"), 1, (int)MAX_GPUS, &k->count))
        return -1;
    snprintf(key, sizeof key, "%s.size", path);
    if (as_int32(p, key, json_object_get(o, "size"), 1, ngpus, &k->size))
        return -1;
    snprintf(key, sizeof key, "%s.colls", path);
    json_t *cv = json_object_get(o, "colls");
    if (!json_is_array(cv)) {
        k->ncolls = 1;
        return as_int32(p, key, cv, 0, INT_MAX, &k->colls[0]);
    }
    size_t n = json_array_size(cv);
    if (n < 1 || n > 8)
        return bad(p, key, "must list 1 to 8 collective counts, not %zu", n);
    k->ncolls = (int)n;
    for (size_t j = 0; j < n; j++) {
        snprintf(key, sizeof key, "%s.colls[%zu]", path, j);
        if (as_int32(p, key, json_array_get(cv, j), 0, INT_MAX, &k->colls[j]))
            return -1;
    }
    return 0;
}

/* Random groups: recipe = {"seed": S, "classes": [{count, size, colls}, ...]}. */
static int parse_recipe(dl_config *c, json_t *root, const parser *p)
{
    json_t *r = json_object_get(root, "recipe"), *v;
    long long seed = (long long)(c->seed & LLONG_MAX);
    if (!json_is_object(r))
        return bad(p, "recipe", "must be an object with \"classes\", not %s", kind(r));
    if (check_keys(p, r, recipe_keys, "recipe"))
        return -1;
    if ((v = json_object_get(r, "seed")) && as_int(p, "recipe.seed", v, 0, LLONG_MAX, &seed))
        return -1;
    json_t *cl = json_object_get(r, "classes");
    if (required(p, "recipe.classes", NULL, cl, "a recipe lists classes of groups"))
        return -1;
    if (!json_is_array(cl) || json_array_size(cl) == 0)
        return bad(p, "recipe.classes", "must be a non-empty array of classes");
    int n = (int)json_array_size(cl);
    dl_recipe_class *k = dl_xcalloc((size_t)n, sizeof *k);
    for (int i = 0; i < n; i++)
        if (parse_class(p, json_array_get(cl, (size_t)i), i, c->layout.ngpus, &k[i])) {
            free(k);
            return -1;
        }
    char msg[256];
    int rc = dl_recipe(&c->layout, k, n, (unsigned long)seed, msg, sizeof msg);
    free(k);
    if (rc)
        return bad(p, "recipe", "%s", msg);
    return finish(c, p, "recipe");
}

static int check_group_num(const dl_config *c, json_t *root, const parser *p)
{
    json_t *v = json_object_get(root, "group_num");
    long long x;
    if (!v)
        return 0;
    if (as_int(p, "group_num", v, 1, INT_MAX, &x))
        return -1;
    if (x != c->layout.ngroups)
        return bad(p, "group_num", "is %lld but the layout has %d groups", x, c->layout.ngroups);
    return 0;
}

static int parse_free(dl_config *c, json_t *root, const parser *p)
{
    int lists = json_object_get(root, "gpu_per_group") || json_object_get(root, "coll_cnt_per_group");
    int groups = json_object_get(root, "groups") != NULL;
    int recipe = json_object_get(root, "recipe") != NULL;
    if (lists + groups + recipe > 1)
        return bad(p, groups ? "groups" : "recipe", "give one of 'groups', 'recipe' or "
                   "'gpu_per_group', not several");
    if (lists + groups + recipe == 0)
        return bad(p, "groups", "missing; grouping free needs 'groups', 'recipe', or "
                   "'gpu_per_group' with 'coll_cnt_per_group'");
    json_t *v;
    const char *k;
    int ngpus;
    if (lookup(p, root, "gpus", "gpu_num", &v, &k) ||
        required(p, "gpus", "gpu_num", v, "grouping free needs the GPU count") ||
        as_int32(p, k, v, 1, (int)MAX_GPUS, &ngpus))
        return -1;
    dl_layout_init(&c->layout, ngpus);
    int rc = lists ? parse_lists(c, root, p)
             : groups ? parse_groups(c, root, p)
                      : parse_recipe(c, root, p);
    return rc ? rc : check_group_num(c, root, p);
}

/* 3d or free, from "grouping" or from the layout keys present. */
static int parse_grouping(dl_config *c, json_t *root, const parser *p)
{
    json_t *v;
    const char *k, *s = NULL;
    const char *k3 = first_present(root, keys_3d), *kf = first_present(root, keys_free);
    if (lookup(p, root, "grouping", "grouping_policy", &v, &k))
        return -1;
    if (v) {
        if (as_str(p, k, v, &s))
            return -1;
        if (!strcmp(s, "3d") || !strcmp(s, "Megatron"))
            strcpy(c->grouping, "3d");
        else if (!strcmp(s, "free") || !strcmp(s, "Arbitrary"))
            strcpy(c->grouping, "free");
        else
            return bad(p, k, "unknown grouping '%s' (known: 3d, free, or the reference's "
                       "Megatron, Arbitrary)", s);
        int is3d = c->grouping[0] == '3';
        if (is3d && kf)
            return bad(p, kf, "not used by grouping 3d");
        if (!is3d && k3)
            return bad(p, k3, "not used by grouping free");
    } else if (k3 && kf) {
        return bad(p, kf, "a free-grouping key, but '%s' is a 3d one; give one layout", k3);
    } else if (k3 || kf) {
        strcpy(c->grouping, k3 ? "3d" : "free");
    } else {
        return bad(p, "grouping", "missing; give \"grouping\" with tp, dp, pp, tp_colls, "
                   "dp_colls (3d) or gpus with groups or recipe (free)");
    }
    return c->grouping[0] == '3' ? parse_3d(c, root, p) : parse_free(c, root, p);
}

/* ---- entry points ---------------------------------------------------------- */

static int parse_root(dl_config *c, json_t *root, const parser *p)
{
    if (!json_is_object(root))
        return dl_fail(p->err, p->errlen, "%s: top level: must be a JSON object, not %s",
                       p->file, kind(root));
    if (check_keys(p, root, top_keys, "") || parse_rounds(c, root, p) ||
        parse_seed(c, root, p) || parse_model(c, root, p) || parse_options(c, root, p) ||
        parse_grouping(c, root, p))
        return -1;
    return 0;
}

/* Parses root (NULL after a syntax error described by je) into c. */
static int load(dl_config *c, json_t *root, const json_error_t *je, const char *file,
                char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", file);
    if (!root)
        return dl_fail(err, errlen, "%s:%d:%d: invalid JSON: %s", file, je->line, je->column,
                       je->text);
    parser p = {file, err, errlen};
    int rc = parse_root(c, root, &p);
    json_decref(root);
    if (rc)
        dl_config_free(c);
    return rc;
}

int dl_config_load(dl_config *c, const char *path, char *err, size_t errlen)
{
    json_error_t je;
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(c, 0, sizeof *c);
        return dl_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    }
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    return load(c, root, &je, path, err, errlen);
}

int dl_config_parse(dl_config *c, const char *json, const char *name, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    return load(c, root, &je, name, err, errlen);
}

int dl_config_set_order(dl_config *c, int order, char *err, size_t errlen)
{
    char msg[256];
    if (order != DL_ORDER_INTERLEAVE && order != DL_ORDER_SEQUENTIAL)
        return dl_fail(err, errlen, "%s: key 'order': unknown order %d", c->path, order);
    c->order = order;
    if (dl_layout_finish(&c->layout, order, msg, sizeof msg))
        return dl_fail(err, errlen, "%s: key 'order': %s", c->path, msg);
    return 0;
}

const dl_matching *dl_config_matching(dl_config *c)
{
    if (c->matching != DL_MATCH_ORDER)
        return NULL;
    if (!c->match.comm_of) /* one per group: every group has one member list */
        dl_matching_init(&c->match, &c->layout, NULL, NULL, 0);
    return &c->match;
}

void dl_config_free(dl_config *c)
{
    dl_matching_free(&c->match);
    dl_layout_free(&c->layout);
    memset(c, 0, sizeof *c);
}
