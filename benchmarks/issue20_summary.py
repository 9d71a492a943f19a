#!/usr/bin/python3
"""Summarizes the output of issue20.sh: per job, the median elapsed and
CPU (user + sys) seconds and peak RSS of each binary, and the median of
the paired ratios after/before (the two runs of one round), with the
number of rounds in which "after" was slower and a two-sided sign test.

usage: issue20_summary.py RUN_OUTPUT...
"""
import math
import statistics
import sys
from collections import defaultdict


def sign_p(k, n):
    """Two-sided sign-test p-value of k successes in n pairs."""
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(k, n - k) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


runs = defaultdict(lambda: defaultdict(list))  # job -> variant -> [(wall, cpu, rss)]
for path in sys.argv[1:]:
    for line in open(path):
        f = line.split()
        if len(f) != 6 or f[1] not in ("before", "after"):
            continue
        runs[f[0]][f[1]].append((float(f[2]), float(f[3]) + float(f[4]), int(f[5])))

print("| job | rounds | wall before | wall after | wall after/before (paired median) | CPU before | CPU after "
      "| CPU after/before (paired median) | after slower (CPU) | sign test p | peak RSS before / after |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for job, v in runs.items():
    b, a = v["before"], v["after"]
    n = min(len(a), len(b))
    wr = [a[i][0] / b[i][0] for i in range(n)]
    cr = [a[i][1] / b[i][1] for i in range(n)]
    slower = sum(1 for r in cr if r > 1)
    med = lambda xs, k: statistics.median(x[k] for x in xs)
    print("| %s | %d | %.2f s | %.2f s | %.3f | %.2f s | %.2f s | %.3f | %d of %d | %.2f | %d / %d MiB |" % (
        job, n, med(b, 0), med(a, 0), statistics.median(wr), med(b, 1), med(a, 1), statistics.median(cr),
        slower, n, sign_p(slower, n), med(b, 2) // 1024, med(a, 2) // 1024))
