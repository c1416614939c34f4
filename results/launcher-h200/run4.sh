#!/bin/bash
# Call 4 (2 H200s): the clock offset fixed (the daemon's module loaded at init; a launch call the
# driver held gives no good sample, and the launch ahead waits for one; a relaunch after the end
# every 128 launches ahead for a fresh one).  Call 3's logs again (8 B on 2 GPUs twice, one GPU, 2 MiB
# on 2 GPUs); scripts/perf-ab --rounds 4 of pccl-perf -g 2 back to back, the default against no slice
# at 8 B, 32 KiB, 2 MiB, 128 MiB; pccl-slice-ab at 8 B and 32 KiB on GPU 0; scripts/test-gpu
# --sanitize (ITERS=100) on both GPUs; perf-vs-nccl-tests --gpus 2 if time is left.
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run4.sh
set -u
export NCCL_NVLS_ENABLE=0 BUDGET=585
top=$PWD
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/logs
p="./pccl-perf --lib pccl --coll all_reduce -c 0 --timing b2b -w 2000"
for k in 1 2; do
  t env PCCL_SLICE_LOG=$O/logs/g2-8-$k.csv $p -g 2 -b 8 -e 8 -n 200000
done
t env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_LOG=$O/logs/g1-8.csv $p -g 1 -b 8 -e 8 -n 300000
t env PCCL_SLICE_LOG=$O/logs/g2-2M.csv $p -g 2 -b 2M -e 2M -n 100000
(cd $O && tar cf - logs | xz -T4 > logs.tar.xz && rm -rf logs)
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
for s in "8 100000" "32K 100000" "2M 50000" "128M 1500"; do
  set -- $s
  t ../../scripts/perf-ab --rounds 4 --out $O/ab-$1 ./pccl-perf ./off -- --lib pccl -g 2 --coll all_reduce -b $1 \
      -e $1 -n $2 -w 2000 -c 0 --timing b2b
done
for d in $O/ab-*; do cat $d/ab.txt >> $S; done
(cd $O && tar cf - ab-* | xz -T4 > ab.tar.xz && rm -rf ab-*)
for s in 8 32K; do t env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4; done
cd "$top"
mkdir -p build && ln -sfn ../.dev/x2 build/gpu
step test-gpu 0 300 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
cd .dev/x2
step vs2 0 120 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
[ -d $O/vs2 ] && (cd $O && tar czf vs2.tar.gz vs2 && rm -rf vs2)
call_end
