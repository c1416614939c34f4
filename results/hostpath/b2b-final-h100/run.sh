#!/bin/bash
# helper "b2b" (issue 16: back-to-back small collectives on one GPU), FINAL, ONE GPU, at most 150 s (self-limited).
# all_reduce float sum, 8 B .. 8 KiB (x4), -n 500 -w 50 -c 1, pccl only, 1 rank:
#   base = main d61d8d2 (base/COMMIT): block 0 reads an SQ entry, then its buffers (2 PCIe round trips each),
#          each completion behind its own system-scope fence, every small collective on block 0;
#   b4   = branch b2b (b4/COMMIT): SQ record = 2 tagged words in one 16-byte load (a look reads the
#          head record, and where it is there the next 3 at once), one fence per pass for the
#          completions, a small collective on block id % blocks;
#   b1   = b4 built with -DPCCL_SQ_BATCH=1 (the head record only per look);
#   b4ns = b4 before the merge with main (f996476), every small collective on block 0 (no spread);
#   --timing all twice each, interleaved; --split --timing b2b and rt; --pccl-depth 16;
#   nccl-tests all_reduce_perf (back to back) twice; pccl-gpu-test --gpus 1 --quick (b4).
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
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; for v in base b4 b1 b4ns; do echo "$v: $(cat $v/COMMIT)"; done; } >> "$L" 2>&1
P="--lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 -T 8"
perf() { # variant run [extra pccl-perf args]
  local v=$1 k=$2; shift 2
  t 12 ./$v/pccl-perf -g 1 $P "$@" --csv "$O/p.csv"
  [ -f "$O/p.csv" ] && awk -v v=$v -v k=$k -v h=$([ -s "$C" ] && echo 0 || echo 1) \
    'NR==1 { if (h) print $0 ",variant,run"; next } { print $0 "," v "," k }' "$O/p.csv" >> "$C"
  rm -f "$O/p.csv"
}
t 15 ./nccl-tests/all_reduce_perf -b 8 -e 8K -f 4 -g 1 -n 500 -w 50 -c 1
perf base 1 --timing all; perf b4 1 --timing all; perf b1 1 --timing all; perf b4ns 1 --timing all
perf b4 split --split --timing b2b; perf b1 split --split --timing b2b; perf base split --split --timing b2b
perf b4ns split --split --timing b2b
perf b4 splitrt --split --timing rt; perf base splitrt --split --timing rt; perf b1 splitrt --split --timing rt
t 60 ./b4/pccl-gpu-test --gpus 1 --quick
perf base 2 --timing all; perf b4 2 --timing all; perf b1 2 --timing all; perf b4ns 2 --timing all
perf b4 d16 --timing b2b --pccl-depth 16; perf base d16 --timing b2b --pccl-depth 16
perf b1 d16 --timing b2b --pccl-depth 16; perf b4ns d16 --timing b2b --pccl-depth 16
t 15 ./nccl-tests/all_reduce_perf -b 8 -e 8K -f 4 -g 1 -n 500 -w 50 -c 1
echo "== total $((SECONDS - T0)) s" >> "$L"
grep -E "^==|RESULT|FAIL|passed|failed" "$L"
