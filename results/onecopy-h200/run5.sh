#!/bin/bash
# Call 5 (one H200): the copy path with events (lib/gpu/backend.cu, g_copy) instead of stream writes.
# All-reduce 1-512 MiB by factors of 2, back to back and round trip, copies from 1 MiB
# (PCCL_ONE_RANK_COPY_BYTES=1M) against the daemon (0), twice, nccl-tests beside; the five collectives
# against nccl-tests (scripts/perf-vs-nccl-tests, default threshold); the one-GPU correctness suite;
# compute-sanitizer's memcheck over copies. The table's folder is packed (too many files to come back).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
for r in 1 2; do
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 1M -e 512M -f 2 -n 200 -w 20 -c 0
  for v in 1M 0; do
    for tm in b2b rt; do
      t timeout 60 env PCCL_ONE_RANK_COPY_BYTES=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 1M -e 512M -f 2 -n 200 -w 20 -c 0 --timing $tm
    done
  done
done
step vs 0 200 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs" --nccl-tests nt --bin ./pccl-perf -b 8 -e 512M -f 8
(cd "$O" && tar czf vs.tar.gz vs && rm -rf vs)
step gpu-test 0 150 ./pccl-gpu-test --gpus 1 --quick
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
step memcheck 0 120 $CS --tool memcheck --error-exitcode 9 ./pccl-perf -g 1 --lib pccl --coll all -b 2M -e 32M -f 4 -n 5 -w 1 -c 1 --timing all
call_end
