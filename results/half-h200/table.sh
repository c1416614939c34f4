#!/bin/bash
# The time tables of a call's runs.txt.gz, one line per collective, type, size and build: the
# out-of-place back-to-back times (us) of each run in turn.  Usage: table.sh callN/runs.txt.gz
zcat "$1" | awk '
/^== timeout/ { bin = ($4 ~ /base/) ? "base" : "new" }
/^# (all_reduce|all_gather|reduce_scatter|reduce|broadcast): / { coll = $2; sub(":", "", coll) }
/^ +[0-9]+ +[0-9]+ / { k = coll " " $3 " " $1 " " bin; v[k] = v[k] " " $8 }
END { for (x in v) print x, v[x] }' | sort -k1,1 -k2,2 -k3,3n -k4,4 |
  awk '{ printf "%-15s %-9s %10s %-5s", $1, $2, $3, $4; for (i = 5; i <= NF; i++) printf " %7s", $i; print "" }'
