/* test_layout.c: the layout builder, the 3D grid, random recipes and the
 * planned orders. */
#include <stdlib.h>
#include <string.h>

#include "../sim/grouping/grouping.h"
#include "../sim/layout.h"
#include "tests.h"

static char err[256];

/* Asserts group g of L has exactly the n members m and ncoll collectives. */
static void expect_group(const dl_layout *L, int g, const int *m, int n, int ncoll)
{
    CU_ASSERT_FATAL(g < L->ngroups);
    CU_ASSERT_EQUAL(L->groups[g].n, n);
    CU_ASSERT_EQUAL(L->groups[g].ncoll, ncoll);
    if (L->groups[g].n == n)
        CU_ASSERT_EQUAL(memcmp(L->groups[g].gpus, m, (size_t)n * sizeof *m), 0);
}

/* Checks every group of a (tp, dp, pp) grid against the formula
 * GPU = stage*tp*dp + replica*tp + shard. */
static void check_grid(int tp, int dp, int pp, int tc, int dc)
{
    dl_layout L;
    dl_layout_init(&L, tp * dp * pp);
    CU_ASSERT_EQUAL_FATAL(dl_grid3d(&L, tp, dp, pp, tc, dc, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(L.ngroups, (tp + dp) * pp);
    int m[64], g = 0;
    for (int s = 0; s < pp; s++) {
        for (int r = 0; r < dp; r++, g++) {
            for (int k = 0; k < tp; k++)
                m[k] = s * tp * dp + r * tp + k;
            expect_group(&L, g, m, tp, tc);
        }
        for (int k = 0; k < tp; k++, g++) {
            for (int r = 0; r < dp; r++)
                m[r] = s * tp * dp + r * tp + k;
            expect_group(&L, g, m, dp, dc);
        }
    }
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), 0);
    CU_ASSERT_EQUAL(L.ncolls, pp * (dp * tc + tp * dc));
    CU_ASSERT_EQUAL(L.nparts, pp * tp * dp * (tc + dc));
    dl_layout_free(&L);
}

static void test_grid_222(void)
{
    dl_layout L;
    dl_layout_init(&L, 8);
    CU_ASSERT_EQUAL_FATAL(dl_grid3d(&L, 2, 2, 2, 3, 5, err, sizeof err), 0);
    /* Written out by hand: stage 0 then stage 1, TP groups first. */
    static const int want[8][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3},
                                   {4, 5}, {6, 7}, {4, 6}, {5, 7}};
    CU_ASSERT_EQUAL_FATAL(L.ngroups, 8);
    for (int g = 0; g < 8; g++)
        expect_group(&L, g, want[g], 2, (g % 4) < 2 ? 3 : 5);
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), 0);
    /* Collectives are numbered group by group. */
    CU_ASSERT_EQUAL(L.ncolls, 2 * (2 * 3 + 2 * 5));
    CU_ASSERT_EQUAL(L.groups[1].first_coll, 3);
    CU_ASSERT_EQUAL(L.groups[2].first_coll, 6);
    CU_ASSERT_EQUAL(L.groups[4].first_coll, 16);
    CU_ASSERT_EQUAL(L.coll_group[15], 3);
    dl_layout_free(&L);
}

static void test_grid_444(void)
{
    check_grid(4, 4, 4, 400, 1200);
    check_grid(2, 3, 2, 1, 2); /* tp != dp catches a swapped formula */
    check_grid(3, 1, 2, 2, 1);
}

static void test_grid_paper_sizes(void)
{
    dl_layout L;
    dl_layout_init(&L, 64);
    CU_ASSERT_EQUAL(dl_grid3d(&L, 4, 4, 4, 400, 1200, err, sizeof err), 0);
    CU_ASSERT_EQUAL(L.ngroups, 32);
    dl_layout_free(&L);

    dl_layout_init(&L, 8 * 6 * 64);
    CU_ASSERT_EQUAL_FATAL(dl_grid3d(&L, 8, 6, 64, 400, 1200, err, sizeof err), 0);
    CU_ASSERT_EQUAL(L.ngroups, 896);
    CU_ASSERT_EQUAL(L.ngpus, 3072);
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), 0);
    /* Every GPU is in one TP group and one DP group. */
    for (int i = 0; i < L.ngpus; i++)
        CU_ASSERT_EQUAL(L.plan_off[i + 1] - L.plan_off[i], 1600);
    dl_layout_free(&L);
}

static void test_grid_errors(void)
{
    dl_layout L;
    dl_layout_init(&L, 8);
    CU_ASSERT_EQUAL(dl_grid3d(&L, 0, 2, 4, 1, 1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(dl_grid3d(&L, 2, 2, 2, -1, 1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(dl_grid3d(&L, 2, 2, 3, 1, 1, err, sizeof err), -1); /* 12 != 8 GPUs */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "tp*dp*pp"));
    CU_ASSERT_EQUAL(dl_grid3d(&L, 1 << 16, 1 << 16, 1 << 16, 1, 1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(dl_grid3d(&L, 65536, 65536, 2, 1, 1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(L.ngroups, 0);
    dl_layout_free(&L);
}

/* The hand-made layout of the order tests: 3 GPUs,
 * g0 = {0,1} with c0 c1, g1 = {1,2} with c2, g2 = {2,0,1} with c3 c4 c5.
 * g2 lists GPU 2 first, so member indices differ from GPU ids. */
static void small_layout(dl_layout *L, int order)
{
    static const int g0[] = {0, 1}, g1[] = {1, 2}, g2[] = {2, 0, 1};
    dl_layout_init(L, 3);
    CU_ASSERT_EQUAL(dl_layout_add_group(L, g0, 2, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dl_layout_add_group(L, g1, 2, 1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dl_layout_add_group(L, g2, 3, 3, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(dl_layout_finish(L, order, err, sizeof err), 0);
}

/* want[i] lists GPU i's plan as (coll, member) pairs, ended by -1. */
static void expect_plans(const dl_layout *L, const int want[3][14])
{
    for (int i = 0; i < 3; i++) {
        int n = 0;
        while (want[i][2 * n] >= 0)
            n++;
        CU_ASSERT_EQUAL(L->plan_off[i + 1] - L->plan_off[i], n);
        if (L->plan_off[i + 1] - L->plan_off[i] != n)
            continue;
        for (int k = 0; k < n; k++) {
            const dl_plan_entry *e = &L->plan[L->plan_off[i] + k];
            CU_ASSERT_EQUAL(e->coll, want[i][2 * k]);
            CU_ASSERT_EQUAL(e->member, want[i][2 * k + 1]);
        }
    }
}

static void test_order_interleave(void)
{
    dl_layout L;
    small_layout(&L, DL_ORDER_INTERLEAVE);
    /* Index 0 of each of the GPU's groups in group order, then index 1 ... */
    static const int want[3][14] = {
        {0, 0, 3, 1, 1, 0, 4, 1, 5, 1, -1},
        {0, 1, 2, 0, 3, 2, 1, 1, 4, 2, 5, 2, -1},
        {2, 1, 3, 0, 4, 0, 5, 0, -1},
    };
    expect_plans(&L, want);
    CU_ASSERT_EQUAL(L.ncolls, 6);
    CU_ASSERT_EQUAL(L.nparts, 2 * 2 + 2 + 3 * 3);
    CU_ASSERT_EQUAL(L.part_off[3], 6);
    CU_ASSERT_EQUAL(L.part_gpu[L.part_off[3]], 2);
    CU_ASSERT_EQUAL(dl_layout_member(&L, 4, 0), 1);
    CU_ASSERT_EQUAL(dl_layout_member(&L, 2, 0), -1);
    dl_layout_free(&L);
}

static void test_order_sequential(void)
{
    dl_layout L;
    small_layout(&L, DL_ORDER_SEQUENTIAL);
    static const int want[3][14] = {
        {0, 0, 1, 0, 3, 1, 4, 1, 5, 1, -1},
        {0, 1, 1, 1, 2, 0, 3, 2, 4, 2, 5, 2, -1},
        {2, 1, 3, 0, 4, 0, 5, 0, -1},
    };
    expect_plans(&L, want);
    /* Finishing again (the CLI's --order) rebuilds the plan in place. */
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), 0);
    CU_ASSERT_EQUAL(L.plan[L.plan_off[0] + 1].coll, 3);
    CU_ASSERT_EQUAL(L.order, DL_ORDER_INTERLEAVE);
    dl_layout_free(&L);
}

/* Each collective appears exactly once in the plan of each member, and in no
 * other GPU's plan, with the right member index. */
static void check_plan_complete(const dl_layout *L)
{
    int *seen = calloc((size_t)L->nparts, sizeof *seen);
    int bad = 0;
    for (int i = 0; i < L->ngpus; i++)
        for (int k = L->plan_off[i]; k < L->plan_off[i + 1]; k++) {
            const dl_plan_entry *e = &L->plan[k];
            int part = L->part_off[e->coll] + e->member;
            bad += L->part_gpu[part] != i || dl_layout_member(L, e->coll, i) != e->member;
            seen[part]++;
        }
    for (int p = 0; p < L->nparts; p++)
        bad += seen[p] != 1;
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(L->plan_off[L->ngpus], L->nparts);
    free(seen);
}

static void test_plan_complete(void)
{
    for (int order = 0; order < 2; order++) {
        dl_layout L;
        small_layout(&L, order);
        check_plan_complete(&L);
        dl_layout_free(&L);

        dl_layout_init(&L, 64);
        CU_ASSERT_EQUAL(dl_grid3d(&L, 4, 4, 4, 40, 120, err, sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(dl_layout_finish(&L, order, err, sizeof err), 0);
        check_plan_complete(&L);
        dl_layout_free(&L);

        dl_recipe_class k[2] = {{28, 3, 2, {40, 120}}, {4, 8, 2, {40, 120}}};
        dl_layout_init(&L, 64);
        CU_ASSERT_EQUAL(dl_recipe(&L, k, 2, 5, err, sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(dl_layout_finish(&L, order, err, sizeof err), 0);
        check_plan_complete(&L);
        dl_layout_free(&L);
    }
}

static void test_layout_errors(void)
{
    dl_layout L;
    dl_layout_init(&L, 4);
    static const int twice[] = {0, 2, 0}, out[] = {1, 4}, ok[] = {0, 1, 2};
    CU_ASSERT_EQUAL(dl_layout_add_group(&L, twice, 3, 1, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "twice"));
    CU_ASSERT_EQUAL(dl_layout_add_group(&L, out, 2, 1, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "GPU 4"));
    CU_ASSERT_EQUAL(dl_layout_add_group(&L, ok, 0, 1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(dl_layout_add_group(&L, ok, 3, -1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(L.ngroups, 0);
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), -1);
    CU_ASSERT_EQUAL(dl_layout_add_group(&L, ok, 3, 1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "GPU 3 belongs to no group"));
    dl_layout_free(&L);
    CU_ASSERT_EQUAL(dl_order_parse("sequential"), DL_ORDER_SEQUENTIAL);
    CU_ASSERT_EQUAL(dl_order_parse("interleave"), DL_ORDER_INTERLEAVE);
    CU_ASSERT_EQUAL(dl_order_parse("random"), -1);
    CU_ASSERT_STRING_EQUAL(dl_order_name(DL_ORDER_SEQUENTIAL), "sequential");
}

/* ---- recipes --------------------------------------------------------------- */

static const dl_recipe_class paper64[2] = {{28, 3, 2, {400, 1200}}, {4, 8, 2, {400, 1200}}};

static int same_groups(const dl_layout *a, const dl_layout *b)
{
    if (a->ngroups != b->ngroups)
        return 0;
    for (int g = 0; g < a->ngroups; g++)
        if (a->groups[g].n != b->groups[g].n || a->groups[g].ncoll != b->groups[g].ncoll ||
            memcmp(a->groups[g].gpus, b->groups[g].gpus, (size_t)a->groups[g].n * sizeof(int)))
            return 0;
    return 1;
}

static void test_recipe_deterministic(void)
{
    dl_layout a, b, c;
    dl_layout_init(&a, 64);
    dl_layout_init(&b, 64);
    dl_layout_init(&c, 64);
    CU_ASSERT_EQUAL(dl_recipe(&a, paper64, 2, 7, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dl_recipe(&b, paper64, 2, 7, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dl_recipe(&c, paper64, 2, 8, err, sizeof err), 0);
    CU_ASSERT_TRUE(same_groups(&a, &b));
    CU_ASSERT_FALSE(same_groups(&a, &c));
    dl_layout_free(&a);
    dl_layout_free(&b);
    dl_layout_free(&c);
}

/* Shape, coverage, distinct and sorted members, cycling counts. */
static void check_recipe(int ngpus, const dl_recipe_class *k, int nk, unsigned long seed)
{
    dl_layout L;
    dl_layout_init(&L, ngpus);
    CU_ASSERT_EQUAL_FATAL(dl_recipe(&L, k, nk, seed, err, sizeof err), 0);
    int *in = calloc((size_t)ngpus, sizeof *in), g = 0, bad = 0;
    for (int c = 0; c < nk; c++)
        for (int j = 0; j < k[c].count; j++, g++) {
            const dl_group *G = &L.groups[g];
            bad += G->n != k[c].size;
            bad += G->ncoll != k[c].colls[j % k[c].ncolls];
            for (int m = 0; m < G->n; m++) {
                bad += G->gpus[m] < 0 || G->gpus[m] >= ngpus;
                bad += m > 0 && G->gpus[m] <= G->gpus[m - 1]; /* sorted, so distinct */
                if (G->gpus[m] >= 0 && G->gpus[m] < ngpus)
                    in[G->gpus[m]]++;
            }
        }
    CU_ASSERT_EQUAL(L.ngroups, g);
    for (int i = 0; i < ngpus; i++)
        bad += in[i] == 0;
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err), 0);
    free(in);
    dl_layout_free(&L);
}

static void test_recipe_shape(void)
{
    static const dl_recipe_class paper128[2] = {{28, 5, 2, {400, 1200}}, {4, 10, 2, {400, 1200}}};
    static const dl_recipe_class tight[1] = {{3, 8, 3, {1, 2, 3}}}; /* groups as big as the GPUs */
    static const dl_recipe_class exact[1] = {{4, 2, 1, {5}}};       /* one slot per GPU */
    for (unsigned long s = 0; s < 20; s++) {
        check_recipe(64, paper64, 2, s);
        check_recipe(128, paper128, 2, s);
        check_recipe(8, tight, 1, s);
        check_recipe(8, exact, 1, s);
    }
    /* "400 or 1200": half the groups of each class have 400. */
    dl_layout L;
    dl_layout_init(&L, 64);
    CU_ASSERT_EQUAL(dl_recipe(&L, paper64, 2, 1, err, sizeof err), 0);
    int n400 = 0;
    for (int g = 0; g < L.ngroups; g++)
        n400 += L.groups[g].ncoll == 400;
    CU_ASSERT_EQUAL(L.ngroups, 32);
    CU_ASSERT_EQUAL(n400, 16);
    CU_ASSERT_EQUAL(L.groups[0].ncoll, 400);
    CU_ASSERT_EQUAL(L.groups[1].ncoll, 1200);
    CU_ASSERT_EQUAL(L.groups[28].ncoll, 400);
    CU_ASSERT_EQUAL(L.groups[29].ncoll, 1200);
    dl_layout_free(&L);
}

static void test_recipe_errors(void)
{
    static const dl_recipe_class few[1] = {{2, 3, 1, {10}}};  /* 6 slots, 8 GPUs */
    static const dl_recipe_class big[1] = {{2, 9, 1, {10}}};  /* groups of 9 > 8 GPUs */
    static const dl_recipe_class nocolls[1] = {{2, 4, 0, {0}}};
    dl_layout L;
    dl_layout_init(&L, 8);
    CU_ASSERT_EQUAL(dl_recipe(&L, few, 1, 1, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fewer than the 8 GPUs"));
    CU_ASSERT_EQUAL(dl_recipe(&L, big, 1, 1, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "only 8 GPUs"));
    CU_ASSERT_EQUAL(dl_recipe(&L, nocolls, 1, 1, err, sizeof err), -1);
    CU_ASSERT_EQUAL(L.ngroups, 0);
    dl_layout_free(&L);
}

int dl_register_layout_tests(void)
{
    CU_pSuite s = CU_add_suite("layout", NULL, NULL);
    if (!s)
        return -1;
    struct {
        const char *name;
        void (*fn)(void);
    } t[] = {
        {"grid3d (2,2,2) by hand", test_grid_222},
        {"grid3d (4,4,4) and others by formula", test_grid_444},
        {"grid3d paper sizes", test_grid_paper_sizes},
        {"grid3d errors", test_grid_errors},
        {"interleave order", test_order_interleave},
        {"sequential order", test_order_sequential},
        {"each part once in its GPU's plan", test_plan_complete},
        {"layout errors", test_layout_errors},
        {"recipe deterministic", test_recipe_deterministic},
        {"recipe shape and coverage", test_recipe_shape},
        {"recipe errors", test_recipe_errors},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!CU_add_test(s, t[i].name, t[i].fn))
            return -1;
    return 0;
}
