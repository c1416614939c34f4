#!/bin/bash
# Call 6 (4 H100s): this commit's build on 4 GPUs. (1) Both halves at 4-16 MiB back to back and round
# trip (prev: call 5's, group 1 alone), two rounds. (2) Small all-reduces back to back with 4, 8 and 16
# invocations in flight (--pccl-depth), 8 B-512 KiB, two rounds: is pccl's 2x against nccl-tests -t 4 the
# depth of pccl-perf's pipeline? (3) The five collectives against nccl-tests, -g 4 and -t 4. (4) The
# cross-rank sharing test and the correctness suite on 4 GPUs.
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
done; done
t timeout 40 ./nt/all_reduce_perf -t $n -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 0
echo "== (2) done at $((SECONDS - T0)) s" >> $S
step vs$n 0 240 ./perf-vs-nccl-tests --gpus $n --out $O/vs$n --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
step share$n 0 90 ./pccl-share --gpus $n --seeds 20 --iters 10
step gpu-test$n 0 170 ./pccl-gpu-test --gpus $n
grep -E "^RESULT|passed, |FAILED|^FAIL|agree" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf vs.tgz vs$n && rm -rf vs$n)
gzip -9 $C $L
