/* recipe.c: free groups drawn at random, e.g. paper 001's (32, 64) case,
 * "28 groups of 3 GPUs and 4 of 8 over 64 GPUs".
 *
 * Every membership slot (group, position) is shuffled; the first ngpus slots
 * of the shuffle go to GPUs 0..ngpus-1, one each, so every GPU is in some
 * group.  The other slots get uniform random GPUs not yet in their group.
 * All draws come from one generator seeded with `seed`, so a recipe and a
 * seed always give the same layout. */
#include "grouping.h"

#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../util.h"

/* Keeps the slot arrays small; the layout refuses more parts anyway. */
#define RECIPE_MAX_SLOTS (1L << 26)

static int recipe_check(const dl_layout *L, const dl_recipe_class *cls, int ncls, long *nslots,
                        int *ngroups, char *err, size_t errlen)
{
    long slots = 0, groups = 0;
    for (int c = 0; c < ncls; c++) {
        const dl_recipe_class *k = &cls[c];
        if (k->count < 0 || k->size < 1)
            return dl_fail(err, errlen, "class %d: count must be >= 0 and size >= 1", c);
        if (k->size > L->ngpus)
            return dl_fail(err, errlen, "class %d: groups of %d GPUs but only %d GPUs", c,
                           k->size, L->ngpus);
        if (k->ncolls < 1 || k->ncolls > 8)
            return dl_fail(err, errlen, "class %d: 1 to 8 collective counts, not %d", c,
                           k->ncolls);
        for (int j = 0; j < k->ncolls; j++)
            if (k->colls[j] < 0)
                return dl_fail(err, errlen, "class %d: negative collective count", c);
        slots += (long)k->count * k->size;
        groups += k->count;
        if (slots > RECIPE_MAX_SLOTS)
            return dl_fail(err, errlen, "more than %ld group members in all", RECIPE_MAX_SLOTS);
    }
    if (slots < L->ngpus)
        return dl_fail(err, errlen,
                       "the groups have %ld members in all, fewer than the %d GPUs, so some "
                       "GPU would be in no group", slots, L->ngpus);
    *nslots = slots;
    *ngroups = (int)groups;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Completes group g's members (member[] holds -1 for open positions) with
 * random GPUs not in the group yet; mark[] remembers who is in it. */
static void fill_group(const gsl_rng *r, int ngpus, int *member, int n, int *mark, int g)
{
    for (int a = 0; a < n; a++)
        if (member[a] >= 0)
            mark[member[a]] = g + 1;
    for (int a = 0; a < n; a++) {
        if (member[a] >= 0)
            continue;
        /* size <= ngpus, so some GPU is always free; expected tries are
         * ngpus / (ngpus - members so far). */
        int x;
        do
            x = (int)gsl_rng_uniform_int(r, (unsigned long)ngpus);
        while (mark[x] == g + 1);
        member[a] = x;
        mark[x] = g + 1;
    }
    qsort(member, (size_t)n, sizeof *member, cmp_int);
}

int dl_recipe(dl_layout *L, const dl_recipe_class *classes, int nclasses,
              unsigned long seed, char *err, size_t errlen)
{
    long nslots = 0;
    int ngroups = 0;
    if (recipe_check(L, classes, nclasses, &nslots, &ngroups, err, errlen))
        return -1;

    /* Slots laid out group after group: gstart[g] is group g's first. */
    int *gstart = dl_xmalloc(((size_t)ngroups + 1) * sizeof *gstart);
    int *gcolls = dl_xmalloc(((size_t)ngroups + 1) * sizeof *gcolls);
    int g = 0, s = 0;
    for (int c = 0; c < nclasses; c++)
        for (int j = 0; j < classes[c].count; j++, g++) {
            gstart[g] = s;
            gcolls[g] = classes[c].colls[j % classes[c].ncolls];
            s += classes[c].size;
        }
    gstart[ngroups] = s;

    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, seed);
    int *order = dl_xmalloc((size_t)nslots * sizeof *order);
    int *member = dl_xmalloc((size_t)nslots * sizeof *member);
    for (int i = 0; i < nslots; i++) {
        order[i] = i;
        member[i] = -1;
    }
    gsl_ran_shuffle(r, order, (size_t)nslots, sizeof *order);
    for (int i = 0; i < L->ngpus; i++)
        member[order[i]] = i;

    int *mark = dl_xcalloc((size_t)L->ngpus, sizeof *mark);
    int rc = 0;
    for (g = 0; g < ngroups && !rc; g++) {
        int n = gstart[g + 1] - gstart[g];
        fill_group(r, L->ngpus, member + gstart[g], n, mark, g);
        rc = dl_layout_add_group(L, member + gstart[g], n, gcolls[g], err, errlen);
    }
    free(mark);
    free(member);
    free(order);
    gsl_rng_free(r);
    free(gcolls);
    free(gstart);
    return rc;
}
