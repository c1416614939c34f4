/* test_config.c: configuration files, in our key names and the reference
 * simulator's, and the messages for bad ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/config.h"
#include "tests.h"

static char err[1024];

/* A minimal valid 3D configuration, to which a test appends keys. */
#define GRID "\"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 3, \"dp_colls\": 5"

static int parse(dl_config *c, const char *json)
{
    err[0] = '\0';
    return dl_config_parse(c, json, "t.json", err, sizeof err);
}

/* Parses json, which must fail with a message naming t.json, the key and
 * containing each of the (up to two) phrases. */
static void expect_error(const char *json, const char *key, const char *what, const char *what2)
{
    dl_config c;
    char k[128];
    snprintf(k, sizeof k, "t.json: key '%s': ", key);
    int rc = parse(&c, json);
    CU_ASSERT_EQUAL(rc, -1);
    if (rc == 0)
        dl_config_free(&c);
    int ok = strncmp(err, k, strlen(k)) == 0 && strstr(err, what) &&
             (!what2 || strstr(err, what2));
    if (!ok)
        fprintf(stderr, "\n  config %s\n  gave   %s\n  wanted %s...%s...%s\n", json, err, k, what,
                what2 ? what2 : "");
    CU_ASSERT_TRUE(ok);
    dl_config_free(&c); /* harmless after a failure */
}

static int same_layout(const dl_layout *a, const dl_layout *b)
{
    if (a->ngpus != b->ngpus || a->ngroups != b->ngroups || a->ncolls != b->ncolls ||
        a->nparts != b->nparts)
        return 0;
    for (int g = 0; g < a->ngroups; g++)
        if (a->groups[g].n != b->groups[g].n || a->groups[g].ncoll != b->groups[g].ncoll ||
            memcmp(a->groups[g].gpus, b->groups[g].gpus, (size_t)a->groups[g].n * sizeof(int)))
            return 0;
    return memcmp(a->plan, b->plan, (size_t)a->nparts * sizeof *a->plan) == 0;
}

static int same_config(const dl_config *a, const dl_config *b)
{
    return a->rounds == b->rounds && a->seed == b->seed && a->threads == b->threads &&
           a->disorder == b->disorder && a->sync == b->sync && a->model == b->model &&
           a->slots == b->slots && a->order == b->order && !strcmp(a->grouping, b->grouping) &&
           !strcmp(a->rng, b->rng) && same_layout(&a->layout, &b->layout);
}

static void test_defaults(void)
{
    dl_config c;
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID "}"), 0);
    CU_ASSERT_EQUAL(c.rounds, 1000);
    CU_ASSERT_EQUAL(c.threads, 0);
    CU_ASSERT_EQUAL(c.seed, 2023);
    CU_ASSERT_EQUAL(c.disorder, 0);
    CU_ASSERT_EQUAL(c.sync, 0);
    CU_ASSERT_PTR_EQUAL(c.model, &dl_model_sync);
    CU_ASSERT_EQUAL(c.slots, 0);
    CU_ASSERT_EQUAL(c.order, DL_ORDER_INTERLEAVE);
    CU_ASSERT_STRING_EQUAL(c.rng, "taus2");
    CU_ASSERT_STRING_EQUAL(c.grouping, "3d");
    CU_ASSERT_STRING_EQUAL(c.name, "t");
    CU_ASSERT_STRING_EQUAL(c.path, "t.json");
    CU_ASSERT_EQUAL(c.layout.ngpus, 8);
    CU_ASSERT_EQUAL(c.layout.ngroups, 8);
    CU_ASSERT_EQUAL(c.layout.ncolls, 2 * (2 * 3 + 2 * 5));
    dl_config_free(&c);

    CU_ASSERT_EQUAL_FATAL(dl_config_parse(&c, "{\"model\": \"single\", " GRID "}",
                                          "configs/x/my-study.json", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(c.name, "my-study");
    CU_ASSERT_EQUAL(c.slots, 1);
    dl_config_free(&c);
}

static void test_our_keys(void)
{
    dl_config c;
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", \"grouping\": \"3d\", " GRID ", "
                                    "\"rounds\": 77, \"threads\": 3, \"seed\": 9, "
                                    "\"disorder\": 0.25, \"sync\": 0.5, \"order\": \"sequential\", "
                                    "\"rng\": \"mt19937\", \"name\": \"abc\", "
                                    "\"paper_ratio\": 0.0138, \"comment\": \"x\"}"), 0);
    CU_ASSERT_EQUAL(c.rounds, 77);
    CU_ASSERT_EQUAL(c.threads, 3);
    CU_ASSERT_EQUAL(c.seed, 9);
    CU_ASSERT_EQUAL(c.disorder, 0.25);
    CU_ASSERT_EQUAL(c.sync, 0.5);
    CU_ASSERT_EQUAL(c.order, DL_ORDER_SEQUENTIAL);
    CU_ASSERT_EQUAL(c.layout.order, DL_ORDER_SEQUENTIAL);
    CU_ASSERT_STRING_EQUAL(c.rng, "mt19937");
    CU_ASSERT_STRING_EQUAL(c.name, "abc");
    /* --order rebuilds the plan */
    CU_ASSERT_EQUAL(dl_config_set_order(&c, DL_ORDER_INTERLEAVE, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.order, DL_ORDER_INTERLEAVE);
    CU_ASSERT_EQUAL(c.layout.order, DL_ORDER_INTERLEAVE);
    dl_config_free(&c);
}

static void expect_same(const char *ours, const char *ref)
{
    dl_config a, b;
    CU_ASSERT_EQUAL_FATAL(parse(&a, ours), 0);
    CU_ASSERT_EQUAL_FATAL(parse(&b, ref), 0);
    CU_ASSERT_TRUE(same_config(&a, &b));
    if (!same_config(&a, &b))
        fprintf(stderr, "\n  %s\n  and %s\n  differ\n", ours, ref);
    dl_config_free(&a);
    dl_config_free(&b);
}

static void test_reference_keys(void)
{
    expect_same("{\"model\": \"sync\", \"grouping\": \"3d\", \"tp\": 4, \"dp\": 2, \"pp\": 3, "
                "\"tp_colls\": 40, \"dp_colls\": 120, \"disorder\": 0.004, \"sync\": 0.002, "
                "\"seed\": 2023, \"rounds\": 1000, \"threads\": 2}",
                "{\"model\": \"StreamWithSync\", \"grouping_policy\": \"Megatron\", "
                "\"tp_group_size\": 4, \"dp_group_size\": 2, \"pp_group_size\": 3, "
                "\"coll_cnt_per_tp_group\": 40, \"coll_cnt_per_dp_group\": 120, "
                "\"disorder_prob\": 0.004, \"sync_prob\": 0.002, \"fix_seed\": 1, "
                "\"total_rounds\": 500, \"num_process\": 2}");
    expect_same("{\"model\": \"single\", \"grouping\": \"free\", \"gpus\": 5, \"groups\": ["
                "{\"members\": [0, 1, 2], \"colls\": 10}, {\"members\": [2, 3, 4], \"colls\": 30}],"
                " \"disorder\": 1e-4, \"rounds\": 300, \"threads\": 1}",
                "{\"model\": \"Single\", \"grouping_policy\": \"Arbitrary\", \"gpu_num\": 5, "
                "\"group_num\": 2, \"gpu_per_group\": [[0, 1, 2], [2, 3, 4]], "
                "\"coll_cnt_per_group\": [10, 30], \"disorder_prob\": 1e-4, \"sync_prob\": 0, "
                "\"total_rounds\": 300, \"num_process\": 1, \"fix_seed\": 1, "
                "\"resource_limit\": -1}");
    /* The grouping may be left to the keys. */
    expect_same("{\"model\": \"sync\", \"grouping\": \"3d\", " GRID "}",
                "{\"model\": \"sync\", " GRID "}");
    expect_same("{\"model\": \"sync\", \"grouping\": \"free\", \"gpus\": 2, "
                "\"groups\": [{\"members\": [0, 1], \"colls\": 2}]}",
                "{\"model\": \"sync\", \"gpus\": 2, \"groups\": [{\"members\": [0, 1], \"colls\": 2}]}");
}

static void test_legacy_rounds(void)
{
    dl_config c;
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID ", \"total_rounds\": 500, "
                                    "\"num_process\": 4}"), 0);
    CU_ASSERT_EQUAL(c.rounds, 2000);
    CU_ASSERT_EQUAL(c.threads, 4);
    dl_config_free(&c);
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID ", \"total_rounds\": 500}"), 0);
    CU_ASSERT_EQUAL(c.rounds, 500);
    CU_ASSERT_EQUAL(c.threads, 0);
    dl_config_free(&c);
    /* Our "rounds" is the whole study whatever the threads. */
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID ", \"rounds\": 500, "
                                    "\"num_process\": 4}"), 0);
    CU_ASSERT_EQUAL(c.rounds, 500);
    CU_ASSERT_EQUAL(c.threads, 4);
    dl_config_free(&c);
    /* fix_seed 0: a seed that differs from run to run (not checked here). */
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID ", \"fix_seed\": 0}"), 0);
    dl_config_free(&c);
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID ", \"fix_seed\": 1}"), 0);
    CU_ASSERT_EQUAL(c.seed, 2023);
    dl_config_free(&c);
}

static void test_models_and_slots(void)
{
    static const struct {
        const char *keys;
        const dl_model *model;
        int slots;
    } t[] = {
        {"\"model\": \"single\"", &dl_model_single, 1},
        {"\"model\": \"single\", \"slots\": 1", &dl_model_single, 1},
        {"\"model\": \"Single\", \"resource_limit\": 0", &dl_model_single, 1},
        {"\"model\": \"Single\", \"resource_limit\": -1", &dl_model_single, 1},
        {"\"model\": \"sync\"", &dl_model_sync, 0},
        {"\"model\": \"StreamWithSync\", \"resource_limit\": -1", &dl_model_sync, 0},
        {"\"model\": \"sync\", \"slots\": 3", &dl_model_resource, 3},
        {"\"model\": \"StreamWithSync\", \"resource_limit\": 2", &dl_model_resource, 2},
        {"\"model\": \"resource\", \"slots\": 1", &dl_model_resource, 1},
        {"\"model\": \"resource\", \"resource_limit\": 4", &dl_model_resource, 4},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char json[512];
        dl_config c;
        snprintf(json, sizeof json, "{%s, " GRID "}", t[i].keys);
        CU_ASSERT_EQUAL_FATAL(parse(&c, json), 0);
        CU_ASSERT_PTR_EQUAL(c.model, t[i].model);
        CU_ASSERT_EQUAL(c.slots, t[i].slots);
        dl_config_free(&c);
    }
}

/* Runs parse with stderr captured into out. */
static int parse_capturing(dl_config *c, const char *json, char *out, size_t n)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *t = tmpfile();
    dup2(fileno(t), 2);
    int rc = parse(c, json);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(t);
    size_t got = fread(out, 1, n - 1, t);
    out[got] = '\0';
    fclose(t);
    return rc;
}

static void test_sync_ignored_by_single(void)
{
    dl_config c;
    char msg[512];
    CU_ASSERT_EQUAL_FATAL(parse_capturing(&c, "{\"model\": \"Single\", " GRID
                                              ", \"sync_prob\": 0.01}", msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(c.sync, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "t.json: key 'sync_prob': ignored by model single"));
    dl_config_free(&c);
    CU_ASSERT_EQUAL_FATAL(parse_capturing(&c, "{\"model\": \"Single\", " GRID
                                              ", \"sync_prob\": 0}", msg, sizeof msg), 0);
    CU_ASSERT_STRING_EQUAL(msg, "");
    dl_config_free(&c);
}

static void test_free_forms(void)
{
    dl_config c;
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", \"gpus\": 64, \"recipe\": {\"seed\": 3, "
                                    "\"classes\": [{\"count\": 28, \"size\": 3, \"colls\": [400, 1200]},"
                                    " {\"count\": 4, \"size\": 8, \"colls\": 50}]}}"), 0);
    CU_ASSERT_STRING_EQUAL(c.grouping, "free");
    CU_ASSERT_EQUAL(c.layout.ngpus, 64);
    CU_ASSERT_EQUAL(c.layout.ngroups, 32);
    CU_ASSERT_EQUAL(c.layout.groups[1].ncoll, 1200);
    CU_ASSERT_EQUAL(c.layout.groups[31].n, 8);
    CU_ASSERT_EQUAL(c.layout.groups[31].ncoll, 50);
    CU_ASSERT_EQUAL(c.layout.ncolls, 14 * 400 + 14 * 1200 + 4 * 50);
    dl_config_free(&c);
    /* group_num is checked against any free form when given. */
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", \"gpus\": 3, \"group_num\": 2, "
                                    "\"groups\": [{\"members\": [0, 1], \"colls\": 1}, "
                                    "{\"members\": [2, 1], \"colls\": 1}]}"), 0);
    CU_ASSERT_EQUAL(c.layout.groups[1].gpus[0], 2); /* members kept in the order given */
    dl_config_free(&c);
}

static void test_errors(void)
{
    const char *m = "\"model\": \"sync\", ";
    char j[512];
#define E(json, key, what, what2) expect_error(json, key, what, what2)
    snprintf(j, sizeof j, "{%s" GRID ", \"disorder_prb\": 0.1}", m);
    E(j, "disorder_prb", "unknown key", "(did you mean 'disorder_prob'?)");
    snprintf(j, sizeof j, "{%s" GRID ", \"modle\": 1}", m);
    E(j, "modle", "unknown key", "did you mean 'model'");
    snprintf(j, sizeof j, "{%s" GRID ", \"frobnicate\": 1}", m);
    E(j, "frobnicate", "unknown key", NULL);
    E("{\"model\": \"sync\", \"gpus\": 2, \"groups\": [{\"member\": [0, 1], \"colls\": 1}]}",
      "groups[0].member", "unknown key", "did you mean 'members'");
    snprintf(j, sizeof j, "{%s" GRID ", \"rounds\": \"10\"}", m);
    E(j, "rounds", "must be an integer", "a string");
    snprintf(j, sizeof j, "{%s" GRID ", \"rounds\": 10.0}", m);
    E(j, "rounds", "must be an integer", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"rounds\": 0}", m);
    E(j, "rounds", "must be >= 1", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"disorder_prob\": \"0.1\"}", m);
    E(j, "disorder_prob", "must be a number", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"disorder_prob\": 1.5}", m);
    E(j, "disorder_prob", "must be in [0, 1]", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"sync\": -0.1}", m);
    E(j, "sync", "must be in [0, 1)", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"sync_prob\": 1}", m);
    E(j, "sync_prob", "must be in [0, 1)", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"paper_ratio\": 2}", m);
    E(j, "paper_ratio", "must be in [0, 1]", NULL);
    E("{" GRID "}", "model", "missing", NULL);
    E("{\"model\": \"Foo\", " GRID "}", "model", "unknown model 'Foo'", NULL);
    E("{\"model\": 3, " GRID "}", "model", "must be a string", NULL);
    E("{\"model\": \"single\", \"slots\": 4, " GRID "}", "slots", "exactly one slot",
      "\"resource\"");
    E("{\"model\": \"Single\", \"resource_limit\": 4, " GRID "}", "resource_limit",
      "exactly one slot", NULL);
    E("{\"model\": \"resource\", " GRID "}", "slots", "needs a slot count", NULL);
    E("{\"model\": \"sync\", \"resource_limit\": 3000000000, " GRID "}", "resource_limit",
      "must be <= 2147483647", NULL);
    E("{\"model\": \"sync\", \"slots\": 0, " GRID "}", "slots", "must be", NULL);
    E("{\"model\": \"sync\", \"gpus\": 4, \"groups\": [{\"members\": [0, 1], \"colls\": 1}, "
      "{\"members\": [2, 3, 2], \"colls\": 1}]}", "groups[1].members", "GPU 2 twice", NULL);
    E("{\"model\": \"sync\", \"gpus\": 4, \"groups\": [{\"members\": [0, 1, 4], \"colls\": 1}]}",
      "groups[0].members[2]", "between 0 and 3", "found 4");
    E("{\"model\": \"sync\", \"gpu_num\": 4, \"gpu_per_group\": [[0, 1], [1, 1]], "
      "\"coll_cnt_per_group\": [1, 1]}", "gpu_per_group[1]", "GPU 1 twice", NULL);
    E("{\"model\": \"sync\", \"gpu_num\": 4, \"gpu_per_group\": [[0, 1], [2, 5]], "
      "\"coll_cnt_per_group\": [1, 1]}", "gpu_per_group[1][1]", "between 0 and 3", NULL);
    E("{\"model\": \"sync\", \"gpus\": 4, \"groups\": [{\"members\": [0, 1, 2], \"colls\": 1}]}",
      "groups", "GPU 3 belongs to no group", NULL);
    E("{\"model\": \"sync\", \"gpu_num\": 4, \"gpu_per_group\": [[0, 1], [2]], "
      "\"coll_cnt_per_group\": [1, 1]}", "gpu_per_group", "GPU 3 belongs to no group", NULL);
    E("{\"model\": \"sync\", \"gpu_num\": 3, \"group_num\": 3, \"gpu_per_group\": [[0, 1], [2]], "
      "\"coll_cnt_per_group\": [1, 1]}", "group_num", "is 3", "2 groups");
    E("{\"model\": \"sync\", \"gpu_num\": 3, \"gpu_per_group\": [[0, 1], [2]], "
      "\"coll_cnt_per_group\": [1]}", "coll_cnt_per_group", "lists 1 groups", NULL);
    E("{\"model\": \"sync\", \"gpus\": 3, \"groups\": [{\"members\": [0, 1, 2]}]}",
      "groups[0].colls", "missing", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"rounds\": 10, \"total_rounds\": 10}", m);
    E(j, "rounds", "not both", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"seed\": 1, \"fix_seed\": 1}", m);
    E(j, "seed", "not both", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"tp_group_size\": 2}", m);
    E(j, "tp", "not both", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"gpus\": 8}", m);
    E(j, "gpus", "3d one", NULL);
    snprintf(j, sizeof j, "{%s\"grouping\": \"free\", " GRID "}", m);
    E(j, "tp", "not used by grouping free", NULL);
    snprintf(j, sizeof j, "{%s\"grouping\": \"2d\", " GRID "}", m);
    E(j, "grouping", "unknown grouping '2d'", NULL);
    E("{\"model\": \"sync\"}", "grouping", "missing", NULL);
    E("{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"tp_colls\": 1, \"dp_colls\": 1}", "pp",
      "missing", "pp_group_size");
    E("{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 0, \"dp_colls\": 0}",
      "tp_colls", "no collectives", NULL);
    E("{\"model\": \"sync\", \"tp\": 65536, \"dp\": 65536, \"pp\": 2, \"tp_colls\": 1, "
      "\"dp_colls\": 1}", "pp", "more than", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"order\": \"random\"}", m);
    E(j, "order", "unknown order 'random'", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"rng\": \"dice\"}", m);
    E(j, "rng", "unknown GSL generator 'dice'", NULL);
    snprintf(j, sizeof j, "{%s" GRID ", \"threads\": -1}", m);
    E(j, "threads", "between 0 and", NULL);
    E("{\"model\": \"sync\", \"gpus\": 8, \"recipe\": {\"classes\": [{\"count\": 2, \"size\": 3, "
      "\"colls\": 5}]}}", "recipe", "fewer than the 8 GPUs", NULL);
    E("{\"model\": \"sync\", \"gpus\": 8, \"recipe\": {\"classes\": [{\"count\": 2, \"size\": 9, "
      "\"colls\": 5}]}}", "recipe.classes[0].size", "between 1 and 8", NULL);
    E("{\"model\": \"sync\", \"gpus\": 8, \"recipe\": {\"classes\": [{\"count\": 2, \"sise\": 3, "
      "\"colls\": 5}]}}", "recipe.classes[0].sise", "did you mean 'size'", NULL);
    E("{\"model\": \"sync\", \"gpus\": 8, \"recipe\": {\"classes\": [{\"count\": 4, \"size\": 3, "
      "\"colls\": [1, 2.5]}]}}", "recipe.classes[0].colls[1]", "must be an integer", NULL);
    E("{\"model\": \"sync\", \"gpus\": 8, \"recipe\": {}, \"groups\": []}", "groups", "not several",
      NULL);
#undef E
}

static void test_syntax_errors(void)
{
    dl_config c;
    CU_ASSERT_EQUAL(parse(&c, "{\n  \"model\": \"sync\",\n  \"tp\": 2,,\n}"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json:3:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ": invalid JSON: "));
    CU_ASSERT_EQUAL(parse(&c, "{\"model\": \"sync\", \"model\": \"single\"}"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json:1:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "duplicate"));
    CU_ASSERT_EQUAL(parse(&c, "[1, 2]"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.json: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "JSON object"));
}

static void test_load_files(void)
{
    dl_config c;
    char path[] = "/tmp/dlsim-config-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    const char *bad = "{\n  \"model\": \"sync\"\n  \"tp\": 2\n}\n";
    CU_ASSERT_EQUAL(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
    close(fd);
    CU_ASSERT_EQUAL(dl_config_load(&c, path, err, sizeof err), -1);
    char want[64];
    snprintf(want, sizeof want, "%s:3:", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    unlink(path);
    CU_ASSERT_EQUAL(dl_config_load(&c, path, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open"));

    const char *ex[] = {"reference-format", "reference-arbitrary", "free-explicit",
                        "free-recipe", "resource", "fig1c", "fig1d", "fig2"};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char file[128];
        snprintf(file, sizeof file, "configs/examples/%s.json", ex[i]);
        int rc = dl_config_load(&c, file, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %s (run the tests from the repository root)\n", err);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc == 0)
            CU_ASSERT_STRING_EQUAL(c.name, ex[i]);
        if (rc == 0 && i == 0) {
            CU_ASSERT_EQUAL(c.rounds, 1000); /* 2 processes of 500 */
            CU_ASSERT_EQUAL(c.threads, 2);
            CU_ASSERT_EQUAL(c.seed, 2023);
            CU_ASSERT_PTR_EQUAL(c.model, &dl_model_sync);
            CU_ASSERT_EQUAL(c.layout.ngroups, 8);
        }
        if (rc == 0 && i == 4)
            CU_ASSERT_EQUAL(c.slots, 2);
        dl_config_free(&c);
    }
}

/* One row of configs/paper/table1.csv against its configuration file. */
static void check_paper_row(const char *line, int row)
{
    char file[256], model[16], grouping[16];
    int r;
    double ratio, dis, syn;
    CU_ASSERT_EQUAL_FATAL(sscanf(line, "%d,%255[^,],%lf,%15[^,],%15[^,],%lf,%lf", &r, file, &ratio,
                                 model, grouping, &dis, &syn), 7);
    CU_ASSERT_EQUAL(r, row);
    dl_config c;
    int rc = dl_config_load(&c, file, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(c.model->name, model);
    CU_ASSERT_STRING_EQUAL(c.grouping, grouping);
    CU_ASSERT_EQUAL(c.disorder, dis);
    CU_ASSERT_EQUAL(c.sync, syn);
    CU_ASSERT_EQUAL(c.rounds, 32000);
    CU_ASSERT(ratio > 0 && ratio < 0.1);
    char want[256];
    snprintf(want, sizeof want, "configs/paper/%s.json", c.name);
    CU_ASSERT_STRING_EQUAL(want, file);
    /* The table's #Group and #GPU columns */
    const int ngpus = c.layout.ngpus, ngroups = c.layout.ngroups;
    CU_ASSERT((ngpus == 64 && ngroups == 32) || (ngpus == 3072 && ngroups == 896) ||
              (ngpus == 128 && ngroups == 32) || (ngpus == 8 && ngroups == 1));
    dl_config_free(&c);
}

static void test_paper_configs(void)
{
    FILE *f = fopen("configs/paper/table1.csv", "r");
    if (!f)
        fprintf(stderr, "\n  configs/paper/table1.csv: run the tests from the repository root\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    int row = 0;
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, "row,config,paper_ratio,model,grouping,disorder,sync\n");
    while (fgets(line, sizeof line, f))
        check_paper_row(line, ++row);
    fclose(f);
    CU_ASSERT_EQUAL(row, 18);
}

/* exact_stream: false by default, a JSON boolean, nothing else. */
static void test_exact_stream_key(void)
{
    dl_config c;
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", " GRID "}"), 0);
    CU_ASSERT_EQUAL(c.exact_stream, 0);
    dl_config_free(&c);
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", \"exact_stream\": true, " GRID "}"), 0);
    CU_ASSERT_EQUAL(c.exact_stream, 1);
    dl_config_free(&c);
    CU_ASSERT_EQUAL_FATAL(parse(&c, "{\"model\": \"sync\", \"exact_stream\": false, " GRID "}"), 0);
    CU_ASSERT_EQUAL(c.exact_stream, 0);
    dl_config_free(&c);
    expect_error("{\"model\": \"sync\", \"exact_stream\": 1, " GRID "}", "exact_stream",
                 "must be true or false", "an integer");
    expect_error("{\"model\": \"sync\", \"exact_stream\": \"yes\", " GRID "}", "exact_stream",
                 "must be true or false", NULL);
    expect_error("{\"model\": \"sync\", \"exact_strem\": true, " GRID "}", "exact_strem",
                 "unknown key", "did you mean 'exact_stream'");
}

int dl_register_config_tests(void)
{
    CU_pSuite s = CU_add_suite("config", NULL, NULL);
    if (!s)
        return -1;
    struct {
        const char *name;
        void (*fn)(void);
    } t[] = {
        {"defaults", test_defaults},
        {"our keys", test_our_keys},
        {"reference keys parse as ours", test_reference_keys},
        {"legacy rounds and seeds", test_legacy_rounds},
        {"models and slots", test_models_and_slots},
        {"sync ignored by single", test_sync_ignored_by_single},
        {"free forms", test_free_forms},
        {"bad configurations", test_errors},
        {"syntax errors", test_syntax_errors},
        {"load example files", test_load_files},
        {"paper configurations match table1.csv", test_paper_configs},
        {"exact_stream key", test_exact_stream_key},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!CU_add_test(s, t[i].name, t[i].fn))
            return -1;
    return 0;
}
