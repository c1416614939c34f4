#!/usr/bin/env bash
# slice-ab.sh PCCL_SLICE_AB [PCCL_SLICE_AB_ASAN]: pccl-slice-ab on pccl's host backend (no GPU):
# bad flags exit 2 naming the flag, a run prints its rounds, each set's mean, the intervals (over the
# rounds and over the sets) and the
# relaunches (A's short slice relaunches, B's none), and --a-env reaches A's communicator alone.
set -u
ab=${1:?usage: tests/slice-ab.sh build/pccl-slice-ab [build/asan/pccl-slice-ab]}
asan=${2:-}
export PCCL_BACKEND=host

. "$(dirname "$0")/expect.sh"

expect "--help"              0 "--sets K"                                  -- "$ab" --help
expect "unknown flag"        2 "--bogus: unknown flag"                     -- "$ab" --bogus
expect "stray argument"      2 "stray: unexpected argument"                -- "$ab" stray
expect "size not of floats"  2 "-b 6: expected a size, a multiple of 4"    -- "$ab" -b 6
expect "bad size"            2 "-b 1Q: expected a size"                    -- "$ab" -b 1Q
expect "one round"           2 "-r 1: expected an integer in \[2, 10000\]" -- "$ab" -r 1
expect "missing value"       2 "-n: missing value"                         -- "$ab" -n
expect "--depth 0"           2 "--depth 0: expected an integer in \[1, 16\]" -- "$ab" --depth 0
expect "too few rounds a set" 2 "--sets 3: needs -r of at least two rounds a set" -- "$ab" -r 4 --sets 3
expect "--a-env without ="   2 "--a-env PCCL_X: expected VAR=VALUE"        -- "$ab" --a-env PCCL_X
expect "--poller-cpu range"  2 "--poller-cpu 99999: expected an integer"   -- "$ab" --poller-cpu 99999
expect "--poller-cpu not ours" 2 "--poller-cpu 1023: not a CPU this process may run on" -- "$ab" --poller-cpu 1023
expect "no ranks"            2 "-g 0: expected an integer in \[1, 8\]"     -- "$ab" -g 0
expect "too many ranks"      2 "--gpus 9: expected an integer in \[1, 8\]" -- "$ab" --gpus 9
lo=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status) # the lowest CPU we may use
expect "fewer pollers' CPUs than ranks" 2 "--poller-cpu $lo: fewer allowed CPUs up to it than ranks" -- "$ab" -g 2 --poller-cpu "$lo"

run() { "$1" -b 8 -n 400 -r 4 --sets 2 -w 20 --slice-us 300 --idle-ms 5 "${@:2}"; }
if expect "a run" 0 "" -- run "$ab"; then
  cp "$tmp/out" "$tmp/run"
  check "four rounds, two sets" test "$(grep -cE '^ +[1-4] +[12] +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$tmp/run")" = 4
  check "each set's mean" grep -qE '^# A / B by set \(A made first in odd sets\): [0-9.]+ [0-9.]+$' "$tmp/run"
  check "the interval" grep -qE '^# A / B: mean of the rounds [0-9.]+, 95% interval \[-?[0-9.]+, [0-9.]+\]' "$tmp/run"
  check "the sets' interval" grep -qE '^# A / B: mean of the sets [0-9.]+, 95% interval \[-?[0-9.]+, [0-9.]+\] \(Student.s t, 2 sets\)' "$tmp/run"
  check "A's 300 us slice relaunched" grep -qE '^# A \(PCCL_SLICE_US=300\): [1-9][0-9]* relaunches in the rounds; per relaunch' "$tmp/run"
  check "B's no slice did not" grep -qE '^# B \(PCCL_SLICE_US=0\): 0 relaunches' "$tmp/run"
  check "each side's preemptions, ends and launches" grep -qE '^# B \(PCCL_SLICE_US=0\): .*; [0-9]+ preemptions, [0-9]+ daemon ends, [1-9][0-9]* launches$' "$tmp/run"
fi
# Two ranks (two emulated GPUs): every rank's chains run, and both ranks' relaunches are counted
if expect "two ranks" 0 "^# pccl-slice-ab: 8 B float sum all-reduce on 2 ranks \\(one per GPU\\)" -- run "$ab" -g 2; then
  check "two ranks: the sets' interval" grep -qE '^# A / B: mean of the sets [0-9.]+, 95% interval' "$tmp/out"
  check "two ranks: A's slice relaunched" grep -qE '^# A \(PCCL_SLICE_US=300\): [1-9][0-9]* relaunches in the rounds \(every rank.s\)' "$tmp/out"
fi
# One rank's copies skip the daemon (lib/direct.c): the tool keeps every invocation on it, so that a
# size from PCCL_ONE_RANK_COPY_BYTES's default on still meets the slice
if expect "16 MiB through the daemon" 0 "PCCL_ONE_RANK_COPY_BYTES=0 \\(set by pccl-slice-ab" -- \
    "$ab" -b 16M -n 12 -r 2 --sets 1 -w 2 --slice-us 300 --idle-ms 5; then
  check "A's slice relaunched at 16 MiB" grep -qE '^# A \(PCCL_SLICE_US=300\): [1-9][0-9]* relaunches' "$tmp/out"
fi
# A knob set for one side alone: out of range there, so that side's init fails and names it; and the
# environment's own value is back for the other (out of range too here: only A's override is valid)
expect "--a-env reaches A"   1 "^pccl-slice-ab: A: pcclCommInitAllConfig.*PCCL_QUEUE_DEPTH=1 out of range" -- "$ab" --a-env PCCL_QUEUE_DEPTH=1
expect "--b-env reaches B"   1 "^pccl-slice-ab: B: pcclCommInitAllConfig.*PCCL_QUEUE_DEPTH=1 out of range" -- \
  "$ab" -n 50 -r 2 -w 0 --sets 1 --b-env PCCL_QUEUE_DEPTH=1
expect "--a-env: the environment's value back after A" 1 "^pccl-slice-ab: B: pcclCommInitAllConfig.*PCCL_SPIN_MIN=0 out of range" -- \
  env PCCL_SPIN_MIN=0 "$ab" -n 50 -r 2 -w 0 --sets 1 --a-env PCCL_SPIN_MIN=5
[ -n "$asan" ] && expect "a run (ASan+UBSan)" 0 "95% interval" -- run "$asan"

finish "pccl-slice-ab"
