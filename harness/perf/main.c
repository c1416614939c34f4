/* pccl-perf: main.  See perf.h for the design, --help for the flags,
 * harness/perf/README.md for how to run it and what the numbers mean.
 *
 * GPU build (make gpu):  nvcc -O2 -arch=sm_90 -DPERF_HAVE_CUDA -DPERF_HAVE_NCCL
 *     -o build/gpu/pccl-perf harness/perf/ *.c harness/perf/compute.cu tests/pccl/check.c build/libpccl.a
 *     -lnccl -lpthread   (compute.cu: --interfere's kernels)
 * Host build (make):     gcc ... -o build/pccl-perf harness/perf/ *.c tests/pccl/check.c
 *     build/libpccl-host.a -lm -pthread   (pccl's host backend only) */
#include <stdlib.h>
#include <string.h>

#include "perf.h"

double perf_t_start;

/* Every (collective, type, op, root) asked for, in nccl-tests' nesting. */
static int make_tests(perf_team *T)
{
    const perf_opts *o = T->o;
    int cap = pcclNumColls * pcclNumTypes * pcclNumOps * PERF_MAX_RANKS, n = 0;
    T->tests = calloc((size_t)cap, sizeof *T->tests);
    if (!T->tests) return -1;
    for (int c = 0; c < pcclNumColls; c++) {
        if (!((o->colls >> c) & 1u)) continue;
        int has_op = ck_has_op((pcclCollType_t)c);
        int has_root = c == pcclCollReduce || c == pcclCollBroadcast;
        for (int ti = 0; ti < o->ntypes; ti++)
            for (int oi = 0; oi < (has_op ? o->nops : 1); oi++) {
                int r0 = has_root ? (o->root < 0 ? 0 : o->root) : -1;
                int r1 = has_root ? (o->root < 0 ? T->nranks - 1 : o->root) : -1;
                for (int r = r0; r <= r1; r++)
                    T->tests[n++] = (perf_test){(pcclCollType_t)c, o->types[ti], has_op ? o->ops[oi] : pcclSum, r};
            }
    }
    T->ntests = n;
    return 0;
}

int main(int argc, char **argv)
{
    /* Before any NCCL call: NVLink multicast (NVLS) can take the shared host
     * down when a collective using it is aborted or hangs (nccl-facts.md). */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    perf_t_start = perf_now();

    static perf_opts o;
    static perf_team T;
    int visible = dev_count();
#ifdef PERF_HAVE_CUDA
    if (visible < 1) { /* still reject bad flags, then skip */
        perf_parse_args(&o, argc, argv, PERF_MAX_RANKS, 1);
        printf("SKIP: pccl-perf (GPU build) needs a GPU and sees none\n");
        return PERF_EXIT_SKIP;
    }
    perf_parse_args(&o, argc, argv, visible, visible);
#else
    perf_parse_args(&o, argc, argv, visible, 4);
#endif
    if (o.share_gpu) { /* pcclCommInitRank's device of each rank: GPU r % M */
        char dor[4 * PERF_MAX_RANKS] = "";
        for (int r = 0; r < o.nranks; r++)
            snprintf(dor + strlen(dor), sizeof dor - strlen(dor), "%s%d", r ? "," : "", r % o.share_gpu);
        setenv("PCCL_DEVICE_OF_RANK", dor, 1);
    }
    T.o = &o;
    T.argc = argc;
    T.argv = argv;
    T.nranks = o.nranks;
    /* nccl-tests allocates maxbytes for each buffer; rounded for alignment */
    T.alloc = (o.maxbytes + 4095) & ~(size_t)4095;
    for (int r = 0; r < T.nranks; r++) {
        T.rank[r].T = &T;
        T.rank[r].rank = r;
        T.rank[r].dev = o.share_gpu ? r % o.share_gpu : r;
    }
    T.sizes = calloc(PERF_MAX_SIZES, sizeof *T.sizes);
    if (!T.sizes || make_tests(&T)) {
        fprintf(stderr, "pccl-perf: out of host memory\n");
        return PERF_EXIT_ERROR;
    }
    T.nsizes = perf_sizes(&o, T.sizes, PERF_MAX_SIZES);
    if (T.nsizes == PERF_MAX_SIZES && T.sizes[T.nsizes - 1] < o.maxbytes) {
        fprintf(stderr, "pccl-perf: -b/-e/-i/-f: more than %d sizes (see --help)\n", PERF_MAX_SIZES);
        return PERF_EXIT_ARGS;
    }
    if (perf_report_open_csv(&T)) {
        if (o.blocks_csv && !T.bcsv) fprintf(stderr, "pccl-perf: --blocks-csv %s: cannot write the file\n", o.blocks_csv);
        else fprintf(stderr, "pccl-perf: --csv %s: cannot write the file\n", o.csv);
        return PERF_EXIT_ARGS;
    }
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        if (!f) {
            fprintf(stderr, "pccl-perf: --json %s: cannot write the file\n", o.json);
            return PERF_EXIT_ARGS;
        }
        fclose(f);
    }

    perf_report_header(&T);
    perf_wd_start(&T, o.timeout);
    if (o.check && !o.ndelays) perf_data_alloc(&T);
    perf_times_open(o.times);
    for (int l = 0; l < PERF_NLIBS; l++)
        if (((o.libs >> l) & 1u) && perf_lib_get(l)->setup(&T))
            perf_fatal(PERF_EXIT_ERROR, "%s: setup failed", perf_lib_get(l)->name);

    perf_team_run(&T);

    /* teardown under the watchdog: a communicator that does not go away is a hang too */
    for (int l = 0; l < PERF_NLIBS; l++)
        if ((o.libs >> l) & 1u) perf_lib_get(l)->teardown(&T);
    perf_times_close(&T);
    perf_wd_stop();
    perf_report_summary(&T);
    int files = perf_report_files(&T);
    int status = T.wrong_total ? PERF_EXIT_WRONG : files ? PERF_EXIT_ERROR : PERF_EXIT_OK;
    printf("RESULT pccl-perf ranks=%d outcome=%s rows=%d wrong=%lld unchecked=%d seconds=%.1f\n", T.nranks,
           T.wrong_total ? "WRONG" : files ? "ERROR" : "OK", T.nrows + T.nirows + T.norows, T.wrong_total, T.unchecked,
           perf_now() - perf_t_start);
    return status;
}
