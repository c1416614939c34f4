#!/bin/bash
# Call 15 (2 H200s): the 16 MiB slow mode, every block's events. pccl-perf-v1 is call 14's build with
# an event trace in the daemon (a variant, not landed, trace.patch: PCCL_VT_LOG=FILE, per block its first 12000
# events, each on the GPU clock: pick, completion, completion posted, preemption, launch begin and
# end, block 0's fetch of an SQ record, the others' take of a hand-on; dumped per rank at destroy).
# 16 MiB out of place with the slice and without, two rounds; the traces of round 1.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
P="-g 2 --lib pccl --coll all_reduce -n 16000 -w 500 -c 0 -T 30 -b 16M -e 16M"
for i in 1 2; do
  t timeout 30 env PCCL_VT_LOG=$O/x/vt-on-$i PCCL_LAUNCH_LOG=$O/x/on-$i.csv ./pccl-perf-v1 $P --pccl-times $O/x/times-on-$i.csv
  t timeout 30 env PCCL_VT_LOG=$O/x/vt-off-$i PCCL_LAUNCH_LOG=$O/x/off-$i.csv PCCL_SLICE_US=0 ./pccl-perf-v1 $P --pccl-times $O/x/times-off-$i.csv
done
(cd $O/x && rm -f vt-*-2.* && for f in *.csv; do gzip -9 $f; done && xz -T8 -6 vt-*)
(cd $O && tar cf x1.tar x/vt-on-1.0.xz x/vt-on-1.1.xz && tar cf x2.tar x/vt-off-1.0.xz x/vt-off-1.1.xz && rm x/vt-* && tar cf x.tar x && rm -rf x)
ls -la $O >> $S
call_end
