#!/bin/bash
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/sl; O=$OUT/sl; mkdir -p $O; L=$O/log.txt
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 40000 -w 50 -c 1 --timing b2b"
r() { echo "== $1" >> $L; shift; timeout 20 env "$@" ./pccl-perf $Q >> $L 2>&1; }
for i in 1 2 3; do
 r on-$i PCCL_SLICE_LOG=$O/on-$i.csv
 r off-$i PCCL_SLICE_US=0
 r gap0-$i PCCL_SLICE_GAP_US=0 PCCL_SLICE_LOG=$O/gap0-$i.csv
 r sp0on-$i PCCL_SPREAD=0
 r sp0off-$i PCCL_SPREAD=0 PCCL_SLICE_US=0
 r slice16-$i PCCL_SLICE_US=16000
done
