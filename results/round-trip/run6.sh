#!/bin/bash
# Call 6 (one H100): call 5's racecheck step (scripts/test-gpu --sanitize: one rank, 8 blocks, 8 B, 8 KiB
# and 8 MiB) ran past its 400 s limit, where it took 61-82 s on 2026-11-25: which size, and does it end?
# The small sizes and 8 MiB apart, and the synccheck step that call 5 never reached, side by side.
# Call 7 runs this script with SLICE=0: the same racecheck steps with the time slice off.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
CS="compute-sanitizer --error-exitcode 9"
P="./pccl-perf -g 1 --lib pccl --coll all_reduce -n 2 -w 1 -c 1 --timing all -T 0"
step race-small 0 ${LIM:-200} env PCCL_SLICE_US=${SLICE:-4000} PCCL_BLOCKS=8 $CS --tool racecheck $P -b 8 -e 8K -f 1024 &
step race-8M 0 ${LIM:-200} env PCCL_SLICE_US=${SLICE:-4000} PCCL_BLOCKS=8 $CS --tool racecheck $P -b 8M -e 8M &
[ -n "${SLICE:-}" ] || step synccheck 0 120 $CS --tool synccheck ./pccl-perf -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0 &
wait
call_end
