#!/bin/bash
# Call 10 (one H200): the build to commit, copies from 16 MiB, one querier at a time. The five
# collectives against nccl-tests, 8 B-1 GiB by factors of 4, -n 100 (its folder packed); call 9's
# outlier (reduce-scatter 128 MiB back to back 164.6 us against 66.0) again, five times; gpu-test.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
step vs 0 240 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 100 -w 10
(cd "$O" && tar czf vs.tar.gz vs && rm -rf vs)
for r in 1 2 3 4 5; do
  t timeout 60 ./pccl-perf -g 1 --lib all --coll reduce_scatter -b 128M -e 128M -n 100 -w 10 -c 0 --timing b2b
done
step gpu-test 0 150 ./pccl-gpu-test --gpus 1 --quick
call_end
