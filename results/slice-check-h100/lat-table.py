#!/usr/bin/env python3
"""The daemon's time per 8 B all-reduce from PCCL_TRACE_LAT runs (run.sh's lat.txt[.gz]):
per build, timing and slice setting, the median hop from the SQ read to the completion
('daemon') and the whole round ('total'), one pair per run (the invocations timed: waited by callback back to back, by pcclWait round trip).
    python3 lat-table.py call1/lat.txt.gz"""
import collections, gzip, re, sys

def main(path):
    opener = gzip.open if path.endswith('.gz') else open
    runs = collections.defaultdict(list)
    cmd = None
    with opener(path, 'rt') as f:
        for line in f:
            if line.startswith('== timeout'):
                cmd = line
            m = re.search(r'via (callback|pcclWait): (\d+) invocations', line)
            if not (m and cmd and int(m.group(2)) > 1000):
                continue
            b = re.search(r'pccl-perf(-\w+)?', cmd).group(1) or ''
            t = re.search(r'--timing (\w+)', cmd).group(1)
            s = re.search(r'PCCL_SLICE_\w+=\d+', cmd).group(0)
            s = {'PCCL_SLICE_US=0': 'off', 'PCCL_SLICE_US=60000000': '60 s', 'PCCL_SLICE_DEFAULT=1': '4 ms'}.get(s, s)
            d = float(re.search(r'daemon ([\d.]+)', line).group(1))
            tot = float(re.search(r'total ([\d.]+)', line).group(1))
            runs[(b.lstrip('-') or 'this build', t, s)].append((d, tot))
    print('| build | timing | slice | daemon (us), per run | total (us), per run |')
    print('|---|---|---|---|---|')
    for k in sorted(runs):
        v = runs[k]
        print('| %s | %s | %s | %s | %s |' % (k + (' '.join('%.2f' % x[0] for x in v), ' '.join('%.2f' % x[1] for x in v))))

if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
