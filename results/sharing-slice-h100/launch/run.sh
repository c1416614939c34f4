#!/bin/bash
# launch-call microbenchmark + slice gap 10 us probe (sharing bound and cost), one H100; pccl binaries of f93b01b (staged in .dev/s2 as relanded/run.sh did)
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
root=$(pwd); O=$OUT/lb; mkdir -p $O; L=$O/log.txt
cd $root/.dev/lb && timeout 30 ./lb > $O/lb.txt 2>&1
cd $root/.dev/s2
t() { echo "== $*" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
for i in 1 2 3; do
  t timeout 10 env PCCL_SLICE_GAP_US=10 ./pccl-perf $P
  t timeout 10 env PCCL_SLICE_US=0 ./pccl-perf $P
  t timeout 10 ./pccl-perf $P
done
t timeout 30 env PCCL_SLICE_GAP_US=10 ./pccl-share --reps 16
t timeout 30 ./pccl-share --reps 16
