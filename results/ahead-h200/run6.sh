#!/bin/bash
# Call 6 (2 H200s): the committed build (the launch ahead by default) against nccl-tests 2.19.6 in the
# same lease, as results/x2-h200/ call 1 measured the build before it: perf-vs-nccl-tests --gpus 2, five
# collectives, float, 8 B-1 GiB, back to back and round trip; then the overlap with a GEMM.  Staged by
# bash results/x2-h200/stage.sh; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/ahead-h200/run6.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=300
step vs2 0 200 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd "$O" && tar czf vs2.tar.gz vs2 && rm -rf vs2)
step overlap 0 60 ./pccl-perf -g 2 --interfere gemm --overlap -b 64M
call_end
