#!/bin/bash
# pccl-share with the watch: base (144dff2) against new (49dded5), 4 runs each, interleaved.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/w1; O=$OUT/w1; mkdir -p $O; C=$O/runs.txt
for i in 1 2 3 4; do for v in base new; do
  echo "== $v run $i" >> $C; PCCL_WATCH_US=100 timeout 60 ./pccl-share-$v >> $C 2>&1; echo "== exit $?" >> $C
done; done
for v in base new; do echo "== $v default slice" >> $C; timeout 60 ./pccl-share-$v >> $C 2>&1; echo "== exit $?" >> $C; done
grep -E "^== |RESULT| no \(" $C
