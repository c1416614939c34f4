#!/usr/bin/env python3
"""Where the slice's cost at 8 B goes (call 7): every completion's time (pccl-perf --times) with the
slice and without, and the slice's relaunches (PCCL_SLICE_LOG).  For the out-of-place run of each
file, past the warm-up: the mean and median interval between completions; with the slice, the rate
of completions in 20 us bins around each relaunch's first cut (on the host's clock through the log's
clock offset), per median interval, and the time lost a relaunch: the bins from 160 us before the cut
to 160 us after, against the mean rate of the bins farther off (160-300 us either side).
Usage: lost.py DIR  (DIR: the times/ folder of call 7's run)"""
import bisect, csv, os, statistics, sys

W, NEAR, FAR = 20000, 160000, 300000

def completions(path):
    with open(path, newline="") as f:
        ns = sorted(int(r["ns"]) for r in csv.DictReader(f) if r["inplace"] == "0" and r["lib"] == "pccl")
    return ns[5000:]  # -w 5000

def cuts(path):
    with open(path, newline="") as f:
        return sorted(int(r["cut_at"]) - int(r["clock_offset"]) for r in csv.DictReader(f) if r["rank"] != "rank")

def main(d):
    rows = {}
    print("run  side  ops      mean (us)  median (us)  relaunches  lost a relaunch (us)")
    for k in ("1", "2"):
        for side in ("off", "on"):
            ns = completions(os.path.join(d, f"t-{side}-{k}.csv"))
            iv = [b - a for a, b in zip(ns, ns[1:])]
            med = statistics.median(iv)
            line = f"{k}    {side:4s}  {len(iv):7d}  {statistics.fmean(iv) / 1e3:9.3f}  {med / 1e3:11.3f}"
            if side == "on":
                cs = [c for c in cuts(os.path.join(d, f"slog-on-{k}.csv")) if ns[0] + FAR <= c <= ns[-1] - FAR]
                count = {}
                for c in cs:
                    for t in ns[bisect.bisect_left(ns, c - FAR):bisect.bisect_left(ns, c + FAR)]:
                        b = (t - c) // W
                        count[b] = count.get(b, 0) + 1
                rate = {b: n / (W / med * len(cs)) for b, n in count.items()}
                far = [r for b, r in rate.items() if b * W < -NEAR or b * W >= NEAR]
                base = statistics.fmean(far)
                lost = sum(base - r for b, r in rate.items() if -NEAR <= b * W < NEAR) * W / base / 1e3
                line += f"  {len(cs):10d}  {lost:20.1f}"
                rows[k] = (rate, base)
            print(line)
    print("\ncompletions per median interval in 20 us bins around a relaunch's first cut (bin start, us)")
    print("   bin  " + "  ".join(f"run {k}" for k in rows))
    for b in range(-NEAR // W - 1, NEAR // W + 1):
        print(f"{b * W // 1000:6d}  " + "  ".join(f"{rows[k][0].get(b, 0):5.2f}" for k in rows))
    print("  base  " + "  ".join(f"{rows[k][1]:5.2f}" for k in rows))

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
