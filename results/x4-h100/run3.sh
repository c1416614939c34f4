#!/bin/bash
# Four H100s, call 3 (a second lease): (a) a step's collective read from the block's copy: base (main
# be7345b), full (the whole pccl_coll copied at each change of collective, call 2's "new"), new
# (pccl_coll_load: the fields and 16 steps' codes staged through registers), ptr (the fields derived at
# registration, read in place from device memory); one rank with 16 KiB chunks and two ranks, three rounds
# interleaved. (b) 4 GPUs, all-reduce and reduce-scatter at 512 KiB-32 MiB, where calls 1-2 had 8 MiB at
# 0.65-0.86 of nccl-tests: new against 256 and 128 KiB per block (bpb256, bpb128: more blocks), one loop
# per block (PCCL_INTERLEAVE=1), 8 slots, 32 KiB chunks; nccl-tests beside; the per-block variants on 2
# GPUs too (on 2 GPUs, those alone). (b') nccl-tests with one thread per GPU (-t N -g 1) beside its -g N and pccl, all-reduce
# 8 B-32 MiB. (c) new's correctness on all
# the GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4c; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
n=$(nvidia-smi -L | grep -c '^GPU')   # 4 on nvidia-h100-x4; on 2 GPUs the 4-GPU steps are left out
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
K="-g 1 --lib pccl --coll all_reduce -b 128M -e 128M -n 200 -w 20 -c 1 --check-max 16M --timing all -T 30"
A="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 100 -w 10 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2 3; do for v in base full new ptr; do
  t timeout 40 env CUDA_VISIBLE_DEVICES=0 PCCL_CHUNK_BYTES=16384 ./pccl-perf-$v $K
  t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-$v $A
done; done
echo "== (a) done at $((SECONDS - T0)) s" >> $S
for c in all_reduce reduce_scatter; do
  M="--lib pccl --coll $c -b 512K -e 32M -f 2 -n 500 -w 50 -c 1 --check-max 16M --timing all -T 30"
  if [ $n -ge 4 ]; then
    t timeout 40 ./nt/${c}_perf -g 4 -b 512K -e 32M -f 2 -n 500 -w 50 -z 0
    t timeout 40 ./nt/${c}_perf -g 4 -b 512K -e 32M -f 2 -n 500 -w 50 -z 1
    for i in 1 2; do
      t timeout 60 ./pccl-perf-new -g 4 $M
      t timeout 60 ./pccl-perf-bpb256 -g 4 $M
      t timeout 60 ./pccl-perf-bpb128 -g 4 $M
      t timeout 60 env PCCL_INTERLEAVE=1 ./pccl-perf-new -g 4 $M
      t timeout 60 env PCCL_SLOTS=8 ./pccl-perf-new -g 4 $M
      t timeout 60 env PCCL_CHUNK_BYTES=32K ./pccl-perf-new -g 4 $M
    done
  fi
  for i in 1 2; do
    t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-new -g 2 $M
    t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-bpb256 -g 2 $M
    t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-bpb128 -g 2 $M
  done
  t timeout 40 env CUDA_VISIBLE_DEVICES=0,1 ./nt/${c}_perf -g 2 -b 512K -e 32M -f 2 -n 500 -w 50 -z 0
done
echo "== (b) done at $((SECONDS - T0)) s" >> $S
# (b') small sizes: nccl-tests with one thread per GPU (-t N -g 1, as pccl-perf drives NCCL and pccl) against
# its one thread for all GPUs (-g N), and pccl, 8 B-32 MiB, -n 200, 4 and 2 GPUs
for g in 4 2; do
  [ $g -le $n ] || continue
  V=$(seq -s, 0 $((g - 1)))
  for z in 0 1; do
    t timeout 40 env CUDA_VISIBLE_DEVICES=$V ./nt/all_reduce_perf -t $g -g 1 -b 8 -e 32M -f 4 -n 200 -w 20 -z $z
    t timeout 40 env CUDA_VISIBLE_DEVICES=$V ./nt/all_reduce_perf -g $g -b 8 -e 32M -f 4 -n 200 -w 20 -z $z
  done
  for i in 1 2; do
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V ./pccl-perf-new -g $g --coll all_reduce -b 8 -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 16M --timing all -T 30
  done
done
echo "== (b') done at $((SECONDS - T0)) s" >> $S
step random$n 0 60 ./pccl-deadlock --gpus $n --iters 100
step random$n-sync 0 60 ./pccl-deadlock --gpus $n --iters 100 --sync
step chaos$n 0 60 ./pccl-deadlock --gpus $n --iters 30 --chaos
step share$n 0 90 ./pccl-share --gpus $n --seeds 20 --iters 10
step gpu-test$n 0 170 ./pccl-gpu-test --gpus $n
step memcheck$n 0 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-deadlock --gpus $n --iters 2
grep -E "^RESULT|passed, |FAILED|^FAIL|ERROR SUMMARY" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $C $L
