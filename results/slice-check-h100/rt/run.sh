#!/bin/bash
# Issue 22, the slice's cost to the round trip (pcclRun + pcclWait, one in flight): one size per run,
# six rounds of the slice off and on in turn, one rank; nccl-tests' round trip (-z 1) beside.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/rt; cd $d
O=$OUT/rt; mkdir -p $O; C=$O/rt.txt
nvidia-smi -L > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
t timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 32K -f 8 -n 2000 -w 50 -z 1
for i in 1 2 3 4 5 6; do
  for sn in 8:40000 4K:40000 32K:40000; do
    s=${sn%:*}; n=${sn#*:}
    P="-g 1 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 --check-max 16M -T 10 --timing rt"
    t timeout 15 env PCCL_SLICE_US=0 ./pccl-perf $P
    t timeout 15 ./pccl-perf $P
  done
done
grep -c "exit 0" $C >> $O/summary.txt
gzip -9 $C
