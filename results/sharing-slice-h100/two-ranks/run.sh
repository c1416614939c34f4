#!/bin/bash
# Two ranks sharing one H100 (16 blocks each): the slice's part in the outliers. Default (4 ms slices, each from
# its launch's start), PCCL_SLICE_ALIGN=1 (slices on a grid of the GPU clock, the same for both ranks),
# PCCL_SLICE_US=0 (no slice); 4 runs each, interleaved (2b9b853).
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/sl; O=$OUT/sl; mkdir -p $O; L=$O/log.txt
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2 3 4; do
  r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf $S
  r env PCCL_BLOCKS=16 PCCL_SLICE_ALIGN=1 timeout 90 ./pccl-perf $S
  r env PCCL_BLOCKS=16 PCCL_SLICE_US=0 timeout 90 ./pccl-perf $S
done
