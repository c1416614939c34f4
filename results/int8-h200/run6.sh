#!/bin/bash
# Call 6 (one H200): scripts/perf-ab's noise floor: the same build (pccl-perf-base: 1937884's, its daemon's code as at c55a995)
# as A and as B, every type and op of all-reduce, 2 ranks sharing the GPU, back to back, 128 MiB and
# 2 MiB, 3 rounds of A B B A each.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
mkdir -p "$O/ab128" "$O/ab2"
F="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b"
step ab128 0 200 ./perf-ab --rounds 3 --out "$O/ab128" ./pccl-perf-base ./pccl-perf-base -- $F -b 128M -e 128M -n 20 -w 3
step ab2 0 200 ./perf-ab --rounds 3 --out "$O/ab2" ./pccl-perf-base ./pccl-perf-base -- $F -b 2M -e 2M -n 300 -w 30
rm -f "$O"/ab*/[ab]-*.txt
tar czf "$O/ab.tar.gz" -C "$O" ab128 ab2 && rm -rf "$O/ab128" "$O/ab2" # a call returns 8 files at most
call_end
