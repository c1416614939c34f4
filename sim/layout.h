/* layout.h: GPUs, groups, collectives and each GPU's planned order.
 *
 * A layout is built once per study (from a 3D grid, an explicit group list
 * or a recipe) and shared read-only by every round and thread.  Collectives
 * are numbered globally, group by group in group order.  A "part" is one
 * member's share of a collective: part_off[c] + m is the part of collective c
 * on the m-th member of its group. */
#ifndef DL_LAYOUT_H
#define DL_LAYOUT_H

#include <stddef.h>

enum dl_order { DL_ORDER_INTERLEAVE = 0, DL_ORDER_SEQUENTIAL = 1 };

typedef struct dl_group {
    int n;          /* members */
    int *gpus;      /* member GPU ids, in the order given */
    int ncoll;      /* collectives of this group */
    int first_coll; /* global id of its first collective */
} dl_group;

/* One entry of a GPU's planned order. */
typedef struct dl_plan_entry {
    int coll;   /* global collective id */
    int member; /* index of this GPU in the collective's group */
} dl_plan_entry;

typedef struct dl_layout {
    int ngpus, ngroups, ncolls, nparts;
    int cap_groups;
    dl_group *groups;
    int *coll_group;      /* [ncolls] group of each collective */
    int *part_off;        /* [ncolls+1] first part of each collective */
    int *part_gpu;        /* [nparts] GPU of each part */
    int *part_coll;       /* [nparts] collective of each part */
    int *plan_off;        /* [ngpus+1] start of each GPU's plan */
    dl_plan_entry *plan;  /* [nparts] planned orders, GPU after GPU */
    int order;            /* enum dl_order used to build the plan */
} dl_layout;

void dl_layout_init(dl_layout *L, int ngpus);
void dl_layout_free(dl_layout *L);

/* Appends a group; copies gpus.  Returns 0, or -1 with a message in err
 * (a GPU out of range, a GPU listed twice, no members, negative count). */
int dl_layout_add_group(dl_layout *L, const int *gpus, int n, int ncoll,
                        char *err, size_t errlen);

/* Numbers the collectives and builds the planned orders.  Fails (-1, err)
 * when a GPU belongs to no group or the layout has no collective. */
int dl_layout_finish(dl_layout *L, int order, char *err, size_t errlen);

/* Do two groups have the same member list, in the same order? */
int dl_group_same_members(const dl_group *a, const dl_group *b);

/* Member index of gpu in the group of coll, or -1. */
int dl_layout_member(const dl_layout *L, int coll, int gpu);

const char *dl_order_name(int order);
int dl_order_parse(const char *s); /* -1 if unknown */

#endif
