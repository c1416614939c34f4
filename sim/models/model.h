/* model.h: the deadlock decision models.
 *
 * Every model is an instance of one machine: each GPU admits its invoked
 * parts into at most `slots` execution slots in FIFO order (0 = unlimited),
 * and, where the model has syncs, a GPU may issue a synchronization that
 * suspends it until every part it has invoked is complete.  The models
 * differ only in these two settings, so each file here is a descriptor. */
#ifndef DL_MODEL_H
#define DL_MODEL_H

typedef struct dl_model {
    const char *name;    /* our name: "single", "sync", "resource" */
    const char *legacy;  /* the reference simulator's name, or NULL */
    const char *summary; /* one line for --help */
    int slots;           /* execution slots per GPU: 1, 0 = unlimited, -1 = from the config */
    int syncs;           /* 1 if GPUs issue synchronizations */
} dl_model;

extern const dl_model dl_model_single;
extern const dl_model dl_model_sync;
extern const dl_model dl_model_resource;

/* By our name or the reference name; NULL if unknown. */
const dl_model *dl_model_find(const char *name);

/* NULL-terminated list, for help texts. */
extern const dl_model *const dl_models[];

#endif
