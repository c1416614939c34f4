#!/bin/bash
# Stages .dev/x4 for run1.sh and run2.sh: this checkout's `make gpu` (new), main be7345b's pccl-perf
# built by `make gpu` in a worktree at BASE (default /tmp/base), the VARIANTS' pccl-perf, nccl-tests from
# ../shared, the scripts;
# packed as .dev/x4.tar.xz, which the device call carries and unpacks into .dev.
set -eu
cd "$(dirname "$0")/../.."
base=${BASE:-/tmp/base}
d=.dev/x4; rm -rf $d; mkdir -p $d/nt
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-gpu-test pccl-deadlock nccl-deadlock pccl-multiproc pccl-share pccl-stream pccl-fault pccl-perf pccl-perf-proc pccl-example; do
  cp build/gpu/$b $d/
done
ln -s pccl-perf $d/pccl-perf-new
cp $base/build/gpu/pccl-perf $d/pccl-perf-base
# VARIANTS="name:dir ...": each dir's build/gpu/pccl-perf as pccl-perf-name (run3.sh: full, ptr, bpb256, bpb128)
for v in ${VARIANTS:-}; do cp ${v#*:}/build/gpu/pccl-perf $d/pccl-perf-${v%%:*}; done
cp scripts/perf scripts/perf-vs-nccl-tests $d/
cp results/call.sh $d/ # the run scripts' helpers
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o $d/clockread results/cycles-x2/clockread.cu # a clock read's cost (results/cycles-x2)
for c in all_reduce all_gather reduce_scatter reduce broadcast; do cp ../shared/tools/nccl-tests/${c}_perf $d/nt/; done
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-* $d/nccl-deadlock
# The working tree that travels holds 64 MiB; the binaries share their daemon's fatbin and pack to ~2 MiB.
(cd .dev && tar cf - x4 | xz -9e -T2 > x4.tar.xz)
ls -la .dev/x4.tar.xz
