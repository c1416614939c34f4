#!/bin/bash
# Call 9 (2 H200s): issue 16's last 2-GPU gap (call 2: the round trip of all-reduce at 512 KiB 0.93-0.94
# of nccl-tests -t 2, the ring in Simple there; direct up to 256 KiB): the all-reduce 256 KiB-2 MiB in
# both timings with the tuner's choice, the direct algorithm (PCCL_ALGO=direct), LL (PCCL_PROTO=ll) and
# both, three interleaved rounds; nccl-tests -t 2 -g 1 beside them in both modes.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 256K -e 2M -f 2 -n 2000 -w 50 -c 0 -T 20 --timing all"
for i in 1 2 3; do
  for v in PCCL_X=auto PCCL_ALGO=direct PCCL_PROTO=ll "PCCL_ALGO=direct PCCL_PROTO=ll"; do
    t timeout 30 env $v ./pccl-perf $P
  done
  t timeout 30 ./nt/all_reduce_perf -t 2 -g 1 -b 256K -e 2M -f 2 -n 2000 -w 50 -z 0
  t timeout 30 ./nt/all_reduce_perf -t 2 -g 1 -b 256K -e 2M -f 2 -n 2000 -w 50 -z 1
done
step check 0 60 env PCCL_ALGO=direct ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 256K -e 4M -f 2 -n 3 -w 1 -c 1 -o all -d all --timing all
call_end
