#!/usr/bin/env python3
"""Where a run's lost time goes, around each relaunch: one pccl-perf run's
completion times (--pccl-times) against its relaunches (PCCL_SLICE_LOG).

  python3 timeline.py TIMES.csv SLICE_LOG.csv [--base-from OFF_TIMES.csv]

Each timed run (per rank, bytes and placement, the runs with the most
completions: the warm-ups are shorter) is taken on rank 0's completions.  An
interval between two completions loses what it takes beyond the steady
interval: the mean interval of the same row in OFF_TIMES.csv (the same run
with the slice off), else the run's own median interval.  The stalls are
scripts/slice-log --windows's (a window from a rank's first cut to the first
step after its relaunch, overlapping windows of any rank merged, on the host's
clock), and each interval's loss is put where the interval ends: in a window, within
200 us before one, within 200 us after, 200 us to 1 ms after, or elsewhere."""
import csv, os, subprocess, sys, statistics as st
from collections import defaultdict


def load_times(path):
    runs = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            runs[(int(r['rank']), int(r['bytes']), int(r['inplace']), int(r['run']))].append(int(r['ns']))
    longest = defaultdict(int)
    for (rank, b, ip, run), t in runs.items():
        longest[(rank, b, ip)] = max(longest[(rank, b, ip)], len(t))
    return {k[:3]: sorted(t) for k, t in runs.items() if k[0] == 0 and len(t) == longest[k[:3]]}


def load_windows(path):
    """The stalls, as scripts/slice-log --windows lines them up (host's clock)."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'slice-log')
    out = subprocess.run([tool, '--windows', path], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"timeline: {out.stderr.strip() or 'slice-log --windows failed'}")
    rows = list(csv.DictReader(out.stdout.splitlines()))
    if not rows:
        sys.exit(f"timeline: {path}: no relaunch")
    return sorted([int(r['start_ns']), int(r['end_ns'])] for r in rows)


def main():
    args = sys.argv[1:]
    base = {}
    if '--base-from' in args:
        i = args.index('--base-from')
        if i + 1 >= len(args):
            sys.exit(__doc__)
        base = {k: (t[-1] - t[0]) / (len(t) - 1) for k, t in load_times(args[i + 1]).items()}
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    runs, wins = load_times(args[0]), load_windows(args[1])
    for (rank, b, ip), t in sorted(runs.items()):
        d = [y - x for x, y in zip(t, t[1:])]
        s = base.get((rank, b, ip), st.median(d))
        lo, hi = t[0], t[-1]
        w = [x for x in wins if x[1] >= lo and x[0] <= hi]
        parts = defaultdict(float)
        j = 0
        for end, gap in zip(t[1:], d):
            loss = gap - s
            while j < len(w) and w[j][1] + 1000000 < end:
                j += 1
            where = 'elsewhere'
            for a, z in w[j:j + 3]:
                if a <= end <= z: where = 'in a window'
                elif a - 200000 <= end < a: where = 'before (200 us)'
                elif z < end <= z + 200000: where = 'after (200 us)'
                elif z + 200000 < end <= z + 1000000: where = 'after (0.2-1 ms)'
                else: continue
                break
            parts[where] += loss
        total = sum(parts.values())
        span = sum(z - a for a, z in w)
        print(f"{b} B {'in place' if ip else 'out of place'}: {len(t)} completions in {(hi - lo) / 1e6:.2f} ms, "
              f"steady interval {s / 1e3:.2f} us; lost {total / 1e6:.2f} ms ({total / (hi - lo) * 100:.2f}%); "
              f"{len(w)} stall windows, {span / 1e6:.2f} ms in all")
        for k in ('in a window', 'before (200 us)', 'after (200 us)', 'after (0.2-1 ms)', 'elsewhere'):
            v = parts.get(k, 0.0)
            print(f"  {k:18s} {v / 1e6:7.2f} ms  {v / max(len(w), 1) / 1e3:7.1f} us per window")


main()
