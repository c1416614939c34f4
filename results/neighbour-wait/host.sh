#!/bin/bash
# The paper's random-order test on the host backend (threads stand in for GPUs, 2 cores), the library's
# default knobs: base = main dfd7c18, new = a neighbour's posted wait.  Binaries: build/gpu/pccl-deadlock of
# each tree (make gpu), copied to .dev/hint/pccl-deadlock-{base,new}.  Three runs each, interleaved.
set -u
for g in 2 3 4; do for s in "" --sync; do for i in 1 2 3; do for v in base new; do
  r=$(timeout 300 .dev/hint/pccl-deadlock-$v --host --gpus $g --iters 30 $s | grep ^RESULT)
  echo "$v gpus=$g ${s:-nosync} run $i: $(echo "$r" | grep -o 'outcome=[A-Z]*\|seconds=[0-9.]*\|preemptions_per_block=[0-9.]*\|crossed_per_block=[0-9.]*' | tr '\n' ' ')"
done; done; done; done
