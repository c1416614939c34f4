#!/bin/bash
# Issue 22 on 2 H200s, diagnostic: is the slice's 3% at 2 MiB per relaunch? 2 MiB all-reduce alone,
# 40,000 per run, the slice off / 4 ms (default) / 8 ms / 16 ms, three rounds interleaved; and 32 MiB.
set -u
export NCCL_NVLS_ENABLE=0
d=$(pwd)/.dev/gpu2d; cd $d
O=$OUT/gpu2d; mkdir -p $O; C=$O/slices.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in 1 2 3; do
  for sn in 2M:40000 32M:4000; do
    s=${sn%:*}; n=${sn#*:}
    P="-g 2 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 100 --check-max 16M -T 20"
    for v in 0 4000 8000 16000; do t timeout 30 env PCCL_SLICE_US=$v ./pccl-perf $P; done
  done
done
grep -c "exit 0" $C >> $O/summary.txt
gzip -9 $C
