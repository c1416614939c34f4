#!/bin/bash
# Call 6 (4 H100s): this commit's build on 4 GPUs. (1) Both halves at 4-16 MiB back to back and round
# trip (prev: call 5's, group 1 alone), two rounds. (2) Small all-reduces back to back with 4, 8 and 16
# invocations in flight (--pccl-depth), 8 B-512 KiB, two rounds: is pccl's 2x against nccl-tests -t 4 the
# depth of pccl-perf's pipeline, or where block 0 puts them (PCCL_SPREAD 1 and 0)? Where an 8 B
# all-reduce's time goes (PCCL_TRACE_LAT), 4 and 2 GPUs. (2') The slice's cost on 4 GPUs at 4, 5 and
# 6 ms. (3) The five collectives against nccl-tests, -g 4 and -t 4. (4) The cross-rank sharing test and
# the correctness suite on 4 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4f; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
n=$(nvidia-smi -L | grep -c '^GPU')
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
M="--lib pccl -b 4M -e 16M -f 2 -n 500 -w 50 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2; do for c in all_reduce reduce_scatter all_gather; do for v in prev new; do
  t timeout 60 ./pccl-perf-$v -g $n --coll $c $M
done; done; done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do for k in 4 8 16; do
  t timeout 60 ./pccl-perf-new -g $n --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth $k -T 30
done
  # where a small collective runs: block id % blocks on every rank (1), block 0 (0), against the default
  # (block 0 while free, else handed on: a rank's own state, so ranks may differ)
  for sp in 1 0; do
    t timeout 60 env PCCL_SPREAD=$sp ./pccl-perf-new -g $n --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing b2b -T 30
  done
done
t timeout 40 ./nt/all_reduce_perf -t $n -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 0
# where an 8 B all-reduce's time goes (PCCL_TRACE_LAT: each hop's median, printed at destroy), 4 and 2 GPUs
for g in $n 2; do for tm in b2b rt; do
  t timeout 60 env CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((g - 1))) PCCL_TRACE_LAT=1 ./pccl-perf-new -g $g --lib pccl --coll all_reduce -b 8 -e 8 -n 2000 -w 100 -c 1 --timing $tm -T 30
done; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
# issue 22's cost on 4 GPUs against the slice's length: 2 MiB back to back, 40,000 a run, two rounds
P="-g $n --lib pccl --coll all_reduce -b 2M -e 2M -n 40000 -w 200 --check-max 16M -T 20"
for i in 1 2; do for s in 0 4000 5000 6000; do t timeout 30 env PCCL_SLICE_US=$s ./pccl-perf-new $P; done; done
echo "== (2') done at $((SECONDS - T0)) s" >> $S
step vs$n 0 240 ./perf-vs-nccl-tests --gpus $n --out $O/vs$n --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
step share$n 0 90 ./pccl-share --gpus $n --seeds 20 --iters 10
step gpu-test$n 0 170 ./pccl-gpu-test --gpus $n
grep -E "^RESULT|passed, |FAILED|^FAIL|agree" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf vs.tgz vs$n && rm -rf vs$n)
gzip -9 $C $L
