#!/usr/bin/python3
"""Writes Level 5 fixtures with scipy.io.savemat (v6 uncompressed and v7
compressed) and their expectations from scipy.io.loadmat.

Run from this directory: /usr/bin/python3 gen_scipy.py
"""
import numpy as np
import scipy
import scipy.io as sio
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
    v["sm"] = np.array(["abc", "def"])
    v["su"] = "h\u00e9llo w\u00f6rld \u20ac"
    v["cube"] = np.arange(24, dtype=np.float64).reshape((2, 3, 4), order="F")
    v["c"] = np.array([[1.0, "two", np.array([[3.0, 4.0]]),
                        np.array([[np.int16(7)]], dtype=np.int16)]], dtype=object)
    inner = np.empty((2, 1), dtype=object)
    inner[0, 0] = np.array([[5.0]])
    inner[1, 0] = "x"
    nested = np.empty((1, 2), dtype=object)
    nested[0, 0] = inner
    nested[0, 1] = np.array([[True]])
    v["cn"] = nested
    v["st"] = {"a": np.array([[1.0, 2.0]]), "b": "text",
               "c": {"x": np.array([[np.uint8(9)]]), "y": nested}}
    sa = np.zeros((1, 3), dtype=[("a", object), ("b", object)])
    sa[0, 0] = (np.array([[1.0]]), "one")
    sa[0, 1] = (np.array([[2.0, 3.0]]), "two")
    sa[0, 2] = (np.zeros((0, 0)), "")
    v["sa"] = sa
    dense = np.array([[0, 1.5, 0, 0, 2], [0, 0, 0, 0, 0], [3, 0, 0, -1, 0], [0, 0, 4, 0, 0]])
    v["sp"] = sp.csc_matrix(dense)
    v["spz"] = sp.csc_matrix(dense * (1 - 2j))
    v["spb"] = sp.csc_matrix(dense != 0)
    v["sp_empty"] = sp.csc_matrix((3, 2))
    v["e00"] = np.zeros((0, 0))
    v["e10"] = np.zeros((1, 0))
    v["e03"] = np.zeros((0, 3), dtype=np.int32)
    v["ecell"] = np.empty((0, 0), dtype=object)
    v["ecell13"] = np.empty((1, 3), dtype=object)
    v["ecell13"][0, 0] = np.zeros((0, 0))
    v["ecell13"][0, 1] = ""
    v["ecell13"][0, 2] = np.zeros((2, 0))
    v["estruct"] = np.zeros((0, 1), dtype=[("f", object)])
    v["es"] = ""
    v["scalar"] = 42.0
    return v


def objects():
    """An old-style MATLAB object (mxOBJECT_CLASS), alone and in a cell."""
    from scipy.io.matlab import MatlabObject
    s = np.zeros((1, 1), dtype=[("a", object)])
    s[0, 0] = (np.array([[1.0]]),)
    o = MatlabObject(s, "myclass")
    c = np.empty((1, 2), dtype=object)
    c[0, 0] = o
    c[0, 1] = np.array([[2.0]])
    sio.savemat("scipy_object_v7.mat", {"obj": o, "x": 1.0, "c": c}, do_compression=True)
    got = sio.loadmat("scipy_object_v7.mat")
    assert got["obj"].classname == "myclass"
    expect.write("scipy_object_v7.json", {
        "x": expect.array_entry(got["x"]),
        "c{2}": expect.array_entry(got["c"][0, 1]),
    }, notes="obj and c{1} are myclass objects (skipped with a warning)")


def main():
    objects()
    v = variables()
    for name, comp in [("scipy_v6.mat", False), ("scipy_v7.mat", True)]:
        sio.savemat(name, v, do_compression=comp, format="5", oned_as="row")
        got = sio.loadmat(name, chars_as_strings=True)
        entries = {}
        for k, val in got.items():
            if k.startswith("__"):
                continue
            expect.members(k, val, entries)
        expect.write(name[:-4] + ".json", entries,
                     notes="scipy %s savemat(do_compression=%s); expected from scipy.io.loadmat "
                     "(chars_as_strings=True). scipy returns the storage type, which scipy "
                     "writes as the class type." % (scipy.__version__, comp))


main()
