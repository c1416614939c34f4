/* trace.h: the event trace of a round, as CSV (docs/trace.md).
 *
 * One module owns the format: dlsim writes traces through the sink below,
 * `dlsim check` reads and replays them, and so do the GPU replay harness
 * and CI.  A trace is a header line naming the columns, then one line per
 * event in the order the events happened.  Required columns (any order):
 * step, gpu, action (invoke | sync), coll (empty for a sync); others are
 * ignored when reading.  The writer adds group and skipped. */
#ifndef DL_TRACE_H
#define DL_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "engine.h"
#include "layout.h"

typedef struct dl_trace_event {
    long step;  /* lockstep step (informational: replay follows line order) */
    int gpu;
    int action; /* DL_ACT_INVOKE or DL_ACT_SYNC */
    int coll;   /* global collective id; -1 for a sync */
    long line;  /* line in the file, for messages */
} dl_trace_event;

typedef struct dl_trace {
    long n, cap;
    dl_trace_event *ev;
} dl_trace;

/* Reads a trace from path ("-" = stdin).  Returns 0, or -1 with
 * "FILE:LINE: PROBLEM" in err; t is then empty (nothing to free, though
 * dl_trace_free is harmless).  Whole-line blank lines are skipped. */
int dl_trace_read(const char *path, dl_trace *t, char *err, size_t errlen);

/* The same from an open stream; name stands for the file in messages. */
int dl_trace_read_stream(FILE *f, const char *name, dl_trace *t, char *err, size_t errlen);

void dl_trace_free(dl_trace *t);

/* Writer: the header line, then one line per event. */
void dl_trace_write_header(FILE *f);
void dl_trace_write_event(FILE *f, const dl_layout *L, long step, int gpu, int action,
                          int coll, int skipped);

/* A sink that writes every event the engine reports (dl_round_run) to w->f.
 * w must outlive the round.  Write errors are not reported per event: check
 * ferror(w->f) afterwards. */
typedef struct dl_trace_writer {
    FILE *f;
    const dl_layout *L; /* for the group column */
} dl_trace_writer;

dl_sink dl_trace_sink(dl_trace_writer *w);

/* Replays t on R (reset first), in line order: the steps are not used, so
 * any interleaving that respects each GPU's own order gives the same
 * verdict.  Each event is validated (dl_round_can_act / dl_round_can_invoke)
 * before it is applied; syncs are rejected unless syncs_allowed (the model
 * has syncs).  path names the file in messages.  Returns
 *   DL_COMPLETED  every collective completed (*at = -1);
 *   DL_DEADLOCK   at the first cycle; *at = index in t->ev of the
 *                 deadlocking event (R->deadlock_event = *at + 1, R->cycle
 *                 holds the cycle); later events are not applied, and
 *                 dlsim's own traces end there;
 *   -1            "FILE:LINE: PROBLEM" in err: an illegal event (*at = its
 *                 index) or a trace that ends with collectives incomplete
 *                 and no deadlock (*at = -1).
 * at may be NULL. */
int dl_trace_replay(const dl_trace *t, dl_round *R, const char *path, int syncs_allowed,
                    long *at, char *err, size_t errlen);

/* The same as a replay on hardware runs it (dlreplay's sequencer issues the
 * events in line order and waits for each GPU): an event of a GPU that a
 * sync suspended stalls the whole replay for ever, which is a deadlock
 * (DL_DEADLOCK at that event, no cycle) rather than a bad trace.  Under
 * matching by order a round may go on past the point where matching by
 * identity deadlocked, into the rest of a `gen --full` trace, which was
 * written as if no GPU were suspended. */
int dl_trace_replay_sequenced(const dl_trace *t, dl_round *R, const char *path,
                              int syncs_allowed, long *at, char *err, size_t errlen);

/* Checks that t holds every GPU's whole plan, as a replay on hardware needs
 * (dlreplay): every event names an existing GPU and a collective of one of
 * its groups, no GPU invokes a collective twice, syncs only if syncs_allowed,
 * and every GPU invokes every collective of its groups.  Unlike
 * dl_trace_replay, it looks at every line, also after a deadlock.  Returns 0,
 * or -1 with "FILE:LINE: PROBLEM" in err. */
int dl_trace_check_plan(const dl_trace *t, const dl_layout *L, const char *path,
                        int syncs_allowed, char *err, size_t errlen);

#endif
