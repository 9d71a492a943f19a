#!/usr/bin/env python3
"""Summarize the output of benchmarks/issue16_pq.sh (read from stdin or the
files given): for each npyflow build, CPU seconds (user + sys) of the whole
process, min / median / max and peak RSS; DuckDB's COPY cpu_secs; and the
ratios npyflow / DuckDB COPY, median over median and per round."""
import fileinput
import statistics

rounds = []  # one dict per round: name -> cpu seconds, "duckdb" -> COPY cpu
rss = {}
wall = {}
loads = []
for line in fileinput.input():
    f = line.split()
    if not f:
        continue
    if f[0] == "#" and f[1] == "run":
        rounds.append({})
        loads.append(float(f[4]))
    elif f[0] == "duckdb_copy_cpu":
        rounds[-1]["duckdb"] = float(f[1])
    elif len(f) == 5 and f[0] != "outputs:":
        name = f[0]
        if name == "duckdb-copy":
            continue
        rounds[-1][name] = float(f[2]) + float(f[3])
        rss.setdefault(name, []).append(int(f[4]) // 1024)
        wall.setdefault(name, []).append(float(f[1]))


def stats(v):
    return "%.2f / %.2f / %.2f" % (min(v), statistics.median(v), max(v))


names = [n for n in rounds[0] if n != "duckdb"]
duck = [r["duckdb"] for r in rounds if "duckdb" in r]
print("rounds %d, 1-minute load %.1f-%.1f" % (len(rounds), min(loads), max(loads)))
print("%-12s CPU s min / median / max   wall s median   peak RSS MB   / DuckDB COPY: median/median, per round" % "")
for n in names:
    v = [r[n] for r in rounds if n in r]
    pairs = sorted(r[n] / r["duckdb"] for r in rounds if n in r and "duckdb" in r)
    print("%-12s %-24s %8.2f        %d-%d        %.2fx   %s" % (
        n, stats(v), statistics.median(wall[n]), min(rss[n]), max(rss[n]),
        statistics.median(v) / statistics.median(duck), " ".join("%.2f" % p for p in pairs)))
print("%-12s %s" % ("duckdb COPY", stats(duck)))
