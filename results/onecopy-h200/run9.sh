#!/bin/bash
# Call 9 (one H200): the build with copies from 8 MiB and one querier at a time. The five collectives
# against nccl-tests, 8 B-1 GiB by factors of 4, -n 100 (scripts/perf-vs-nccl-tests; its folder
# packed); scripts/test-gpu's one-GPU part.
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/oc
. ./call.sh
call_begin d
step vs 0 240 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 100 -w 10
(cd "$O" && tar czf vs.tar.gz vs && rm -rf vs)
cd "$top"
mkdir -p build && ln -sfn ../.dev/oc build/gpu
step test-gpu 0 200 scripts/test-gpu --report $O/report.md
call_end
