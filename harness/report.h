/* report.h: dlreplay's results: one CSV row per (trace, library), and the
 * summary (agreement of dlsim's verdict with NCCL's outcome per model; pccl's
 * deadlocks with their 95% upper bound), from a run or from CSV files. */
#ifndef DR_REPORT_H
#define DR_REPORT_H

#include <stdio.h>

#include "../sim/config.h"
#include "replay.h"

/* dlsim's verdict on a trace (dr_row.dlsim).  Under matching by order a
 * slot of a communicator may be filled by two different collectives:
 * CORRUPT when every such pair has the same shape (NCCL gives wrong data),
 * CORRUPT_SHAPE when one pair differs in shape (count, type, kind: NCCL's
 * behaviour is undefined, a hang, an error or wrong data). */
enum { DR_V_COMPLETED = 0, DR_V_DEADLOCK = 1, DR_V_CORRUPT = 2, DR_V_CORRUPT_SHAPE = 3 };
const char *dr_verdict_name(int v);

typedef struct dr_row {
    char trace[256], config[256], model[16], lib[24], comm[12], streams[8];
    char matching[12]; /* how dlsim matched calls: "identity" (rows without the column) or "order" */
    int gpus, colls;
    long events;
    int dlsim;   /* DR_V_* */
    int outcome; /* DR_* */
    double seconds;
    long wrong;
    unsigned long long preemptions, quits;
    char stuck[512], detail[512];
} dr_row;

/* Is lib a baseline (NCCL: expected to hang where dlsim says deadlock) rather
 * than a library that must always complete? */
int dr_lib_is_baseline(const char *lib);

/* Does the outcome agree with dlsim's verdict?  Matching by order (NCCL's
 * rule): completed <-> completed, deadlock <-> hang, corrupt <-> wrong-data,
 * corrupt-shape <-> anything but completed.  Matching by identity (older
 * rows): a deadlock shows on NCCL as a hang, or as wrong data when two
 * collectives of one communicator were matched with each other.  -1 for an
 * error (no verdict), except where corrupt-shape expects one. */
int dr_agrees(const dr_row *r);

/* dlsim's verdict (DR_V_*) on t, a whole plan (dl_trace_check_plan), with
 * calls matched by `matching` (DL_MATCH_*) over S's communicators, shapes
 * from S->coll.  -1 with "FILE:LINE: PROBLEM" in err for a bad trace. */
int dr_dlsim_verdict(const dl_config *c, int matching, const dr_setup *S, const dl_trace *t,
                     const char *path, char *err, size_t errlen);

/* Appends r to path (the header first if the file is new or empty). */
int dr_row_append(const char *path, const dr_row *r, char *err, size_t errlen);

/* Reads rows written by dr_row_append; appends them to *rows (*n, *cap).
 * Returns 0, or -1 with "FILE:LINE: PROBLEM" in err. */
int dr_rows_read(const char *path, dr_row **rows, long *n, long *cap, char *err, size_t errlen);

/* Prints the summary of rows to f; if csv is not NULL, writes the per
 * (model, lib) counts there too (for the figure). */
int dr_summary(FILE *f, const dr_row *rows, long n, const char *csv, char *err, size_t errlen);

#endif
