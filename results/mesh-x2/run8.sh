#!/bin/bash
# Call 8 (2 H200s): the build with the mesh (88f1f5f, call 7's) against NVIDIA's nccl-tests 2.19.6 in one
# lease, float, the five collectives, 8 B-1 GiB, out of place and in place, back to back and round trip
# (scripts/perf-vs-nccl-tests, as the README's table); the default algorithms (the mesh is forced only).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
O=$OUT/d; mkdir -p $O; S=$O/summary.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  timeout -k 3 $lim "$@" >> $O/log.txt 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
step vs2 0 300 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
[ -d "$O/vs2" ] && (cd "$O" && tar czf vs2.tar.gz vs2 && rm -rf vs2)
echo "== all done at $((SECONDS - T0)) s" >> $S
