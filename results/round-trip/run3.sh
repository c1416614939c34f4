#!/bin/bash
# Call 3 (4 GPUs): a head posted alone without the system fence (new) against the build before (base):
# every collective, 8 B-4 MiB by 2x, both timings, three rounds on 4 GPUs, two on GPUs 0-1; LL forced
# at 128 KiB-2 MiB (all-reduce) with each; where the time goes (--split) at 8 B and 256 KiB;
# correctness of new (every op and type, random orders, chaos, the suite, memcheck).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
step check-auto 0 90 ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step check-ll 0 60 env PCCL_PROTO=ll ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all --timing all
step random$n 0 40 ./pccl-deadlock --gpus $n --iters 100
step chaos$n 0 40 ./pccl-deadlock --gpus $n --iters 30 --chaos
step gpu-test$n 0 150 ./pccl-gpu-test --gpus $n
echo "== (1) done at $((SECONDS - T0)) s" >> $S
A="--lib pccl --coll all -b 8 -e 4M -f 2 -n 200 -w 20 -c 0 --timing all -T 60"
for i in 1 2 3; do for v in base new; do t timeout 120 ./pccl-perf-$v -g $n $A; done; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do for v in base new; do t timeout 120 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-$v -g 2 $A; done; done
for i in 1 2; do for v in base new; do
  t timeout 60 env PCCL_PROTO=ll ./pccl-perf-$v -g $n --lib pccl --coll all_reduce -b 128K -e 2M -f 2 -n 300 -w 30 -c 0 --timing all
done; done
for v in base new; do for p in auto ll; do
  t timeout 60 env PCCL_PROTO=$p ./pccl-perf-$v -g $n --lib pccl --coll all_reduce -b 8 -e 256K -f 32768 -n 300 -w 30 --split
done; done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
step memcheck$n 0 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 256K -f 8 -n 3 -w 1 -c 1 -d float,half
call_end
