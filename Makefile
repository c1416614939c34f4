# Deadlock toolkit: dlsim (CPU simulator); pccl and dlreplay come with their issues.
#
#   make run     install what is missing, build, run the default study
#   make test    install what is missing, build, run every test (also under ASan+UBSan)
#   make bench   simulator benchmark -> results/bench-sim.csv
#
# CUDA parts build only where nvcc is found (none exist yet).

CC      ?= cc
PREFIX  ?= /usr/local
PKGS    := igraph gsl jansson
OPT     ?= -O2
CFLAGS  += $(OPT) -g -std=c11 -D_GNU_SOURCE -DHAVE_INLINE -Wall -Wextra -Wshadow \
           -Wno-unused-parameter -pthread $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lm -pthread

SIM_SRC := $(filter-out sim/main.c,$(wildcard sim/*.c sim/models/*.c sim/grouping/*.c))
TEST_SRC := $(wildcard tests/*.c)
HDRS    := $(wildcard sim/*.h sim/models/*.h sim/grouping/*.h tests/*.h)

B       := build
SAN     := $(B)/asan
SANFLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

DEFAULT_CONFIG ?= configs/paper/3d-444-sync-4e-3-4e-3.json
RUN_ROUNDS ?= 2000

.PHONY: all build run test check bench install clean help deps _all _run _test _bench

# The public targets install missing packages first, then build in a fresh
# make (so that pkg-config sees what was just installed).
all run test bench:
	@scripts/setup --quiet
	@$(MAKE) --no-print-directory _$@

deps:
	@scripts/setup

help:
	@sed -n '1,8p' Makefile

_all build: $(B)/dlsim

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

$(B)/dlsim-tests: $(TEST_SRC:%.c=$(B)/%.o) $(B)/libdlsim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcunit

$(SAN)/dlsim-tests: $(TEST_SRC:%.c=$(SAN)/%.o) $(SAN)/libdlsim.a
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS) -lcunit

_run: $(B)/dlsim
	$(B)/dlsim run $(DEFAULT_CONFIG) --rounds $(RUN_ROUNDS)

_test check: $(B)/dlsim $(B)/dlsim-tests $(SAN)/dlsim $(SAN)/dlsim-tests
	@echo "== unit tests (optimized build)"
	$(B)/dlsim-tests
	@echo "== unit tests (ASan+UBSan build, fewer random rounds)"
	DL_TEST_QUICK=1 $(SAN)/dlsim-tests
	@echo "== command-line tests (ASan+UBSan build)"
	tests/cli.sh $(SAN)/dlsim
	@echo "== GPU tests: skipped: no GPU code exists yet (pccl and dlreplay come with their own issues)"

_bench: $(B)/dlsim
	scripts/bench-sim

install: $(B)/dlsim
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(B)/dlsim $(DESTDIR)$(PREFIX)/bin/dlsim

clean:
	rm -rf $(B)
