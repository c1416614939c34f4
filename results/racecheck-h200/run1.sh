#!/bin/bash
# Call 1 (one H200): the 2 shared-memory hazards racecheck reported in pccl_daemon on results/slice-x2's
# call 24 (read +0x74a0, write +0x78c0). The SASS at those offsets in that build (3840b16, here
# pccl-perf-head), racecheck of the same source built with -lineinfo (the source lines), of the base
# 36b52e5 and of the fix (pccl-perf-new: the scheduling warp meets after every read of the hand-on
# count), three rounds each, one rank, 8 blocks; then a longer sweep of every collective under
# racecheck for the lineinfo build and the fix; then scripts/test-gpu --sanitize on the fix.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
CS="compute-sanitizer --error-exitcode 9 --tool racecheck"
SW="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 2 -w 1 -c 1 --timing all -T 0"
for off in 74a0 78c0; do
  cuobjdump -sass -fun pccl_daemon ./pccl-perf-head | grep -n -B24 -A6 "/\*$off\*/" > $O/sass-$off.txt 2>&1
done
for r in 1 2 3; do
  for v in lineinfo base new; do
    BUDGET=200 step rc-$v-$r 0 60 env PCCL_BLOCKS=8 $CS ./pccl-perf-$v $SW
  done
done
for v in lineinfo new; do
  BUDGET=330 step rcall-$v 0 100 env PCCL_BLOCKS=8 $CS ./pccl-perf-$v -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
done
cd ../..
BUDGET=560 step test-gpu 0 230 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
cd .dev/x4
call_end
