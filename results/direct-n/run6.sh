#!/bin/bash
# Call 6 (4 GPUs, when nvidia-h100-x4 was lent again): the committed build (new) on 4 real GPUs: the
# direct all-reduce (auto: up to 32 KiB) against the ring (PCCL_ALGO=ring) and main 1b589e0 (base: the
# build before this change, the host's placement of small collectives included, not yet measured on 4
# GPUs), 8 B-512 KiB, round trip and back to back, three rounds;
# nccl-tests -t 4 -g 1 and -g 4 on the same sizes; PCCL_TRACE_LAT at 8 B; the five collectives against
# nccl-tests; issue 22's slice cost (2 MiB back to back, 40,000 a run, off and on, three runs each);
# correctness (direct on 4 GPUs and on 5 ranks folded onto 4, the suite, deadlock tests, memcheck).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
step check4 0 90 env PCCL_ALGO=direct ./pccl-perf -g $n --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step check5 0 60 env PCCL_ALGO=direct ./pccl-perf --share-gpu=$n -g 5 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d float,half,int8
step check4-auto 0 60 ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 1M -f 4 -n 5 -w 1 -c 1 -o all --timing all
echo "== (1) done at $((SECONDS - T0)) s" >> $S
M="--coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 0 --timing all -T 30"
for i in 1 2 3; do
  t timeout 60 ./pccl-perf-base -g $n --lib pccl $M
  for a in ring auto; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g $n --lib pccl $M; done
done
for z in 0 1; do for g in "-t $n -g 1" "-g $n"; do
  t timeout 60 ./nt/all_reduce_perf $g -b 8 -e 512K -f 4 -n 500 -w 50 -z $z
done; done
for a in ring auto; do t timeout 60 env PCCL_ALGO=$a PCCL_TRACE_LAT=1 ./pccl-perf -g $n --lib pccl --coll all_reduce -b 8 -e 8 -n 2000 -w 50 -c 0 --timing rt -T 30; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
P="-g $n --lib pccl --coll all_reduce -b 2M -e 2M -n 40000 -w 200 --check-max 16M -T 20"
for i in 1 2 3; do for s in 0 4000; do t timeout 30 env PCCL_SLICE_US=$s ./pccl-perf $P; done; done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
step vs$n 0 200 ./perf-vs-nccl-tests --gpus $n --out $O/vs$n --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd $O && tar czf vs$n.tgz vs$n && cp vs$n/vs-nccl-tests.txt vs$n-nccl-tests.txt && rm -rf vs$n)
step memcheck4 0 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf -g $n --lib pccl --coll all_reduce -b 8 -e 32K -f 4 -n 3 -w 1 -c 1 -d float,half
step random$n 0 40 ./pccl-deadlock --gpus $n --iters 100
step chaos$n 0 40 ./pccl-deadlock --gpus $n --iters 30 --chaos
step gpu-test$n 0 150 ./pccl-gpu-test --gpus $n
call_end
