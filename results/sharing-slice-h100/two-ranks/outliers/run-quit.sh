#!/bin/bash
# Two ranks sharing one H100 (16 blocks each), 8 runs each interleaved: default, PCCL_QUIT_US=60000000 (no idle
# quit: a launch ends only by its slice), PCCL_SLICE_US=0 PCCL_QUIT_US=60000000 (one launch for the whole run):
# which mechanism the 2-10x outliers follow (59df4a2).
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ol; O=$OUT/ol; mkdir -p $O; L=$O/log.txt
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2 3 4 5 6 7 8; do
  r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf $S
  r env PCCL_BLOCKS=16 PCCL_QUIT_US=60000000 timeout 90 ./pccl-perf $S
  r env PCCL_BLOCKS=16 PCCL_QUIT_US=60000000 PCCL_SLICE_US=0 timeout 90 ./pccl-perf $S
done
