#!/usr/bin/env bash
# mpi.sh DLSIM DLSIM_MPI: a study split over 1, 2 and 4 MPI ranks gives the
# single-process result (every field of --json but the timings, thread and
# rank counts; --rounds-csv byte for byte), on each model and grouping; and
# misuse (more ranks than rounds, a verb that does not split, ranks started
# differently, one rank that cannot load its config) ends with a message and
# a non-zero exit, not a hang.  Skipped, with the reason, where mpirun or
# dlsim-mpi is missing.
set -u
dlsim=${1:?usage: tests/mpi.sh path/to/dlsim path/to/dlsim-mpi}
mpi=${2:?usage: tests/mpi.sh path/to/dlsim path/to/dlsim-mpi}
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi.sh: skipped: no mpirun (Debian: apt-get install openmpi-bin libopenmpi-dev; scripts/setup does)"
  exit 0
fi
if [ ! -x "$mpi" ]; then
  echo "mpi.sh: skipped: no $mpi (make mpi builds it; it needs mpicc)"
  exit 0
fi
. "$(dirname "$0")/expect.sh"

# Ranks may outnumber this machine's cores; root needs Open MPI's consent.
launch=(timeout 300 mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)

# The --json fields that must not depend on how the rounds were spread.
result() { sed -E 's/"(threads|ranks|seconds|rounds_per_s|events_per_s|peak_rss_kb)": [^,}]*, //g'; }

p=configs/paper
cases=(
  "single 3d|$p/3d-444-single-1e-6.json --disorder 1e-5 --rounds 301"
  "sync 3d|$p/3d-444-sync-4e-3-4e-3.json --disorder 1e-2 --sync 1e-2 --rounds 301"
  "resource 2 slots + syncs|configs/examples/resource.json --disorder 0.05 --sync 0.002 --rounds 301"
  "single free|$p/free-32x64-single-1e-6.json --disorder 1e-5 --rounds 301"
  "sync free|configs/examples/free-recipe.json --disorder 3e-2 --sync 3e-2 --rounds 203"
  "sync 3d, exact stream|$p/3d-444-sync-4e-3-4e-3.json --disorder 1e-2 --sync 1e-2 --rounds 150 --exact-stream"
)
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  # shellcheck disable=SC2086
  "$dlsim" run $args --json --no-progress 2>"$tmp/err" | result >"$tmp/one.json"
  d=$(grep -oE '"deadlocks": [0-9]+' "$tmp/one.json" | grep -oE '[0-9]+$')
  n=$(grep -oE '"rounds": [0-9]+' "$tmp/one.json" | grep -oE '[0-9]+$')
  # deadlocked and completed rounds both, so that every total is exercised
  if [ -n "$d" ] && [ "$d" -gt 0 ] && [ "$d" -lt "$n" ]; then ok "$name: plain run ($d of $n deadlock)"
  else bad "$name: plain run has deadlocked and completed rounds"; continue; fi
  for spec in 1:2 2:2 4:1; do
    ranks=${spec%:*} threads=${spec#*:}
    # shellcheck disable=SC2086
    "${launch[@]}" -n "$ranks" "$mpi" run $args --threads "$threads" --json --no-progress \
      2>"$tmp/err" | result >"$tmp/many.json"
    if [ -s "$tmp/many.json" ] && cmp -s "$tmp/one.json" "$tmp/many.json"; then
      ok "$name: $ranks rank(s) x $threads thread(s) = one process"
    else
      diff "$tmp/one.json" "$tmp/many.json" >>"$tmp/err"; bad "$name: $ranks rank(s) x $threads thread(s) = one process"
    fi
  done
done

# The comparison is not blind: another seed gives another result.
args="$p/3d-444-sync-4e-3-4e-3.json --disorder 1e-2 --sync 1e-2 --rounds 301"
# shellcheck disable=SC2086
"$dlsim" run $args --json | result >"$tmp/a.json"
# shellcheck disable=SC2086
"${launch[@]}" -n 2 "$mpi" run $args --seed 7 --json 2>"$tmp/err" | result >"$tmp/b.json"
if [ -s "$tmp/b.json" ] && ! cmp -s "$tmp/a.json" "$tmp/b.json"; then ok "another seed differs"; else bad "another seed differs"; fi

# Per-round rows, gathered on rank 0, and the summary and CSV on rank 0 only.
args="configs/examples/fig2.json --rounds 257"
# shellcheck disable=SC2086
"$dlsim" run $args --rounds-csv "$tmp/r1.csv" >/dev/null 2>"$tmp/err"
# shellcheck disable=SC2086
"${launch[@]}" -n 3 "$mpi" run $args --rounds-csv "$tmp/r3.csv" --csv "$tmp/s.csv" >"$tmp/out" 2>"$tmp/err"
if [ -s "$tmp/r3.csv" ] && cmp -s "$tmp/r1.csv" "$tmp/r3.csv"; then ok "--rounds-csv on 3 ranks = one process"; else bad "--rounds-csv on 3 ranks = one process"; fi
if [ "$(grep -c '^rounds ' "$tmp/out")" = 1 ] && [ "$(wc -l <"$tmp/s.csv")" = 2 ] && grep -q 'in 3 MPI ranks' "$tmp/out"; then
  ok "one summary and one CSV row, from rank 0"; else cat "$tmp/out" >>"$tmp/err"; bad "one summary and one CSV row, from rank 0"; fi

# expect NAME PATTERN -- command: a non-zero exit and the pattern in its output
expect_fail() {
  local name=$1 pat=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" = 0 ] || [ "$got" = 124 ]; then echo "     exit $got" >>"$tmp/err"; bad "$name"; return; fi
  if ! cat "$tmp/out" "$tmp/err" | grep -qE -- "$pat"; then echo "     no match for /$pat/" >>"$tmp/err"; bad "$name"; return; fi
  if [ "$(cat "$tmp/out" "$tmp/err" | grep -cE -- "$pat")" != 1 ]; then echo "     printed more than once" >>"$tmp/err"; bad "$name"; return; fi
  ok "$name"
}
fig1c=configs/examples/fig1c.json
expect_fail "more ranks than rounds" "4 MPI ranks for 3 rounds" -- "${launch[@]}" -n 4 "$mpi" run $fig1c --rounds 3
expect_fail "gen does not split"     "only 'run' is split"      -- "${launch[@]}" -n 2 "$mpi" gen $fig1c --round 1
expect_fail "bad option, once"       "unknown option"          -- "${launch[@]}" -n 2 "$mpi" run $fig1c --frobnicate
expect_fail "ranks with other arguments" "different arguments" -- \
  "${launch[@]}" -n 1 "$mpi" run $fig1c --rounds 10 : -n 1 "$mpi" run $fig1c --rounds 11
expect_fail "one rank cannot load its config" "rank 1: .*nope.json" -- \
  "${launch[@]}" -n 1 "$mpi" run $fig1c --rounds 10 : -n 1 "$mpi" run "$tmp/nope.json" --rounds 10

finish mpi.sh
