#!/bin/bash
# Call 6 (one H200): the committed build, copies from 16 MiB (the default). The five collectives against
# nccl-tests, 8 B-1 GiB by factors of 4, -n 100 (scripts/perf-vs-nccl-tests; its folder packed);
# all-reduce 4 MiB-1 GiB by factors of 2, back to back and round trip, default against the daemon
# alone (PCCL_ONE_RANK_COPY_BYTES=0), nccl-tests beside; scripts/test-gpu's one-GPU part.
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/oc
. ./call.sh
call_begin d
step vs 0 240 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 100 -w 10
(cd "$O" && tar czf vs.tar.gz vs && rm -rf vs)
t timeout 60 ./nt/all_reduce_perf -g 1 -b 4M -e 1G -f 2 -n 200 -w 20 -c 0
for v in 16M 0; do
  for tm in b2b rt; do
    t timeout 60 env PCCL_ONE_RANK_COPY_BYTES=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 4M -e 1G -f 2 -n 200 -w 20 -c 0 --timing $tm
  done
done
cd "$top"
mkdir -p build && ln -sfn ../.dev/oc build/gpu
step test-gpu 0 200 scripts/test-gpu --report $O/report.md
call_end
