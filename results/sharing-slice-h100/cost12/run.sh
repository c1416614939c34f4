#!/bin/bash
# The slice's cost with 12 interleaved pairs (on/off alternating first), one GPU.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/cost10; O=$OUT/cost10; mkdir -p $O; C=$O/cost.txt; T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
for i in $(seq 1 12); do
  if [ $((i % 2)) -eq 1 ]; then t timeout 10 ./pccl-perf $Q; t timeout 10 env PCCL_SLICE_US=0 ./pccl-perf $Q
  else t timeout 10 env PCCL_SLICE_US=0 ./pccl-perf $Q; t timeout 10 ./pccl-perf $Q; fi
  [ $((SECONDS - T0)) -gt 400 ] && break
done
