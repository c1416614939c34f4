#!/usr/bin/env python3
"""Stalls inside timed runs: every completion's time (pccl-perf --times FILE) grouped by rank, size,
placement, timing and run; a gap between consecutive completions longer than max(20 x the run's
median gap, MIN_US) is a stall.  For each: its rank, size, placement, timing, where in the run, its
length, the other ranks' longest gap overlapping it, and the relaunches after a slice logged
(PCCL_SLICE_LOG: the cut on the host's clock, cut_at - clock_offset; call_at, the relaunch's call)
within it; with a third file (the run's stderr, or a call's runs.txt(.gz)), the poller's stall reports
(PCCL_POLLER_STALL_US: "poller pass of T us ... from B ns") that overlap it: rank:length us and the
part of the pass that took the most.  Last, per size and timing, the stalls' count and their time
against the runs' total.
Usage: gaps.py TIMES.csv [SLICE_LOG.csv|- [REPORTS]]"""
import csv, gzip, re, statistics, sys, collections

MIN_US = 300

def load_times(path):
    runs = collections.defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) < 7 or row[6] != "pccl" or not row[0].isdigit():
                continue
            rank, size, inplace, run, ns, timing = int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]), row[5]
            runs[(rank, size, inplace, timing, run)].append(ns)
    return {k: sorted(v) for k, v in runs.items()}

def load_log(path):
    ev = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["rank"] == "rank":
                continue
            ev.append((int(r["rank"]), int(r["cut_at"]) - int(r["clock_offset"]), int(r["call_at"]), r["on_grid"]))
    return ev

PASS = re.compile(r"pccl: rank (\d+) of \d+: poller pass of (\d+) us \(PCCL_POLLER_STALL_US\) from (\d+) ns[^:]*: (.*)")
PARTS = (("callbacks", r"callbacks (\d+) us"), ("drain", r"the drain's rest (\d+)"),
         ("health", r"heartbeat and health (\d+)"), ("liveness", r"liveness and launches (\d+)"),
         ("spin/sleep", r"(?:slept|spun) (\d+) us of"))

def load_reports(path):
    """The stall reports: (rank, start ns, end ns, the part that took the most)."""
    rep = []
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            m = PASS.search(line)
            if not m:
                continue
            rank, us, start, rest = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
            parts = [(int(x.group(1)), name) for name, pat in PARTS for x in [re.search(pat, rest)] if x]
            top = max(parts)[1] if parts else "?"
            rep.append((rank, start, start + us * 1000, top))
    return rep

def main():
    runs = load_times(sys.argv[1])
    log = load_log(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "-" else []
    reports = load_reports(sys.argv[3]) if len(sys.argv) > 3 else None
    # the same run of every rank: keyed without the rank; run numbers count per rank alike
    by_case = collections.defaultdict(dict)
    for (rank, size, inplace, timing, run), ns in runs.items():
        by_case[(size, inplace, timing, run)][rank] = ns
    stalls, total = collections.Counter(), collections.Counter()
    stall_ns, run_ns = collections.Counter(), collections.Counter()
    print("rank  size(B)  place timing  run  at/of  stall(us)  median(us)  others' longest overlap(us)  relaunches in it (rank:cut-relative us, on grid)" +
          ("  stall reports in it (rank:us,part)" if reports is not None else ""))
    for case, ranks in sorted(by_case.items()):
        size, inplace, timing, run = case
        for rank, ns in sorted(ranks.items()):
            gaps = [b - a for a, b in zip(ns, ns[1:])]
            if not gaps:
                continue
            med = statistics.median(gaps)
            total[(size, timing)] += 1
            run_ns[(size, timing)] += ns[-1] - ns[0]
            for i, g in enumerate(gaps):
                if g < max(20 * med, MIN_US * 1000):
                    continue
                lo, hi = ns[i], ns[i + 1]
                stalls[(size, timing)] += 1
                stall_ns[(size, timing)] += g
                other = []
                for r2, ns2 in sorted(ranks.items()):
                    if r2 == rank:
                        continue
                    ov = max((min(b, hi) - max(a, lo) for a, b in zip(ns2, ns2[1:]) if b > lo and a < hi), default=0)
                    other.append("%d:%.0f" % (r2, ov / 1e3))
                rel = ["%d:%+.0f,%s" % (r, (cut - lo) / 1e3, grid) for r, cut, call, grid in log if lo - 100000 <= cut <= hi]
                seen = ""
                if reports is not None:
                    seen = "  " + (" ".join("%d:%.0f,%s" % (r, (b - a) / 1e3, top) for r, a, b, top in reports
                                            if a < hi and b > lo) or "-")
                print("%4d %8d %6s %6s %4d %4d/%-4d %10.1f %11.2f  %-28s %s%s" % (
                    rank, size, "in" if inplace else "out", timing, run, i, len(gaps), g / 1e3, med / 1e3,
                    " ".join(other), " ".join(rel) or "-", seen))
    print("\nsize(B) timing  rank-runs  stalls  stall time / run time")
    for k in sorted(total):
        print("%8d %6s %10d %7d  %.3f" % (k[0], k[1], total[k], stalls[k], stall_ns[k] / run_ns[k] if run_ns[k] else 0))

if __name__ == "__main__":
    main()
