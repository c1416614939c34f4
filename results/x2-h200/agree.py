#!/usr/bin/env python3
# Call 3 (a): round-trip times of nccl-tests -z 1 (nt), pccl-perf --lib nccl (nccl-only) and pccl-perf
# with both libraries (both), two runs each, from callN/runs.txt.gz; the count of rows of each within
# 5% or 1 us of nccl-tests' first run.   python3 agree.py call3/runs.txt.gz
import gzip, re, sys, collections
runs = gzip.open(sys.argv[1], 'rt').read().split('\n== ')
data = collections.defaultdict(dict)  # (coll, size, place) -> {variant_round: us}
rnd = collections.Counter()
for r in runs:
    head = r.split('\n', 1)[0]
    m = re.search(r'nt/(\w+)_perf', head)
    if m:
        coll, var = m.group(1), 'nt'
    else:
        m = re.search(r'--coll (\w+) .*-b 8 ', head)
        if not m: continue
        coll = m.group(1); var = 'nccl-only' if '--lib nccl' in head else 'both'
    rnd[(coll, var)] += 1; k = f"{var}{rnd[(coll, var)]}"
    for line in r.split('\n'):
        f = line.split()
        if not f or not f[0].isdigit(): continue
        if var == 'nt':
            # size count type redop root time algbw busbw wrong time algbw busbw wrong
            data[(coll, int(f[0]), 'out')][k] = float(f[5]); data[(coll, int(f[0]), 'in')][k] = float(f[9])
        else:
            if f[5] != 'nccl' or f[6] != 'rt': continue
            data[(coll, int(f[0]), 'out')][k] = float(f[7]); data[(coll, int(f[0]), 'in')][k] = float(f[13] if len(f) > 16 else f[11])
cols = ['nt1', 'nt2', 'nccl-only1', 'nccl-only2', 'both1', 'both2']
print('%-11s %9s %4s ' % ('coll', 'size', 'pl') + ' '.join('%10s' % c for c in cols))
agree = collections.Counter()
for key in sorted(data):
    d = data[key]
    print('%-11s %9d %4s ' % key + ' '.join('%10.2f' % d[c] if c in d else '%10s' % '-' for c in cols))
    for v in ('nt2', 'nccl-only1', 'nccl-only2', 'both1', 'both2'):
        if v in d and 'nt1' in d:
            ok = abs(d[v] - d['nt1']) <= max(1.0, 0.05 * d['nt1'])
            agree[v] += ok; agree[v + ' n'] += 1
print({k: agree[k] for k in sorted(agree)})
