#!/usr/bin/env python3
# Call 2: each round trip over 300 us of rank 0 (pccl-perf --times) with the relaunches (PCCL_SLICE_LOG's
# call_at, the host's clock) from 7 ms before it to its end; the round trips' tails themselves are
# scripts/times-tails's (call2/x.tar.xz keeps its output, *.tails.txt, in place of the 10 MB files).
#   python3 tails.py TIMES.csv SLICE_LOG.csv [INPLACE]
import csv, sys
runs = {}
ip = int(sys.argv[3]) if len(sys.argv) > 3 else 0
for r in csv.DictReader(open(sys.argv[1])):
    if r['timing'] == 'rt' and r['rank'] == '0' and int(r['inplace']) == ip:
        runs.setdefault(r['run'], []).append(int(r['ns']))
sl = [r for r in csv.DictReader(open(sys.argv[2])) if r['rank'] != 'rank']
for t in runs.values():
    for a, b in zip(t, t[1:]):
        if b - a < 300e3: continue
        print(f"rank 0 {'in' if ip else 'out'}: {(b - a) / 1e3:.1f} us ending at {b}")
        for r in sl:
            c = int(r['call_at'])
            if a - 7e6 <= c <= b:
                print(f"   rank {r['rank']} relaunch call {(c - a) / 1e3:+.1f} us from its start, launch {r['launch']}")
