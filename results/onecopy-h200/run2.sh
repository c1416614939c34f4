#!/bin/bash
# Call 2 (one H200): one rank's out-of-place invocations from PCCL_ONE_RANK_COPY_BYTES (4 MiB) as
# copies on the copy stream (lib/direct.c). The five collectives against nccl-tests
# (scripts/perf-vs-nccl-tests); all-reduce 1-16 MiB by factors of 2 and 8 B-512 MiB by 4, back to
# back and round trip, the copies (default) against the daemon (PCCL_ONE_RANK_COPY_BYTES=0), twice,
# nccl-tests beside; the one-GPU correctness suite; compute-sanitizer's memcheck over copies.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
step vs 0 240 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs" --nccl-tests nt --bin ./pccl-perf -b 8 -e 512M -f 8
for r in 1 2; do
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 1M -e 16M -f 2 -n 200 -w 20 -c 0
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20 -c 0
  for v in 4M 0; do
    for tm in b2b rt; do
      t timeout 60 env PCCL_ONE_RANK_COPY_BYTES=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 1M -e 16M -f 2 -n 200 -w 20 -c 0 --timing $tm
      t timeout 60 env PCCL_ONE_RANK_COPY_BYTES=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512M -f 4 -n 200 -w 20 -c 0 --timing $tm
    done
  done
done
step gpu-test 0 150 ./pccl-gpu-test --gpus 1 --quick
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
step memcheck 0 120 $CS --tool memcheck --error-exitcode 9 ./pccl-perf -g 1 --lib pccl --coll all -b 2M -e 32M -f 4 -n 5 -w 1 -c 1 --timing all
call_end
