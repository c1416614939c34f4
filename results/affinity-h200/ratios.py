#!/usr/bin/env python3
"""ratios.py RUNS.txt.gz: each slice setting against off (PCCL_SLICE_US=0), per size: the mean of the
rounds' ratios (a round: one run of each setting, in the call's order) with its 95% interval
(Student's t), from pccl-perf's out-of-place time column."""
import gzip, re, statistics as st, sys
from collections import defaultdict
T95 = {5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160}
runs = defaultdict(list)  # (size, setting) -> times in run order
us = None
for line in gzip.open(sys.argv[1], 'rt'):
    m = re.match(r'== timeout .*PCCL_SLICE_US=(\d+)', line)
    if m: us = m.group(1)
    m = re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+pccl\s+b2b\s+([\d.]+)', line)
    if m: runs[(int(m.group(1)), us)].append(float(m.group(2)))
for size in sorted({k[0] for k in runs}):
    off = runs[(size, '0')]
    for us in sorted({k[1] for k in runs if k[0] == size and k[1] != '0'}, key=int):
        on = runs[(size, us)]
        r = [a / b for a, b in zip(on, off)]
        m = st.mean(r); h = T95.get(len(r) - 1, 2.0) * st.stdev(r) / len(r) ** .5
        print(f'{size:>6} B  slice {int(us) // 1000} ms: median {st.median(on):.3f} us against {st.median(off):.3f} off; '
              f'on/off {m:.4f} [{m - h:.4f}, {m + h:.4f}], {len(r)} rounds, {sum(x > 1.02 for x in r)} above 1.02')
