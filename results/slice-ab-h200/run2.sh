#!/bin/bash
# Call 2: is call 1's spread between processes (8 B: 1.5, 5.0 and 2.3%) the slice's, or the two
# communicators'?  At 8 B, three processes each: A and B both without a slice (the null), the slice on
# B instead of A (--slice-us 0 --base-us 4000), and both with it.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2 3; do
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 0 --base-us 0
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 0 --base-us 4000
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 4000 --base-us 4000
done
call_end
