#!/bin/bash
# Two ranks sharing one H100 (16 blocks each), back to back 8 B-8 KiB, 10 runs each interleaved: default against
# sticky thresholds cut to 50/20/5 polls (PCCL_SPIN_HEAD/BASE/MIN): do the 2-3x outliers follow the thresholds?
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ol; O=$OUT/ol2; mkdir -p $O; L=$O/log.txt
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 200 -w 20 -c 1 --timing b2b"
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2 3 4 5 6 7 8 9 10; do
  r env PCCL_BLOCKS=16 timeout 30 ./pccl-perf $S
  r env PCCL_BLOCKS=16 PCCL_SPIN_HEAD=50 PCCL_SPIN_BASE=20 PCCL_SPIN_MIN=5 timeout 30 ./pccl-perf $S
done
