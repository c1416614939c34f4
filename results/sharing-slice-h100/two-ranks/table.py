#!/usr/bin/env python3
"""Two ranks sharing one GPU: time per all-reduce (us, out of place) per size and timing, the runs of each variant
of run.sh (default slice, PCCL_SLICE_ALIGN=1, PCCL_SLICE_US=0), then the median ratio to the slice-off runs.
Usage: table.py log.txt.gz"""
import gzip, re, statistics, sys
cur = None; rows = {}
for l in gzip.open(sys.argv[1], 'rt'):
    if l.startswith('== ') and not l.startswith('== exit'):
        cur = 'align' if 'ALIGN=1' in l else ('off' if 'SLICE_US=0' in l else 'default'); continue
    m = re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+pccl\s+(b2b|rt)\s+([\d.]+)\s', l)
    if m and cur: rows.setdefault((m.group(2), int(m.group(1))), {}).setdefault(cur, []).append(float(m.group(3)))
for k in sorted(rows):
    r = rows[k]; off = statistics.median(r['off'])
    print('%-4s %8d ' % k, '  '.join('%s: %s (x%.3f)' % (v, ' '.join('%.1f' % x for x in r[v]), statistics.median(r[v]) / off)
                                     for v in ['default', 'align', 'off'] if v in r))
