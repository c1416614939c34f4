#!/bin/bash
# Which calls that wait for a busy GPU hold up another thread's cudaStreamQuery? Lazy loading (default),
# then eager; 4 reps each.
set -u
cd .dev/lp; O=$OUT/lp; mkdir -p $O
nvidia-smi -L > $O/out.txt
echo "== CUDA_MODULE_LOADING default (lazy)" >> $O/out.txt
timeout 60 ./probe 4 >> $O/out.txt 2>&1; echo "== exit $?" >> $O/out.txt
echo "== CUDA_MODULE_LOADING=EAGER" >> $O/out.txt
CUDA_MODULE_LOADING=EAGER timeout 60 ./probe 4 >> $O/out.txt 2>&1; echo "== exit $?" >> $O/out.txt
