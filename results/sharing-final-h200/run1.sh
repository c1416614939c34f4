#!/bin/bash
# Call 1 (one H200, 2026-11-29): issue 22 measured whole on one build (6c0e9bc's library, the same as
# results/offset-h200 call 6's but for refactors): what the time slice costs, at every size and with
# rounds enough to bound it, beside nccl-tests in the same lease; and what the waiting calls see.
#  1. pccl-slice-ab, the 6 ms slice (the default) against none, 8 B to 512 MiB (96 rounds in 8 sets
#     up to 8 MiB, 48 above), and its null (neither sliced) at 8 B and 32 KiB: the tool's own bias.
#  2. nccl-tests all_reduce_perf -g 1, back to back (as it runs) and -z 1 (each waited for).
#  3. pccl-perf -g 1, all-reduce 8 B-512 MiB back to back and round trip, the defaults and
#     PCCL_SLICE_US=0 in turn, twice each: scripts/share-cost makes the table against nccl-tests from runs.txt.
#  4. pccl-share --reps 16, twice: each implicit synchronization while collectives stream, NCCL beside.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/sharing-final-h200/run1.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/x2
. ./call.sh
call_begin d
for s in 8:20000:96:8 32K:20000:96:8 512K:20000:96:8 2M:20000:96:8 8M:5000:96:8 128M:1000:48:8 512M:250:48:8; do
  IFS=: read -r b n r k <<< "$s"
  t timeout 90 ./pccl-slice-ab -b $b -n $n -r $r --sets $k
done
for b in 8 32K; do t timeout 60 ./pccl-slice-ab -b $b -n 20000 -r 48 --sets 8 --slice-us 0; done
t timeout 120 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
t timeout 120 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20 -z 1
P="./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512M -f 4 -n 2000 -w 50 --iter-bytes 16G --check-max 16M -T 20"
for k in 1 2; do
  for m in b2b rt; do
    t timeout 100 env $P --timing $m
    t timeout 100 env PCCL_SLICE_US=0 $P --timing $m
  done
done
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
for k in 1 2; do t timeout 120 ./pccl-share --reps 16; done
call_end
