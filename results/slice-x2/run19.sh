#!/bin/bash
# Call 19 (2 H200s): call 18's pccl-vs-nccl-tests run had pccl back-to-back rows 3-40x slower than
# elsewhere (all-gather 128-512 B, all-reduce 128 KiB-32 MiB, reduce-scatter 8 KiB and 512 KiB), each
# with relaunches whose first step took ~200 us. The same pccl-perf command (-e 32M), this build
# (with PCCL_SLICE_LOG) against main's, two interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 2 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2; do
  t timeout 60 env PCCL_SLICE_LOG=$O/x/log-new-$i.csv ./pccl-perf $W
  t timeout 60 env PCCL_SLICE_LOG=$O/x/log-base-$i.csv ./pccl-perf-base $W
done
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
