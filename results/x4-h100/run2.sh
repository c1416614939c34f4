#!/bin/bash
# Four H100s, call 2 (the same lease as call 1): issue 22's slice cost across ranks on 2 and 4 GPUs (the
# slice off, the default grid on the host's clock, each rank's slice its own, early cuts of up to 1 ms, an
# 8 ms slice), all-reduce 8 B-512 MiB back
# to back -n 500, three rounds interleaved, nccl-tests beside; 2 MiB alone; the overlap with a GEMM on 4
# GPUs; one rank's step cost, this build (new) against main be7345b (base); memcheck on 4 GPUs; the
# one-GPU table of issue 22 (pccl-share on GPU 0).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4b; mkdir -p $O; S=$O/summary.txt; C=$O/cost.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; }
for g in 2 4; do
  V=$(seq -s, 0 $((g - 1)))
  Q="-g $g --lib pccl --coll all_reduce -b 8 -e 512M -f 4 -n 500 -w 20 --iter-bytes 16G --check-max 16M -T 30"
  for i in 1 2 3; do
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_US=0 ./pccl-perf $Q
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V ./pccl-perf $Q
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_ALIGN=0 ./pccl-perf $Q
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_EARLY_US=1000 ./pccl-perf $Q
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_US=8000 ./pccl-perf $Q
  done
  t timeout 40 env CUDA_VISIBLE_DEVICES=$V ./nt/all_reduce_perf -g $g -b 8 -e 512M -f 4 -n 500 -w 20
  P="-g $g --lib pccl --coll all_reduce -b 2M -e 2M -n 40000 -w 200 --check-max 16M -T 20"
  for i in 1 2 3; do
    t timeout 30 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_US=0 ./pccl-perf $P
    t timeout 30 env CUDA_VISIBLE_DEVICES=$V ./pccl-perf $P
  done
done
echo "== cost done at $((SECONDS - T0)) s" >> $S
K="-g 1 --lib pccl --coll all_reduce -b 128M -e 128M -n 200 -w 20 -c 1 --check-max 16M --timing all -T 30"
A="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 100 -w 10 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2 3; do for v in base new; do
  t timeout 40 env CUDA_VISIBLE_DEVICES=0 PCCL_CHUNK_BYTES=16384 ./pccl-perf-$v $K
  t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-$v $A
done; done
echo "== step A/B done at $((SECONDS - T0)) s" >> $S
step overlap4 150 ./perf --gpus 4 --interfere-only --out $O/overlap --bin ./pccl-perf
step memcheck4 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-deadlock --gpus 4 --iters 2
step share1 120 env CUDA_VISIBLE_DEVICES=0 ./pccl-share
grep -E "^RESULT|ERROR SUMMARY" $L | head -30 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf overlap.tgz overlap && rm -rf overlap)
gzip -9 $C $L
