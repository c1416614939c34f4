/* report.h: dlreplay's results: one CSV row per (trace, library), and the
 * summary (agreement of dlsim's verdict with NCCL's outcome per model; pccl's
 * deadlocks with their 95% upper bound), from a run or from CSV files. */
#ifndef DR_REPORT_H
#define DR_REPORT_H

#include <stdio.h>

#include "replay.h"

typedef struct dr_row {
    char trace[256], config[256], model[16], lib[24], comm[12], streams[8];
    int gpus, colls;
    long events;
    int dlsim;   /* 1: dlsim says deadlock, 0: completes */
    int outcome; /* DR_* */
    double seconds;
    long wrong;
    unsigned long long preemptions, quits;
    char stuck[512], detail[512];
} dr_row;

/* Is lib a baseline (NCCL: expected to hang where dlsim says deadlock) rather
 * than a library that must always complete? */
int dr_lib_is_baseline(const char *lib);

/* Does the outcome agree with dlsim's verdict?  A deadlock shows on NCCL as a
 * hang, or as wrong data when two collectives of one communicator were
 * matched with each other.  -1 for an error (no verdict). */
int dr_agrees(const dr_row *r);

/* Appends r to path (the header first if the file is new or empty). */
int dr_row_append(const char *path, const dr_row *r, char *err, size_t errlen);

/* Reads rows written by dr_row_append; appends them to *rows (*n, *cap).
 * Returns 0, or -1 with "FILE:LINE: PROBLEM" in err. */
int dr_rows_read(const char *path, dr_row **rows, long *n, long *cap, char *err, size_t errlen);

/* Prints the summary of rows to f; if csv is not NULL, writes the per
 * (model, lib) counts there too (for the figure). */
int dr_summary(FILE *f, const dr_row *rows, long n, const char *csv, char *err, size_t errlen);

#endif
