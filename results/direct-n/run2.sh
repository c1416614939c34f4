#!/bin/bash
# Call 2 (2 GPUs): where the direct all-reduce's time goes on 4 ranks (2 on each GPU) between 2 and 32 KiB,
# where call 1 found it 9 us slower round trip at 8 KiB than at 2 KiB (the ring: 0.6): the latency split
# (--split: PCCL_PROFILE's SQ read, flag waits, primitives, commits, CQ, preemptions per invocation) and
# PCCL_TRACE_LAT's hops, direct against the ring, round trip, by 2x from 2 KiB; two rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/d; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
P="--share-gpu=2 -g 4 --lib pccl --coll all_reduce"
for i in 1 2; do
  for a in ring direct; do
    t timeout 60 env PCCL_ALGO=$a ./pccl-perf $P -b 2K -e 32K -f 2 -n 500 -w 50 -c 0 --timing rt -T 30
    t timeout 60 env PCCL_ALGO=$a ./pccl-perf $P -b 2K -e 32K -f 2 -n 500 -w 50 --split -T 30
  done
done
for a in ring direct; do for b in 2K 8K; do
  t timeout 60 env PCCL_ALGO=$a PCCL_TRACE_LAT=1 ./pccl-perf $P -b $b -e $b -n 2000 -w 50 -c 0 --timing rt -T 30
done; done
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $C
