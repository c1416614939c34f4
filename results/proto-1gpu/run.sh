#!/bin/bash
# helper "ll" (issue 16, item 3), for ONE GPU (H100 or H200), about 110 s:
# the LL protocol and the direct all-reduce with 2 ranks sharing GPU 0.
#  1. correctness of LL on the GPU: pccl-perf --share-gpu -g 2, all five collectives x every
#     type x every op, 8 B and 8 KiB, checked (-c 1): PCCL_PROTO=ll (all-reduce direct),
#     then PCCL_PROTO=ll PCCL_ALGO=ring; 2 processes on GPU 0 (CUDA IPC), random orders + syncs
#     (pccl-multiproc --share 2, LL); fault injection with LL (pccl-fault --share 2)
#  2. a one-GPU proxy of the protocols' costs (no NVLink): pccl-perf --share-gpu -g 2 --lib pccl,
#     8 B .. 8 MiB (x4), --timing all, -c 1: all five with PCCL_PROTO=simple and =ll (ring);
#     all_reduce with PCCL_ALGO=direct in ll and simple; LL with a block per 64 KiB
#     (pccl-perf-llbpb64k: -DPCCL_LL_BYTES_PER_BLOCK=65536), all_reduce and all_gather from 128 KiB
# Writes $OUT/ll/log.txt (everything) and $OUT/ll/perf.csv (the step-2 runs; columns proto,algo,bin
# added: scripts/proto-table renders it).
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/ll-out}/ll; mkdir -p "$O"
L=$O/log.txt; C=$O/perf.csv; : > "$L"; : > "$C"
T0=$SECONDS
t() { local lim=$1; shift; local t0=$SECONDS; echo "== $* (timeout $lim)" >> "$L"; timeout "$lim" "$@" >> "$L" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$L"; }
perf() { # lim proto algo colls [bin [min size]]
  local f=$O/p.csv bin=${5:-pccl-perf}
  t $1 env PCCL_PROTO=$2 PCCL_ALGO=$3 ./$bin --share-gpu -g 2 --lib pccl --coll $4 -b ${6:-8} -e 8M -f 4 -n 20 -w 5 -c 1 --timing all -T 5 --csv "$f"
  [ -f "$f" ] && awk -v p=$2 -v a=$3 -v b=$bin -v h=$([ -s "$C" ] && echo 0 || echo 1) \
    'NR==1 { if (h) print $0 ",proto,algo,bin"; next } { print $0 "," p "," a "," b }' "$f" >> "$C"
  rm -f "$f"
}
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } >> "$L" 2>&1
CHK="--share-gpu -g 2 --lib pccl --coll all -d all -o all -b 8 -e 8K -f 1024 -n 1 -w 0 -c 1 --timing rt -T 5"
t 12 env PCCL_PROTO=ll ./pccl-perf $CHK
t 12 env PCCL_PROTO=ll PCCL_ALGO=ring ./pccl-perf $CHK
t 12 env PCCL_PROTO=ll ./pccl-multiproc --share 2 --iters 10 --sync --timeout 10
perf 17 simple ring all
perf 17 ll ring all
perf 7 ll direct all_reduce
perf 7 simple direct all_reduce
perf 7 ll ring all_reduce,all_gather pccl-perf-llbpb64k 128K
t 12 env PCCL_PROTO=ll ./pccl-fault --share 2 --seeds 2
echo "== total $((SECONDS - T0)) s" >> "$L"
grep -E "^==|RESULT|FAIL" "$L" | head -60
