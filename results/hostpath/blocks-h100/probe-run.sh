#!/bin/bash
# Does one daemon block bring 128 B - 512 KiB to the 8 B latency? PCCL_BLOCKS=1 vs default, one rank and
# two ranks sharing the GPU; nccl-tests beside. ~90 s.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"; O=$OUT/blk; mkdir -p $O; L=$O/perf.txt
t() { echo "== $*" >> $L; timeout 40 "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing all"
for i in 1 2; do
t ./pccl-perf $P
t env PCCL_BLOCKS=1 ./pccl-perf $P
t env PCCL_BLOCKS=4 ./pccl-perf $P
done
t ./all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 0
t ./all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 1
t env PCCL_BLOCKS=8 ./pccl-perf -g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 300 -w 30 -c 1 --timing all
t env PCCL_BLOCKS=1 ./pccl-perf -g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 300 -w 30 -c 1 --timing all
