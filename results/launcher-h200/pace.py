#!/usr/bin/env python3
"""Whether relaunched daemon launches run slower than a run's first launch (the lead of this folder's
README): every completion's time (pccl-perf --times FILE) cut into launches at the relaunches' first
cuts (PCCL_SLICE_LOG's cut_at, less the log's clock_offset: the host's clock), per rank.  For each
launch, the median interval between completions away from its edges (EDGE_US after its start and
before its end); then the first launch's, the relaunched launches' median and tenth percentile, and
an unsliced run's median (its one launch) when given.
Then the means, which the medians cannot show a longer tail in: the run's mean interval, the mean of
the intervals away from every cut (inside the launches), and the time of the intervals within EDGE_US
of a cut (the relaunches' windows) over the run's, against the unsliced run's mean.
Usage: pace.py TIMES.csv SLICE_LOG.csv [UNSLICED_TIMES.csv]   (out-of-place rows of the timed run)"""
import csv, statistics, sys

EDGE_US = 300

def completions(path):
    by = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["inplace"] == "0" and r["lib"] == "pccl":
                by.setdefault(int(r["rank"]), []).append(int(r["ns"]))
    return {k: sorted(v) for k, v in by.items()}

def cuts(path):
    by = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["rank"] != "rank":
                by.setdefault(int(r["rank"]), []).append(int(r["cut_at"]) - int(r["clock_offset"]))
    return {k: sorted(v) for k, v in by.items()}

def median_interval(ns):
    iv = [b - a for a, b in zip(ns, ns[1:])]
    return statistics.median(iv) / 1e3 if iv else None

def launches(ns, cs):
    """The completions between consecutive cuts, less EDGE_US at each end (the first launch: from
    the first completion, the warm-up's included, to the first cut)."""
    edges = [ns[0] - EDGE_US * 1000] + [c for c in cs if ns[0] < c < ns[-1]] + [ns[-1] + EDGE_US * 1000]
    out = []
    for lo, hi in zip(edges, edges[1:]):
        part = [t for t in ns if lo + EDGE_US * 1000 <= t <= hi - EDGE_US * 1000]
        if len(part) > 10:
            out.append(median_interval(part))
    return out

def main(times, log, unsliced=None):
    ns, cs = completions(times), cuts(log)
    base = completions(unsliced) if unsliced else {}
    print("rank  launches  first launch (us)  relaunched: median  p10    unsliced run (us)")
    for r in sorted(ns):
        p = launches(ns[r], cs.get(r, []))
        if not p:
            continue
        rest = sorted(p[1:])
        u = median_interval(base[r]) if r in base else None
        print(f"{r:4d}  {len(p):8d}  {p[0]:17.3f}  {statistics.median(rest) if rest else float('nan'):18.3f}  "
              f"{rest[len(rest) // 10] if rest else float('nan'):5.3f}  {u if u is not None else float('nan'):17.3f}")
    print_means(ns, cs, base)

def means(ns, cs):
    """The run's mean interval (us), the mean of those away from every cut, and the share of the
    run's time in intervals within EDGE_US of a cut, with their count."""
    edge = EDGE_US * 1000
    cs = [c for c in cs if ns[0] - edge < c < ns[-1] + edge]
    inside, near, j = [], [], 0
    for a, b in zip(ns, ns[1:]):
        while j < len(cs) and cs[j] + edge < a:
            j += 1
        (near if j < len(cs) and cs[j] - edge < b else inside).append(b - a)
    total = ns[-1] - ns[0]
    return (total / (len(ns) - 1) / 1e3, statistics.mean(inside) / 1e3 if inside else float("nan"),
            sum(near) / total if total else 0.0, len(near))

def print_means(ns, cs, base):
    print("rank  run mean (us)  inside mean  near cuts: time share, intervals  unsliced mean (us)")
    for r in sorted(ns):
        m, inside, share, k = means(ns[r], cs.get(r, []))
        u = means(base[r], [])[0] if r in base else float("nan")
        print(f"{r:4d}  {m:13.3f}  {inside:11.3f}  {share:17.4f}  {k:9d}  {u:18.3f}")

if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
