#!/bin/bash
# place3 against main (e27dc90), interleaved repeats, one H100: one rank's round trip 8 B-8 MiB x4, two ranks
# sharing the GPU with 8 and 16 blocks x3.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/pl3; O=$OUT/pl3b; mkdir -p $O; L=$O/log.txt
T0=$SECONDS
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing rt"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
r() { [ $((SECONDS-T0)) -gt ${BUDGET:-480} ] && { echo "== skipped (time): $*" >> $L; return; }; echo "== $* (at $((SECONDS-T0)) s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2 3 4; do for v in base new; do r timeout 60 ./pccl-perf-$v $R; done; done
for i in 1 2 3; do for b in 8 16; do for v in base new; do r env PCCL_BLOCKS=$b timeout 90 ./pccl-perf-$v $S; done; done; done
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 1
echo "== total $((SECONDS-T0)) s" >> $L
