#!/usr/bin/python3
"""Generates the small demo data set for examples/ and the pipeline tests.

Run with Debian's numpy: /usr/bin/python3 testdata/demo/gen_demo.py
Everything is deterministic (fixed seed), so re-running rewrites the same
bytes. expect.json holds numpy's own answers (row counts, column sums,
describe statistics) for the end-to-end tests.
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240611)

# Weather-station readings: one file per station and day, as a logger
# would write them. Mixed byte orders, a datetime, a string, a bool and a
# subarray field exercise the conversions.
reading = np.dtype([
    ("time", "<M8[s]"),
    ("temp", "<f4"),
    ("humidity", "<f8"),
    ("pressure", ">f8"),
    ("sensor", "<i2"),
    ("ok", "?"),
    ("label", "<U6"),
    ("wind", "<f4", (2,)),
])

expect = {"readings": {}}
total = 0
temp_sum = 0.0
hot = 0
for station in ["north", "south"]:
    for day in [1, 2, 3]:
        n = 40 + 10 * day
        a = np.zeros(n, dtype=reading)
        base = np.datetime64("2024-06-01T00:00:00") + np.timedelta64(day - 1, "D")
        a["time"] = base + np.arange(n) * np.timedelta64(600, "s")
        a["temp"] = (rng.normal(18 if station == "north" else 24, 4, n)).astype("f4")
        a["humidity"] = rng.uniform(20, 90, n)
        a["pressure"] = rng.normal(1013, 6, n)
        a["sensor"] = rng.integers(-5, 300, n)
        a["ok"] = rng.random(n) > 0.1
        a["label"] = [("ok" if x else "fault") for x in a["ok"]]
        a["wind"] = rng.normal(0, 3, (n, 2)).astype("f4")
        d = os.path.join(HERE, "stations", station)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "readings_%d.npy" % day), a)
        total += n
        temp_sum += float(a["temp"].astype("f8").sum())
        hot += int(((a["temp"] > 25) & a["ok"]).sum())
expect["readings"] = {"rows": total, "temp_sum": temp_sum, "hot_ok_rows": hot}

# A matrix for describe: 4 columns with known distributions, Fortran order
# to exercise reordering.
m = np.asfortranarray(np.column_stack([
    rng.normal(0, 1, 500),
    rng.uniform(-2, 2, 500),
    rng.exponential(3, 500),
    np.arange(500, dtype="f8"),
]))
np.save(os.path.join(HERE, "matrix.npy"), m)
cols = []
for j in range(m.shape[1]):
    c = m[:, j]
    cols.append({
        "count": int(c.size), "mean": float(c.mean()), "std": float(c.std(ddof=1)),
        "min": float(c.min()), "max": float(c.max()),
        "q25": float(np.quantile(c, 0.25)), "q50": float(np.quantile(c, 0.5)), "q75": float(np.quantile(c, 0.75)),
    })
expect["matrix"] = cols

# An archive with two members of different types.
np.savez(os.path.join(HERE, "archive.npz"),
         ids=np.arange(12, dtype=">i4"),
         grid=np.arange(24, dtype="<f8").reshape(12, 2))
expect["archive"] = {"ids_sum": 66, "grid_sum": float(np.arange(24).sum())}

# An N-d stack of frames for unstack: 3 frames of 4x5.
frames = np.arange(60, dtype="<u2").reshape(3, 4, 5)
np.save(os.path.join(HERE, "frames.npy"), frames)

with open(os.path.join(HERE, "expect.json"), "w") as f:
    json.dump(expect, f, indent=1, sort_keys=True)
    f.write("\n")
