#!/bin/bash
# Call 1 (one H200): the probe (cudaMemcpyAsync beside no daemon, a stand-in, pccl's daemon busy with
# 8 B all-reduces), nccl-tests' one-rank all-reduce out of place and pccl-perf's, both back to back,
# 8 B to 512 MiB, twice each.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
t timeout 120 ./probe --pccl -n 200
for r in 1 2; do
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20 -c 0
  t timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512M -f 4 -n 200 -w 20 -c 0 --timing b2b
  t timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512M -f 4 -n 200 -w 20 -c 0 --timing rt
done
call_end
