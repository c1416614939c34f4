#!/usr/bin/env python3
"""Relaunches after a slice, from PCCL_SLICE_LOG files: how many were queued ahead (the log's ahead
column, or in logs before it a gap of 0: the launch ahead, lib/launch.c) and how many followed the
end (the poller's, after PCCL_SLICE_GAP_US, or the next invocation's, where the slice ended idle), the dead
time (the GPU without a block between the cut launch's last end and the relaunch's first start, us)
of each kind, and how many ended on the grid.  Usage: ahead.py LOG.csv...  (one line per file, then
all together)"""
import statistics, sys

def rows(path):
    hdr = None
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if p[0] == "rank":
                hdr = p
            elif hdr and len(p) == len(hdr):
                yield dict(zip(hdr, p))

def queued_ahead(r):
    return r["ahead"] == "1" if "ahead" in r else float(r["gap"]) == 0.0

def line(name, rs):
    ahead = [float(r["dead"]) for r in rs if queued_ahead(r)]
    after = [float(r["dead"]) for r in rs if not queued_ahead(r)]
    grid = sum(r["on_grid"] == "1" for r in rs)
    med = lambda v: "%7.1f" % statistics.median(v) if v else "      -"
    mean = lambda v: "%7.1f" % statistics.mean(v) if v else "      -"
    print("%-28s %6d %6d %s %s %6d %s %s %6d" % (name[-28:], len(rs), len(ahead), med(ahead), mean(ahead), len(after),
                                               med(after), mean(after), grid))

print("%-28s %6s %6s %7s %7s %6s %7s %7s %6s" % ("log", "relnch", "ahead", "dead", "(mean)", "after", "dead", "(mean)",
                                                  "grid"))
print("%-28s %6s %6s %7s %7s %6s %7s %7s %6s" % ("", "", "", "med us", "", "the end", "med us", "", ""))
everything = []
for p in sys.argv[1:]:
    rs = list(rows(p))
    everything += rs
    line(p, rs)
if len(sys.argv) > 2:
    line("all", everything)
