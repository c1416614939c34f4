#!/bin/bash
# helper "hostpath" (issue 16, item 3: pccl's SQ -> daemon -> CQ -> poller -> waiter path), ONE GPU, at most 88 s.
# all_reduce float sum, 8 B .. 512 KiB (x4), -n 500 -w 50, --timing all (b2b and rt), pccl only, 1 rank:
#   base  = main at 950f67a (before);  after = branch hostpath (see after/COMMIT); after1 = the branch at
#           143ad37 (before block 0's one-entry fetch: after1/COMMIT); each run twice, interleaved;
#   trace = after with PCCL_TRACE_LAT=1 (per-hop medians per consumer: "pccl-trace" lines in the log);
#   spin0 = after with PCCL_WAIT_SPIN_US=0 (the waiter sleeps at once, as before);
#   split = base and after with --split (PCCL_PROFILE=1: the daemon's share of a round trip);
#   nccl-tests all_reduce_perf -z 0 (back to back) and -z 1 (a wait after each);
#   2 ranks as processes on GPU 0 (pccl-perf-proc, 8 B round trips): main faa9f43 vs after, twice each;
#   pccl-gpu-test --gpus 1 --quick --max-bytes 64K of the after build (correctness; misuse: the buffer check).
# Writes $OUT/hostpath/log.txt (everything) and $OUT/hostpath/perf.csv (every pccl-perf row, +variant,run).
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/hostpath-out}/hostpath; mkdir -p "$O"
L=$O/log.txt; C=$O/perf.csv; : > "$L"; : > "$C"
T0=$SECONDS; BUDGET=88
t() { local lim=$1; shift; local left=$((BUDGET - (SECONDS - T0)))
  [ $left -lt $lim ] && lim=$left
  if [ $lim -le 2 ]; then echo "== SKIPPED (budget): $*" >> "$L"; return; fi
  local t0=$SECONDS; echo "== $* (timeout $lim)" >> "$L"; timeout "$lim" "$@" >> "$L" 2>&1
  echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$L"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; cat after/COMMIT after1/COMMIT; } >> "$L" 2>&1
P="--lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing all -T 8"
perf() { # variant run [extra pccl-perf args]
  local v=$1 k=$2; shift 2; local bin=./after/pccl-perf tr=0 sp=PCCL_WAIT_SPIN_US=100
  case $v in base*) bin=./base/pccl-perf;; after1) bin=./after1/pccl-perf;; trace) tr=1;; spin0) sp=PCCL_WAIT_SPIN_US=0;; esac
  t 12 env PCCL_TRACE_LAT=$tr $sp $bin -g 1 $P "$@" --csv "$O/p.csv"
  [ -f "$O/p.csv" ] && awk -v v=$v -v k=$k -v h=$([ -s "$C" ] && echo 0 || echo 1) \
    'NR==1 { if (h) print $0 ",variant,run"; next } { print $0 "," v "," k }' "$O/p.csv" >> "$C"
  rm -f "$O/p.csv"
}
perf base 1; perf after 1; perf after1 1; perf base 2; perf after 2; perf after1 2; perf trace 1; perf spin0 1
for z in 0 1; do t 8 ./nccl-tests/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z $z; done
t 6 ./base/pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512K -f 8 -n 200 -w 20 --split
t 6 ./after/pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512K -f 8 -n 200 -w 20 --split
# 2 ranks as processes sharing GPU 0 (pccl-perf-proc: pcclRun + pcclWait, 8 B, out of place): main at
# faa9f43 (base/pccl-perf-proc-main: the lead's build, without this branch) against after
for v in main after main after; do
  bin=./after/pccl-perf-proc; [ $v = main ] && bin=./base/pccl-perf-proc-main
  rm -f "$O/id"
  echo "== 2 procs on GPU 0: $v" >> "$L"
  timeout 8 $bin --rank 1 --nranks 2 --id-file "$O/id" -b 8 -n 2000 -w 200 --device 0 >> "$L" 2>&1 &
  t 8 $bin --rank 0 --nranks 2 --id-file "$O/id" -b 8 -n 2000 -w 200 --device 0
  wait; rm -f "$O/id"
done
t 30 ./after/pccl-gpu-test --gpus 1 --quick --max-bytes 64K
echo "== total $((SECONDS - T0)) s" >> "$L"
grep -E "^==|RESULT|FAIL|pccl-trace|passed|failed" "$L"
