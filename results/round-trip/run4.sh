#!/bin/bash
# Call 4 (asked for 4 GPUs, which were no longer lent: 2 GPUs): the build to commit (heads posted without the fence; LL to 256 KiB on 2-4 ranks)
# against nccl-tests on 4 GPUs and on GPUs 0-1 (perf-vs-nccl-tests); where a 256 KiB all-reduce's
# time goes (--split, against base); issue 22's slice, on against off, back to back at 8 KiB, 2 MiB
# and 512 MiB, three runs each; correctness (every op and type, random orders, chaos, the suite,
# memcheck).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
step check-auto 0 90 ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step random$n 0 40 ./pccl-deadlock --gpus $n --iters 100
step chaos$n 0 40 ./pccl-deadlock --gpus $n --iters 30 --chaos
step memcheck$n 0 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 256K -f 8 -n 3 -w 1 -c 1 -d float,half
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for v in base new; do t timeout 60 ./pccl-perf-$v -g $n --lib pccl --coll all_reduce -b 256K -e 256K -n 300 -w 30 --split; done
for i in 1 2 3; do for s in 0 4000; do
  t timeout 60 env PCCL_SLICE_US=$s ./pccl-perf -g $n --lib pccl --coll all_reduce -b 8K -e 8K -n 100000 -w 500 -c 0 -T 30
  t timeout 60 env PCCL_SLICE_US=$s ./pccl-perf -g $n --lib pccl --coll all_reduce -b 2M -e 2M -n 40000 -w 200 -c 0 -T 30
  t timeout 60 env PCCL_SLICE_US=$s ./pccl-perf -g $n --lib pccl --coll all_reduce -b 512M -e 512M -n 400 -w 10 -c 0 -T 30
done; done
# 4 ranks on 2 GPUs (two on each, every hop over NVLink), where the tuner's change applies: 128-512 KiB
for i in 1 2 3; do for v in base new; do
  t timeout 60 ./pccl-perf-$v --share-gpu=2 -g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter -b 64K -e 512K -f 2 -n 300 -w 30 -c 0 --timing all
done; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
for g in $(echo $n 2 | tr ' ' '\n' | sort -u); do
  V=$(seq -s, 0 $((g - 1)))
  step vs$g 0 200 env CUDA_VISIBLE_DEVICES=$V ./perf-vs-nccl-tests --gpus $g --out $O/vs$g --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
  (cd $O && tar czf vs$g.tgz vs$g && cp vs$g/vs-nccl-tests.txt vs$g-nccl-tests.txt && rm -rf vs$g)
done
call_end
