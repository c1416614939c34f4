#!/bin/bash
# Call 3 (2 H200s, 2026-11-29): call 1's A B B A again, base (pccl-perf-base, b92b584) against this
# build, which since call 1 relaunches at the next invocation a daemon whose slice ended with nothing
# to run (lib/run.c, no PCCL_SLICE_GAP_US owed: call 2 showed the sweeps' relaunches were these) and
# tells the poller the end its blocks will take (lib/launch.c: half a slice on where the grid point is
# nearer); the float and bfloat16 sweeps with every relaunch logged (the log's new ahead column),
# ahead.py; then this build against nccl-tests on 2 GPUs, float and bfloat16.
# Staged by `VARIANTS=base bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/offset-h200/run3.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
S="-g 2 --lib pccl --coll all_reduce,reduce_scatter,reduce -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all"
k=0
for b in pccl-perf-base pccl-perf pccl-perf pccl-perf-base; do
  k=$((k + 1))
  t env PCCL_SLICE_LOG=$O/t/$b-$k.csv ./$b $S
  t env PCCL_SLICE_LOG=$O/t/$b-$k-bf16.csv ./$b $S -d bfloat16
done
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-base-*.csv
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-[0-9]*.csv
(cd $O && tar cf - t | xz -T4 > t.tar.xz && rm -rf t)
step vs2 0 200 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10 --again
[ -d "$O/vs2" ] && (cd "$O" && tar czf vs2.tar.gz vs2 && rm -rf vs2)
step vs2-bf16 0 150 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2-bf16" --nccl-tests nt --bin ./pccl-perf \
    --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d bfloat16
[ -d "$O/vs2-bf16" ] && (cd "$O" && tar czf vs2-bf16.tar.gz vs2-bf16 && rm -rf vs2-bf16)
call_end
