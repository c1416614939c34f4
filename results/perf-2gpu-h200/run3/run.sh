#!/bin/bash
# Issue 22 on 2 H200s: the slice's cost across ranks (off; on, each rank's slice its own; on, the grid:
# PCCL_SLICE_ALIGN=1), all-reduce 8 B-512 MiB back to back, -n 500 (a slice or more per row), three
# rounds interleaved; then 8 B and 2 MiB alone, three rounds; nccl-tests beside. Also: do the rows that
# stalled in run 2 stall with the slice off?
set -u
export NCCL_NVLS_ENABLE=0
d=$(pwd)/.dev/gpu2c; cd $d
O=$OUT/gpu2c; mkdir -p $O; C=$O/cost.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
Q="-g 2 --lib pccl --coll all_reduce -b 8 -e 512M -f 4 -n 500 -w 20 --iter-bytes 16G --check-max 16M -T 30"
for i in 1 2 3; do
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $Q
  t timeout 60 env PCCL_SLICE_ALIGN=0 ./pccl-perf $Q
  t timeout 60 env PCCL_SLICE_ALIGN=1 ./pccl-perf $Q
done
t timeout 30 ./nt/all_reduce_perf -g 2 -b 8 -e 512M -f 4 -n 500 -w 20
for i in 1 2 3; do
  for sn in 8:100000 2M:40000; do
    s=${sn%:*}; n=${sn#*:}
    P="-g 2 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 --check-max 16M -T 20"
    t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf $P
    t timeout 30 env PCCL_SLICE_ALIGN=0 ./pccl-perf $P
    t timeout 30 env PCCL_SLICE_ALIGN=1 ./pccl-perf $P
  done
done
grep -c "exit 0" $C >> $O/summary.txt
echo "total $((SECONDS - T0)) s" >> $O/summary.txt
gzip -9 $C
