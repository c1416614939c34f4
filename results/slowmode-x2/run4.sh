#!/bin/bash
# Call 4 (2 H200s, 2026-11-29): the placement by id (lib/run.c, place_group: a collective's invocations
# on group 1 + id % (G - 1), no longer 1 + (id + n) % (G - 1), whose next invocation met the next
# chain's current one). The slow mode's check (calls 1-3's pccl-slice-ab -g 2 without the slice, A and
# B alike), the slice's cost on 2 GPUs, then against nccl-tests (five collectives, float) and the
# correctness suite on 2 GPUs in chaos mode and not.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/slowmode-x2/run4.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
for b in 32K 512K 2M; do t timeout 60 ./pccl-slice-ab -g 2 -n 20000 -r 16 --sets 4 --slice-us 0 -b $b; done
for s in 8:20000 32K:20000 512K:20000 2M:10000; do
  t timeout 60 ./pccl-slice-ab -g 2 -b ${s%%:*} -n ${s##*:} -r 48 --sets 12
done
BUDGET=540
step vs2 0 200 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
[ -d "$O/vs2" ] && (cd "$O" && tar czf vs2.tar.gz vs2 && rm -rf vs2)
step suite 0 120 ./pccl-gpu-test --gpus 2 --quick
step chaos 0 90 ./pccl-gpu-test --gpus 2 --chaos --quick
call_end
