#!/usr/bin/python3
"""Writes v7.3 fixtures with hdf5storage.savemat(matlab_compatible=True)
and their expectations from hdf5storage.loadmat (char arrays reshaped to
one string per row as scipy.io.loadmat gives them, see expect.py).

Run from this directory: /usr/bin/python3 gen_hdf5storage.py
"""
import hdf5storage
import numpy as np
import scipy.sparse as sp

import expect


def variables():
    v = {}
    v["d"] = np.array([[1.5, -2.0, np.nan], [np.inf, 0.0, 1e300]])
    v["f4"] = np.array([[1.25], [-3.5], [np.float32(3.4e38)]], dtype=np.float32)
    for t in ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]:
        info = np.iinfo(t)
        v["n_" + t] = np.array([[info.min, 0, info.max], [1, 2, 3]], dtype=t)
    v["z"] = np.array([[1 + 2j, -3.5 - 0.5j], [0j, complex(np.inf, -1)]])
    v["zs"] = np.array([[1 + 1j, 2 - 2j, 3.5j]], dtype=np.complex64)
    v["b"] = np.array([[True, False], [False, True], [True, True]])
    v["s"] = "hello"
    v["su"] = "h\u00e9llo w\u00f6rld \u20ac"
    v["cube"] = np.arange(24, dtype=np.float64).reshape((2, 3, 4), order="F")
    c = np.empty((1, 4), dtype=object)
    c[0, 0] = np.array([[1.0]])
    c[0, 1] = "two"
    c[0, 2] = np.array([[3.0, 4.0]])
    c[0, 3] = np.array([[7]], dtype=np.int16)
    v["c"] = c
    inner = np.empty((2, 1), dtype=object)
    inner[0, 0] = np.array([[5.0]])
    inner[1, 0] = "x"
    nested = np.empty((1, 2), dtype=object)
    nested[0, 0] = inner
    nested[0, 1] = np.array([[True]])
    v["cn"] = nested
    v["st"] = {"a": np.array([[1.0, 2.0]]), "b": "text",
               "c": {"x": np.array([[9]], dtype=np.uint8), "y": nested}}
    sa = np.zeros((1, 3), dtype=[("a", object), ("b", object)])
    sa[0, 0] = (np.array([[1.0]]), "one")
    sa[0, 1] = (np.array([[2.0, 3.0]]), "two")
    sa[0, 2] = (np.zeros((0, 0)), "")
    v["sa"] = sa
    v["e00"] = np.zeros((0, 0))
    v["e10"] = np.zeros((1, 0))
    v["e03"] = np.zeros((0, 3), dtype=np.int32)
    v["scalar"] = np.float64(42.0)
    # A large chunked (deflate) variable: 300x200 doubles.
    i, j = np.meshgrid(np.arange(300), np.arange(200), indexing="ij")
    v["big"] = (i * 0.25 + j).astype(np.float64)
    return v


def main():
    v = variables()
    hdf5storage.savemat("h5s_v73.mat", v, matlab_compatible=True, format="7.3",
                        store_python_metadata=False, oned_as="row")
    got = hdf5storage.loadmat("h5s_v73.mat")
    entries = {}
    for k, val in got.items():
        expect.members(k, expect.h5s_normalize(val), entries)
    expect.write("h5s_v73.json", entries,
                 notes="hdf5storage %s savemat(matlab_compatible=True); expected from "
                 "hdf5storage.loadmat" % hdf5storage.__version__)


main()
