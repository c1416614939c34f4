#!/usr/bin/env python3
"""The pace of back-to-back collectives against the time since the slice's relaunch.
    python3 pace.py [--tail] TIMES.csv [SLICE_LOG.csv]
TIMES.csv: pccl-perf --pccl-times (rank,bytes,inplace,run,ns; the host's CLOCK_MONOTONIC);
SLICE_LOG.csv: PCCL_SLICE_LOG of the same run (its call_at column, the relaunch call, is on the same
clock). Per placement, rank 0's timed run (its longest): the mean interval between completions
(us) over the whole run, in 250 us bins of the time since the last relaunch call, and each launch's
own pace (its interval median, from 500 us after its relaunch call to the next call). Without a
slice log: the run cut into 4 ms windows, each window's median interval."""
import csv, statistics as st, sys
from bisect import bisect_right


def runs_of(path):
    by = {}
    for r in csv.DictReader(open(path)):
        if r["rank"] != "0":
            continue
        by.setdefault((int(r["inplace"]), int(r["run"])), []).append(int(r["ns"]))
    best = {}
    for (ip, run), t in by.items():
        if ip not in best or len(t) > len(best[ip]):
            best[ip] = sorted(t)
    return best


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def tail(d, t):
    """--tail: where the mean's excess over the median lies: the intervals' percentiles, the time the
    long ones (over 2x, 10 us, 50 us) take beyond the median, and the long ones' phase in the host's
    millisecond (ten 100 us bins: a periodic host event gathers them in one)."""
    iv = sorted(x for _, x in d)
    med, span = st.median(iv), (t[-1] - t[0]) / 1e3
    print("  percentiles (us): " + ", ".join(f"{q}th {pct(iv, q / 100):.2f}" for q in (50, 90, 99)) +
          f", 99.9th {pct(iv, .999):.2f}, max {iv[-1]:.1f}")
    for lim in (2 * med, 10.0, 50.0):
        v = [x for x in iv if x > lim]
        print(f"  over {lim:.1f} us: {len(v)}, {sum(x - med for x in v) / span * 100:.2f}% of the run beyond the median")
    ph = [0] * 10
    for at, x in d:
        if x > 10.0:
            ph[(at % 1000000) // 100000] += 1
    print("  intervals over 10 us by their end's phase in the millisecond (100 us bins): " + " ".join(map(str, ph)))


def main():
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    times = runs_of(args[0])
    calls = []
    if len(args) > 1:
        calls = sorted(int(r["call_at"]) for r in csv.DictReader(open(args[1])) if r["rank"] == "0")
    for ip, t in sorted(times.items()):
        d = [(t[i], (t[i] - t[i - 1]) / 1e3) for i in range(1, len(t))]
        mean = (t[-1] - t[0]) / 1e3 / (len(t) - 1)
        print(f"{'in' if ip else 'out'} place: {len(t)} completions, mean interval {mean:.3f} us")
        if "--tail" in flags:
            tail(d, t)
        if calls:
            bins = {}
            for at, iv in d:
                k = bisect_right(calls, at) - 1
                if k < 0:
                    continue
                bins.setdefault(min((at - calls[k]) // 250000, 16), []).append(iv)
            row = [f"{b * 250}-: {st.mean(v):.2f} ({len(v)})" for b, v in sorted(bins.items())]
            print("  by time since the relaunch call (us: mean interval (n)): " + ", ".join(row))
            paces = []
            for a, b in zip(calls, calls[1:]):
                v = [iv for at, iv in d if a + 500000 <= at < b]
                if len(v) > 20:
                    paces.append(st.median(v))
            if paces:
                print(f"  launches' own pace (median interval from 500 us on): {len(paces)} launches, "
                      f"10th {pct(paces, .1):.3f}, median {st.median(paces):.3f}, 90th {pct(paces, .9):.3f}")
        else:
            w = {}
            for at, iv in d:
                w.setdefault((at - t[0]) // 4000000, []).append(iv)
            paces = [st.median(v) for v in w.values() if len(v) > 20]
            print(f"  4 ms windows' pace (median interval): {len(paces)} windows, 10th {pct(paces, .1):.3f}, "
                  f"median {st.median(paces):.3f}, 90th {pct(paces, .9):.3f}")


main()
