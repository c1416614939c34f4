#!/usr/bin/env bash
# replay.sh DLREPLAY [DLREPLAY_SAN] [--long]: dlreplay end to end on pccl's
# host backend.
#
# 1. The command line: bad input (options, configs, traces that are not a
#    whole plan) is rejected with a message naming it and exit status 2.
# 2. The CI regression for deadlock freedom: the committed corpus
#    (tests/data/replay, from scripts/replay-corpus; about half of its traces
#    deadlock in dlsim, in the single-queue and the sync model) replayed on
#    the host backend with every communicator choice: every trace must
#    complete with exact data.  --long: a corpus of 200 rounds per config,
#    generated into build/replay-long (make test-long).
# DLREPLAY_SAN (an ASan+UBSan build) runs the command-line checks and one
# config of the corpus.
set -u
bin=${1:?usage: tests/replay.sh path/to/dlreplay [path/to/sanitized-dlreplay] [--long]}
san=$bin long=0
for a in "${@:2}"; do
  case "$a" in --long) long=1 ;; *) san=$a ;; esac
done
. "$(dirname "$0")/expect.sh"
cd "$(dirname "$0")/.."
fig1c=configs/examples/fig1c.json
build/dlsim gen $fig1c --round 5 --full -o "$tmp/full.csv" 2>/dev/null
build/dlsim gen configs/examples/fig1d.json --round 5 -o "$tmp/plain.csv" 2>/dev/null
printf 'step,gpu,action,coll\n0,0,invoke,0\n0,0,invoke,0\n' >"$tmp/twice.csv"
printf 'step,gpu,action\n0,0,invoke\n' >"$tmp/nocoll.csv"
printf 'trace,lib\nx,host\n' >"$tmp/notours.csv"

# ---- 1. the command line ----
expect "--help"               0 "usage: dlreplay"                       -- "$san" --help
expect "no arguments"         2 "need CONFIG and at least one TRACE"    -- "$san"
expect "config only"          2 "need CONFIG and at least one TRACE"    -- "$san" $fig1c
expect "unknown option"       2 "option '--frob' is unknown"            -- "$san" --frob $fig1c "$tmp/full.csv"
expect "unknown library"      2 "--lib: unknown library 'mpi'"          -- "$san" --lib mpi $fig1c "$tmp/full.csv"
if ! strings "$san" 2>/dev/null | grep -q ncclAllReduce; then
  expect "nccl needs CUDA"    2 "built without CUDA.*build/gpu/dlreplay" -- "$san" --lib host,nccl $fig1c "$tmp/full.csv"
fi
expect "bad --comm"           2 "--comm: 'world'"                       -- "$san" --comm world $fig1c "$tmp/full.csv"
expect "bad --streams"        2 "--streams: 'all'"                      -- "$san" --streams all $fig1c "$tmp/full.csv"
expect "bad --timeout"        2 "--timeout: '0' is not a number"        -- "$san" --timeout 0 $fig1c "$tmp/full.csv"
expect "bad --bytes"          2 "--bytes: 'lots'"                       -- "$san" --bytes 8,lots $fig1c "$tmp/full.csv"
expect "--bytes vs type"      2 "--bytes: 6 is not a multiple of float32's 4 bytes" -- "$san" --bytes 6 $fig1c "$tmp/full.csv"
expect "bad --type"           2 "--type: unknown value 'float128'"      -- "$san" --type float128 $fig1c "$tmp/full.csv"
expect "missing config"       2 "nope.json"                             -- "$san" nope.json "$tmp/full.csv"
expect "missing trace"        2 "nope.csv"                              -- "$san" $fig1c "$tmp/nope.csv"
expect "trace cut at deadlock" 2 "plain.csv:6: the trace ends before GPU .* write it with dlsim gen --full" -- "$san" configs/examples/fig1d.json "$tmp/plain.csv"
expect "invoked twice"        2 "twice.csv:3: GPU 0 has already invoked collective 0" -- "$san" $fig1c "$tmp/twice.csv"
expect "trace syntax"         2 "nocoll.csv:1: missing required column 'coll'" -- "$san" $fig1c "$tmp/nocoll.csv"
expect "summary of other CSV" 2 "notours.csv:1: missing column 'model'" -- "$san" --summary "$tmp/notours.csv"
expect "replay fig1c"         0 "dlsim deadlock +-> completed"          -- "$san" --csv "$tmp/r.csv" $fig1c "$tmp/full.csv"
expect "csv row"              0 "fig1c.csv|full.csv,.*,single,2,2,4,host,group,gpu,deadlock,completed,1," -- cat "$tmp/r.csv"
expect "summary"              0 "single +host +group +1 +1 +0 +1 +0 +0 +0 +0 deadlocks or failures in 1" -- "$san" --summary "$tmp/r.csv" --summary-csv "$tmp/s.csv"
expect "summary csv"          0 "^single,host,group,1,1,1,0,0,0,1,0$"     -- cat "$tmp/s.csv"
# dlsim's verdict matches calls by order over dlreplay's communicators
oc=configs/examples/one-comm.json
expect "swap, one comm: corrupt" 0 "dlsim corrupt +-> completed"        -- "$bin" --csv "$tmp/m.csv" $oc tests/data/swap.csv
expect "swap, --matching identity" 0 "dlsim deadlock +-> completed"     -- "$bin" --matching identity $oc tests/data/swap.csv
expect "swap, --comm coll: deadlock" 0 "dlsim deadlock +-> completed"   -- "$bin" --comm coll $oc tests/data/swap.csv
expect "csv row: matching column" 0 ",host,group,gpu,corrupt,completed,1,.*,order$" -- cat "$tmp/m.csv"
expect "bad --matching"       2 "--matching: 'fifo'"                    -- "$bin" --matching fifo $oc tests/data/swap.csv

# ---- 2. the corpus on the host backend ----
corpus=tests/data/replay
if [ $long = 1 ]; then
  corpus=build/replay-long
  scripts/replay-corpus --rounds 200 --out $corpus
fi
export PCCL_SPIN_HEAD=${PCCL_SPIN_HEAD:-200} PCCL_SPIN_BASE=${PCCL_SPIN_BASE:-50}
for dir in $corpus/*/; do
  name=$(basename "$dir")
  for comm in group coll members; do
    prog=$bin
    [ "$name/$comm" = 2gpu-sync/group ] && prog=$san
    expect "corpus $name, --comm $comm ($(ls "$dir" | wc -l) traces)" 0 "" -- \
      "$prog" --lib host --comm $comm --timeout 30 --quiet --csv "$tmp/corpus.csv" configs/replay/$name.json "$dir"r*.csv
  done
done
"$bin" --summary "$tmp/corpus.csv" | sed 's/^/     /'
n=$(tail -n +2 "$tmp/corpus.csv" | wc -l)
done_ok=$(tail -n +2 "$tmp/corpus.csv" | awk -F, '$11 == "completed" && $14 == 0' | wc -l)
dl=$(tail -n +2 "$tmp/corpus.csv" | awk -F, '$10 == "deadlock"' | wc -l)
if [ "$n" -gt 0 ] && [ "$done_ok" = "$n" ] && [ "$dl" -gt 0 ]; then
  ok "corpus: $n of $n replays completed with exact data ($dl of them deadlock in dlsim)"
else
  echo "     $done_ok of $n completed exactly; $dl deadlock in dlsim" >"$tmp/err"; : >"$tmp/out"
  bad "corpus: every replay completes with exact data"
fi

finish
