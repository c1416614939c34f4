#!/bin/bash
# compute-sanitizer on one H100: racecheck, synccheck and initcheck of the one-rank GPU suite (small).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/san; O=$OUT/san; mkdir -p $O; L=$O/log.txt; S=$O/summary.txt
nvidia-smi -L > $S
for tool in racecheck synccheck initcheck; do
  t0=$SECONDS
  echo "==== $tool" >> $L
  timeout -k 5 170 compute-sanitizer --tool $tool --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 64K >> $L 2>&1
  echo "== $tool: exit $?, $((SECONDS - t0)) s" >> $S
done
grep -E "^RESULT|ERROR SUMMARY|RACECHECK SUMMARY" $L >> $S
gzip -9 $L
