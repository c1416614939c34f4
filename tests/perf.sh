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
expect "-z 1 with --timing b2b"    2 "--timing b2b: -z 1 waits for every iteration" -- "$perf" -z 1 --timing b2b
expect "--pccl-mode is gone"       2 "--pccl-mode chain: replaced by --timing" -- "$perf" --pccl-mode chain
expect "--timing: unknown mode"    2 "--timing fast: unknown name 'fast' \(expected b2b, rt or all\)" -- "$perf" --timing fast
expect "--timing: empty list"      2 "--timing ,: empty list" -- "$perf" --timing ,
expect "--pccl-depth 0"            2 "--pccl-depth 0: expected an integer in \[1, 16\]" -- "$perf" --pccl-depth 0
expect "--pccl-depth 17"           2 "--pccl-depth 17: expected an integer in \[1, 16\]" -- "$perf" --pccl-depth 17
expect "--overlap without --interfere" 2 "--overlap: only with --interfere" -- "$perf" --overlap
expect "--overlap-colls without --overlap" 2 "--overlap-colls: only with --overlap" -- "$perf" --interfere gemm --overlap-colls 5
expect "--overlap-colls 0"         2 "--overlap-colls 0: expected an integer" -- "$perf" --interfere gemm --overlap --overlap-colls 0
expect "--overlap with -z 1"       2 "--overlap: runs its collectives back to back" -- "$perf" --interfere gemm --overlap -z 1
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

expect "--share-gpu with NCCL"      2 "--lib nccl,pccl: this build of pccl-perf has no NCCL" -- "$perf" --share-gpu --lib nccl,pccl
expect "--share-gpu: 2 ranks, checked" 0 "outcome=OK rows=4 wrong=0" -- "$perf" --share-gpu -g 2 --lib pccl --coll all_reduce -b 8 -e 64 -f 8 -n 3 -w 1 -c 1
expect "--share-gpu=2: 4 ranks, checked" 0 "outcome=OK rows=4 wrong=0" -- "$perf" --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 64 -f 8 -n 3 -w 1 -c 1
expect "--share-gpu=0"              2 "--share-gpu 0: expected an integer" -- "$perf" --share-gpu=0 --lib pccl
expect "--share-gpu=x"              2 "--share-gpu x: expected an integer" -- "$perf" --share-gpu=x --lib pccl

# ---- a checked sweep: every collective, 3 ranks (counts not divisible) ---------------
small=(-b 4 -e 64K -f 4 -n 3 -w 1)
if expect "sweep, checked, exit 0" 0 "outcome=OK" -- "$perf" -g 3 "${small[@]}" -c 1 --csv "$tmp/s.csv" --json "$tmp/s.json"; then
  cp "$tmp/out" "$tmp/s.txt"
  # all_gather and reduce_scatter skip 4 B (1 float < 3 ranks): 8+7+7+8+8 sizes
  check "sweep: 38 sizes x 1 library" test "$(rows "$tmp/s.txt" | wc -l)" = 38
  check "sweep: every #wrong is 0" awk '/^ +[0-9]+ / { n++; if ($11 != "0" || $15 != "0") bad++ } END { exit !(n == 38 && !bad) }' "$tmp/s.txt"
  check "sweep: every row is b2b (the default timing)" awk '/^ +[0-9]+ / { n++; if ($7 != "b2b") bad++ } END { exit !(n == 38 && !bad) }' "$tmp/s.txt"
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
  check "planted: #wrong 1 out of place, 0 in place" awk '/^ +[0-9]+ / { n++; if ($11 != "1" || $15 != "0") bad++ } END { exit !(n == 4 && !bad) }' "$tmp/out"
  check "planted: the mismatch is described" grep -q "wrong data (pccl, out of place): allreduce int32 sum count=256 nranks=2, rank 0: element 0" "$tmp/err"
  check "planted: csv rows say 1 and 0" test "$(awk -F, 'NR > 1 { printf "%s%s ", $5, $16 }' "$tmp/w.csv")" = "out1 in0 out1 in0 out1 in0 out1 in0 "
fi

# ---- no check, check limit ---------------------------------------------------------------
expect "-c 0: #wrong N/A" 0 "1024 +256 +float +sum +-1 +pccl +b2b +[0-9.]+ +[0-9.]+ +[0-9.]+ +N/A" -- \
  "$perf" -g 2 -b 1K -e 1K --coll all_reduce -c 0 -n 2 -w 0
expect "--check-max: larger sizes N/A" 0 "Not checked +: 1 sizes" -- \
  "$perf" -g 2 -b 1K -e 2K -f 2 --coll broadcast --check-max 1K -n 2 -w 0

# ---- timing modes ----------------------------------------------------------------------------
expect "-z 1 (blocking, barrier per iteration)" 0 "outcome=OK" -- "$perf" -g 2 -b 64 -e 4K -f 8 -z 1 -n 3 -w 1 --coll all_reduce,all_gather
# both timings: a row each, named; one check per library and placement, shown on both, counted once
# scripts/slice-log --ranks: the ranks' windows (first cut to first step after), on the host's clock
# (less each rank's clock_offset: rank 1's clock runs 1 ms ahead here), overlapping ones one stall
printf 'rank,launch,late,cut_at,end_at,begin_at,first_at,clock_offset\n0,2,1.0,1000000,1020000,1060000,1080000,0\n1,2,1.0,2010000,2030000,2070000,2090000,1000000\n0,3,1.0,5000000,5020000,5050000,5070000,0\n' > "$tmp/sl.csv"
expect "slice-log --ranks" 0 "3 relaunches of 2 ranks: 2 stalls, 1 of one rank \(median 70.0 us\), 1 of several \(median 90.0 us\)" -- scripts/slice-log --ranks "$tmp/sl.csv"
check "slice-log --windows: the two stalls, on the host's clock" test "$(scripts/slice-log --windows "$tmp/sl.csv" | tr '\n' ' ')" = "start_ns,end_ns,ranks 1000000,1090000,2 5000000,5070000,1 "
cut -d, -f1-7 "$tmp/sl.csv" > "$tmp/sl0.csv"
expect "slice-log --ranks, no clock_offset: the daemon's clocks as they are" 0 "3 relaunches of 2 ranks: 3 stalls" -- scripts/slice-log --ranks "$tmp/sl0.csv"
cut -d, -f1-3 "$tmp/sl.csv" > "$tmp/sl1.csv"
expect "slice-log --ranks, an older log" 2 "no cut_at column" -- scripts/slice-log --ranks "$tmp/sl1.csv"
expect "slice-log: the spans summarized" 0 "late +1.0" -- scripts/slice-log "$tmp/sl.csv"
check "slice-log: the moments and the offset not summarized" sh -c "! scripts/slice-log '$tmp/sl.csv' | grep -qE 'cut_at|clock_offset'"
expect "times-tails: unreadable" 2 "$tmp/none.csv: cannot read" -- scripts/times-tails "$tmp/none.csv"
printf 'a,b\n' > "$tmp/tt-bad.csv"
expect "times-tails: not a --times header" 2 "tt-bad.csv:1: not a pccl-perf --times header" -- scripts/times-tails "$tmp/tt-bad.csv"
printf 'rank,bytes,inplace,run,ns,timing,lib\n0,8,0,1,100,rt,pccl\n0,8,0\n' > "$tmp/tt-bad.csv"
expect "times-tails: a short line named" 2 "tt-bad.csv:3: 3 fields, expected 7" -- scripts/times-tails "$tmp/tt-bad.csv"
printf 'rank,bytes,inplace,run,ns,timing\n0,8,0,1,1000,rt\n0,8,0,1,3000,rt\n' > "$tmp/tt-old.csv"
expect "times-tails: a file without the lib column (b8d3a8e's): pccl's" 0 "pccl +rt +8 +0 +0 +1 +1 +2.00 " -- scripts/times-tails "$tmp/tt-old.csv"
expect "times-tails: bad --over" 2 "--over '0': expected positive" -- scripts/times-tails --over 0 "$tmp/tt-bad.csv"
expect "--times: not with --delay-us" 2 "--times $tmp/x.csv: the table's rows only" -- "$perf" --times "$tmp/x.csv" --delay-us 10
expect "unwritable --pccl-times" 1 "--times $tmp/no/such/dir/x.csv: cannot write" -- "$perf" -g 2 -b 1K -e 1K -n 2 -w 0 --pccl-times "$tmp/no/such/dir/x.csv"
if expect "--pccl-times" 0 "outcome=OK" -- "$perf" -g 2 -b 1K -e 4K -f 4 -n 20 -w 2 --coll all_reduce --pccl-times "$tmp/times.csv"; then
  check "--pccl-times: 2 ranks x 2 sizes x 2 placements x (20 + 2 warm-up) lines" test "$(wc -l < "$tmp/times.csv")" = 177
  check "--pccl-times: 8 runs per rank, times rising within each" awk -F, 'NR > 1 { k = $1 "," $4; if ((k in last) && $5 < last[k]) bad++; last[k] = $5; if ($4 > runs[$1]) runs[$1] = $4 } END { exit !(!bad && runs[0] == 8 && runs[1] == 8) }' "$tmp/times.csv"
fi
if expect "--times, round trips" 0 "outcome=OK" -- "$perf" -g 2 -b 1K -e 1K -n 20 -w 2 --coll all_reduce --timing rt --times "$tmp/rt.csv"; then
  # per rank and placement: the warm-up's chained run (2 lines, b2b), then the 20 round trips
  check "--times, round trips: 2 ranks x 2 placements x 20 rt lines" test "$(grep -c ',rt,pccl$' "$tmp/rt.csv")" = 80
  check "--times, round trips: 4 b2b lines (the warm-ups), the header" test "$(grep -vc ',rt,pccl$' "$tmp/rt.csv")" = 9
  check "--times, round trips: a run each, times rising, 20 apart" awk -F, 'NR > 1 && $6 == "rt" { k = $1 "," $4; if ((k in last) && $5 < last[k]) bad++; last[k] = $5; n[k]++ } END { for (k in n) { runs++; if (n[k] != 20) bad++ } exit !(!bad && runs == 4) }' "$tmp/rt.csv"
  # scripts/times-tails on it: each run's interval count and longest against a plain awk twin
  if expect "times-tails" 0 "" -- scripts/times-tails --csv --over 1,1000000 "$tmp/rt.csv"; then
    cp "$tmp/out" "$tmp/tails.csv"
    check "times-tails: rt rows, 19 intervals each, the longest as awk finds it" test \
      "$(awk -F, '$2 == "rt" { printf "%s/%s/%d/%.1f\n", $5, $4, $7, $12 }' "$tmp/tails.csv" | sort | tr '\n' ' ')" = \
      "$(awk -F, 'NR > 1 && $6 == "rt" { k = $1 "/" $3; if (k in last) { d = ($5 - last[k]) / 1e3; n[k]++; if (d > m[k]) m[k] = d } last[k] = $5 }
                  END { for (k in n) printf "%s/%d/%.1f\n", k, n[k], m[k] }' "$tmp/rt.csv" | sort | tr '\n' ' ')"
    check "times-tails: the counts over 1 us at most n, none over 1 s" awk -F, '$2 == "rt" { r++; if ($14 != 0 || $13 > $7 || $13 < 1) bad = 1 } END { exit (bad || r != 4) }' "$tmp/tails.csv"
  fi
  expect "times-tails --top 1: the file's longest" 0 "the 1 longest intervals" -- scripts/times-tails --top 1 "$tmp/rt.csv"
fi
if expect "--timing all" 0 "outcome=OK rows=12 wrong=0" -- env PCCL_PERF_TEST_CORRUPT=none "$perf" -g 2 -b 64 -e 4K -f 8 --timing all -n 3 -w 1 --coll reduce_scatter --csv "$tmp/t.csv"; then
  check "--timing all: b2b then rt rows per size" test "$(awk '/^ +[0-9]+ / { printf "%s%s ", $1, $7 }' "$tmp/out")" = "64b2b 64rt 512b2b 512rt 4096b2b 4096rt "
  check "--timing all: csv timing column" test "$(awk -F, 'NR == 1 { print $22 } NR > 1 && $5 == "out" { printf "%s ", $22 }' "$tmp/t.csv" | tr '\n' ' ')" = "timing b2b rt b2b rt b2b rt "
  check "--timing all: summary per timing" grep -q "Avg bus bandwidth    : .* GB/s (pccl, rt, mean of 6 rows)" "$tmp/out"
fi
if expect "--timing all, planted wrong element: counted once" 4 "outcome=WRONG rows=4 wrong=1 " -- env PCCL_PERF_TEST_CORRUPT=pccl "$perf" -g 2 -b 1K -e 1K --timing all -n 2 -w 0 --coll all_reduce; then
  check "planted, both timings: #wrong 1 on both rows" awk '/^ +[0-9]+ / { n++; if ($11 != "1") bad++ } END { exit !(n == 2 && !bad) }' "$tmp/out"
fi
# b2b keeps --pccl-depth invocations in flight, cycling over registered copies; every depth
# runs, 3 ranks, iterations not a multiple of the depth
for d in 1 3 16; do
  expect "--pccl-depth $d: b2b, checked" 0 "outcome=OK rows=4 wrong=0" -- "$perf" -g 3 -b 1K -e 64K -f 64 --pccl-depth $d -n 7 -w 2 --coll all_reduce
done
expect "--timing rt: pcclRun, pcclWait" 0 "timing: rt \(round trip" -- "$perf" -g 2 -b 64 -e 4K -f 8 --timing rt -n 3 -w 1 --coll reduce_scatter
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
# --overlap: the same K launches and M collectives, alone and at once (stand-in: figures meaningless)
if expect "--overlap (stand-in): rows, checked" 0 "outcome=OK rows=3 wrong=0" -- \
  "${hc[@]}" "$perf" -g 2 --interfere gemm --interfere-n 128 --interfere-k 3 --overlap --overlap-colls 40 -b 4K -w 1 --csv "$tmp/ov.csv"; then
  check "--overlap: rows alone, pccl-alone, pccl+kernel" test "$(awk '/^  [a-z+-]+ +(-|pccl) / { printf "%s ", $1 }' "$tmp/out")" = "alone pccl-alone pccl+kernel "
  # CSV: 5 scenario, 13 colls, 14 compute_ms, 15 colls_ms, 16 makespan, 19 vs_serial, 20 vs_ideal
  check "--overlap: 40 collectives, makespan >= each part, vs_serial = makespan / (compute + colls)" awk -F, '
    $5 == "alone" { a = $16 } $5 == "pccl-alone" { c = $16; if ($13 != 40) bad++ }
    $5 == "pccl+kernel" { n++; if ($13 != 40 || $16 < $15 || $16 < $14 * 0.999 || ($19 - $16 / (a + c)) ^ 2 > 1e-6 || ($20 - $16 / (a > c ? a : c)) ^ 2 > 1e-6) bad++ }
    END { exit !(n == 1 && !bad) }' "$tmp/ov.csv"
  check "--overlap: csv header" test "$(head -1 "$tmp/ov.csv" | cut -d, -f5,16,19)" = "scenario,makespan_ms,vs_serial"
fi
expect "--overlap (stand-in): M chosen from the library alone" 0 "outcome=OK rows=3" -- \
  "${hc[@]}" "$perf" -g 1 --interfere stream --interfere-n 1 --interfere-k 2 --overlap -b 4K

# ---- a rank that never shows up in time: the watchdog ----------------------------------------
expect "timeout: exit 3, reported" 3 "TIMEOUT: no iteration completed" -- \
  "$perf" -g 2 -b 64 -e 64 --coll all_reduce --delay-us 4000000 -n 1 -w 0 --timeout 1

# ---- scripts/perf-vs-nccl-tests: parser and table on captured outputs (tests/data/nccl-tests) ----
nt=tests/data/nccl-tests vs=scripts/perf-vs-nccl-tests
if expect "nccl-tests parser: captured all_reduce_perf" 0 "" -- $vs --parse $nt/nccl-tests-all_reduce-b2b.txt; then
  check "parser: 28 rows (14 sizes x 2 placements)" test "$(wc -l < "$tmp/out")" = 28
  check "parser: first and last rows" test "$(sed -n '1p;$p' "$tmp/out" | tr '\n' ' ')" = "out,8,8.13,0.00 in,536870912,5.14,0.00 "
fi
expect "parser: unreadable file" 2 "$tmp/none.txt: cannot read" -- $vs --parse "$tmp/none.txt"
expect "parser: no rows" 2 "README.md: no nccl-tests rows" -- $vs --parse $nt/README.md
{ sed -n 1,12p $nt/nccl-tests-all_reduce-b2b.txt; echo "          32             8     float     sum      -1     8.81    0.00    0.00"; } > "$tmp/cut.txt"
expect "parser: a cut row names file and line" 2 "cut.txt:13: not an nccl-tests row \(8 fields\)" -- $vs --parse "$tmp/cut.txt"
cp -r $nt "$tmp/vs"
if expect "--compare: the table" 0 "agree: 32 of 56 rows" -- $vs --compare "$tmp/vs"; then
  check "--compare: 56 rows, both timings" test "$(grep -cE '^  all_reduce +(b2b|rt) ' "$tmp/vs/vs-nccl-tests.txt")" = 56
  check "--compare: 512 MiB b2b agrees (359.83 against 360.26)" grep -qE '^  all_reduce +b2b +out +536870912 +359.83 +360.26 +\+0.1 +yes +469.99 +0.77 +- +0.77 +-$' "$tmp/vs/vs-nccl-tests.txt"
  check "--compare: 8 KiB b2b does not (7.40 against 8.74: 18%, 1.3 us)" grep -qE '^  all_reduce +b2b +out +8192 +7.40 +8.74 +\+18.1 +NO ' "$tmp/vs/vs-nccl-tests.txt"
  check "--compare: within 1 us agrees (0.70 against 2.34 is not; 1.21 against 2.13 is)" test \
    "$(awk -F, '$2 == "rt" && $3 == "in" && ($4 == 8 || $4 == 128) { printf "%s ", $8 }' "$tmp/vs/vs-nccl-tests.csv")" = "yes NO "
  check "--compare: csv header + 56 rows" test "$(head -1 "$tmp/vs/vs-nccl-tests.csv"),$(wc -l < "$tmp/vs/vs-nccl-tests.csv")" = \
    "coll,timing,placement,size,nccl_tests_us,pccl_perf_nccl_us,diff_pct,agree,pccl_us,nccl_tests_over_pccl,nccl_tests_threads_us,best_over_pccl,nccl_tests_again_us,pccl_at_or_below,57"
fi
# issue 16's count, pccl at or below the faster nccl-tests time, against a plain count of the CSV's rows;
# two pccl times made fast (512 MiB b2b out of place 359.83 us, equal to nccl-tests', 8 B rt in place
# 0.50 against 0.58: at or below), the rest as captured (below: 8 listed and "N more")
mkdir -p "$tmp/vsc" && cp $nt/nccl-tests-*.txt "$tmp/vsc/"
awk -F, -v OFS=, '$4 == "pccl" && $5 == "out" && $6 == 536870912 && $22 == "b2b" { $13 = 359.83 }
                  $4 == "pccl" && $5 == "in" && $6 == 8 && $22 == "rt" { $13 = 0.50 } { print }' $nt/perf.csv > "$tmp/vsc/perf.csv"
if expect "--compare: pccl's count" 0 "pccl at or below the faster nccl-tests time: b2b 1 of 28 .*, 19 more\); rt 1 of 28 " -- $vs --compare "$tmp/vsc"; then
  check "count: the CSV's rows counted plainly agree" test "$(awk -F, 'NR > 1 && $9 != "" { b = $5; if ($11 != "" && $11 + 0 < b + 0) b = $11; n[$2]++; if ($9 + 0 <= b + 0) k[$2]++ } END { printf "%d/%d %d/%d", k["b2b"], n["b2b"], k["rt"], n["rt"] }' "$tmp/vsc/vs-nccl-tests.csv")" = "1/28 1/28"
  check "count: the rows below listed with best / pccl" grep -q "b2b 1 of 28 (below, coll/place/size best/pccl: all_reduce/out/8 0.66, all_reduce/in/8 0.06," "$tmp/out"
fi
# --require: exit 5 naming the rows of a timing where pccl is slower; 0 where none is
expect "--require b2b: the 27 rows the count puts below" 5 "--require b2b: 27 row\(s\) where pccl is slower .*: b2b/all_reduce/out/8 0.66, .*, 19 more" -- $vs --compare "$tmp/vsc" --require b2b
awk -F, -v OFS=, 'NR > 1 && $4 == "pccl" { $13 = 0.01 } { print }' $nt/perf.csv > "$tmp/vsc/perf.csv"
expect "--require all: pccl faster everywhere" 0 "b2b 28 of 28; rt 28 of 28" -- $vs --compare "$tmp/vsc" --require all
expect "--require: a bad timing" 2 "--require 'fast': expected b2b, rt or all" -- $vs --compare "$tmp/vsc" --require fast
# nccl-tests with one thread per GPU beside it: its time in -t, the faster of the two in best
sed 's/ 359.83 / 300.00 /' $nt/nccl-tests-all_reduce-b2b.txt > "$tmp/vs/nccl-tests-all_reduce-b2b-threads.txt"
if expect "--compare: with -t outputs" 0 "agree: 32 of 56 rows" -- $vs --compare "$tmp/vs"; then
  check "--compare: -t faster: best is its ratio (300.00 / 469.99)" grep -qE '^  all_reduce +b2b +out +536870912 +359.83 +360.26 +\+0.1 +yes +469.99 +0.77 +300.00 +0.64 +-$' "$tmp/vs/vs-nccl-tests.txt"
  check "--compare: -t slower or equal: best is -g's" grep -qE '^  all_reduce +b2b +in +536870912 +([0-9.]+) +[-+0-9. ]+ +(yes|NO) +[0-9.]+ +([0-9.]+) +\1 +\3 +-$' "$tmp/vs/vs-nccl-tests.txt"
  check "--compare: rt rows without -t outputs: -" grep -qE '^  all_reduce +rt +out +8 .* +- +[0-9.]+ +-$' "$tmp/vs/vs-nccl-tests.txt"
fi
# nccl-tests a second time (--again): a row beyond 5% and 1 us but no farther from nccl-tests' first
# run than its second is "spread"; one where the second run repeats the first stays NO
cp -r $nt "$tmp/vsa"
sed 's/ 7.40 / 9.50 /' $nt/nccl-tests-all_reduce-b2b.txt > "$tmp/vsa/nccl-tests-all_reduce-b2b-again.txt"
cp $nt/nccl-tests-all_reduce-rt.txt "$tmp/vsa/nccl-tests-all_reduce-rt-again.txt"
if expect "--compare: with --again outputs" 0 "agree: 32 of 56 rows .*; 1 more within nccl-tests' own spread" -- $vs --compare "$tmp/vsa"; then
  check "--again: 8 KiB b2b 8.74 against 7.40, then 9.50: spread" grep -qE '^  all_reduce +b2b +out +8192 +7.40 +8.74 +\+18.1 +spread .* 9.50$' "$tmp/vsa/vs-nccl-tests.txt"
  check "--again: 8 KiB rt 14.30 against 10.37 twice: NO" grep -qE '^  all_reduce +rt +out +8192 +10.37 +14.30 +\+37.9 +NO .* 10.37$' "$tmp/vsa/vs-nccl-tests.txt"
  check "--again: the csv's last column" test "$(awk -F, '$2 == "b2b" && $3 == "out" && $4 == 8192 { print $8 "," $13 }' "$tmp/vsa/vs-nccl-tests.csv")" = "spread,9.50"
fi
check "--compare without --again outputs: no spread counted, again -" sh -c "! grep -q 'own spread' '$tmp/vs/vs-nccl-tests.txt' && grep -qE '^  all_reduce +b2b +out +8192 .* -$' '$tmp/vs/vs-nccl-tests.txt'"
mkdir -p "$tmp/vs2" && cp $nt/nccl-tests-*.txt "$tmp/vs2/"
expect "--compare: no perf.csv" 2 "--compare $tmp/vs2: no $tmp/vs2/perf.csv" -- $vs --compare "$tmp/vs2"
cut -d, -f1-21 $nt/perf.csv > "$tmp/vs2/perf.csv"
expect "--compare: a perf.csv without timings" 2 "perf.csv: not a pccl-perf CSV with a timing column" -- $vs --compare "$tmp/vs2"
mkdir -p "$tmp/vs3" && cp $nt/perf.csv "$tmp/vs3/"
expect "--compare: no nccl-tests outputs" 2 "no nccl-tests-<coll>-<b2b\|rt>.txt" -- $vs --compare "$tmp/vs3"
expect "perf-vs-nccl-tests: bad --colls" 2 "unknown collective 'alltoall'" -- $vs --colls all_reduce,alltoall --nccl-tests $nt
expect "perf-vs-nccl-tests: bad --gpus" 2 "--gpus 0: expected a number of GPUs" -- $vs --gpus 0
expect "perf-vs-nccl-tests: no nccl-tests binaries" 2 "$tmp/nobin/all_reduce_perf not found" -- $vs --nccl-tests "$tmp/nobin" --colls all_reduce
expect "perf-vs-nccl-tests: unknown argument" 2 "unknown argument '--bogus'" -- $vs --bogus
expect "perf-vs-nccl-tests: bad -d" 2 "-d 'fp16': expected one of int8" -- $vs -d fp16
expect "perf-vs-nccl-tests: -d without a value" 2 "-d '': expected one of" -- $vs -d
expect "perf-vs-nccl-tests: bad -o" 2 "-o 'all': expected one of sum prod max min avg" -- $vs -o all
# the run itself, with stand-ins that print the captured outputs: the commands, the files, the table
mkdir -p "$tmp/fake"
printf '#!/bin/sh\ncase " $* " in *" -z 1 "*) cat %s/nccl-tests-all_reduce-rt.txt ;; *) cat %s/nccl-tests-all_reduce-b2b.txt ;; esac\n' "$PWD/$nt" "$PWD/$nt" > "$tmp/fake/all_reduce_perf"
printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --csv ] && cp %s/perf.csv "$2"; shift; done\necho RESULT stand-in\n' "$PWD/$nt" > "$tmp/fake/pccl-perf"
chmod +x "$tmp/fake/all_reduce_perf" "$tmp/fake/pccl-perf"
if expect "perf-vs-nccl-tests: a run (stand-ins)" 0 "agree: 32 of 56 rows" -- $vs --gpus 1 --colls all_reduce --nccl-tests "$tmp/fake" --bin "$tmp/fake/pccl-perf" --out "$tmp/vsrun" -- --check-max 1M; then
  check "run: nccl-tests b2b and rt, pccl-perf with --timing all and the extra flags" test "$(grep -c '# exit 0' "$tmp/vsrun/commands.txt"),$(grep -c 'all_reduce_perf -b 8 -e 1G -f 4 -g 1 -n 20 -w 5 -c 1 -z [01] ' "$tmp/vsrun/commands.txt"),$(grep -c 'pccl-perf --coll all_reduce -b 8 -e 1G -f 4 -g 1 -n 20 -w 5 -c 1 --timing all --csv .* --check-max 1M ' "$tmp/vsrun/commands.txt")" = "3,2,1"
  check "run: every file" test "$(cd "$tmp/vsrun" && ls | tr '\n' ' ')" = "commands.txt nccl-tests-all_reduce-b2b.txt nccl-tests-all_reduce-rt.txt perf.csv perf.txt vs-nccl-tests.csv vs-nccl-tests.txt "
fi
if expect "perf-vs-nccl-tests: --again (stand-ins)" 0 "agree: 32 of 56 rows .*; 0 more within" -- $vs --gpus 1 --colls all_reduce --nccl-tests "$tmp/fake" --bin "$tmp/fake/pccl-perf" --out "$tmp/vsrun3" --again; then
  check "--again: nccl-tests twice each timing, the second after pccl-perf" test "$(grep -o 'all_reduce_perf .* -z [01]\|pccl-perf --coll' "$tmp/vsrun3/commands.txt" | sed 's/.* -z /z/' | tr '\n' ' ')" = "z0 z1 pccl-perf --coll z0 z1 "
  check "--again: its files" test "$(cd "$tmp/vsrun3" && ls nccl-tests-* | tr '\n' ' ')" = "nccl-tests-all_reduce-b2b-again.txt nccl-tests-all_reduce-b2b.txt nccl-tests-all_reduce-rt-again.txt nccl-tests-all_reduce-rt.txt "
fi
if expect "perf-vs-nccl-tests: -d half -o avg (stand-ins)" 0 "agree: 32 of 56 rows" -- $vs --gpus 1 --colls all_reduce --nccl-tests "$tmp/fake" --bin "$tmp/fake/pccl-perf" --out "$tmp/vsrun2" -d half -o avg; then
  check "run: -d half -o avg to both programs" test "$(grep -c 'all_reduce_perf .* -c 1 -d half -o avg -z [01] ' "$tmp/vsrun2/commands.txt"),$(grep -c 'pccl-perf .* -c 1 -d half -o avg --timing all ' "$tmp/vsrun2/commands.txt")" = "2,1"
fi

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
    "$(cd "$tmp/spi" && ls | tr '\n' ' ')" = "commands.txt interfere-gemm.csv interfere-gemm.txt interfere-stream.csv interfere-stream.txt overlap-gemm.csv overlap-gemm.txt "
  check "commands.txt holds the interfere runs" grep -q "pccl-perf -g 2 --interfere stream .*--csv $tmp/spi/interfere-stream.csv.*# exit 0" "$tmp/spi/commands.txt"
fi
expect "scripts/perf bad --gpus" 2 "--gpus x: expected a number" -- scripts/perf --gpus x
expect "scripts/perf --help" 0 "--overlap-blocks LIST" -- scripts/perf --help
check "scripts/perf --help: comments only" test "$(scripts/perf --help | grep -vc '^#')" = 0
expect "scripts/perf bad --overlap-blocks" 2 "--overlap-blocks 4,x: expected a list of block counts" -- scripts/perf --overlap-blocks 4,x
expect "scripts/perf --nccl-tests with --host" 2 "--nccl-tests: not with --host" -- scripts/perf --host --nccl-tests "$tmp"
expect "scripts/perf-vs-nccl-tests --help" 0 "--compare DIR" -- scripts/perf-vs-nccl-tests --help

# ---- scripts/perf-ab: two builds in turn, medians against a plain computation -------------------
# Stand-ins: each run writes one bench row whose time is the next of its list (a counter file per
# build): A 10 90 20 40 (median 30, its mean 40; 10-90), B twice that (60, 20-180), so B / A = 2.
ab=scripts/perf-ab
for x in a b; do
  m=1; [ $x = b ] && m=2
  printf '#!/bin/sh
n=$(cat %s/%s.n 2>/dev/null || echo 0); echo $((n + 1)) > %s/%s.n
set -- "$@"
while [ $# -gt 0 ]; do [ "$1" = --csv ] && f=$2; shift; done
t=$(echo "10 90 20 40" | cut -d" " -f$((n %% 4 + 1)))
{ echo mode,coll,nranks,lib,placement,size,count,type,redop,root,iters,warmup,time_us,algbw_GBs,busbw_GBs,wrong,ratio,dtime_us,delay_us,preempt_per_iter_block,quits_per_iter,timing
  echo bench,all_reduce,2,pccl,out,1024,256,float,sum,-1,5,1,$((t * %d)),0,0,,,,,,,b2b; } > "$f"
' \
    "$tmp" $x "$tmp" $x $m > "$tmp/ab-$x"
  chmod +x "$tmp/ab-$x"
done
if expect "perf-ab: 2 rounds of stand-ins" 0 "all_reduce +float +sum +-1 +1024 out b2b +pccl +30.00 +60.00 +2.000 +10.00-90.00 +20.00-180.00" -- \
  $ab --rounds 2 --out "$tmp/abrun" "$tmp/ab-a" "$tmp/ab-b" -- -g 2; then
  check "perf-ab: A B B A twice, each run's CSV and output kept" test \
    "$(cd "$tmp/abrun" && ls *.csv | tr '\n' ' ')" = "a-1.2.csv a-1.csv a-2.2.csv a-2.csv ab.csv b-1.2.csv b-1.csv b-2.2.csv b-2.csv "
  check "perf-ab: ab.csv's row" grep -qx "all_reduce,float,sum,-1,1024,out,b2b,pccl,30.0000,60.0000,2.0000,10.0000,90.0000,20.0000,180.0000" "$tmp/abrun/ab.csv"
  check "perf-ab: the order A B B A in commands.txt" test \
    "$(grep -o 'ab-[ab] -g 2' "$tmp/abrun/commands.txt" | cut -c4 | tr -d '\n')" = "abbaabba"
fi
if expect "perf-ab: two host builds (pccl-perf itself)" 0 "all_reduce +float +sum +-1 +4096 in +b2b +pccl" -- \
  $ab --rounds 1 "$perf" "$perf" -- -g 2 --coll all_reduce -b 1K -e 4K -f 4 -n 3 -w 1 -c 0 --timing b2b; then :; fi
expect "perf-ab: --help"           0 "A B B A"                                -- $ab --help
expect "perf-ab: one build"        2 "needs two pccl-perf builds"             -- $ab "$perf"
expect "perf-ab: --rounds 0"       2 "--rounds '0': expected a number"        -- $ab --rounds 0 "$perf" "$perf"
expect "perf-ab: not executable"   2 "/nonexistent: not an executable"        -- $ab "$perf" /nonexistent
expect "perf-ab: a third build"    2 "a third build"                          -- $ab "$perf" "$perf" "$perf"
expect "perf-ab: --csv is its own" 2 "--csv is perf-ab's own"                 -- $ab "$perf" "$perf" -- --csv x
expect "perf-ab: unknown argument" 2 "unknown argument '--bogus'"             -- $ab --bogus "$perf" "$perf"
if expect "perf-ab: a failing build" 1 "perf-ab: /bin/false exited 1" -- $ab --rounds 2 --out "$tmp/abfail" "$perf" /bin/false -- -g 2 -b 1K -e 1K -n 2 -w 1 -c 0; then
  check "perf-ab: stops at the failing run" test "$(grep -c '# exit' "$tmp/abfail/commands.txt")" = 2
fi
# reduce with -r all: each root a row of its own
if expect "perf-ab: roots apart" 0 "" -- $ab --rounds 1 --out "$tmp/abroot" "$perf" "$perf" -- -g 2 --coll reduce -r all -b 1K -e 1K -n 2 -w 1 -c 0 --timing b2b; then
  check "perf-ab: reduce at roots 0 and 1, out and in place: 4 rows" test "$(grep -c '^reduce,float,sum,[01],1024,' "$tmp/abroot/ab.csv")" = 4
fi

# ---- scripts/train-plot: the table from train_order.py CSVs (results/stream-gpu) -----------------
tp=scripts/train-plot
if command -v gnuplot >/dev/null; then
  expect "train-plot: table row (first, last loss, median step)" 0 "\| pccl \| 40 \| 5.6367 \| 4.3802 \| 7.38 \|" -- \
    $tp "$tmp/loss.png" pccl=results/stream-gpu/run3/loss-pccl-consistent.csv nccl=results/stream-gpu/run3/loss-nccl-consistent.csv
  check "train-plot: wrote the figure" test -s "$tmp/loss.png"
fi
printf 'step,loss\n0,1\n' >"$tmp/notrain.csv"
expect "train-plot: not LABEL=FILE" 2 "'x.csv' is not LABEL=FILE.csv" -- $tp "$tmp/l.png" x.csv
expect "train-plot: not a train_order.py CSV" 2 "notrain.csv:1: not a train_order.py CSV" -- $tp "$tmp/l.png" a="$tmp/notrain.csv"
expect "train-plot: missing file" 2 "nope.csv: cannot read" -- $tp "$tmp/l.png" a="$tmp/nope.csv"
expect "train-plot --help" 0 "LABEL=FILE.csv" -- $tp --help

finish
