#!/bin/bash
# Stages .dev/st for runN.sh: this checkout's pccl-perf, pccl-slice-ab and pccl-share (`make gpu`) and
# results/call.sh, packed as .dev/st.tar.xz, which the device call carries and unpacks into .dev.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/st; rm -rf $d; mkdir -p $d
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-perf pccl-slice-ab pccl-share; do cp build/gpu/$b $d/; done
cp results/call.sh $d/
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-*
(cd .dev && tar cf - st | xz -9 -T2 > st.tar.xz)
ls -la .dev/st.tar.xz
