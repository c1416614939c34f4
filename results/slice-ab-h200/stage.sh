#!/bin/bash
# Stages .dev/sab for run13.sh: this checkout's `make gpu` (the programs scripts/test-gpu runs, and
# pccl-slice-ab), nccl-tests' all_reduce_perf from ../shared, results/call.sh; packed as
# .dev/sab.tar.xz, which the device call carries and unpacks into .dev.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/sab; rm -rf $d; mkdir -p $d/nt
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-gpu-test pccl-deadlock nccl-deadlock pccl-multiproc pccl-share pccl-stream pccl-fault pccl-perf pccl-perf-proc \
         pccl-example pccl-slice-ab; do
  cp build/gpu/$b $d/
done
cp ../shared/tools/nccl-tests/all_reduce_perf $d/nt/
cp results/call.sh $d/
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-* $d/nccl-deadlock
(cd .dev && tar cf - sab | xz -9e -T2 > sab.tar.xz)
ls -la .dev/sab.tar.xz
