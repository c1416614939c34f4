#!/bin/bash
# Call 4 (one H200): call 3's build, but only avg's last step (op sum with a divisor) runs the
# primitive that keeps a divisor; sum, prod, max and min run one without (call 3's sum was 1-11%
# slower at 128 MiB than f7d0611's for int64, double, half, int8). Against f7d0611 (pccl-perf-base):
# every type and op of all-reduce, 2 ranks sharing the GPU, back to back, in turn at 128 MiB (three
# times), 2 MiB and 32 KiB; pccl-ops-test; correctness on 2, 3 and 4 ranks, and one rank's suite.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
step ops 0 60 ./pccl-ops-test
A="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b"
for r in 1 2 3; do
  t timeout 120 ./pccl-perf $A -b 128M -e 128M -n 20 -w 3
  t timeout 120 ./pccl-perf-base $A -b 128M -e 128M -n 20 -w 3
done
t timeout 120 ./pccl-perf $A -b 2M -e 2M -n 200 -w 20
t timeout 120 ./pccl-perf-base $A -b 2M -e 2M -n 200 -w 20
t timeout 120 ./pccl-perf $A -b 32K -e 32K -n 500 -w 50
t timeout 120 ./pccl-perf-base $A -b 32K -e 32K -n 500 -w 50
C="--lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 -o all -d all --timing all -T 60"
step all2 0 120 ./pccl-perf --share-gpu -g 2 $C
step all3 0 120 ./pccl-perf --share-gpu -g 3 $C
step all4 0 120 ./pccl-perf --share-gpu -g 4 $C
step gpu-test 0 120 ./pccl-gpu-test --gpus 1 --quick
call_end
