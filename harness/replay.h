/* replay.h: one trace replayed on one collective library.
 *
 * A replay turns the trace's events into library calls, in the trace's
 * global order: one host thread per GPU issues that GPU's events, each when
 * the sequencer's cursor reaches it, so the hardware sees the simulated
 * interleaving.  An invocation is asynchronous (the cursor moves on as soon
 * as the call returned); a sync blocks its GPU's thread (the cursor moves on
 * first: other GPUs go on while it waits, as in the model).  A watchdog
 * polls completions and errors; when nothing was issued or completed for
 * `timeout` seconds it declares a hang, writes which collective each GPU is
 * stuck in and which GPUs it waits for, and aborts the library.  After a
 * completed replay every output is checked against the reference
 * (tests/pccl/check.c): each collective has its own input pattern, so a
 * library that matches two same-shape collectives wrongly is caught.
 *
 * Libraries plug in through dr_lib (lib_nccl.c, lib_pccl.c, and the tests'
 * emulated library). */
#ifndef DR_REPLAY_H
#define DR_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/layout.h"
#include "../sim/trace.h"
#include "../tests/pccl/check.h"

enum { DR_COMPLETED = 0, DR_HANG = 1, DR_WRONG = 2, DR_ERROR = 3, DR_NOUTCOMES = 4 };
const char *dr_outcome_name(int outcome);
int dr_outcome_parse(const char *s); /* -1 if unknown */

/* Which collectives share a communicator. */
enum {
    DR_COMM_GROUP = 0,   /* one per group (default) */
    DR_COMM_COLL = 1,    /* one per collective */
    DR_COMM_MEMBERS = 2  /* one per list of member GPUs: groups with the same members share it */
};

/* What a library is asked to set up for one replay. */
typedef struct dr_setup {
    const dl_layout *L;
    const ck_coll *coll;  /* [L->ncolls]: shape of each collective (nranks = its group's size) */
    uint64_t seed;        /* inputs: collective c uses seed + c (ck_prepare) */
    int stream_per_coll;  /* 1: each collective on its own stream; 0: one stream per GPU */
    /* communicators (dr_setup_comms): communicator k spans the members of
     * group comm_group[k], rank m being its m-th member */
    int comm_mode, ncomms;
    int *coll_comm;       /* [ncolls] */
    int *comm_group;      /* [ncomms] */
} dr_setup;

/* Fills S's communicators for mode (DR_COMM_*); dr_setup_free undoes it. */
void dr_setup_comms(dr_setup *S, int mode);
void dr_setup_free(dr_setup *S);
const char *dr_comm_name(int mode);
/* The members of communicator k. */
static inline const dl_group *dr_comm_members(const dr_setup *S, int k)
{
    return &S->L->groups[S->comm_group[k]];
}

/* Index of gpu's part of coll (gpu is a member). */
static inline int dr_part(const dl_layout *L, int gpu, int coll)
{
    return L->part_off[coll] + dl_layout_member(L, coll, gpu);
}

/* One part's buffers as they must start: the input image (ck_prepare:
 * collective c's pattern is seeded by S->seed + c) and the initial output
 * image, in host memory, for a library to copy into its own buffers. */
typedef struct dr_image {
    int part, gpu, coll, rank; /* rank: the member index in the collective's group */
    const void *send, *recv;
    size_t send_bytes, recv_bytes;
} dr_image;

/* Calls fn once per part, collective after collective (ranks in order);
 * stops at the first call that returns -1 and returns -1. */
int dr_stage_inputs(const dr_setup *S, int (*fn)(void *ctx, const dr_image *im, char *err,
                                                 size_t errlen),
                    void *ctx, char *err, size_t errlen);

typedef struct dr_stats {
    uint64_t preemptions, quits, launches; /* pccl's counters, summed over GPUs */
} dr_stats;

/* A library under test.  Calls come from three kinds of threads: setup,
 * check, stats and fini from the replay's own thread; invoke and sync from
 * GPU gpu's thread; done, error and abort from the watchdog (the replay's
 * thread).  Functions returning int return 0 or -1 with a message in err. */
typedef struct dr_lib {
    const char *name;
    int (*setup)(void **state, const dr_setup *S, char *err, size_t errlen);
    /* Issues gpu's part of coll; asynchronous. */
    int (*invoke)(void *state, int gpu, int coll, char *err, size_t errlen);
    /* GPU synchronization of gpu; blocks until its work is done or the
     * library was aborted (then it may fail: the replay ignores that). */
    int (*sync)(void *state, int gpu, char *err, size_t errlen);
    /* 1 if gpu's part of coll (issued) has completed, 0 if not, -1 error. */
    int (*done)(void *state, int gpu, int coll, char *err, size_t errlen);
    /* An asynchronous error of the library, if any (may be NULL). */
    int (*error)(void *state, char *err, size_t errlen);
    /* Makes every call blocked in the library return; the state is only
     * freed afterwards. */
    void (*abort)(void *state);
    /* Copies gpu's output of coll to the host (ck_recv_bytes of its shape). */
    int (*output)(void *state, int gpu, int coll, void *host, char *err, size_t errlen);
    void (*stats)(void *state, dr_stats *st); /* may be NULL */
    void (*teardown)(void *state, int aborted);
} dr_lib;

/* The outcome of one replay. */
typedef struct dr_result {
    int outcome;           /* DR_COMPLETED ... */
    double seconds;        /* from the first event to the outcome */
    long events, issued;   /* events of the trace, events issued */
    long parts, parts_done;
    long wrong;            /* output elements that differ from the reference */
    dr_stats stats;
    char detail[512];      /* error message, or the first wrong element */
    char stuck[512];       /* hang: one line, "GPU g: coll c <- GPU h, ..." per GPU */
    char report[8192];     /* hang: the full culprit report */
} dr_result;

typedef struct dr_options {
    double timeout;        /* seconds without progress that make a hang */
    double poll_s;         /* watchdog period (0: 1 ms) */
    /* If not NULL, called with the outcome as soon as it is known not to be
     * DR_COMPLETED, before the library is aborted: an abort that never
     * returns cannot lose the result (dlreplay's child sends it on). */
    void (*early)(const dr_result *res, void *ctx);
    void *early_ctx;
} dr_options;

/* Replays t (a whole plan: dl_trace_check_plan) on lib.  Returns the
 * outcome (also in res->outcome). */
int dr_replay(const dr_lib *lib, const dr_setup *S, const dl_trace *t, const dr_options *o,
              dr_result *res);

#endif
