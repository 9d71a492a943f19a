#!/usr/bin/python3
"""Inputs of make test-slurm, written by numpy.

usage: gen_inputs.py DIR FILES

Writes DIR/archive/<site>/run_<n>.npy (FILES files of records station U3,
id int64, temp float64, ok bool, with uneven row counts and ids unique
across files) and DIR/expected.json: per (site, station) partition the
row count, the sum of ids, the count of ok rows and the sum of temp, as
numpy computes them, for check.mjs to compare with what DuckDB reads.
"""
import json
import os
import sys

import numpy as np

out, files = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(20261127)
dt = np.dtype([("station", "U3"), ("id", "<i8"), ("temp", "<f8"), ("ok", "?")])
stations = np.array(["A", "B/x", "C=1", "é%"])  # Hive escapes / = %
exp = {}
next_id = 0
for f in range(files):
    site = ("north", "south")[f % 2]
    n = int(rng.integers(50, 400))
    a = np.zeros(n, dtype=dt)
    a["station"] = stations[rng.integers(0, len(stations), n)]
    a["id"] = np.arange(next_id, next_id + n)
    a["temp"] = np.round(rng.normal(10, 5, n), 3)
    a["ok"] = rng.random(n) < 0.7
    next_id += n
    d = os.path.join(out, "archive", site)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, f"run_{f}.npy"), a)
    for s in np.unique(a["station"]):
        m = a["station"] == s
        e = exp.setdefault(f"{site}|{s}", {"n": 0, "id_sum": 0, "ok": 0, "temp_sum": 0.0})
        e["n"] += int(m.sum())
        e["id_sum"] += int(a["id"][m].sum())
        e["ok"] += int(a["ok"][m].sum())
        e["temp_sum"] += float(a["temp"][m].sum())
with open(os.path.join(out, "expected.json"), "w") as fh:
    json.dump(exp, fh, indent=1, sort_keys=True)
