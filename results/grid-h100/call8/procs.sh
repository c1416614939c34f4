#!/bin/bash
# pccl-share --procs 2 (both ranks on GPU 0), the slice alone: the grid (default) against PCCL_SLICE_ALIGN=0,
# five runs each, interleaved: is final15's 14.9 ms cuModuleUnload the grid's?
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/final15; O=$OUT/procs; mkdir -p $O; L=$O/log.txt; S=$O/summary.txt
nvidia-smi -L > $S; cat COMMIT >> $S
for i in 1 2 3 4 5; do
  for a in 1 0; do
    echo "==== align=$a run $i" >> $L
    t0=$SECONDS
    PCCL_SLICE_ALIGN=$a timeout -k 3 40 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5 >> $L 2>&1
    echo "== align=$a run $i: exit $?, $((SECONDS - t0)) s" >> $S
  done
done
awk '/^==== align/{k=$2} /^\| [a-zA-Z]/ && /\|/{n=split($0,f,"|"); split(f[4],p," "); m=p[length(p)]; name=f[2]; gsub(/^ +| +$/,"",name); if (m+0 > mx[k" "name]) mx[k" "name]=m+0} END{for (x in mx) print x": worst "mx[x]" ms"}' $L | sort >> $S
grep -c "a call past the bound" $L >> $S
gzip -9 $L
