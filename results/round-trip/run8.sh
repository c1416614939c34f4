#!/bin/bash
# Call 8 (one H100; the last of the session's device time): the launch that moved nothing is ended only once every block has looked at its work
# (cut.h, pccl_all_passed): scripts/test-gpu's racecheck step as it is (the slice on), synccheck, memcheck
# of the one-rank suite, the suite itself, and the CUDA calls that wait for the GPU while collectives
# stream (pccl-share: the bound, one process and two).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
CS="compute-sanitizer --error-exitcode 9"
step racecheck 0 150 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 2 -w 1 -c 1 --timing all -T 0
step synccheck 0 60 $CS --tool synccheck ./pccl-perf -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
step memcheck 0 60 $CS --tool memcheck ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
step share 0 60 ./pccl-share
step share-procs 0 60 ./pccl-share --procs 2 --seeds 20 --iters 10 --grace-ms 5
step gpu-test 0 90 ./pccl-gpu-test --gpus 1 --quick
call_end
