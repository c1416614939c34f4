#!/usr/bin/env bash
# cli.sh DLSIM: the command line end to end: verbs, exit codes, outputs,
# and bad input rejected with messages that name the file, key or option.
set -u
dlsim=${1:?usage: tests/cli.sh path/to/dlsim}
. "$(dirname "$0")/expect.sh"

small=configs/examples/reference-format.json
fig1c=configs/examples/fig1c.json

# help and usage
expect "--help"                 0 "usage: dlsim VERB"   -- "$dlsim" --help
expect "help run"               0 "--rounds-csv"        -- "$dlsim" help run
for v in run gen check info; do
  expect "$v --help"            0 "usage: dlsim $v"     -- "$dlsim" $v --help
done
expect "no arguments"           2 "usage"               -- "$dlsim"
expect "unknown verb"           2 "unknown verb 'frob'" -- "$dlsim" frob
expect "--version"              0 "^dlsim [0-9]"        -- "$dlsim" --version

# bad arguments
expect "missing config file"    2 "nope.json"           -- "$dlsim" run nope.json
expect "--rounds not a number"  2 "--rounds: 'abc'"     -- "$dlsim" run $small --rounds abc
expect "--rounds zero"          2 "--rounds: 0 is outside" -- "$dlsim" run $small --rounds 0
expect "--disorder > 1"         2 "--disorder: 2 is outside" -- "$dlsim" run $small --disorder 2
expect "--sync = 1"             2 "--sync: 1 is outside" -- "$dlsim" run $small --sync 1
expect "--model unknown"        2 "unknown model 'bogus'" -- "$dlsim" run $small --model bogus
expect "--order unknown"        2 "unknown order 'random'" -- "$dlsim" run $small --order random
expect "--rng unknown"          2 "unknown GSL generator" -- "$dlsim" run $small --rng nope
expect "unknown option"         2 "--frobnicate"        -- "$dlsim" run $small --frobnicate
expect "two configs"            2 "unexpected argument" -- "$dlsim" run $small $small
expect "resource without slots" 2 "needs --slots"       -- "$dlsim" run $small --model resource
expect "single with 4 slots"    2 "single model has one slot" -- "$dlsim" run $fig1c --slots 4
expect "gen without round"      2 "exactly one of"      -- "$dlsim" gen $small
expect "check without trace"    2 "need CONFIG and TRACE" -- "$dlsim" check $small
printf '{"model": "single", "tp": 2, "dp": 2, "pp": 1, "tp_colls": 3, "dp_colls": 3, "disorder_prb": 0.1}\n' >"$tmp/typo.json"
expect "config: unknown key"    2 "typo.json.*disorder_prb" -- "$dlsim" run "$tmp/typo.json"
printf '{"model": "single",\n "tp": 2,,\n}\n' >"$tmp/syntax.json"
expect "config: syntax error"   2 "syntax.json:2"       -- "$dlsim" info "$tmp/syntax.json"

# run: summary, JSON, CSV, per-round details
expect "run summary"            0 "95% CI"              -- "$dlsim" run $small --rounds 200 --no-progress
expect "reference config runs unchanged" 0 "rounds     1000" -- "$dlsim" run $small --no-progress
expect "run --json keys"        0 '"rounds": 300, "deadlocks": [0-9]+, "ratio": [0-9.e-]+, "ci_low": [0-9.e-]+, "ci_high": [0-9.e-]+, "events": [0-9]+' \
  -- "$dlsim" run $small --rounds 300 --json
expect "run --json: one process" 0 '"threads": 2, "ranks": 1, "rounds": 50' -- "$dlsim" run $small --rounds 50 --threads 2 --json
"$dlsim" run $small --rounds 100 --csv "$tmp/s.csv" >/dev/null 2>&1
"$dlsim" run $small --rounds 100 --csv "$tmp/s.csv" >/dev/null 2>&1
if [ "$(wc -l <"$tmp/s.csv")" = 3 ] && head -1 "$tmp/s.csv" | grep -q '^name,config,model'; then
  ok "--csv appends a row per study"; else bad "--csv appends a row per study"; fi
"$dlsim" run $small --rounds 50 --rounds-csv "$tmp/r.csv" >/dev/null 2>&1
if [ "$(wc -l <"$tmp/r.csv")" = 51 ]; then ok "--rounds-csv: a row per round"; else bad "--rounds-csv: a row per round"; fi
a=$("$dlsim" run $small --rounds 400 --threads 1 --json | grep -oE '"deadlocks": [0-9]+, "ratio": [^,]*, "ci_low": [^,]*, "ci_high": [^,]*, "events": [0-9]+')
b=$("$dlsim" run $small --rounds 400 --threads 2 --json | grep -oE '"deadlocks": [0-9]+, "ratio": [^,]*, "ci_low": [^,]*, "ci_high": [^,]*, "events": [0-9]+')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "same result on 1 and 2 threads"; else echo "$a / $b" >"$tmp/err"; bad "same result on 1 and 2 threads"; fi
expect "--verify"               0 "0 mismatches"        -- "$dlsim" run configs/examples/fig2.json --rounds 300 --verify
expect "--verify, 2 slots + syncs (AND-OR)" 0 "0 mismatches" -- "$dlsim" run configs/examples/resource.json --disorder 0.05 --sync 0.002 --rounds 10 --verify

# gen and check agree
expect "gen --first-deadlock"   0 "deadlock at step"    -- "$dlsim" gen $fig1c --first-deadlock -o "$tmp/d.csv"
if head -1 "$tmp/d.csv" | grep -q '^step,gpu,action,coll'; then ok "trace header"; else bad "trace header"; fi
expect "check: deadlock = 3"    3 "cycle: \(GPU"        -- "$dlsim" check $fig1c "$tmp/d.csv" --dot "$tmp/g.dot" --graphml "$tmp/g.graphml"
if grep -q digraph "$tmp/g.dot" && grep -q '<graphml' "$tmp/g.graphml"; then ok "--dot and --graphml written"; else bad "--dot and --graphml written"; fi
r=$("$dlsim" run $fig1c --rounds 50 --rounds-csv "$tmp/r1.csv" --no-progress >/dev/null; awk -F, 'NR>1 && $2==0 {print $1; exit}' "$tmp/r1.csv")
expect "gen a completing round" 0 "completes"           -- "$dlsim" gen $fig1c --round "$r" -o "$tmp/c.csv"
expect "check: completes = 0"   0 "completes"           -- "$dlsim" check $fig1c "$tmp/c.csv"
expect "check --json"           3 '"verdict": "deadlock"' -- "$dlsim" check $fig1c "$tmp/d.csv" --json
"$dlsim" gen configs/examples/fig2.json --first-deadlock -o "$tmp/f2.csv" 2>/dev/null
expect "check sync trace under single: bad input" 2 "sync" -- "$dlsim" check configs/examples/fig2.json "$tmp/f2.csv" --model single
printf 'step,gpu,action,coll\n0,0,invoke,0\n0,7,invoke,1\n' >"$tmp/bad.csv"
expect "check: bad GPU names line" 2 "bad.csv:3"        -- "$dlsim" check $fig1c "$tmp/bad.csv"
expect "check: missing trace"   2 "missing.csv"         -- "$dlsim" check $fig1c "$tmp/missing.csv"
# a sync after a GPU's last collective (end of an iteration) is legal
expect "check: sync after the last collective" 0 "completes" -- "$dlsim" check configs/examples/fig1d.json tests/data/sync-after-last.csv
expect "check: ... and with one slot, a deadlock" 3 "cycle: \(GPU" -- "$dlsim" check configs/examples/fig1d.json tests/data/sync-after-last-deadlock.csv --slots 1
# check takes every override of the other verbs
expect "check takes every override" 0 "completes \\(model sync\\)" -- "$dlsim" check configs/examples/fig1d.json tests/data/sync-after-last.csv --sync 0.3 --disorder 0.1 --rounds 5 --seed 3 --order sequential --rng mt19937 --exact-stream
# matching by order: a swap on one communicator completes with the wrong data
oc=configs/examples/one-comm.json
expect "check: swap, identity = deadlock" 3 "cycle: \\(GPU"   -- "$dlsim" check $oc tests/data/swap.csv
expect "check: swap, order = corrupt (4)" 4 "call 0 of group 0's communicator matched collective 0 on GPU 0 with collective 1 on GPU 1" -- "$dlsim" check $oc tests/data/swap.csv --matching order
expect "check --json corrupt"   4 '"verdict": "corrupt".*"mismatch": \{"group": 0, "call": 0, "gpu": 0, "coll": 0, "with_gpu": 1, "with_coll": 1\}' -- "$dlsim" check $oc tests/data/swap.csv --matching order --json
expect "run --matching order"   0 "corrupt    5073: completed" -- "$dlsim" run $oc --matching order --no-progress
expect "run --json corrupt ratio" 0 '"matching": "order", "corrupts": 5073, "corrupt_ratio": 0.5073' -- "$dlsim" run $oc --matching order --json
expect "run identity: no corrupt line" 0 "deadlocks  5073" -- "$dlsim" run $oc --no-progress
if grep -q corrupt "$tmp/out"; then bad "identity prints no corrupt line"; else ok "identity prints no corrupt line"; fi
expect "gen --matching order"   0 "round 5: corrupt" -- "$dlsim" gen $oc --round 5 --matching order -o "$tmp/m.csv"
expect "--matching bad"         2 "--matching: unknown matching 'fifo'" -- "$dlsim" run $oc --matching fifo
printf '{"model": "single", "gpus": 2, "groups": [{"members": [0, 1], "colls": 2}], "matching": "fifo"}' >"$tmp/m.json"
expect "config matching bad"    2 "m.json: key 'matching': unknown matching 'fifo'" -- "$dlsim" run "$tmp/m.json"
expect "check: --sync out of range" 2 "--sync"          -- "$dlsim" check configs/examples/fig1d.json tests/data/sync-after-last.csv --sync 2

# the random stream: default (per-GPU generators, geometric gaps) and --exact-stream
fig2=configs/examples/fig2.json
expect "run: default stream named"  0 "stream fast"       -- "$dlsim" run $small --rounds 50 --no-progress
expect "run --exact-stream"         0 "stream exact"      -- "$dlsim" run $small --rounds 50 --no-progress --exact-stream
expect "--json names the stream"    0 '"rng": "taus2", "stream": "exact"' -- "$dlsim" run $small --rounds 20 --json --exact-stream
printf '{"model": "sync", "tp": 2, "dp": 2, "pp": 1, "tp_colls": 3, "dp_colls": 3, "exact_stream": true}\n' >"$tmp/exact.json"
expect "config exact_stream: true"  0 "stream exact"      -- "$dlsim" run "$tmp/exact.json" --rounds 20 --no-progress
printf '{"model": "sync", "tp": 2, "dp": 2, "pp": 1, "tp_colls": 3, "dp_colls": 3, "exact_stream": 1}\n' >"$tmp/exact1.json"
expect "config exact_stream: not a boolean" 2 "exact1.json: key 'exact_stream': must be true or false" -- "$dlsim" run "$tmp/exact1.json"
for s in "" --exact-stream; do
  r=$("$dlsim" run $fig2 --rounds 100 --json $s | grep -oE '"first_deadlock_round": [0-9]+' | grep -oE '[0-9]+$')
  expect "gen --round replays run's first deadlock ${s:-(default)}" 0 "round $r: deadlock" -- "$dlsim" gen $fig2 --round "${r:-x}" $s -o "$tmp/fd.csv"
  expect "gen --first-deadlock finds it ${s:-(default)}" 0 "round $r: deadlock" -- "$dlsim" gen $fig2 --first-deadlock $s -o "$tmp/fd2.csv"
  if cmp -s "$tmp/fd.csv" "$tmp/fd2.csv"; then ok "same trace both ways ${s:-(default)}"; else bad "same trace both ways ${s:-(default)}"; fi
  expect "check confirms it ${s:-(default)}" 3 "cycle: \(GPU" -- "$dlsim" check $fig2 "$tmp/fd.csv"
  "$dlsim" run $fig2 --rounds 60 --rounds-csv "$tmp/rr.csv" --no-progress $s >/dev/null 2>&1
  c=$(awk -F, 'NR>1 && $2==0 {print $1; exit}' "$tmp/rr.csv")
  expect "gen a completing round ${s:-(default)}" 0 "round $c: completes" -- "$dlsim" gen $fig2 --round "${c:-x}" $s -o "$tmp/cc.csv"
done
# --semantics reference: the authors' simulator's rules (run only, default stream)
uneven=configs/reference/single-free-uneven.json
expect "run --semantics reference named" 0 "semantics reference" -- "$dlsim" run $small --rounds 50 --no-progress --semantics reference
expect "reference: dropped collectives flag every round" 0 '"deadlocks": 200, "ratio": 1' -- "$dlsim" run $uneven --rounds 200 --disorder 0 --json --semantics reference
expect "exact: the same rounds complete" 0 '"deadlocks": 0, "ratio": 0' -- "$dlsim" run $uneven --rounds 200 --disorder 0 --json
expect "--json names the semantics" 0 '"semantics": "exact"}' -- "$dlsim" run $small --rounds 20 --json
expect "--semantics: unknown" 2 "--semantics: unknown semantics 'paper' \(exact, reference, reference-nodrop\)" -- "$dlsim" run $small --semantics paper
# reference-nodrop: the same rules with the drop switched off; the uneven layout's
# consistent orders then agree in every group: no round flagged
expect "reference-nodrop: no drop, no flag" 0 '"deadlocks": 0, "ratio": 0' -- "$dlsim" run $uneven --rounds 200 --disorder 0 --json --semantics reference-nodrop
expect "reference-nodrop named" 0 '"semantics": "reference-nodrop"' -- "$dlsim" run $uneven --rounds 20 --json --semantics reference-nodrop
expect "reference-nodrop + --verify refused" 2 "--verify checks the exact semantics" -- "$dlsim" run $small --rounds 20 --verify --semantics reference-nodrop
expect "gen refuses reference-nodrop" 2 "only 'run' takes it" -- "$dlsim" gen $small --round 0 --semantics reference-nodrop
expect "reference + --verify refused" 2 "--verify checks the exact semantics" -- "$dlsim" run $small --rounds 20 --verify --semantics reference
expect "reference + --exact-stream refused" 2 "default stream only" -- "$dlsim" run $small --rounds 20 --exact-stream --semantics reference
expect "reference + --matching order refused" 2 "drop --matching order" -- "$dlsim" run $small --rounds 20 --semantics reference --matching order
expect "gen refuses reference" 2 "only 'run' takes it" -- "$dlsim" gen $small --round 0 --semantics reference
printf '{"model": "sync", "tp": 2, "dp": 2, "pp": 1, "tp_colls": 3, "dp_colls": 3, "semantics": "reference"}\n' >"$tmp/sem.json"
expect "config semantics: reference" 0 "semantics reference" -- "$dlsim" run "$tmp/sem.json" --rounds 20 --no-progress
expect "check refuses a reference config" 2 "only 'run' takes it" -- "$dlsim" check "$tmp/sem.json" "$tmp/fd.csv"
expect "--semantics exact overrides the config" 0 '"semantics": "exact"' -- "$dlsim" run "$tmp/sem.json" --rounds 20 --json --semantics exact
printf '{"model": "sync", "tp": 2, "dp": 2, "pp": 1, "tp_colls": 3, "dp_colls": 3, "semantics": 1}\n' >"$tmp/sem1.json"
expect "config semantics: not a string" 2 "sem1.json: key 'semantics'" -- "$dlsim" run "$tmp/sem1.json"
a1=$("$dlsim" run $fig2 --rounds 300 --threads 1 --json | grep -oE '"deadlocks": [0-9]+, "ratio": [^,]*')
a2=$("$dlsim" run $fig2 --rounds 300 --threads 1 --json --rounds-csv "$tmp/x.csv" | grep -oE '"deadlocks": [0-9]+, "ratio": [^,]*')
if [ -n "$a1" ] && [ "$a1" = "$a2" ]; then ok "same result with and without per-round details"; else echo "$a1 / $a2" >"$tmp/err"; bad "same result with and without per-round details"; fi

# the Table 1 scripts (they run build/dlsim): arguments, and one small layout sweep
expect "table1-layouts --help" 0 "recipe seed" -- scripts/table1-layouts --help
expect "table1-layouts bad --seeds" 2 "--seeds: A-B, not 'x'" -- scripts/table1-layouts --seeds x
expect "table1-layouts a 3D row" 2 "row 3 has no recipe" -- scripts/table1-layouts --rows 3 --out "$tmp/tl.csv"
expect "table1-layouts bad --order" 2 "--order: interleave or sequential" -- scripts/table1-layouts --order random
expect "table1-layouts two layouts" 0 "wrote $tmp/tl.csv" -- scripts/table1-layouts --rows 16 --seeds 1-2 --rounds 20 --semantics reference --order sequential --out "$tmp/tl.csv"
check "table1-layouts: a line per layout, each with its command" test "$(grep -c "^16,[12],reference,.*recipe.seed = [12].*--order sequential$" "$tmp/tl.csv")" = 2
expect "table1-why --help names the ablation" 0 "reference-nodrop" -- scripts/table1-why --help
expect "table1-semantics --help" 0 "two-proportion z" -- scripts/table1-semantics --help
expect "table1 --help: --progress" 0 "--progress" -- scripts/table1 --help
expect "reference-sim --prefix-csv needs one process" 2 "--prefix-csv needs one process" -- scripts/reference-sim $small --rounds 4 --processes 2 --clock-seed --prefix-csv "$tmp/p.csv"

# info
expect "info"                   0 "8 GPUs, 8 groups"   -- "$dlsim" info $small
expect "info --groups --plan"   0 "planned order of GPU 0: 0 80 1 81" -- "$dlsim" info $small --groups --plan 0
expect "info --plan out of range" 2 "GPU 99 does not exist" -- "$dlsim" info $small --plan 99

finish
