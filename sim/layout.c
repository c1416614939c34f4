/* layout.c: groups to collectives to planned orders. */
#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void layout_unfinish(dl_layout *L);

void dl_layout_init(dl_layout *L, int ngpus)
{
    memset(L, 0, sizeof *L);
    L->ngpus = ngpus;
}

void dl_layout_free(dl_layout *L)
{
    for (int g = 0; g < L->ngroups; g++)
        free(L->groups[g].gpus);
    free(L->groups);
    layout_unfinish(L);
    memset(L, 0, sizeof *L);
}

int dl_layout_add_group(dl_layout *L, const int *gpus, int n, int ncoll,
                        char *err, size_t errlen)
{
    int g = L->ngroups;
    if (n < 1)
        return dl_fail(err, errlen, "group %d has no members", g);
    if (ncoll < 0)
        return dl_fail(err, errlen, "group %d has a negative collective count (%d)", g, ncoll);
    for (int a = 0; a < n; a++) {
        if (gpus[a] < 0 || gpus[a] >= L->ngpus)
            return dl_fail(err, errlen, "group %d lists GPU %d, outside 0..%d", g, gpus[a],
                           L->ngpus - 1);
        for (int b = 0; b < a; b++)
            if (gpus[a] == gpus[b])
                return dl_fail(err, errlen, "group %d lists GPU %d twice", g, gpus[a]);
    }
    if (L->ngroups == L->cap_groups) {
        L->cap_groups = L->cap_groups ? 2 * L->cap_groups : 16;
        L->groups = dl_xrealloc(L->groups, (size_t)L->cap_groups * sizeof *L->groups);
    }
    dl_group *G = &L->groups[L->ngroups++];
    G->n = n;
    G->gpus = dl_xmalloc((size_t)n * sizeof *G->gpus);
    memcpy(G->gpus, gpus, (size_t)n * sizeof *G->gpus);
    G->ncoll = ncoll;
    G->first_coll = -1;
    return 0;
}

/* Appends the collectives of group g with index k to gpu's plan, where the
 * GPU is the m-th member. */
static void plan_push(dl_layout *L, int *fill, int gpu, int coll, int m)
{
    dl_plan_entry *e = &L->plan[L->plan_off[gpu] + fill[gpu]++];
    e->coll = coll;
    e->member = m;
}

/* Frees what dl_layout_finish derives from the groups, so it can run again. */
static void layout_unfinish(dl_layout *L)
{
    free(L->coll_group);
    free(L->part_off);
    free(L->part_gpu);
    free(L->part_coll);
    free(L->plan_off);
    free(L->plan);
    L->coll_group = L->part_off = L->part_gpu = L->part_coll = L->plan_off = NULL;
    L->plan = NULL;
    L->ncolls = L->nparts = 0;
}

int dl_layout_finish(dl_layout *L, int order, char *err, size_t errlen)
{
    long ncolls = 0, nparts = 0;
    layout_unfinish(L);
    for (int g = 0; g < L->ngroups; g++) {
        L->groups[g].first_coll = (int)ncolls;
        ncolls += L->groups[g].ncoll;
        nparts += (long)L->groups[g].ncoll * L->groups[g].n;
        if (nparts > 1L << 30)
            return dl_fail(err, errlen, "layout too large (over 2^30 collective parts)");
    }
    if (ncolls == 0)
        return dl_fail(err, errlen, "layout has no collectives");
    L->ncolls = (int)ncolls;
    L->nparts = (int)nparts;
    L->order = order;
    L->coll_group = dl_xmalloc((size_t)ncolls * sizeof(int));
    L->part_off = dl_xmalloc((size_t)(ncolls + 1) * sizeof(int));
    L->part_gpu = dl_xmalloc((size_t)nparts * sizeof(int));
    L->part_coll = dl_xmalloc((size_t)nparts * sizeof(int));
    L->plan_off = dl_xcalloc((size_t)L->ngpus + 1, sizeof(int));
    L->plan = dl_xmalloc((size_t)nparts * sizeof *L->plan);

    int p = 0;
    for (int g = 0; g < L->ngroups; g++) {
        const dl_group *G = &L->groups[g];
        for (int k = 0; k < G->ncoll; k++) {
            int c = G->first_coll + k;
            L->coll_group[c] = g;
            L->part_off[c] = p;
            for (int m = 0; m < G->n; m++, p++) {
                L->part_gpu[p] = G->gpus[m];
                L->part_coll[p] = c;
            }
        }
        for (int m = 0; m < G->n; m++)
            L->plan_off[G->gpus[m] + 1] += G->ncoll;
    }
    L->part_off[ncolls] = p;

    int *ngroups_of = dl_xcalloc((size_t)L->ngpus, sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++)
            ngroups_of[L->groups[g].gpus[m]]++;
    for (int i = 0; i < L->ngpus; i++)
        if (ngroups_of[i] == 0) {
            free(ngroups_of);
            return dl_fail(err, errlen, "GPU %d belongs to no group", i);
        }
    free(ngroups_of);
    for (int i = 0; i < L->ngpus; i++)
        L->plan_off[i + 1] += L->plan_off[i];

    int *fill = dl_xcalloc((size_t)L->ngpus, sizeof(int));
    if (order == DL_ORDER_SEQUENTIAL) {
        /* All of a GPU's first group, then its next group, ... */
        for (int g = 0; g < L->ngroups; g++) {
            const dl_group *G = &L->groups[g];
            for (int m = 0; m < G->n; m++)
                for (int k = 0; k < G->ncoll; k++)
                    plan_push(L, fill, G->gpus[m], G->first_coll + k, m);
        }
    } else {
        /* Round robin by index over a GPU's groups, in group order. */
        int maxn = 0;
        for (int g = 0; g < L->ngroups; g++)
            if (L->groups[g].ncoll > maxn)
                maxn = L->groups[g].ncoll;
        for (int k = 0; k < maxn; k++)
            for (int g = 0; g < L->ngroups; g++) {
                const dl_group *G = &L->groups[g];
                if (k >= G->ncoll)
                    continue;
                for (int m = 0; m < G->n; m++)
                    plan_push(L, fill, G->gpus[m], G->first_coll + k, m);
            }
    }
    free(fill);
    return 0;
}

int dl_layout_member(const dl_layout *L, int coll, int gpu)
{
    if (coll < 0 || coll >= L->ncolls)
        return -1;
    const dl_group *G = &L->groups[L->coll_group[coll]];
    for (int m = 0; m < G->n; m++)
        if (G->gpus[m] == gpu)
            return m;
    return -1;
}

const char *dl_order_name(int order)
{
    return order == DL_ORDER_SEQUENTIAL ? "sequential" : "interleave";
}

int dl_order_parse(const char *s)
{
    if (!strcmp(s, "interleave"))
        return DL_ORDER_INTERLEAVE;
    if (!strcmp(s, "sequential"))
        return DL_ORDER_SEQUENTIAL;
    return -1;
}

int dl_group_same_members(const dl_group *a, const dl_group *b)
{
    return a->n == b->n && !memcmp(a->gpus, b->gpus, (size_t)a->n * sizeof *a->gpus);
}
