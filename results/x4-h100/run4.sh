#!/bin/bash
# Call 4: (1) groups of interleaved loops on the blocks a collective wants, not on all of them (ilvfix:
# register.c's per_grp = blocks, not kb; at 8 MiB on 4 GPUs 16 blocks of two loops, where new spreads 32
# loops on 32 blocks and two invocations in flight fill the 64), against new: all-reduce, reduce-scatter and
# all-gather 512 KiB-32 MiB on 4 GPUs, all-reduce and reduce-scatter on 2, two rounds interleaved.
# (2) The five collectives against nccl-tests with new, on all the GPUs. (3) 2 GPUs, 32 and 128 MiB
# all-reduce back to back, base and new, with and without claimed groups (PCCL_DYNAMIC=0). (4) nccl-tests
# with one thread per GPU (-t N -g 1) beside -g N and pccl, all-reduce 8 B-32 MiB, on all the GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4d; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
n=$(nvidia-smi -L | grep -c '^GPU')
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
M="--lib pccl -b 512K -e 32M -f 2 -n 500 -w 50 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2; do
  for c in all_reduce reduce_scatter all_gather; do
    [ $n -ge 4 ] || continue
    t timeout 60 ./pccl-perf-new -g $n --coll $c $M
    t timeout 60 ./pccl-perf-ilvfix -g $n --coll $c $M
  done
  for c in all_reduce reduce_scatter; do
    t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-new -g 2 --coll $c $M
    t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-ilvfix -g 2 --coll $c $M
  done
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
timeout 200 ./perf-vs-nccl-tests --gpus $n --out $O/vs --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10 >> $L 2>&1
echo "== (2) exit $? at $((SECONDS - T0)) s" >> $S
D="-g 2 --lib pccl --coll all_reduce -b 32M -e 128M -f 4 -n 200 -w 20 -c 1 --check-max 16M --timing b2b -T 30"
for i in 1 2; do for v in base new; do
  t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-$v $D
  t timeout 60 env CUDA_VISIBLE_DEVICES=0,1 PCCL_DYNAMIC=0 ./pccl-perf-$v $D
done; done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
for z in 0 1; do
  t timeout 40 ./nt/all_reduce_perf -t $n -g 1 -b 8 -e 32M -f 4 -n 200 -w 20 -z $z
  t timeout 40 ./nt/all_reduce_perf -g $n -b 8 -e 32M -f 4 -n 200 -w 20 -z $z
done
t timeout 60 ./pccl-perf-new -g $n --coll all_reduce -b 8 -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 16M --timing all -T 30
echo "== (4) done at $((SECONDS - T0)) s" >> $S
grep -c "exit 0" $C >> $S
grep "agree" $L >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf vs.tgz vs && rm -rf vs)
gzip -9 $C $L
