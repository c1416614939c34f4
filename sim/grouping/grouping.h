/* grouping.h: builders that fill a layout with groups.
 *
 * 3D (grid3d.c): GPU id = stage*(tp*dp) + replica*tp + shard.  Within each
 * pipeline stage, dp TP groups of tp consecutive GPUs, then tp DP groups (the
 * GPUs with the same shard in that stage); groups numbered stage by stage.
 *
 * Free (recipe.c): groups drawn at random from a seeded recipe such as
 * "28 groups of 3 and 4 of 8 over 64 GPUs".  Explicit lists need no builder
 * (dl_layout_add_group). */
#ifndef DL_GROUPING_H
#define DL_GROUPING_H

#include <stddef.h>

#include "../layout.h"

int dl_grid3d(dl_layout *L, int tp, int dp, int pp, int tp_colls, int dp_colls,
              char *err, size_t errlen);

/* One class of a recipe: `count` groups of `size` GPUs.  The collective
 * counts cycle through colls[0..ncolls-1] over the class's groups, so
 * {400, 1200} gives half the groups 400 and half 1200. */
typedef struct dl_recipe_class {
    int count, size;
    int ncolls;
    int colls[8];
} dl_recipe_class;

/* Adds the recipe's groups to L (which has L->ngpus GPUs).  Members are drawn
 * uniformly at random with a GSL generator seeded with `seed`, such that every
 * GPU belongs to at least one group and no group lists a GPU twice. */
int dl_recipe(dl_layout *L, const dl_recipe_class *classes, int nclasses,
              unsigned long seed, char *err, size_t errlen);

#endif
