# Deadlock toolkit: dlsim (CPU simulator); pccl and dlreplay come with their issues.
#
#   make run     install what is missing, build, run the default study
#   make test    install what is missing, build, run every test (also under ASan+UBSan)
#   make bench   simulator benchmark -> results/bench-sim.csv, results/bench-scaling.csv
#   make mpi     build/dlsim-mpi: dlsim run split over MPI ranks (Open MPI)
#   make test-long  dlreplay's larger trace corpus on pccl's host backend; the pccl
#                   API fuzzer for PCCL_FUZZ_LONG seconds (default 60) per build;
#                   pccl's fault injection over more seeds
#   JOBS=N       files these build at a time (default: every core)
#
# CUDA parts build only where nvcc is found.

CC      ?= cc
PREFIX  ?= /usr/local
PKGS    := igraph gsl jansson
OPT     ?= -O2
CFLAGS  += $(OPT) -g -std=c11 -D_GNU_SOURCE -DHAVE_INLINE -Wall -Wextra -Wshadow \
           -Wno-unused-parameter -pthread $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lm -pthread

# sim/mpi.c is compiled only into dlsim-mpi (mpicc, -DDL_HAVE_MPI).
SIM_SRC := $(filter-out sim/main.c sim/mpi.c,$(wildcard sim/*.c sim/models/*.c sim/grouping/*.c))
# pccl: the API and scheduling core (plain C), the host backend; the GPU
# backend (lib/gpu/*.cu) joins them where nvcc is found.
PCCL_SRC := $(wildcard lib/*.c) $(wildcard lib/host/*.c)
PCCL_HDRS := $(wildcard lib/*.h lib/host/*.h)
PTEST_SRC := $(wildcard tests/pccl/*.c)
TSANFLAGS := -O1 -fsanitize=thread -fno-omit-frame-pointer
TEST_SRC := $(wildcard tests/*.c)
HDRS    := $(wildcard sim/*.h sim/models/*.h sim/grouping/*.h tests/*.h)

B       := build
SAN     := $(B)/asan
TSAN    := $(B)/tsan
SANFLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

DEFAULT_CONFIG ?= configs/paper/3d-444-sync-4e-3-4e-3.json
RUN_ROUNDS ?= 2000

.PHONY: all build run test test-long check bench install clean help deps gpu test-gpu _all _run _test _test-long _bench mpi _mpi

# The public targets install missing packages first, then build in a fresh
# make (so that pkg-config sees what was just installed), JOBS at a time (every
# core: a clean build of make test's programs took 151 s instead of 225 on 2
# cores); a target's own recipe (the tests, the study) still runs alone, once
# its prerequisites are built.
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
all run test test-long bench mpi:
	@scripts/setup --quiet
	@$(MAKE) --no-print-directory -j$(JOBS) $(if $(filter test,$@),--output-sync=target) _$@
	$(if $(filter test,$@),@scripts/test-gpu --if-present)

deps:
	@scripts/setup

help:
	@sed -n '1,/^$$/p' Makefile

_all build: $(B)/dlsim $(B)/libpccl-host.a $(B)/pccl-example $(B)/dlreplay $(if $(NVCC),gpu)

# ---- pccl with the GPU backend (where nvcc is found) ----
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
GPU_ARCH ?= sm_90
NVFLAGS := -O2 -arch=$(GPU_ARCH) -Xcompiler -Wall,-fPIC
G       := $(B)/gpu
PCCL_GPU_OBJ := $(PCCL_SRC:%.c=$(G)/%.o) $(G)/lib/gpu/daemon.o $(G)/lib/gpu/daemon_mesh.o $(G)/lib/gpu/backend.o

$(G)/lib/%.o: lib/%.c $(PCCL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -DPCCL_HAVE_CUDA -I$(CUDA_HOME)/include -c $< -o $@
$(G)/lib/gpu/%.o: lib/gpu/%.cu $(PCCL_HDRS) $(wildcard lib/gpu/*.cuh) lib/gpu/daemon.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -DPCCL_HAVE_CUDA -c $< -o $@
$(B)/libpccl.a: $(PCCL_GPU_OBJ)
	ar rcs $@ $^
$(B)/libpccl.so: $(PCCL_GPU_OBJ)
	$(NVCC) -shared -arch=$(GPU_ARCH) -o $@ $^ -lpthread
$(G)/pccl-deadlock: tests/gpu/pccl_deadlock.c tests/gpu/args.h tests/gpu/schedule.h lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -o $@ $< $(B)/libpccl.a -lpthread
$(G)/nccl-deadlock: tests/gpu/nccl_deadlock.c tests/gpu/schedule.h
	$(NVCC) -O2 -arch=$(GPU_ARCH) -Itests/gpu -o $@ $< -lnccl -lpthread

$(G)/pccl-example: examples/pccl_allreduce.c lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -DPCCL_EXAMPLE_CUDA -Ilib -o $@ $< $(B)/libpccl.a -lpthread

$(G)/pccl-multiproc: tests/gpu/pccl_multiproc.c tests/gpu/schedule.h tests/gpu/procs.h lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -o $@ $< $(B)/libpccl.a -lpthread

$(G)/pccl-stream: tests/gpu/pccl_stream.c tests/gpu/args.h tests/gpu/schedule.h lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -o $@ $< $(B)/libpccl.a -lpthread
$(G)/pccl-share: tests/gpu/pccl_share.cu tests/gpu/procs.h lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -std=c++17 -o $@ $< $(B)/libpccl.a -lnccl -lpthread

$(G)/pccl-ops-test: tests/gpu/pccl_ops_test.cu lib/gpu/ops.cuh lib/core.h
	$(NVCC) -O2 -arch=$(GPU_ARCH) -o $@ $<

$(G)/pccl-gpu-test: tests/gpu/pccl_gpu_test.c tests/pccl/check.c tests/pccl/check.h lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -o $@ tests/gpu/pccl_gpu_test.c tests/pccl/check.c $(B)/libpccl.a -lpthread

$(G)/pccl-fault: tests/gpu/pccl_fault.c tests/pccl/mproc.c tests/pccl/mproc.h tests/pccl/check.c tests/pccl/check.h \
                 lib/pccl.h $(B)/libpccl.a
	$(NVCC) -O2 -arch=$(GPU_ARCH) -Xcompiler -D_GNU_SOURCE -o $@ tests/gpu/pccl_fault.c tests/pccl/mproc.c \
		tests/pccl/check.c $(B)/libpccl.a -lpthread

# dlreplay's CUDA build needs the Debian packages too (config, traces): built
# here and carried to GPU hosts, with those libraries linked statically.
HAVE_PKGS := $(shell pkg-config --exists $(PKGS) && echo 1)

gpu: $(B)/libpccl.a $(B)/libpccl.so $(G)/pccl-deadlock $(G)/nccl-deadlock $(G)/pccl-example $(G)/pccl-multiproc $(G)/pccl-stream \
     $(G)/pccl-gpu-test $(G)/pccl-ops-test $(G)/pccl-fault $(G)/pccl-share $(if $(HAVE_PKGS),$(G)/dlreplay)

# GPU suite: needs no Debian packages (the GPU hosts have none), only CUDA.
test-gpu: gpu
	@scripts/test-gpu

# ---- pccl (host backend; the GPU backend's rules come with lib/gpu) ----
$(B)/lib/%.o: lib/%.c $(PCCL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@
$(SAN)/lib/%.o: lib/%.c $(PCCL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@
$(TSAN)/%.o: %.c $(PCCL_HDRS) $(wildcard tests/pccl/*.h) tests/runner.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TSANFLAGS) -c $< -o $@
$(B)/tests/pccl/%.o: tests/pccl/%.c $(PCCL_HDRS) $(wildcard tests/pccl/*.h) tests/runner.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(SAN)/tests/pccl/%.o: tests/pccl/%.c $(PCCL_HDRS) $(wildcard tests/pccl/*.h) tests/runner.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(B)/libpccl-host.a: $(PCCL_SRC:%.c=$(B)/%.o)
	ar rcs $@ $^
$(B)/pccl-example: examples/pccl_allreduce.c lib/pccl.h $(B)/libpccl-host.a
	$(CC) $(CFLAGS) -Ilib -o $@ $< $(B)/libpccl-host.a -pthread
$(B)/pccl-tests: $(PTEST_SRC:%.c=$(B)/%.o) $(B)/tests/runner.o $(B)/libpccl-host.a
	$(CC) $(CFLAGS) -o $@ $^ -lcunit -lm -pthread
$(SAN)/pccl-tests: $(PTEST_SRC:%.c=$(SAN)/%.o) $(SAN)/tests/runner.o $(PCCL_SRC:%.c=$(SAN)/%.o)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lcunit -lm -pthread
$(TSAN)/pccl-tests: $(PTEST_SRC:%.c=$(TSAN)/%.o) $(TSAN)/tests/runner.o $(PCCL_SRC:%.c=$(TSAN)/%.o)
	$(CC) $(CFLAGS) $(TSANFLAGS) -o $@ $^ -lcunit -lm -pthread

# ---- dlreplay (harness/): host backend here; the CUDA build joins `make gpu` ----
# The larger corpus: 200 rounds per config of configs/replay on the host backend;
# the API fuzzer (tests/pccl/fuzz.c) longer than in `make test`, in every build
# (a failure prints PCCL_FUZZ_SEED to replay it with); fault injection over
# more seeds.
PCCL_FUZZ_LONG ?= 60
_test-long: $(B)/dlsim $(B)/dlreplay $(B)/pccl-tests $(SAN)/pccl-tests $(TSAN)/pccl-tests
	tests/replay.sh $(B)/dlreplay --long
	PCCL_FUZZ_SECONDS=$(PCCL_FUZZ_LONG) $(B)/pccl-tests fuzz
	PCCL_FUZZ_SECONDS=$(PCCL_FUZZ_LONG) PCCL_TEST_QUICK=1 $(SAN)/pccl-tests fuzz
	PCCL_FUZZ_SECONDS=$(PCCL_FUZZ_LONG) PCCL_TEST_QUICK=1 TSAN_OPTIONS=halt_on_error=1 $(TSAN)/pccl-tests fuzz
	@echo "== pccl fault injection, 200 seeds (optimized) and 40 (ASan+UBSan)"
	PCCL_FAULT_SEEDS=200 $(B)/pccl-tests faults
	PCCL_FAULT_SEEDS=40 $(SAN)/pccl-tests faults

DR_SRC  := harness/replay.c harness/report.c harness/lib_pccl.c
DR_HDRS := $(wildcard harness/*.h) lib/pccl.h tests/pccl/check.h $(HDRS)
HTEST_SRC := $(wildcard tests/harness/*.c)

$(B)/harness/%.o: harness/%.c $(DR_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(SAN)/harness/%.o: harness/%.c $(DR_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@
$(B)/tests/harness/%.o: tests/harness/%.c $(DR_HDRS) $(wildcard tests/harness/*.h) tests/runner.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(SAN)/tests/harness/%.o: tests/harness/%.c $(DR_HDRS) $(wildcard tests/harness/*.h) tests/runner.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(G)/harness/%.o: harness/%.c $(DR_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DPCCL_HAVE_CUDA -I$(CUDA_HOME)/include -c $< -o $@
$(G)/dlreplay: $(G)/harness/dlreplay.o $(DR_SRC:%.c=$(G)/%.o) $(G)/harness/lib_nccl.o \
               $(B)/tests/pccl/check.o $(B)/libdlsim.a $(B)/libpccl.a
	$(CC) $(CFLAGS) -o $@ $^ -l:libjansson.a -l:libgsl.a -l:libgslcblas.a -l:libcsv.a \
	    -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib -lnccl -lcudart_static -ldl -lrt -lstdc++ -lm -pthread
$(B)/dlreplay: $(B)/harness/dlreplay.o $(DR_SRC:%.c=$(B)/%.o) $(B)/tests/pccl/check.o \
               $(B)/libdlsim.a $(B)/libpccl-host.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(SAN)/dlreplay: $(SAN)/harness/dlreplay.o $(DR_SRC:%.c=$(SAN)/%.o) $(SAN)/tests/pccl/check.o \
                 $(SAN)/libdlsim.a $(PCCL_SRC:%.c=$(SAN)/%.o)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)
$(HTEST_SRC:%.c=$(TSAN)/%.o) $(DR_SRC:%.c=$(TSAN)/%.o): $(DR_HDRS) $(wildcard tests/harness/*.h)
$(TSAN)/harness-tests: $(HTEST_SRC:%.c=$(TSAN)/%.o) $(DR_SRC:%.c=$(TSAN)/%.o) $(TSAN)/tests/pccl/check.o \
                       $(TSAN)/tests/runner.o $(B)/libdlsim.a $(PCCL_SRC:%.c=$(TSAN)/%.o)
	$(CC) $(CFLAGS) $(TSANFLAGS) -o $@ $^ $(LDLIBS) -lcunit
$(B)/harness-tests: $(HTEST_SRC:%.c=$(B)/%.o) $(DR_SRC:%.c=$(B)/%.o) $(B)/tests/pccl/check.o \
                    $(B)/tests/runner.o $(B)/libdlsim.a $(B)/libpccl-host.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcunit
$(SAN)/harness-tests: $(HTEST_SRC:%.c=$(SAN)/%.o) $(DR_SRC:%.c=$(SAN)/%.o) $(SAN)/tests/pccl/check.o \
                      $(SAN)/tests/runner.o $(SAN)/libdlsim.a $(PCCL_SRC:%.c=$(SAN)/%.o)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS) -lcunit

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(SAN)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(B)/libdlsim.a: $(SIM_SRC:%.c=$(B)/%.o)
	ar rcs $@ $^

$(SAN)/libdlsim.a: $(SIM_SRC:%.c=$(SAN)/%.o)
	ar rcs $@ $^

$(B)/dlsim: $(B)/sim/main.o $(B)/libdlsim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(SAN)/dlsim: $(SAN)/sim/main.o $(SAN)/libdlsim.a
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

# ---- dlsim-mpi: main.c again and mpi.c with mpicc, the rest is libdlsim ----
MPICC   ?= $(shell command -v mpicc 2>/dev/null)
$(B)/mpi/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -DDL_HAVE_MPI -c $< -o $@
$(B)/dlsim-mpi: $(B)/mpi/sim/main.o $(B)/mpi/sim/mpi.o $(B)/libdlsim.a
	$(MPICC) $(CFLAGS) -o $@ $^ $(LDLIBS)
_mpi:
	@test -n "$(MPICC)" || { echo "make mpi: no mpicc (Debian: apt-get install libopenmpi-dev openmpi-bin)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(B)/dlsim-mpi

$(B)/dlsim-tests: $(TEST_SRC:%.c=$(B)/%.o) $(B)/libdlsim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcunit

$(SAN)/dlsim-tests: $(TEST_SRC:%.c=$(SAN)/%.o) $(SAN)/libdlsim.a
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS) -lcunit

_run: $(B)/dlsim
	$(B)/dlsim run $(DEFAULT_CONFIG) --rounds $(RUN_ROUNDS)

# make test's steps, each a target of its own: `make -j` runs them side by
# side and beside what is still being built, and --output-sync=target (the
# `test` rule above) prints each step's output whole when it ends.  One after
# another they took 352 s of a fresh clone's 533 on 2 cores, using 1.2 cores
# (their threads wait: timeouts, child processes).  The steps on pccl's host
# backend come last, one after another and alone (the order-only
# prerequisites): their emulated GPUs poll with sched_yield, so beside
# anything else they lose their time: side by side with the other steps and
# the build, pccl's TSan run took 213-285 s instead of 127, its ASan run 180
# instead of 50.  The GPU build is listed first, so that its longest
# compile (the daemon, ~80 s on one core) starts early (a fresh clone 404
# and 437 s, against 426-463 over three runs with it last: within the
# runs' spread).  The GPU tests run last of all, after _test and outside
# its output sync (the `test` rule, `check`'s recipe): they time the GPUs,
# and a GPU host sees their progress as they go.
TEST_OTHER := _test.dlsim-asan _test.mpi _test.dlsim _test.harness _test.replay _test.cli _test.example _test.python
TEST_HOST := _test.pccl-tsan _test.pccl _test.pccl-asan _test.perf
.PHONY: $(TEST_OTHER) $(TEST_HOST)
_test: $(if $(NVCC),gpu) $(TEST_OTHER) $(TEST_HOST)
check: _test
	@scripts/test-gpu --if-present
_test.pccl-tsan: | $(TEST_OTHER) $(if $(NVCC),gpu)
_test.pccl: | _test.pccl-tsan
_test.pccl-asan: | _test.pccl
_test.perf: | _test.pccl-asan
_test.dlsim: $(B)/dlsim-tests
	@echo "== unit tests (optimized build)"
	$(B)/dlsim-tests
	@echo "== the test runner: DL_TEST_TIMEOUT, one suite or test (tests/runner.sh)"
	tests/runner.sh $(B)/dlsim-tests
_test.dlsim-asan: $(SAN)/dlsim-tests
	@echo "== unit tests (ASan+UBSan build, fewer random rounds)"
	DL_TEST_QUICK=1 $(SAN)/dlsim-tests
_test.cli: $(SAN)/dlsim
	@echo "== command-line tests (ASan+UBSan build)"
	tests/cli.sh $(SAN)/dlsim
_test.mpi: $(B)/dlsim $(if $(MPICC),$(B)/dlsim-mpi)
	@echo "== MPI: dlsim-mpi on 1, 2 and 4 ranks against dlsim"
	tests/mpi.sh $(B)/dlsim $(B)/dlsim-mpi
_test.example: $(B)/pccl-example
	@echo "== pccl example program (examples/pccl_allreduce.c, host backend: 4 and 2 GPUs, a bad count refused)"
	PCCL_BACKEND=host $(B)/pccl-example
	PCCL_BACKEND=host $(B)/pccl-example 2
	$(B)/pccl-example 1 2>&1 | grep -q 'usage:.*from 2 to 8' && ! $(B)/pccl-example 1 2>/dev/null
_test.pccl: $(B)/pccl-tests
	@echo "== pccl host backend (optimized build)"
	$(B)/pccl-tests
_test.pccl-asan: $(SAN)/pccl-tests
	@echo "== pccl host backend (ASan+UBSan build, fewer iterations)"
	PCCL_TEST_QUICK=1 $(SAN)/pccl-tests
_test.pccl-tsan: $(TSAN)/pccl-tests
	@echo "== pccl host backend (TSan build, fewer iterations)"
	PCCL_TEST_QUICK=1 TSAN_OPTIONS=halt_on_error=1 $(TSAN)/pccl-tests
_test.perf: $(B)/pccl-perf $(SAN)/pccl-perf $(B)/pccl-slice-ab $(SAN)/pccl-slice-ab
	@echo "== pccl-perf, host backend (tests/perf.sh; optimized and ASan+UBSan builds)"
	tests/perf.sh $(B)/pccl-perf $(SAN)/pccl-perf
	@echo "== pccl-slice-ab, host backend (tests/slice-ab.sh; optimized and ASan+UBSan builds)"
	tests/slice-ab.sh $(B)/pccl-slice-ab $(SAN)/pccl-slice-ab
_test.harness: $(B)/harness-tests $(SAN)/harness-tests $(TSAN)/harness-tests
	@echo "== dlreplay: the harness (emulated NCCL, pccl host backend; optimized, then ASan+UBSan and TSan with fewer rounds)"
	$(B)/harness-tests
	DR_TEST_QUICK=1 $(SAN)/harness-tests
	DR_TEST_QUICK=1 TSAN_OPTIONS=halt_on_error=1 $(TSAN)/harness-tests
_test.replay: $(B)/dlreplay $(SAN)/dlreplay
	@echo "== dlreplay: command line and the trace corpus on the host backend (tests/replay.sh)"
	tests/replay.sh $(B)/dlreplay $(SAN)/dlreplay
_test.python:
	@echo "== pccl_torch tests (python/tests; each skips, with its reason, without torch or a GPU)"
	@if command -v python3 >/dev/null; then python3 python/tests/test_backend.py; else echo "skipped: no python3"; fi

_bench: $(B)/dlsim
	scripts/bench-sim

# ---- pccl-perf (harness/perf/): nccl-tests-style benchmark, pccl against NCCL ----
# build/gpu/pccl-perf (make gpu): CUDA, NCCL, libc, pthreads only, like the
# other GPU programs; build/pccl-perf: pccl's host backend, no CUDA, for CI.
PERF_SRC := $(filter-out harness/perf/proc.c harness/perf/slice_ab.c,$(wildcard harness/perf/*.c)) tests/pccl/check.c
PERF_DEPS := $(PERF_SRC) harness/perf/perf.h harness/perf/size.h harness/perf/compute.h harness/calls.h tests/pccl/check.h lib/pccl.h
$(B)/pccl-perf: $(PERF_DEPS) $(B)/libpccl-host.a
	$(CC) $(CFLAGS) -o $@ $(PERF_SRC) $(B)/libpccl-host.a -lm -pthread
$(SAN)/pccl-perf: $(PERF_DEPS) $(PCCL_SRC:%.c=$(SAN)/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(PERF_SRC) $(PCCL_SRC:%.c=$(SAN)/%.o) -lm -pthread
# compute.cu: --interfere's kernels, GPU build only (compute_host.c stands in)
$(G)/pccl-perf: $(PERF_DEPS) harness/perf/compute.cu $(B)/libpccl.a
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(GPU_ARCH) -DPERF_HAVE_CUDA -DPERF_HAVE_NCCL -Xcompiler -Wall -o $@ $(PERF_SRC) harness/perf/compute.cu \
	    $(B)/libpccl.a -lnccl -lpthread
# pccl-perf-proc: one rank per process, for profilers (GPU build only)
$(G)/pccl-perf-proc: harness/perf/proc.c harness/perf/size.h lib/pccl.h $(B)/libpccl.a
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(GPU_ARCH) -Xcompiler -Wall -o $@ $< $(B)/libpccl.a -lm -lpthread
# pccl-slice-ab: the time slice's cost, two communicators in one process
# (GSL for the interval: statically in the GPU build, as dlreplay's)
SLICE_AB_DEPS := harness/perf/slice_ab.c harness/perf/size.h lib/pccl.h
$(B)/pccl-slice-ab: $(SLICE_AB_DEPS) $(B)/libpccl-host.a
	$(CC) $(CFLAGS) -o $@ $< $(B)/libpccl-host.a $(shell pkg-config --libs gsl 2>/dev/null) -lm -pthread
$(SAN)/pccl-slice-ab: $(SLICE_AB_DEPS) $(PCCL_SRC:%.c=$(SAN)/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(PCCL_SRC:%.c=$(SAN)/%.o) $(shell pkg-config --libs gsl 2>/dev/null) -lm -pthread
$(G)/pccl-slice-ab: $(SLICE_AB_DEPS) $(B)/libpccl.a
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(GPU_ARCH) -Xcompiler -Wall -o $@ $< $(B)/libpccl.a -l:libgsl.a -l:libgslcblas.a -lm -lpthread
_all build: $(B)/pccl-perf $(B)/pccl-slice-ab
gpu: $(G)/pccl-perf $(G)/pccl-perf-proc $(if $(HAVE_PKGS),$(G)/pccl-slice-ab)

# pccl: the GPU library where nvcc is found, else the host-backend library.
PCCL_INSTALL_LIBS := $(if $(NVCC),$(B)/libpccl.a $(B)/libpccl.so)
# dlreplay: the CUDA build (NCCL, pccl on GPUs, host backend) where nvcc is found.
DLREPLAY_BIN := $(if $(NVCC),$(G)/dlreplay,$(B)/dlreplay)
install: $(B)/dlsim $(B)/libpccl-host.a $(PCCL_INSTALL_LIBS) $(DLREPLAY_BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(B)/dlsim $(DESTDIR)$(PREFIX)/bin/dlsim
	install -m 755 $(DLREPLAY_BIN) $(DESTDIR)$(PREFIX)/bin/dlreplay
	install -m 644 lib/pccl.h $(DESTDIR)$(PREFIX)/include/pccl.h
	$(if $(NVCC),install -m 644 $(B)/libpccl.a $(B)/libpccl.so $(DESTDIR)$(PREFIX)/lib/,install -m 644 $(B)/libpccl-host.a $(DESTDIR)$(PREFIX)/lib/libpccl.a)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(shell sed -n 's/^#define PCCL_M[AI][JN]OR* \([0-9]*\)/\1/p' lib/pccl.h | paste -sd.).0|' \
	    -e 's|@PRIVATE@|$(if $(NVCC),-L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt)|' lib/pccl.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/pccl.pc

clean:
	rm -rf $(B)
