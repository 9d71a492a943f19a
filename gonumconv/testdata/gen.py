#!/usr/bin/python3
"""Generates the gonumconv test fixtures with numpy.

Run from the repository root with Debian's numpy:

    /usr/bin/python3 gonumconv/testdata/gen.py

Outputs (all in gonumconv/testdata/):

- small.npy: a 5x3 float64 matrix used by the examples.
- describe_data.npy (1000x6, C order), describe_data_f.npy (the same in
  Fortran order), describe_nan.npy (200x3 with NaNs) and describe.json:
  count, mean, std, min, quantiles and max per column, from np.mean,
  np.std(ddof=...), np.min, np.quantile (default linear method), np.max and
  their nan* versions.
- pca_data.npy (400x5) and pca.json: column means, explained variance
  (squared singular values of the centred data / (n-1)), its ratio, the
  component directions (rows) and the scores of every row on the first
  3 components, from np.linalg.svd.
- wr_*.npy: np.save of arrays built from fixed formulas (see the Go tests,
  which build the same matrices with gonum and compare the bytes).
- sym_*.npy, tri_*.npy: inputs of the symmetric/triangular checks.
- rec.npy + rec.json: a structured array with mixed field types and byte
  orders, and the expected float64 matrix of its numeric fields.

Values are stored as repr() strings so that NaN and infinities survive
JSON. The random data comes from np.random.default_rng with fixed seeds;
the committed .npy files, not the generator, are the source of truth.
"""
import json
import os

import numpy as np

OUT = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(OUT, name)


def fl(x):
    return repr(float(x))


def fls(a):
    return [fl(x) for x in np.asarray(a, dtype=np.float64).ravel()]


def save(name, a):
    np.save(path(name), a)


def describe_case(name, file, data, ddof, skipnan, probs):
    if skipnan:
        mean, std, mn, mx, q = np.nanmean, np.nanstd, np.nanmin, np.nanmax, np.nanquantile
        count = np.sum(~np.isnan(data), axis=0)
    else:
        mean, std, mn, mx, q = np.mean, np.std, np.min, np.max, np.quantile
        count = np.full(data.shape[1], data.shape[0])
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {
                "name": name,
                "file": file,
                "ddof": ddof,
                "skipnan": skipnan,
                "probs": probs,
                "count": [int(c) for c in count],
                "mean": fls(mean(data, axis=0)),
                "std": fls(std(data, axis=0, ddof=ddof)),
                "min": fls(mn(data, axis=0)),
                "max": fls(mx(data, axis=0)),
                # quantiles[j] lists column j's quantiles in probs order.
                "quantiles": [fls(q(data[:, j], probs)) for j in range(data.shape[1])],
            }


def gen_describe():
    rng = np.random.default_rng(20240501)
    n = 1000
    d = np.empty((n, 6))
    d[:, 0] = rng.normal(10, 2, n)
    d[:, 1] = rng.exponential(3, n)
    d[:, 2] = rng.integers(0, 10, n)  # many ties
    d[:, 3] = 1e6 + rng.normal(0, 1e-3, n)  # large offset, tiny spread
    d[:, 4] = 7.5  # constant
    d[:, 5] = rng.uniform(-5, -1, n)
    save("describe_data.npy", d)
    save("describe_data_f.npy", np.asfortranarray(d))

    nd = np.empty((200, 3))
    nd[:, 0] = rng.normal(-4, 3, 200)
    nd[:, 1] = rng.normal(50, 1, 200)
    nd[:, 2] = rng.uniform(0, 1, 200)
    nd[rng.choice(200, 17, replace=False), 0] = np.nan
    nd[5, 2] = np.nan
    save("describe_nan.npy", nd)

    probs = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0]
    cases = [
        describe_case("ddof0", "describe_data.npy", d, 0, False, probs),
        describe_case("ddof1", "describe_data.npy", d, 1, False, [0.25, 0.5, 0.75]),
        describe_case("nan_propagate", "describe_nan.npy", nd, 0, False, probs),
        describe_case("nan_skip", "describe_nan.npy", nd, 0, True, probs),
    ]
    with open(path("describe.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)


def gen_pca():
    rng = np.random.default_rng(7)
    n, d = 400, 5
    z = rng.normal(size=(n, d))
    mix = np.array([
        [3.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 2.0, 0.0, 0.0, 0.0],
        [0.5, -1.0, 1.2, 0.0, 0.0],
        [0.0, 0.3, 0.4, 0.6, 0.0],
        [-0.2, 0.1, 0.0, 0.1, 0.25],
    ])
    x = z @ mix.T + np.array([5.0, -3.0, 100.0, 0.5, 2.0])
    save("pca_data.npy", x)
    mean = x.mean(axis=0)
    xc = x - mean
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    var = s**2 / (n - 1)
    k = 3
    scores = xc @ vt[:k].T
    out = {
        "rows": n,
        "cols": d,
        "k": k,
        "mean": fls(mean),
        "explained_variance": fls(var),
        "explained_variance_ratio": fls(var / var.sum()),
        "components": [fls(v) for v in vt],  # one row per component
        "scores": [fls(r) for r in scores],  # n rows of k
    }
    with open(path("pca.json"), "w") as f:
        json.dump(out, f, indent=1)


def base(r, c):
    """The matrix the Go tests rebuild: exact binary fractions."""
    i, j = np.meshgrid(np.arange(r), np.arange(c), indexing="ij")
    return ((-1.0) ** (i + j)) * (i * c + j + 0.125 * j)


def cbase(r, c):
    a = base(r, c)
    return a + 1j * (0.5 * a + 1.0)


def gen_write():
    a = base(4, 5)
    save("wr_dense.npy", a)
    save("wr_t.npy", a.T)
    save("wr_view.npy", a[1:3, 1:4])
    save("wr_view_t.npy", a[1:3, 1:4].T)
    save("wr_row_t.npy", a[0:1, :].T)
    save("wr_col.npy", a[:, 2:3])
    save("wr_vec.npy", a[1, :])
    save("wr_vec_strided.npy", a[:, 1])
    save("wr_sym.npy", a[:4, :4] + a[:4, :4].T)
    save("wr_tri.npy", np.triu(a[:4, :4]))
    c = cbase(3, 4)
    save("wr_c.npy", c)
    save("wr_c_t.npy", c.T)
    save("wr_c_h.npy", c.conj().T)
    save("wr_c_view.npy", c[0:2, 1:3])
    save("wr_c_view_h.npy", c[0:2, 1:3].conj().T)

    s = a[:4, :4] + a[:4, :4].T
    save("sym_c.npy", s)
    save("sym_f.npy", np.asfortranarray(s))
    bad = s.copy()
    bad[1, 3] += 0.5
    save("sym_bad.npy", bad)
    save("sym_bad_f.npy", np.asfortranarray(bad))
    save("sym_i4.npy", s.astype(np.int32))
    save("tri_upper.npy", np.triu(a[:4, :4]))
    save("tri_lower_f.npy", np.asfortranarray(np.tril(a[:4, :4])))


def gen_rec():
    rng = np.random.default_rng(99)
    n = 300
    dt = np.dtype([("id", "<i4"), ("x", "<f8"), ("y", ">f4"), ("flag", "?"),
                   ("pos", "<f8", (3,)), ("name", "<U3"), ("t", "<M8[s]"), ("h", "<f2"),
                   ("u", ">u8")])
    r = np.zeros(n, dtype=dt)
    r["id"] = np.arange(n) - 150
    r["x"] = rng.normal(size=n)
    r["y"] = rng.normal(size=n).astype(np.float32)
    r["flag"] = rng.integers(0, 2, n).astype(bool)
    r["pos"] = rng.normal(size=(n, 3))
    r["name"] = "ab"
    r["t"] = np.arange(n)
    r["h"] = (rng.normal(size=n) * 10).astype(np.float16)
    r["u"] = rng.integers(0, 2**63, n, dtype=np.uint64) * 2 + 1
    save("rec.npy", r)
    cols = ["id", "x", "y", "flag", "pos", "h", "u"]
    m = np.column_stack([r["id"].astype(np.float64), r["x"], r["y"].astype(np.float64),
                         r["flag"].astype(np.float64), r["pos"], r["h"].astype(np.float64),
                         r["u"].astype(np.float64)])
    with open(path("rec.json"), "w") as f:
        json.dump({"fields": cols,
                   "columns": ["id", "x", "y", "flag", "pos[0]", "pos[1]", "pos[2]", "h", "u"],
                   "values": [fls(row) for row in m]}, f, indent=0)


def gen_small():
    x = np.array([[1.0, 2.0, 0.5],
                  [2.0, 3.5, 0.25],
                  [3.0, 5.0, 1.0],
                  [4.0, 8.0, 0.75],
                  [5.0, 9.5, 0.5]])
    save("small.npy", x)
    print("small cov:\n", np.cov(x, rowvar=False))


if __name__ == "__main__":
    gen_describe()
    gen_pca()
    gen_write()
    gen_rec()
    gen_small()
