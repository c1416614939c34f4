#!/bin/bash
# pccl-share with the watch: base (144dff2) and new (49dded5), 10 runs each, interleaved; rows past the bound.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/w1; O=$OUT/w2; mkdir -p $O; C=$O/runs.txt
for i in $(seq 1 10); do for v in base new; do
  echo "== $v run $i" >> $C; PCCL_WATCH_US=100 timeout 60 ./pccl-share-$v >> $C 2>&1; echo "== exit $?" >> $C
done; done
grep -E "^== .*run|RESULT| no " $C | grep -B1 -A1 "past\| no " ; grep -c "a pccl call past" $C; gzip -9 $C
