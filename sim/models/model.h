/* model.h: the deadlock decision models.
 *
 * Every model is an instance of one machine (docs/semantics.md): each GPU
 * keeps a FIFO of its invoked, incomplete parts, of which the first K
 * execute (K = `slots`; 0 = unlimited); a collective completes the moment
 * its part executes on every member, and its parts vanish at once; where the
 * model has syncs, a sync suspends a GPU until its FIFO is empty.  What
 * differs between the models is K and what follows from it: what a blocked
 * part waits for, and so how the verdict is taken and which schedule-free
 * evaluator (fast.c) can decide a round.  Those are a model's *rules*
 * (dl_rules), defined in its file here and asked for by the engine (after
 * every event: rules->verdict) and by the evaluator (rules->evaluator).
 *
 * A new model is a file here with its descriptor and, if its machine is a
 * new one, its rules, and an entry in model.c's table. */
#ifndef DL_MODEL_H
#define DL_MODEL_H

struct dl_round;

/* Which schedule-free evaluator (fast.c) decides a round of the machine. */
enum { DL_EVAL_NONE = 0, DL_EVAL_ONE_SLOT = 1, DL_EVAL_UNLIMITED = 2 };

typedef struct dl_rules {
    const char *name; /* "one slot", "unlimited slots", "K >= 2 slots" */
    /* After every event (invocation, sync, and the completions they cause):
     * 1 if the state is deadlocked (then R->cycle holds a cycle), else 0.
     * Called with the GPUs where the event made dependency edges marked
     * dirty (R->dirty); it must clear them. */
    int (*verdict)(struct dl_round *R);
    int evaluator; /* DL_EVAL_* */
} dl_rules;

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

/* The machines' rules, each in its model's file. */
extern const dl_rules dl_rules_one_slot;   /* single.c */
extern const dl_rules dl_rules_unlimited;  /* sync.c */
extern const dl_rules dl_rules_k_slots;    /* resource.c */

/* The rules of the machine with K slots (0 = unlimited): the engine and the
 * evaluator know a round by its K (a resource model with K = 1 is the
 * single-queue machine, with or without syncs). */
const dl_rules *dl_rules_for(int slots);

/* By our name or the reference name; NULL if unknown. */
const dl_model *dl_model_find(const char *name);

/* NULL-terminated list, for help texts. */
extern const dl_model *const dl_models[];

#endif
