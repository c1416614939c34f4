# expect.sh: what the shell test scripts share (sourced by tests/cli.sh,
# perf.sh, replay.sh and mpi.sh): a scratch folder $tmp, the pass and fail
# counts, and
#   ok NAME, bad NAME                    count a result (bad shows $tmp/err and $tmp/out)
#   expect NAME STATUS PATTERN -- CMD... CMD's exit status is STATUS and, unless
#                                        PATTERN is empty, PATTERN (ERE) is in its output
#   check NAME CMD...                    CMD succeeds
#   finish [LABEL]                       prints "N passed, N failed"; fails if any failed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     | /' "$tmp/err" "$tmp/out" 2>/dev/null | head -20; }

expect() {
  local name=$1 want=$2 pat=$3; shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "     exit $got, wanted $want" >>"$tmp/err"; bad "$name"; return 1
  fi
  if [ -n "$pat" ] && ! cat "$tmp/out" "$tmp/err" | grep -qE -- "$pat"; then
    echo "     no match for /$pat/" >>"$tmp/err"; bad "$name"; return 1
  fi
  ok "$name"
}

check() {
  local name=$1; shift
  if "$@" >"$tmp/cerr" 2>&1; then ok "$name"; else cat "$tmp/cerr" >"$tmp/err"; : >"$tmp/out"; bad "$name"; fi
}

finish() {
  echo
  echo "${1:+$1: }$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
