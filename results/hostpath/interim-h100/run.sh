#!/bin/bash
# helper "hostpath" (issue 16, item 3: pccl's SQ -> daemon -> CQ -> poller -> waiter path), at most 88 s.
# all_reduce float sum, 8 B .. 1 MiB (x4), -n 200 -w 20, --timing all (b2b and rt), pccl only, 2 GPUs then 1:
#   base   = main at 950f67a (before);  after = branch hostpath (b4cde48);
#   trace  = after with PCCL_TRACE_LAT=1 (per-hop medians: "pccl-trace" lines in the log);
#   spin0  = after with PCCL_WAIT_SPIN_US=0 (2 GPUs);  trace0 = after0 (after without its one-call buffer
#            check, 4b3fe0d) with PCCL_TRACE_LAT=1 (1 GPU: the "run" hop against trace's);
#   nccl-tests all_reduce_perf -z 0 (back to back) and -z 1 (a wait after each) on the same GPUs;
#   pccl-gpu-test --gpus 2 --quick --max-bytes 64K of the after build (correctness, misuse: the buffer check).
# Writes $OUT/hostpath/log.txt (everything) and $OUT/hostpath/perf.csv (every pccl-perf row, +variant,ranks).
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/hostpath-out}/hostpath; mkdir -p "$O"
L=$O/log.txt; C=$O/perf.csv; : > "$L"; : > "$C"
T0=$SECONDS; BUDGET=88
t() { local lim=$1; shift; local left=$((BUDGET - (SECONDS - T0)))
  [ $left -lt $lim ] && lim=$left
  if [ $lim -le 2 ]; then echo "== SKIPPED (budget): $*" >> "$L"; return; fi
  local t0=$SECONDS; echo "== $* (timeout $lim)" >> "$L"; timeout "$lim" "$@" >> "$L" 2>&1
  echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$L"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; } >> "$L" 2>&1
P="--lib pccl --coll all_reduce -b 8 -e 1M -f 4 -n 200 -w 20 -c 1 --timing all -T 8"
perf() { # g variants...
  local g=$1; shift; local vis=$([ $g = 1 ] && echo 0 || echo 0,1)
  for v in "$@"; do
    local bin=./after/pccl-perf tr=0 sp=PCCL_WAIT_SPIN_US=100
    case $v in base) bin=./base/pccl-perf;; trace) tr=1;; trace0) tr=1; bin=./after0/pccl-perf;; spin0) sp=PCCL_WAIT_SPIN_US=0;; esac
    t 10 env CUDA_VISIBLE_DEVICES=$vis PCCL_TRACE_LAT=$tr $sp $bin -g $g $P --csv "$O/p.csv"
    [ -f "$O/p.csv" ] && awk -v v=$v -v g=$g -v h=$([ -s "$C" ] && echo 0 || echo 1) \
      'NR==1 { if (h) print $0 ",variant,ranks"; next } { print $0 "," v "," g }' "$O/p.csv" >> "$C"
    rm -f "$O/p.csv"
  done
  for z in 0 1; do
    t 8 env CUDA_VISIBLE_DEVICES=$vis ./nccl-tests/all_reduce_perf -g $g -b 8 -e 1M -f 4 -n 200 -w 20 -z $z
  done
}
perf 2 base after trace spin0
t 20 ./after/pccl-gpu-test --gpus 2 --quick --max-bytes 64K
perf 1 base after trace trace0
echo "== total $((SECONDS - T0)) s" >> "$L"
grep -E "^==|RESULT|FAIL|pccl-trace|passed|failed" "$L"
