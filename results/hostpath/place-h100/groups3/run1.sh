#!/bin/bash
# place3 (host-named groups for collectives of several blocks) against main (e27dc90) in one call, one H100.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/pl3; O=$OUT/pl3; mkdir -p $O; L=$O/log.txt
T0=$SECONDS
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing all"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
r() { [ $((SECONDS-T0)) -gt ${BUDGET:-480} ] && { echo "== skipped (time): $*" >> $L; return; }; echo "== $* (at $((SECONDS-T0)) s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2; do for v in base new; do r timeout 60 ./pccl-perf-$v $P; done; done
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 0
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 1
for v in base new; do r timeout 60 ./pccl-perf-$v -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth 16; done
for i in 1 2; do for v in base new; do r env PCCL_BLOCKS=8 timeout 90 ./pccl-perf-$v $S; done; done
for v in base new; do r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf-$v $S; done
r timeout 90 ./pccl-perf-new -g 1 --lib pccl --coll all -b 8 -e 8M -f 8 -n 200 -w 20 -c 1 --timing b2b
r timeout 100 ./pccl-gpu-test --gpus 1
echo "== total $((SECONDS-T0)) s" >> $L
