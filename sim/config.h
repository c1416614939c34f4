/* config.h: a study's configuration, read from JSON (jansson).
 *
 * Accepts the public reference simulator's keys unchanged and our own
 * clearer names (README "Configuration").  Every error names the file, the
 * key and the problem. */
#ifndef DL_CONFIG_H
#define DL_CONFIG_H

#include <stddef.h>

#include "layout.h"
#include "matching.h"
#include "models/model.h"
#include "reference.h"

typedef struct dl_config {
    char path[512];
    long rounds;            /* rounds of the study */
    unsigned long seed;     /* base seed; round r uses a stream derived from (seed, r) */
    int threads;            /* worker threads, 0 = one per core */
    double disorder;        /* disorder probability */
    double sync;            /* sync probability (models with syncs only) */
    const dl_model *model;
    int slots;              /* execution slots per GPU, 0 = unlimited */
    int order;              /* enum dl_order */
    char rng[32];           /* GSL generator name */
    int exact_stream;       /* 1: the plain stream (one draw per action and candidate) */
    int semantics;          /* DL_SEM_EXACT, DL_SEM_REFERENCE[_NODROP] (reference.h) */
    int matching;           /* DL_MATCH_IDENTITY or DL_MATCH_ORDER (matching.h) */
    dl_matching match;      /* under order: one communicator per group (dl_config_matching) */
    char grouping[16];      /* "3d" or "free" (for reports) */
    char name[128];         /* "name" key, or the file's base name */
    dl_layout layout;
} dl_config;

/* Loads and validates path.  Returns 0, or -1 with a message of the form
 * "FILE: key 'KEY': PROBLEM" in err. */
int dl_config_load(dl_config *c, const char *path, char *err, size_t errlen);

/* The same from a string (tests); name stands for the file in messages. */
int dl_config_parse(dl_config *c, const char *json, const char *name, char *err, size_t errlen);

/* Rebuilds the layout's planned orders after c->order changed (CLI --order). */
int dl_config_set_order(dl_config *c, int order, char *err, size_t errlen);

/* The communicators of matching by order (one per group), built on first
 * use; NULL under identity. */
const dl_matching *dl_config_matching(dl_config *c);

void dl_config_free(dl_config *c);

#endif
