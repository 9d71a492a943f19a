#!/usr/bin/python3
"""Reads the write sweep's outputs with each format's own Python reader
and writes what it read as testdata/sweep/<format>.json (see
pipeline/writesweep_test.go; run by `make check-writers`):

    /usr/bin/python3 read.py OUTDIR [FORMAT...]

OUTDIR/outputs.json lists the outputs npyflow wrote (format, stem, file,
sha, refused); FORMATs, if given, are the only ones read. Formats read
here: npy and npz with numpy, mat73 with h5py (MATLAB's v7.3 layout,
transposed back to MATLAB's shape), mat7 and mat6 with scipy.io.loadmat,
zarr2 (a .zarr directory) and zarr2zip (a .zip, zarr.ZipStore) with
zarr-python 2 through the consolidated metadata, each array a column
named by its path. read.mjs reads the others.

Every value becomes text, the same in read.mjs and the Go test: bool
and integers decimal ("1"/"0" for bool and MATLAB logical), floats the
hex of their double's bits ("nan" for any NaN), complex "c:RE,IM", str
as it is (MAT char rows less trailing blanks), bytes and void "b:HEX",
datetime64 and timedelta64 attoseconds since the epoch ("NaT"; months,
years and generic units "COUNT@UNIT"), null None. A column is a leaf
of the output's tree (struct fields joined by "."), its values in C
order; an output of one top-level array, member or variable leaves out
its name.
"""
import json
import os
import struct
import sys

import numpy as np

AS = {"W": 604800 * 10**18, "D": 86400 * 10**18, "h": 3600 * 10**18, "m": 60 * 10**18, "s": 10**18,
      "ms": 10**15, "us": 10**12, "ns": 10**9, "ps": 10**6, "fs": 10**3, "as": 1}
HERE = os.path.dirname(os.path.abspath(__file__))


def fl(x):
    x = float(x)
    if x != x:
        return "nan"
    return struct.pack(">d", x).hex()


def canon(x, dt, mat=False):
    k = dt.kind
    if k == "b":
        return "1" if x else "0"
    if k in "iu":
        return str(int(x))
    if k == "f":
        return fl(x)
    if k == "c":
        return "c:" + fl(x.real) + "," + fl(x.imag)
    if k == "U":
        s = str(x)
        return s.rstrip(" ") if mat else s
    if k == "S":
        return "b:" + bytes(x).hex()
    if k == "V":
        return "b:" + bytes(x).hex()
    if k in "Mm":
        if np.isnat(x):
            return "NaT"
        unit, mult = np.datetime_data(dt)
        n = int(x.astype("int64")) * mult
        if unit in AS:
            return str(n * AS[unit])
        return "%d@%s" % (n, "" if unit == "generic" else unit)
    return "?" + dt.str


def join(p, n):
    return n if p == "" else p + "." + n


def walk(cols, types, path, a):
    if a.dtype.names:
        for n in a.dtype.names:
            walk(cols, types, join(path, n), a[n])
        return
    types[path] = a.dtype.str
    cols[path] = [canon(x, a.dtype) for x in a.reshape(-1)]


def read_npy(f):
    cols, types = {}, {}
    walk(cols, types, "", np.load(f, allow_pickle=False))
    return cols, types


def read_npz(f):
    cols, types = {}, {}
    with np.load(f, allow_pickle=False) as z:
        keys = z.files
        for k in keys:
            walk(cols, types, "" if len(keys) == 1 else k, z[k])
    return cols, types


def read_scipy(f):
    import scipy.io
    d = scipy.io.loadmat(f, squeeze_me=False, struct_as_record=True, chars_as_strings=True)
    names = [k for k in d if not k.startswith("__")]
    cols, types = {}, {}

    def mwalk(path, v):
        if v.dtype.names:
            for n in v.dtype.names:
                mwalk(join(path, n), v[0, 0][n])
            return
        types[path] = v.dtype.str
        if v.dtype.kind == "U":
            # MATLAB's char is UTF-16: scipy gives a surrogate pair as two
            # characters, joined here as MATLAB and h5py's decoding do.
            cols[path] = [str(x).encode("utf-16-le", "surrogatepass").decode("utf-16-le").rstrip(" ") for x in v.reshape(-1)]
        else:
            cols[path] = [canon(x, v.dtype, True) for x in v.reshape(-1)]

    for k in names:
        mwalk("" if len(names) == 1 else k, d[k])
    return cols, types


def read_h5py(f):
    import h5py
    cols, types = {}, {}

    def hwalk(path, o):
        cls = o.attrs.get("MATLAB_class", b"")
        cls = cls.decode() if isinstance(cls, bytes) else str(cls)
        if isinstance(o, h5py.Group):
            for n in o.keys():
                hwalk(join(path, n), o[n])
            return
        types[path] = cls + ":" + o.dtype.str
        if o.attrs.get("MATLAB_empty", 0):
            cols[path] = []
            return
        a = o[()].T  # MATLAB's shape
        if cls == "char":
            w = a.shape[-1]
            rows = a.reshape(-1, w) if a.size else a.reshape(0, 1)
            cols[path] = [np.asarray(r, "<u2").tobytes().decode("utf-16-le", "surrogatepass").rstrip(" ") for r in rows]
        elif a.dtype.names:  # complex: (real, imag)
            cols[path] = ["c:" + fl(x["real"]) + "," + fl(x["imag"]) for x in a.reshape(-1)]
        else:
            cols[path] = [canon(x, a.dtype, True) for x in a.reshape(-1)]

    with h5py.File(f, "r") as h:
        names = [k for k in h.keys() if not k.startswith("#")]
        for k in names:
            hwalk("" if len(names) == 1 else k, h[k])
    return cols, types


def read_zarr(f):
    import zarr
    store = zarr.ZipStore(f, mode="r") if f.endswith(".zip") else zarr.DirectoryStore(f)
    try:
        root = zarr.open_consolidated(store, mode="r")
        arrays = []
        if isinstance(root, zarr.Array):
            arrays.append(("", root))
        else:
            root.visititems(lambda name, o: arrays.append((name, o)) if isinstance(o, zarr.Array) else None)
        cols, types = {}, {}
        for name, a in arrays:
            walk(cols, types, "" if len(arrays) == 1 else name, a[...])
        return cols, types
    finally:
        store.close()


READERS = {"npy": read_npy, "npz": read_npz, "mat73": read_h5py, "mat7": read_scipy, "mat6": read_scipy,
           "zarr2": read_zarr, "zarr2zip": read_zarr}


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "outputs.json")) as fh:
        outputs = json.load(fh)
    readings = {}
    for o in outputs:
        fmt = o["format"]
        if fmt not in READERS or len(sys.argv) > 2 and fmt not in sys.argv[2:]:
            continue
        r = {"sha": o.get("sha", "")}
        if o.get("refused"):
            r["refused"] = o["refused"]
        else:
            try:
                r["cols"], r["types"] = READERS[fmt](o["file"])
            except Exception as e:  # the tool cannot read it: recorded, the test fails
                r["error"] = "%s: %s" % (type(e).__name__, e)
        readings.setdefault(fmt, {})[o["stem"]] = r
    for fmt, rs in readings.items():
        with open(os.path.join(HERE, fmt + ".json"), "w") as fh:
            json.dump(rs, fh, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            fh.write("\n")


main()
