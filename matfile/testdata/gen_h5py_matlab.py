#!/usr/bin/python3
"""Writes v7.3 files with h5py in MATLAB's own layout for what neither
hdf5storage 0.1.19 nor Octave writes: sparse matrices (double, complex,
logical, all-zero), empties with the shape in MATLAB's order, an empty
cell, a cell holding the canonical empty, a MATLAB string object with
#subsystem#, and a function handle. Also a hostile file whose cell refers
to itself. Expected values are the ones written (sparse ones through
scipy.sparse's toarray).

Run from this directory: /usr/bin/python3 gen_h5py_matlab.py
"""
import time

import h5py
import numpy as np
import scipy.sparse as sp

import expect


def header(path):
    text = ("MATLAB 7.3 MAT-file, Platform: h5py fixture, Created on: %s HDF5 schema 1.00 ."
            % time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(0)))
    b = text.encode().ljust(116, b" ") + b"\0" * 8 + b"\x00\x02IM"
    with open(path, "r+b") as f:
        f.write(b)


def cls(obj, name):
    obj.attrs.create("MATLAB_class", np.bytes_(name))


def sparse(f, name, m, klass, complex_=False):
    m = sp.csc_matrix(m)
    g = f.create_group(name)
    cls(g, klass)
    g.attrs.create("MATLAB_sparse", np.uint64(m.shape[0]))
    if m.nnz:
        if complex_:
            d = np.zeros(m.nnz, dtype=[("real", "<f8"), ("imag", "<f8")])
            d["real"], d["imag"] = m.data.real, m.data.imag
        elif klass == "logical":
            d = m.data.astype(np.uint8)
        else:
            d = m.data.astype(np.float64)
        g.create_dataset("data", data=d)
        g.create_dataset("ir", data=m.indices.astype(np.uint64))
    g.create_dataset("jc", data=m.indptr.astype(np.uint64))
    return m


def main():
    entries = {}
    path = "h5py_matlab_v73.mat"
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        refs = f.create_group("#refs#")
        a = refs.create_dataset("a", data=np.array([0, 0], dtype=np.uint64))
        cls(a, "canonical empty")
        a.attrs.create("MATLAB_empty", np.uint8(1))
        dense = np.array([[0, 1.5, 0, 0, 2], [0, 0, 0, 0, 0], [3, 0, 0, -1, 0], [0, 0, 4, 0, 0]])
        for name, m, klass, cx in [("sp", dense, "double", False),
                                   ("spz", dense * (1 - 2j), "double", True),
                                   ("spb", dense != 0, "logical", False),
                                   ("sp0", np.zeros((3, 2)), "double", False)]:
            s = sparse(f, name, m, klass, cx)
            e = expect.array_entry(np.asarray(s.toarray()))
            e["sparse"] = True
            entries[name] = e
        for name, shape, klass in [("e10", (1, 0), "double"), ("e03", (0, 3), "int32"),
                                   ("e201", (2, 0, 1), "double")]:
            d = f.create_dataset(name, data=np.array(shape, dtype=np.uint64))
            cls(d, klass)
            d.attrs.create("MATLAB_empty", np.uint8(1))
            entries[name] = expect.array_entry(np.zeros(shape, dtype={"double": "<f8", "int32": "<i4"}[klass]))
        ec = f.create_dataset("ec", data=np.array([0, 2], dtype=np.uint64))
        cls(ec, "cell")
        ec.attrs.create("MATLAB_empty", np.uint8(1))
        entries["ec"] = {"marker": "cell", "shape": [0, 2]}
        b = refs.create_dataset("b", data=np.array([[7.0]]))
        cls(b, "double")
        c = f.create_dataset("c", data=np.array([[a.ref], [b.ref]], dtype=h5py.ref_dtype))
        cls(c, "cell")
        entries["c{1}"] = expect.array_entry(np.zeros((0, 0)))
        entries["c{2}"] = expect.array_entry(np.array([[7.0]]))
        # A MATLAB string object: uint32 data decoded through #subsystem#.
        s = f.create_dataset("str", data=np.array([[3707764736], [2], [1], [1], [1], [1]], dtype=np.uint32))
        cls(s, "string")
        s.attrs.create("MATLAB_object_decode", np.int32(3))
        sub = f.create_group("#subsystem#")
        sub.create_dataset("MCOS", data=np.zeros((1, 2), dtype=np.uint8))
        fh = f.create_group("fh")
        cls(fh, "function_handle")
        fh.create_dataset("function_handle", data=np.array([[1]], dtype=np.uint16))
        # Big-endian data (MATLAB writes little-endian; HDF5 allows both).
        for name, a, klass in [("xbe", np.array([[1.5, -2.0], [3.25, 1e300]]), "double"),
                               ("ibe", np.array([[-7, 70000, 3]], dtype=np.int32), "int32")]:
            d = f.create_dataset(name, data=a.T.astype(a.dtype.newbyteorder(">")))
            cls(d, klass)
            entries[name] = expect.array_entry(a)
        x = f.create_dataset("x", data=np.array([[1.0, 2.0, 3.0]]).T)
        cls(x, "double")
        entries["x"] = expect.array_entry(np.array([[1.0, 2.0, 3.0]]))
    header(path)
    expect.write("h5py_matlab_v73.json", entries,
                 notes="written with h5py %s in MATLAB's layout; str (string object), fh "
                 "(function_handle) and #subsystem# are skipped with warnings" % h5py.__version__)

    # An HDF5 file without MATLAB's user block and header.
    with h5py.File("h5py_nouserblock.mat", "w", libver="latest") as f:
        x = f.create_dataset("x", data=np.array([[1, 2, 3]], dtype=np.int16).T)
        cls(x, "int16")
        y = f.create_dataset("y", data=np.array([[0.5, 1.5]]))
    expect.write("h5py_nouserblock.json", {
        "x": expect.array_entry(np.array([[1, 2, 3]], dtype=np.int16)),
        "y": expect.array_entry(np.array([[0.5], [1.5]])),
    }, notes="no user block (superblock at 0), libver latest; y has no MATLAB_class")

    path = "h5py_cycle_v73.mat"
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        refs = f.create_group("#refs#")
        inner = refs.create_dataset("a", shape=(1, 1), dtype=h5py.ref_dtype)
        cls(inner, "cell")
        inner[0, 0] = inner.ref
        c = f.create_dataset("c", data=np.array([[inner.ref]], dtype=h5py.ref_dtype))
        cls(c, "cell")
    header(path)


main()
