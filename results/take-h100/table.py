"""The time per operation of each pccl-perf build in a run log (ranges over its runs), nccl-tests beside.

usage: python3 table.py runs.txt.gz [--share]
  --share: the runs of two ranks sharing the GPU (--share-gpu) instead of the one-rank runs.
Runs under compute-sanitizer are left out.  One row per size and timing; cells: out of place / in place, us.
"""
import sys, gzip, re, collections
txt = gzip.open(sys.argv[1], 'rt').read().split('\n')
want_share = '--share' in sys.argv
cur = None; data = collections.defaultdict(lambda: collections.defaultdict(list)); nccl = {}
for line in txt:
    if line.startswith('== timeout') or line.startswith('== env') :
        if 'compute-sanitizer' in line: cur = None; continue
        m = re.search(r'\./(\S+)', line); cur = m.group(1) if m else None
        share = '--share-gpu' in line
        z = re.search(r'-z (\d)', line)
        nz = z.group(1) if z else None
        if cur and (share != want_share): cur = None
        continue
    f = line.split()
    if not cur or len(f) < 10 or not f[0].isdigit(): continue
    if cur.startswith('nt/'):
        nccl[(int(f[0]), 'b2b' if nz == '0' else 'rt')] = (float(f[5]), float(f[9]))
    elif f[5] == 'pccl':
        data[cur][(int(f[0]), f[6])].append((float(f[7]), float(f[11])))
bins = list(data)
keys = sorted({k for b in bins for k in data[b]})
def rng(v, i):
    xs = sorted(x[i] for x in v)
    return f"{xs[0]:.1f}" if xs[0] == xs[-1] or len(xs) == 1 else f"{xs[0]:.1f}-{xs[-1]:.1f}"
print('| size | timing | ' + ' | '.join(f'{b}: out / in' for b in bins) + ' | nccl-tests out / in |')
print('|---|---|' + '---|' * (len(bins) + 1))
for k in keys:
    cells = [f"{rng(data[b][k],0)} / {rng(data[b][k],1)}" if data[b][k] else '-' for b in bins]
    n = nccl.get(k); nc = f"{n[0]:.1f} / {n[1]:.1f}" if n else '-'
    print(f"| {k[0]} | {k[1]} | " + ' | '.join(cells) + f" | {nc} |")
