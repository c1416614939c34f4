#!/bin/bash
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; O=$OUT/san; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
CS="compute-sanitizer --error-exitcode 9"
t timeout 150 $CS --tool memcheck $H/pccl-perf-final -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 40 -w 2 -c 0 --timing b2b -T 0
t timeout 200 env PCCL_BLOCKS=8 $CS --tool racecheck $H/pccl-perf-final -g 2 --share-gpu --lib pccl --coll all_reduce -b 2M -e 2M -n 8 -w 1 -c 0 --timing b2b -T 0
t timeout 100 $CS --tool synccheck $H/pccl-perf-final -g 2 --share-gpu --lib pccl --coll all -b 8 -e 8M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|RESULT" $C
gzip -9 $C
