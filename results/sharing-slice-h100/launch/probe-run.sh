#!/bin/bash
# where pccl's launch call goes: cudaSetDevice / the <<<>>> launch / cudaGetLastError timed apart (probe build of f29109b)
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
O=$OUT/probe; mkdir -p $O; cd "$(dirname "$0")"
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
PCCL_PROBE_LAUNCH=1 timeout 20 ./pccl-perf $P > $O/perf.txt 2>&1
PCCL_PROBE_LAUNCH=1 timeout 20 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 50 --iter-bytes 64G -T 8 --timing rt > $O/perf-rt.txt 2>&1
grep -E "PROBE|relaunches after" $O/perf.txt $O/perf-rt.txt | cut -c1-260
