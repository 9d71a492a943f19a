#!/usr/bin/python3
"""Writes the inputs and numpy's expected PCA scores for pipeline's pca
transform tests (output: scores). Run with Debian's numpy:

    /usr/bin/python3 gen.py

Two .npy parts of a record table (id int64, a float64, b float32, c int32,
label U4); the PCA is fitted on a, b, c of every row of both parts, and
the scores are (X - mean) @ components.T, components from numpy's SVD
(rows of Vt), whose signs are arbitrary: tests compare up to the sign of
each component.
"""
import json

import numpy as np

rng = np.random.default_rng(20240607)
dt = np.dtype([("id", "<i8"), ("a", "<f8"), ("b", "<f4"), ("c", "<i4"), ("label", "<U4")])
sizes = [70, 53]
parts = []
start = 0
for i, n in enumerate(sizes):
    r = np.zeros(n, dt)
    r["id"] = np.arange(start, start + n) * 10 + 7
    z = rng.normal(size=(n, 3))
    # Correlated columns of different scales, so the components are distinct.
    r["a"] = 3.0 * z[:, 0] + 0.5 * z[:, 1] + 100.0
    r["b"] = (z[:, 0] - 2.0 * z[:, 1]).astype(np.float32)
    r["c"] = np.round(5.0 * z[:, 2] + z[:, 0]).astype(np.int32)
    r["label"] = [("p%d_%d" % (i, j))[:4] for j in range(n)]
    np.save("part_%d.npy" % i, r)
    parts.append(r)
    start += n

allr = np.concatenate(parts)
X = np.stack([allr["a"].astype(np.float64), allr["b"].astype(np.float64), allr["c"].astype(np.float64)], axis=1)
mean = X.mean(axis=0)
Xc = X - mean
_, s, vt = np.linalg.svd(Xc, full_matrices=False)
k = 2
scores = Xc @ vt[:k].T
expect = {
    "k": k,
    "ids": [int(v) for v in allr["id"]],
    "labels": [str(v) for v in allr["label"]],
    "part_rows": sizes,
    "explained_variance": [float(v) for v in (s[:k] ** 2 / (len(X) - 1))],
    "components": [[float(v) for v in row] for row in vt[:k]],
    "scores": [[float(v) for v in row] for row in scores],
}
with open("expect.json", "w") as f:
    json.dump(expect, f, indent=1)
    f.write("\n")
