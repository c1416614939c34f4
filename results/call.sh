# The helpers of a device call's run script (results/*/runN.sh), sourced from the staged folder
# (stage.sh copies this file there):
#   call_begin NAME   $OUT/NAME/ gets summary.txt (the GPUs, the build), runs.txt (timed commands'
#                     output), log.txt (steps' output); T0 = the call's start
#   t CMD...          runs CMD, its output and exit status into runs.txt
#   step NAME WANT LIMIT CMD...   runs CMD under `timeout LIMIT` (skipped if the call's BUDGET, default
#                     570 s, would run out), its output into log.txt, one line into summary.txt:
#                     its exit status and the status wanted
#   call_end          result lines into summary.txt, the count of timed runs that exited 0, gzip
# They keep their state in O, S, C, L and T0: a run script that sets one of those (results/round-trip's
# run1.sh set L to its options) loses the steps' log.
call_begin() {
    O=$OUT/$1; mkdir -p "$O"; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
    { nvidia-smi -L; cat COMMIT; } > "$S"
    T0=$SECONDS
}
t() {
    local t0=$SECONDS
    echo "== $*" >> "$C"; "$@" >> "$C" 2>&1
    echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$C"
}
step() {
    local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
    [ $((SECONDS - T0 + lim)) -gt "${BUDGET:-570}" ] && { echo "== $name: skipped (time)" >> "$S"; return 0; }
    echo "==== $name: $*" >> "$L"
    timeout -k 3 "$lim" "$@" >> "$L" 2>&1; local rc=$?
    echo "== $name: exit $rc (want $want), $((SECONDS - t0)) s: $*" >> "$S"
}
call_end() {
    [ -f "$L" ] && grep -E "^RESULT|passed, |FAILED|^FAIL|ERROR SUMMARY" "$L" | head -40 >> "$S"
    [ -f "$C" ] && grep -c "exit 0" "$C" >> "$S"
    echo "== total $((SECONDS - T0)) s" >> "$S"
    local f
    for f in "$C" "$L"; do [ -f "$f" ] && gzip -9 "$f"; done
    return 0
}
