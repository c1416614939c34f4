#!/bin/bash
# Call 25 (4 H200s; prepared 2026-11-29, not yet run: no 4-GPU kind lent after call 22): call 21's
# sweeps on the build with the launch-ahead fixes (results/offset-h200/: the offset sampled at every
# end, the stack sized at init, a slice that ends idle relaunched by the next invocation), base
# (b92b584, pccl-perf-base) against it in turn, every relaunch logged and counted (ahead.py), the rows
# compared (ab.py); then this build against nccl-tests on 4 GPUs, float; then (added with
# results/slowmode-x2's placement by id, which this build has and base has not) the slow mode's check
# and the slice's cost inside one process on 4 GPUs (pccl-slice-ab -g 4, 48 rounds in 12 sets).
# Staged by `VARIANTS=base bash results/x2-h200/stage.sh` (.dev/variants/pccl-perf-base built from
# b92b584); device command `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run25.sh`, carry
# .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
S="-g 4 --lib pccl --coll all_reduce,reduce_scatter,reduce -d bfloat16 -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all"
k=0
for b in pccl-perf-base pccl-perf pccl-perf pccl-perf-base; do
  k=$((k + 1))
  t env PCCL_SLICE_LOG=$O/t/$b-$k.csv ./$b $S
done
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-base-*.csv
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-[0-9]*.csv
(cd $O && tar cf - t | xz -T8 > t.tar.xz && rm -rf t)
step vs4 0 240 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10 --again
[ -d "$O/vs4" ] && (cd "$O" && tar czf vs4.tar.gz vs4 && rm -rf vs4)
for b in 32K 512K; do t timeout 60 ./pccl-slice-ab -g 4 -n 20000 -r 16 --sets 4 --slice-us 0 -b $b; done
for s in 8:20000 32K:20000 2M:10000; do t timeout 60 ./pccl-slice-ab -g 4 -b ${s%%:*} -n ${s##*:} -r 48 --sets 12; done
call_end
