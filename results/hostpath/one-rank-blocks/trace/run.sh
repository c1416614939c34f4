#!/bin/bash
# PCCL_TRACE_LAT per-hop medians, one rank, round trip and back to back, 8 KiB-2 MiB (f3dc459/2b9b853).
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/tr; O=$OUT/tr; mkdir -p $O; L=$O/log.txt
for t in rt b2b; do for i in 1 2; do
  echo "== PCCL_TRACE_LAT=1 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8K -e 2M -f 4 -n 500 -w 50 -c 1 --timing $t" >> $L
  PCCL_TRACE_LAT=1 timeout 60 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8K -e 2M -f 4 -n 500 -w 50 -c 1 --timing $t >> $L 2>&1
done; done
grep "pccl-trace" $L | cut -c1-400
