#!/bin/bash
# Call 1: probe.cu with the daemon in the primary context, in a green context of all SMs, and of 64.
# Staged: nvcc -arch=sm_90 -O2 -o .dev/green/probe probe.cu -lcuda; nvcc -arch=sm_90 -cubin -o .dev/green/mod.cubin mod.cu
export NCCL_NVLS_ENABLE=0
mkdir -p $OUT/d
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv > $OUT/d/gpu.txt
for g in -1 0 64; do
    a=; [ $g -ge 0 ] && a="--green $g"
    timeout 120 .dev/green/probe $a --hold-ms 300 --cubin .dev/green/mod.cubin > $OUT/d/probe$g.txt 2>&1; echo "rc $?" >> $OUT/d/probe$g.txt
done
cat $OUT/d/*.txt
