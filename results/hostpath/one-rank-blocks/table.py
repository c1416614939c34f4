#!/usr/bin/env python3
"""Time per all-reduce (us, out of place) per size and timing, for each PCCL_XONE_BLOCK_MAX of run.sh (x8192 is
main's rule), nccl-tests beside it.  Usage: table.py log.txt.gz"""
import gzip, re, sys
cur = None; rows = {}
for l in gzip.open(sys.argv[1], 'rt'):
    if l.startswith('== ') and not l.startswith('== exit'):
        if 'nt/' in l: cur = 'nccl ' + ('rt' if '-z 1' in l else 'b2b'); continue
        m = re.search(r'XONE_BLOCK_MAX=(\d+)', l)
        cur = ('x' + m.group(1) if m else 'x8192') + (' all' if '--coll all ' in l else ''); continue
    m = re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+(?:pccl\s+(b2b|rt)\s+)?([\d.]+)\s', l)
    if m and cur:
        if cur.startswith('nccl'): k = (cur.split()[1], int(m.group(1))); v = 'nccl-tests'
        else: k = (m.group(2), int(m.group(1))); v = cur
        rows.setdefault(k, {}).setdefault(v, []).append(float(m.group(3)))
for k in sorted(rows):
    print('%-4s %8d ' % k, '  '.join('%s: %s' % (v, ' '.join('%.1f' % x for x in rows[k][v]))
                                    for v in ['x8192', 'x32768', 'x131072', 'x524288', 'nccl-tests'] if v in rows[k]))
