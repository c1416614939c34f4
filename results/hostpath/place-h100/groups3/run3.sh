#!/bin/bash
# place3 against main (e27dc90), interleaved, one H100: round trip 1 rank x3; PCCL_XPLACE_RT=1 (experiment: group 0
# when nothing else is outstanding) too; b2b 1 rank; two ranks sharing with 16 blocks x2.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/pl3; O=$OUT/pl3c; mkdir -p $O; L=$O/log.txt
T0=$SECONDS
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing all"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
r() { [ $((SECONDS-T0)) -gt ${BUDGET:-480} ] && { echo "== skipped (time): $*" >> $L; return; }; echo "== $* (at $((SECONDS-T0)) s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2 3; do r timeout 60 ./pccl-perf-base $R; r timeout 60 ./pccl-perf-new $R; r env PCCL_XPLACE_RT=1 timeout 60 ./pccl-perf-new $R; done
for i in 1 2; do r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf-base $S; r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf-new $S; r env PCCL_XPLACE_RT=1 PCCL_BLOCKS=16 timeout 90 ./pccl-perf-new $S; done
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 0
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 1
echo "== total $((SECONDS-T0)) s" >> $L
