#!/usr/bin/env python3
# Every round trip's time (pccl-perf --times) per library, rank and placement: mean, median, 99th and
# 99.9th percentiles, max, the count over 100 and 500 us; with a PCCL_SLICE_LOG, each round trip over
# 300 us of rank 0 with the relaunches (call_at, the host's clock) from 7 ms before it to its end.
#   python3 tails.py [--each] TIMES.csv [SLICE_LOG.csv [INPLACE]]      (calls 2-3: unpack callN/x.tar.xz)
# --each: every round trip of rank 0 too (us, in order).
import csv, statistics as st, sys, collections
each = len(sys.argv) > 1 and sys.argv[1] == '--each'
if each: del sys.argv[1]
by = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['timing'] == 'rt':
        by[(r.get('lib', 'pccl'), int(r['rank']), int(r['inplace']), int(r['bytes']))].append(int(r['ns']))
for k in sorted(by):
    t = by[k]
    iv = sorted((b - a) / 1e3 for a, b in zip(t, t[1:]))
    n = len(iv)
    if n < 2: continue
    print(f"{k[0]} rank {k[1]} {'in' if k[2] else 'out'} {k[3]} B: {n} intervals, mean {st.mean(iv):.2f} median "
          f"{st.median(iv):.2f} p99 {iv[int(.99 * n)]:.1f} p99.9 {iv[int(.999 * n)]:.1f} max {iv[-1]:.0f} us; "
          f">100 us {sum(x > 100 for x in iv)}, >500 us {sum(x > 500 for x in iv)}")
    if each and k[1] == 0: print('   ' + ' '.join(f"{(b - a) / 1e3:.0f}" for a, b in zip(t, t[1:])))
if len(sys.argv) > 2:
    sl = [r for r in csv.DictReader(open(sys.argv[2])) if r['rank'] != 'rank']
    ip = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    for key, t in sorted(by.items()):
        if key[1] != 0 or key[2] != ip: continue
        for a, b in zip(t, t[1:]):
            if b - a < 300e3: continue
            print(f"{key[0]} rank 0 {'in' if ip else 'out'}: {(b - a) / 1e3:.1f} us ending at {b}")
            for r in sl:
                c = int(r['call_at'])
                if a - 7e6 <= c <= b:
                    print(f"   rank {r['rank']} relaunch call {(c - a) / 1e3:+.1f} us from its start, launch {r['launch']}")
