#!/usr/bin/env python3
"""pccl-slice-ab's rounds from a call's runs.txt(.gz), per command: the mean of the rounds' A / B with
the tool's own 95% interval (Student's t over the rounds), and the same over the sets' means (each set a
pair of communicators made one after another, A first in odd sets: what the rounds' interval leaves
out when the set the rounds share moves them together), and the odd and even sets' means apart (the
order the communicators were made in).  One markdown row per command.
Usage: sets.py RUNS.txt[.gz]"""
import gzip, re, statistics as st, sys

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 11: 2.201, 15: 2.131, 23: 2.069, 31: 2.042, 47: 2.012, 95: 1.985}

def t975(df):
    return T975.get(df) or T975[min(T975, key=lambda k: abs(k - df))]

def interval(xs):
    m = st.mean(xs)
    h = t975(len(xs) - 1) * st.stdev(xs) / len(xs) ** 0.5
    return m, m - h, m + h

def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    p = sys.argv[1]
    f = gzip.open(p, "rt") if p.endswith(".gz") else open(p)
    runs, cur = {}, None
    for line in f:
        if line.startswith("== exit"):
            cur = None
        elif line.startswith("== ") and "pccl-slice-ab" in line:
            cur = re.sub(r"^timeout \d+ ", "", line[3:].strip())
            runs[cur] = []
        elif cur:
            m = re.match(r"\s+\d+\s+(\d+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s*$", line)
            if m:
                runs[cur].append((int(m[1]), float(m[2])))
    print("| command | rounds | mean of the rounds [95%] | over the sets' means [95%] | odd sets / even sets |")
    print("|---|---|---|---|---|")
    for cmd, v in runs.items():
        if len(v) < 2:
            continue
        sets = sorted({s for s, _ in v})
        means = [st.mean([x for s, x in v if s == q]) for q in sets]
        r = interval([x for _, x in v])
        s = interval(means) if len(means) > 1 else (means[0],) * 3
        print("| `%s` | %d | %.4f [%.4f, %.4f] | %.4f [%.4f, %.4f] | %.4f / %.4f |" % (
            cmd, len(v), *r, *s, st.mean(means[0::2]), st.mean(means[1::2]) if len(means) > 1 else float("nan")))

main()
