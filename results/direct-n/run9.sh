#!/bin/bash
# Call 9 (4 GPUs): the five collectives against nccl-tests with the build committed (ll16 of calls 7-8:
# call 6's build with LL on one block per 16 KiB, as lib/register.c now has it), on the 4 GPUs and on
# GPUs 0-1.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
for g in $n 2; do
  step vs$g 0 240 env CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((g - 1))) ./perf-vs-nccl-tests --gpus $g --out $O/vs$g --nccl-tests ./nt --bin ./pccl-perf-ll16 -b 8 -e 1G -f 4 -n 50 -w 10
  (cd $O && tar czf vs$g.tgz vs$g && cp vs$g/vs-nccl-tests.txt vs$g-nccl-tests.txt && rm -rf vs$g)
done
call_end
