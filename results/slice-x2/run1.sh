#!/bin/bash
# Call 1 (2 H200s): why the slice costs a ring of 2 GPUs twice one rank's relaunch at 8 B-4 KiB but
# nothing at 32-256 KiB (issue 22; ../slice-h200/ call 6). All-reduce back to back, slice on (4 ms,
# the default) with PCCL_SLICE_LOG, against off, two interleaved rounds at 8 B, 32 KiB and 16 MiB;
# then at 8 B: the checks alone (a 60 s slice), PCCL_SPREAD=0, PCCL_SLICE_ALIGN=0, PCCL_SLICE_GAP_US=0.
# Then main against nccl-tests on 2 GPUs (issue 16, every lent kind).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -n 100000 -w 500 -c 0 -T 30"
for i in 1 2; do
  for s in 8 32K 16M; do
    n=100000; [ $s = 16M ] && n=8000
    t timeout 30 env PCCL_SLICE_LOG=$O/log-$s-$i.csv ./pccl-perf $P -b $s -e $s -n $n
    t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf $P -b $s -e $s -n $n
  done
  for v in PCCL_SLICE_US=60000000 PCCL_SPREAD=0 PCCL_SLICE_ALIGN=0 PCCL_SLICE_GAP_US=0; do
    t timeout 30 env $v PCCL_SLICE_LOG=$O/log-8-$v-$i.csv ./pccl-perf $P -b 8 -e 8
  done
  t timeout 30 env PCCL_SPREAD=0 PCCL_SLICE_US=0 ./pccl-perf $P -b 8 -e 8
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
step vs2 0 240 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd $O && tar czf vs2.tgz vs2 && cp vs2/vs-nccl-tests.txt vs2-nccl-tests.txt && rm -rf vs2)
call_end
