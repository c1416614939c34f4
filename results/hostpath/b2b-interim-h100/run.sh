#!/bin/bash
# helper "b2b" (issue 16: back-to-back small collectives on one GPU), ONE GPU, at most 150 s (self-limited).
# all_reduce float sum, 8 B .. 8 KiB (x4), -n 500 -w 50 -c 1, pccl only, 1 rank:
#   base  = main (base/COMMIT): block 0 reads an SQ entry, then its buffers (2 PCIe round trips each),
#           and posts each completion behind its own system-scope fence;
#   after = branch b2b (after/COMMIT): up to 4 SQ records per look in one round trip, one fence per pass;
#   each  = after with one fence per completion again (-DPCCL_FLUSH_EACH): the batched fetch alone;
#   spread = branch b2b (spread/COMMIT): after + a collective on one block runs on block id % blocks;
#   --timing all (b2b and rt) twice each, interleaved; --split --timing b2b (PCCL_PROFILE=1) for each;
#   spread with --pccl-depth 16 and 1, base and after with 16; nccl-tests all_reduce_perf (back to back) as the baseline;
#   pccl-gpu-test --gpus 1 --quick --max-bytes 1M of the spread build (correctness, chaos communicator).
# Writes $OUT/b2b/log.txt (everything) and $OUT/b2b/perf.csv (every pccl-perf row, +variant,run).
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/b2b-out}/b2b; mkdir -p "$O"
L=$O/log.txt; C=$O/perf.csv; : > "$L"; : > "$C"
T0=$SECONDS; BUDGET=148
t() { local lim=$1; shift; local left=$((BUDGET - (SECONDS - T0)))
  [ $left -lt $lim ] && lim=$left
  if [ $lim -le 2 ]; then echo "== SKIPPED (budget): $*" >> "$L"; return; fi
  local t0=$SECONDS; echo "== $* (timeout $lim)" >> "$L"; timeout "$lim" "$@" >> "$L" 2>&1
  echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$L"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; cat base/COMMIT after/COMMIT each/COMMIT spread/COMMIT; } >> "$L" 2>&1
P="--lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 -T 8"
perf() { # variant run [extra pccl-perf args]
  local v=$1 k=$2; shift 2
  t 12 ./$v/pccl-perf -g 1 $P "$@" --csv "$O/p.csv"
  [ -f "$O/p.csv" ] && awk -v v=$v -v k=$k -v h=$([ -s "$C" ] && echo 0 || echo 1) \
    'NR==1 { if (h) print $0 ",variant,run"; next } { print $0 "," v "," k }' "$O/p.csv" >> "$C"
  rm -f "$O/p.csv"
}
t 15 ./nccl-tests/all_reduce_perf -b 8 -e 8K -f 4 -g 1 -n 500 -w 50 -c 1
perf base 1 --timing all; perf after 1 --timing all; perf spread 1 --timing all; perf each 1 --timing all
perf spread split --split --timing b2b; perf after split --split --timing b2b; perf base split --split --timing b2b
t 40 ./spread/pccl-gpu-test --gpus 1 --quick --max-bytes 1M
perf base 2 --timing all; perf after 2 --timing all; perf spread 2 --timing all; perf each 2 --timing all
perf each split --split --timing b2b
perf spread d16 --timing b2b --pccl-depth 16; perf base d16 --timing b2b --pccl-depth 16
perf spread d1 --timing b2b --pccl-depth 1; perf after d16 --timing b2b --pccl-depth 16
t 15 ./nccl-tests/all_reduce_perf -b 8 -e 8K -f 4 -g 1 -n 500 -w 50 -c 1
echo "== total $((SECONDS - T0)) s" >> "$L"
grep -E "^==|RESULT|FAIL|passed|failed" "$L"
