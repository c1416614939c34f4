#!/bin/bash
# Stages .dev/x2 for runN.sh: `make gpu`'s programs (those scripts/test-gpu runs, and pccl-slice-ab since
# results/launcher-h200/), nccl-tests' five
# collectives from ../shared, results/call.sh and scripts/perf-vs-nccl-tests; packed as .dev/x2.tar.xz,
# which the device call carries and unpacks into .dev.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/x2; rm -rf $d; mkdir -p $d/nt
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-gpu-test pccl-ops-test pccl-deadlock nccl-deadlock pccl-multiproc pccl-share pccl-stream pccl-fault \
         pccl-perf pccl-perf-proc pccl-example pccl-slice-ab; do
  cp build/gpu/$b $d/
done
for c in all_reduce all_gather reduce_scatter reduce broadcast; do cp ../shared/tools/nccl-tests/${c}_perf $d/nt/; done
cp results/call.sh scripts/perf-vs-nccl-tests results/ahead-h200/lost.py $d/
# VARIANTS="a b": trial builds .dev/variants/pccl-perf-a ... (results/tune-x4/variant.sh) beside them
for v in ${VARIANTS:-}; do cp .dev/variants/pccl-perf-$v $d/; done
[ -z "${VARIANTS:-}" ] || cp .dev/variants/VARIANTS $d/
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-* $d/nccl-deadlock
(cd .dev && tar cf - x2 | nice xz -9 -T1 > x2.tar.xz)
ls -la .dev/x2.tar.xz
