#!/bin/bash
# Two processes sharing one H100 (7206d15, .dev/hint/pccl-multiproc-ext), random orders with a device
# synchronization after every invocation and no spin threshold; a quiet spell of 3 s prints the hang dump
# (sync-dumps.tgz: each run's output, and sum.txt).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; O=$OUT/sy; mkdir -p $O
T=1099511627776
for i in 1 2 3 4 5 6; do
  PCCL_SPIN_HEAD=$T PCCL_SPIN_BASE=$T PCCL_SPIN_MIN=$T PCCL_STICKY=1 PCCL_HANG_DUMP_MS=3000 timeout 60 $H/pccl-multiproc-ext --share 2 --iters 100 --sync --timeout 15 > $O/s$i.txt 2>&1
  echo "run $i: exit $? $(grep RESULT $O/s$i.txt)" >> $O/sum.txt
done
cat $O/sum.txt
cd $O && tar czf sync.tgz s*.txt && rm -f s*.txt
