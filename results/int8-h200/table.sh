#!/bin/bash
# Medians of a call's out-of-place back-to-back times (us), one line per collective, type, op, size
# and build (new: ./pccl-perf; base, split, split2: ./pccl-perf-BUILD), then every run's time in
# order.  Usage: table.sh callN/runs.txt.gz
zcat "$1" | awk '
/^== timeout/ { bin = $4; sub("./pccl-perf-?", "", bin); if (bin == "") bin = "new" }
/^# (all_reduce|all_gather|reduce_scatter|reduce|broadcast): / { coll = $2; sub(":", "", coll); ty = $3; op = $4 }
/^ +[0-9]+ +[0-9]+ / { k = coll " " ty " " op " " $1 " " bin; v[k] = v[k] " " $8 }
END { for (x in v) print x, v[x] }' | sort -k1,1 -k2,2 -k3,3 -k4,4n -k5,5 |
  python3 -c '
import statistics, sys
for l in sys.stdin:
    f = l.split()
    xs = [float(x) for x in f[5:]]
    print("%-14s %-8s %-4s %10s %-6s median %7.1f  |%s" % (*f[:5], statistics.median(xs), " ".join(f[5:])))'
