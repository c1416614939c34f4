#!/bin/bash
# timeline.txt from the call's logs (logs/ of $OUT/s2t; here only round 1's two-rank files are kept:
# tar xJf round1-g2.tar.xz). run.sh took the steady interval from both ranks' lines of the off run,
# half the true one (timeline-as-run.txt: every two-rank row "lost" 50%); this takes rank 0's, for each
# placement (timeline.py --base-from).
#   cd DIR_WITH_logs && bash retime.sh > timeline.txt
here=$(cd "$(dirname "$0")" && pwd)
cd logs || exit 2
for i in 1 2 3; do for g in 2 1; do
  [ -f g$g-off-$i.times ] || continue
  for v in grid unaligned; do
    [ -f g$g-$v-$i.csv ] || continue
    echo "# g$g $v round $i"
    python3 "$here/../timeline.py" g$g-$v-$i.times g$g-$v-$i.csv --base-from g$g-off-$i.times
  done
done; done
