#!/bin/bash
# Call 5 (one H100, nvidia-h100-x1): the committed build's one-GPU checks on an H100 (scripts/test-gpu
# --sanitize: the CUDA calls that wait for the GPU while collectives stream, the suite on one rank, the
# direct all-reduce on 4 ranks sharing the GPU, two processes sharing it, fault injection, memcheck,
# racecheck, synccheck), one rank against nccl-tests, and the head fence's change on 2 ranks sharing the
# GPU (base against new, three rounds).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu
cd .dev/x4
. ./call.sh
call_begin d
cd ../..
step test-gpu 0 420 env ITERS=50 bash scripts/test-gpu --sanitize --report $O/pccl-gpu-1gpu-h100.md
cd .dev/x4
echo "== (1) done at $((SECONDS - T0)) s" >> $S
A="--share-gpu -g 2 --lib pccl --coll all_reduce,all_gather,broadcast -b 8 -e 4M -f 4 -n 300 -w 30 -c 0 --timing all -T 60"
for i in 1 2 3; do for v in base new; do t timeout 60 ./pccl-perf-$v $A; done; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
step vs1 0 150 ./perf-vs-nccl-tests --gpus 1 --out $O/vs1 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd $O && tar czf vs1.tgz vs1 && cp vs1/vs-nccl-tests.txt vs1-nccl-tests.txt && rm -rf vs1)
call_end
