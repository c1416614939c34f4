#!/usr/bin/env bash
# perf.sh PCCL_PERF [PCCL_PERF_ASAN]: pccl-perf's host build end to end (pccl's
# host backend, no GPU): data checks pass and are reported, bad flags exit 2
# naming the flag, a planted wrong element and a timeout are caught, CSV and
# JSON agree with the table, scripts/perf runs (and plots where gnuplot is).
# --interfere needs the CUDA build: here its bad values are named, the host
# build refuses it, and its scenarios run on a CPU stand-in of the compute
# kernel (test knob PCCL_PERF_TEST_HOST_COMPUTE=1; figures meaningless).
set -u
perf=${1:?usage: tests/perf.sh build/pccl-perf [build/asan/pccl-perf]}
asan=${2:-}

. "$(dirname "$0")/expect.sh"

# data rows of a pccl-perf table: lines that start with a size
rows() { grep -E '^ +[0-9]+ ' "$1"; }

# ---- help and bad flags ---------------------------------------------------------
expect "--help"                    0 "-b,--minbytes"                 -- "$perf" --help
expect "unknown flag"              2 "--bogus: unknown flag"         -- "$perf" --bogus
expect "bad size"                  2 "^pccl-perf: -b 1Q:"            -- "$perf" -b 1Q
expect "missing value"             2 "-n: missing value"             -- "$perf" -n
expect "-n 0"                      2 "^pccl-perf: -n 0:"             -- "$perf" -n 0
expect "unknown collective"        2 "--coll allreduc: unknown name" -- "$perf" --coll allreduc
expect "unknown type"              2 "-d float17: unknown name"      -- "$perf" -d float17
expect "unknown op"                2 "-o mean: unknown name"         -- "$perf" -o mean
expect "root out of range"         2 "-r/--root 5:"                  -- "$perf" -g 2 -r 5
expect "min above max"             2 "-b/--minbytes: larger than"    -- "$perf" -b 2M -e 1M
expect "-i and -f"                 2 "-i/--stepbytes: give -i or -f" -- "$perf" -i 1K -f 2
expect "too many ranks"            2 "-t x -g: more than 64 ranks"   -- "$perf" -t 8 -g 9
expect "unsupported nccl-tests -m" 2 "-m 2: nccl-tests flag not supported" -- "$perf" -m 2
expect "unsupported -F"            2 "-F x: not supported: use --csv" -- "$perf" -F x
expect "no NCCL in the host build" 2 "--lib nccl,pccl: this build of pccl-perf has no NCCL" -- "$perf" --lib nccl,pccl
expect "-z 1 with chain"           2 "--pccl-mode chain: -z 1 waits" -- "$perf" -z 1 --pccl-mode chain
expect "--delay-rank alone"        2 "--delay-rank: only with --delay-us" -- "$perf" --delay-rank 0
expect "unwritable --csv"          2 "--csv $tmp/no/such/dir/x.csv: cannot write" -- "$perf" --csv "$tmp/no/such/dir/x.csv"
expect "extra argument"            2 "stray: unexpected argument"    -- "$perf" stray

# ---- --interfere: bad values named first, then the host build refuses it -----------------
expect "--interfere: host build refuses" 2 "^pccl-perf: --interfere gemm: needs the CUDA build" -- "$perf" --interfere gemm
expect "--interfere stream: host build refuses" 2 "--interfere stream: needs the CUDA build" -- "$perf" --interfere stream --interfere-n 64 --interfere-k 10
expect "--help documents --interfere" 0 "--interfere-n N" -- "$perf" --help
expect "--interfere: unknown kernel"   2 "--interfere gemv: expected gemm or stream" -- "$perf" --interfere gemv
expect "--interfere-n: not a tile multiple" 2 "--interfere-n 100: gemm: the matrix size must be a multiple of 128" -- "$perf" --interfere gemm --interfere-n 100
expect "--interfere-n: stream too large" 2 "--interfere-n 20000: stream: at most 16384 MiB" -- "$perf" --interfere stream --interfere-n 20000
expect "--interfere-n 0"               2 "--interfere-n 0: expected an integer" -- "$perf" --interfere stream --interfere-n 0
expect "--interfere-k x"               2 "--interfere-k x: expected an integer" -- "$perf" --interfere gemm --interfere-k x
expect "--interfere-k alone"           2 "--interfere-k: only with --interfere" -- "$perf" --interfere-k 5
expect "--interfere-n alone"           2 "--interfere-n: only with --interfere" -- "$perf" --interfere-n 256
expect "--interfere: two collectives"  2 "--coll: --interfere runs one collective" -- "$perf" --interfere gemm --coll all_reduce,broadcast
expect "--interfere: a size sweep"     2 "-e/--maxbytes: --interfere runs one size" -- "$perf" --interfere stream -b 1M -e 2M
expect "--interfere: two types"        2 "-d/--datatype: --interfere runs one data type" -- "$perf" --interfere gemm -d float,half
expect "--interfere: every root"       2 "-r/--root all: --interfere runs one root" -- "$perf" --interfere gemm --coll reduce -r all
expect "--interfere with --delay-us"   2 "--interfere gemm: not with --delay-us" -- "$perf" --interfere gemm --delay-us 0

# ---- a checked sweep: every collective, 3 ranks (counts not divisible) ---------------
small=(-b 4 -e 64K -f 4 -n 3 -w 1)
if expect "sweep, checked, exit 0" 0 "outcome=OK" -- "$perf" -g 3 "${small[@]}" -c 1 --csv "$tmp/s.csv" --json "$tmp/s.json"; then
  cp "$tmp/out" "$tmp/s.txt"
  # all_gather and reduce_scatter skip 4 B (1 float < 3 ranks): 8+7+7+8+8 sizes
  check "sweep: 38 sizes x 1 library" test "$(rows "$tmp/s.txt" | wc -l)" = 38
  check "sweep: every #wrong is 0" awk '/^ +[0-9]+ / { n++; if ($10 != "0" || $14 != "0") bad++ } END { exit !(n == 38 && !bad) }' "$tmp/s.txt"
  check "sweep: all five tables" test "$(grep -cE '^# (all_reduce|all_gather|reduce_scatter|reduce|broadcast): float' "$tmp/s.txt")" = 5
  check "csv: header + 76 rows (2 placements)" test "$(wc -l < "$tmp/s.csv")" = 77
  check "csv: wrong is 0 in every row" awk -F, 'NR > 1 { n++; if ($16 != "0") bad++ } END { exit !(n == 76 && !bad) }' "$tmp/s.csv"
  check "csv: busbw = algbw x factor (all_reduce: 4/3)" awk -F, '$2 == "all_reduce" && $14 > 0 { r = $15 / $14; if (r < 1.33 || r > 1.34) bad++; n++ } END { exit !(n && !bad) }' "$tmp/s.csv"
  check "csv: algbw = size / time" awk -F, 'NR > 1 && $13 > 0 { a = $6 / 1e3 / $13; if (a - $14 > 1e-3 + 1e-3 * a || $14 - a > 1e-3 + 1e-3 * a) bad++ } END { exit bad }' "$tmp/s.csv"
  check "json: 76 results" test "$(grep -c '"lib": "pccl"' "$tmp/s.json")" = 76
  if command -v python3 >/dev/null; then
    check "json: parses, wrong 0" python3 -c "import json,sys; d=json.load(open('$tmp/s.json')); sys.exit(not (d['wrong']==0 and len(d['results'])==76))"
  fi
fi

# every type and op where the reference is a reduction split over the ranks
# (data.c), then the other collectives on 3 ranks, every root, under
# ASan+UBSan when given
expect "all_reduce, reduce: every type and op, checked" 0 "outcome=OK rows=200 wrong=0" -- \
  "$perf" -g 2 -b 1K -e 1K -n 2 -w 1 --coll all_reduce,reduce -d all -o all -r 1
bin=${asan:-$perf}
expect "all_gather, reduce_scatter, broadcast, every root (${asan:+ASan, }checked)" 0 "outcome=OK rows=48 wrong=0" -- \
  "$bin" -g 3 -b 1K -e 1K -n 2 -w 1 --coll all_gather,reduce_scatter,broadcast -d int8,half,double,bfloat16 -o avg,prod -r all

# ---- wrong data is reported, and exits 4 ---------------------------------------------
if expect "planted wrong element: exit 4" 4 "outcome=WRONG" -- env PCCL_PERF_TEST_CORRUPT=pccl "$perf" -g 2 -b 1K -e 1K --coll all_reduce,reduce -d int32,half -n 2 -w 0 --csv "$tmp/w.csv"; then
  check "planted: #wrong 1 out of place, 0 in place" awk '/^ +[0-9]+ / { n++; if ($10 != "1" || $14 != "0") bad++ } END { exit !(n == 4 && !bad) }' "$tmp/out"
  check "planted: the mismatch is described" grep -q "wrong data (pccl, out of place): allreduce int32 sum count=256 nranks=2, rank 0: element 0" "$tmp/err"
  check "planted: csv rows say 1 and 0" test "$(awk -F, 'NR > 1 { printf "%s%s ", $5, $16 }' "$tmp/w.csv")" = "out1 in0 out1 in0 out1 in0 out1 in0 "
fi

# ---- no check, check limit ---------------------------------------------------------------
expect "-c 0: #wrong N/A" 0 "1024 +256 +float +sum +-1 +pccl +[0-9.]+ +[0-9.]+ +[0-9.]+ +N/A" -- \
  "$perf" -g 2 -b 1K -e 1K --coll all_reduce -c 0 -n 2 -w 0
expect "--check-max: larger sizes N/A" 0 "Not checked +: 1 sizes" -- \
  "$perf" -g 2 -b 1K -e 2K -f 2 --coll broadcast --check-max 1K -n 2 -w 0

# ---- timing modes ----------------------------------------------------------------------------
expect "-z 1 (blocking, barrier per iteration)" 0 "outcome=OK" -- "$perf" -g 2 -b 64 -e 4K -f 8 -z 1 -n 3 -w 1 --coll all_reduce,all_gather
expect "--pccl-mode wait" 0 "pccl iterations: wait" -- "$perf" -g 2 -b 64 -e 4K -f 8 --pccl-mode wait -n 3 -w 1 --coll reduce_scatter
expect "--iter-bytes: fewer iterations for large sizes" 0 "outcome=OK" -- \
  "$perf" -g 2 -b 1K -e 16K -f 4 -n 8 -w 4 --iter-bytes 8K --min-iters 2 --coll all_reduce --csv "$tmp/i.csv"
# 8K/1K = 8 iterations, 8K/4K = 2, 8K/16K < 2: --min-iters 2; warm-up ceil(4 x n / 8)
check "--iter-bytes: iterations 8 2 2, warm-up 4 1 1" test \
  "$(awk -F, 'NR > 1 && $5 == "out" { printf "%s/%s ", $11, $12 }' "$tmp/i.csv")" = "8/4 2/1 2/1 "

# ---- preemption-cost mode ------------------------------------------------------------------
# -a 3 (the slowest rank's time): only the delayed rank's own time is bound to
# be >= the delay; the mean is not where ranks leave the start barrier
# hundreds of us apart (2 host cores, every thread spinning).
if expect "--delay-us: table" 0 "preemption cost: all_reduce float sum; rank 1 invokes" -- \
  "$perf" -g 2 -b 64 -e 64 --coll all_reduce --delay-us 0,2000 -n 3 -w 1 -a 3 --csv "$tmp/d.csv"; then
  check "--delay-us: a row per delay, time >= delay" awk '/^ +64 / { n++; if ($8 < $6) bad++ } END { exit !(n == 2 && !bad) }' "$tmp/out"
  check "--delay-us: csv mode delay, counters present" test "$(awk -F, 'NR > 1 && $1 == "delay" && $20 != "" { n++ } END { print n }' "$tmp/d.csv")" = 2
fi

# ---- latency-split mode (PCCL_PROFILE) ---------------------------------------------------------
expect "--split with --delay-us" 2 "--split: not with --delay-us" -- "$perf" --split --delay-us 0
if expect "--split: table" 0 "latency split: all_reduce float sum, out of place, 2 ranks" -- \
  "$perf" -g 2 -b 64 -e 4K -f 8 --coll all_reduce --split -n 20 -w 2 --csv "$tmp/s.csv"; then
  # CSV: 11 pccl time, 12 sq, 13 wait, 14 exec, 15 commit, 16 cq, 17 daemon, 18 host, 20
  # slowest block; every phase measured, the daemon's SQ-to-CQ time within the time per
  # iteration, and the slowest block's no less than the blocks' mean
  check "--split: csv rows, phases > 0, daemon <= time, slowest >= daemon" awk -F, 'NR > 1 && $1 == "split" { n++;
    if (!($12 > 0 && $14 > 0 && $16 > 0 && $17 >= $13 + $14 + $15 && $17 <= $11 && $20 >= $17 - 0.01)) bad++ }
    END { exit !(n == 3 && !bad) }' "$tmp/s.csv"
fi
# --blocks-csv: a line per size, rank and block (3 x 2 x 2); the host backend knows no SM (-1);
# every block took part in every timed iteration
if expect "--split --blocks-csv" 0 "latency split" -- env PCCL_BLOCKS=2 \
  "$perf" -g 2 -b 64K -e 1M -f 4 --coll all_reduce --split -n 10 -w 2 --blocks-csv "$tmp/b.csv"; then
  check "--blocks-csv: header, 12 rows, sm -1, 10 invocations, life > 0" awk -F, 'NR == 1 { ok = $1 == "coll" && $5 == "sm" && $10 == "commit_us" }
    NR > 1 { n++; if ($5 != -1 || $6 != 10 || !($7 > 0)) bad++ } END { exit !(ok && n == 12 && !bad) }' "$tmp/b.csv"
fi
expect "--blocks-csv without --split" 2 "--blocks-csv: needs --split" -- "$perf" --blocks-csv "$tmp/x.csv"
expect "--blocks-csv: unwritable" 2 "--blocks-csv /nonexistent/b.csv: cannot write" -- "$perf" --split --blocks-csv /nonexistent/b.csv

# ---- --interfere's scenarios on a CPU stand-in of the compute kernel (test knob) --------------
# CSV: 5 scenario, 6 lib, 7 gpus, 21 colls, 26 wrong, 29 launches_per_gpu
hc=(env PCCL_PERF_TEST_HOST_COMPUTE=1)
if expect "--interfere (stand-in): every scenario, checked" 0 "outcome=OK rows=4 wrong=0" -- \
  "${hc[@]}" "$perf" -g 3 --interfere gemm --interfere-n 128 --interfere-k 4 -b 64K --csv "$tmp/if.csv" --json "$tmp/if.json"; then
  check "--interfere: rows alone, pccl, pccl-stuck, alone-again" test \
    "$(awk '/^ +[a-z-]+ +(-|pccl) +(all|0) / { printf "%s ", $1 }' "$tmp/out")" = "alone pccl pccl-stuck alone-again "
  check "--interfere: csv header + 4 rows, wrong 0 where checked" awk -F, 'NR == 1 { ok = $1 == "mode" && $5 == "scenario" && $31 == "others_slowdown_pct" } NR > 1 { n++; if ($1 != "interfere" || ($26 != "" && $26 != "0")) bad++ } END { exit !(ok && n == 4 && !bad) }' "$tmp/if.csv"
  check "--interfere: pccl rows count collectives and daemon launches" awk -F, '$6 == "pccl" { n++; if ($21 < 1 || $29 < 1) bad++ } END { exit !(n == 2 && !bad) }' "$tmp/if.csv"
  check "--interfere: pccl-stuck is GPU 0's, one collective" awk -F, '$5 == "pccl-stuck" { n++; if ($7 != "0" || $21 != 1 || $30 == "") bad++ } END { exit !(n == 1 && !bad) }' "$tmp/if.csv"
  if command -v python3 >/dev/null; then
    check "--interfere: json parses, 4 scenarios" python3 -c "import json,sys; d=json.load(open('$tmp/if.json')); sys.exit(not (d['wrong']==0 and d['config']['interfere']=='gemm' and [r['scenario'] for r in d['interfere']]==['alone','pccl','pccl-stuck','alone-again']))"
  fi
fi
expect "--interfere (stand-in${asan:+, ASan}): stream, broadcast from rank 1" 0 "outcome=OK rows=4 wrong=0" -- \
  "${hc[@]}" "$bin" -g 2 --interfere stream --interfere-n 1 --interfere-k 3 -b 4K --coll broadcast -r 1
expect "--interfere: one rank, no pccl-stuck" 0 "pccl-stuck: skipped" -- \
  "${hc[@]}" "$perf" -g 1 --interfere stream --interfere-n 1 --interfere-k 2 -b 4K
expect "--interfere: planted wrong element: exit 4" 4 "outcome=WRONG" -- \
  env PCCL_PERF_TEST_CORRUPT=pccl "${hc[@]}" "$perf" -g 2 --interfere gemm --interfere-n 128 --interfere-k 2 -b 4K
check "--interfere: the mismatch is described" grep -q "wrong data (pccl): allreduce float32" "$tmp/err"

# ---- a rank that never shows up in time: the watchdog ----------------------------------------
expect "timeout: exit 3, reported" 3 "TIMEOUT: no iteration completed" -- \
  "$perf" -g 2 -b 64 -e 64 --coll all_reduce --delay-us 4000000 -n 1 -w 0 --timeout 1

# ---- scripts/perf with the host backend ------------------------------------------------------
if expect "scripts/perf --host" 0 "" -- scripts/perf --host --bin "$perf" --gpus 2 --out "$tmp/sp" -- -b 8 -e 4K -f 8 -n 2 -w 1; then
  for f in perf.txt perf.csv perf.json preempt.txt preempt.csv preempt-lowspin.csv commands.txt; do
    check "scripts/perf wrote $f" test -s "$tmp/sp/$f"
  done
  check "commands.txt holds the runs and exit status" grep -q "pccl-perf -g 2 .*--csv $tmp/sp/perf.csv.*# exit 0" "$tmp/sp/commands.txt"
  if command -v gnuplot >/dev/null; then
    rm -f "$tmp/sp/busbw.png" "$tmp/sp/latency.png"
    expect "scripts/perf --plot" 0 "wrote .*busbw.png" -- scripts/perf --plot "$tmp/sp"
    check "--plot: two PNG figures" test -s "$tmp/sp/busbw.png" -a -s "$tmp/sp/latency.png"
  fi
fi
if expect "scripts/perf --host --interfere-only (stand-in)" 0 "" -- env PCCL_PERF_TEST_HOST_COMPUTE=1 \
  scripts/perf --host --interfere-only --bin "$perf" --gpus 2 --out "$tmp/spi" -- --interfere-n 128 --interfere-k 2 -b 64K; then
  check "scripts/perf --interfere-only: four files and commands.txt, nothing else" test \
    "$(cd "$tmp/spi" && ls | tr '\n' ' ')" = "commands.txt interfere-gemm.csv interfere-gemm.txt interfere-stream.csv interfere-stream.txt "
  check "commands.txt holds the interfere runs" grep -q "pccl-perf -g 2 --interfere stream .*--csv $tmp/spi/interfere-stream.csv.*# exit 0" "$tmp/spi/commands.txt"
fi
expect "scripts/perf bad --gpus" 2 "--gpus x: expected a number" -- scripts/perf --gpus x

finish
