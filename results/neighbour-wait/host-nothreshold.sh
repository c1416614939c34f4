#!/bin/bash
# The paper's random-order test on the host backend with spin thresholds of 2^40 polls, which no wait runs
# out of: every preemption must then be one for a neighbour's posted wait.  build/gpu/pccl-deadlock of 7206d15
# (make gpu, or make build/gpu/pccl-deadlock).
set -u
T=1099511627776
for g in 2 3 4 5 8; do for s in "" --sync; do for seed in 1 2; do
  r=$(PCCL_SPIN_HEAD=$T PCCL_SPIN_BASE=$T PCCL_SPIN_MIN=$T PCCL_STICKY=1 timeout 120 \
      build/gpu/pccl-deadlock --host --gpus $g --iters 30 --seed $seed --timeout 10 $s | grep ^RESULT)
  echo "gpus=$g ${s:-nosync} seed=$seed: $(echo "$r" | grep -o 'outcome=[A-Z]*\|seconds=[0-9.]*\|preemptions_per_block=[0-9.]*\|crossed_per_block=[0-9.]*' | tr '\n' ' ')"
done; done; done
