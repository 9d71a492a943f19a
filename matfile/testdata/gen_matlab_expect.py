#!/usr/bin/python3
"""Writes the expectations of the MATLAB-written files in matlab/ (see
matlab/README.md), each from a reader other than npyflow:

- Level 5 files: scipy.io.loadmat(mat_dtype=True) (MATLAB stores small
  doubles as miUINT8; mat_dtype gives the class; the complex values, which
  scipy 1.10 drops the imaginary part of under mat_dtype, come from a plain
  read), scipy.io.whosmat for the class of empty structs and cells;
- v7.3 files: hdf5storage.loadmat, and h5py directly for what hdf5storage
  0.1.19 cannot read (sparse matrices, MATLAB_fields stored as a reference
  to a dataset in #refs# for structs of many fields, struct() stored as a
  MATLAB_empty dataset holding its size [1 1]);
- char_unicode.mat (characters outside the BMP, which scipy 1.10 refuses
  to read: "buffer is too small"): the v7.3 file from h5py's raw UTF-16
  code units, the v7 one from the values MAT.jl's test (test/read.jl)
  states for it, converted to code units; both must agree.

Char arrays are given as numpy U strings along the last dimension (one per
row of a 2-D array, as scipy's chars_as_strings gives them), UTF-16
surrogate pairs joined into one character; "hex" (UCS-4 little-endian)
replaces "strings" where a string holds a lone surrogate (a pair split by
the array's shape: JSON text cannot carry those).

Run from this directory: /usr/bin/python3 gen_matlab_expect.py
"""
import gzip
import json
import warnings

import h5py
import hdf5storage
import numpy as np
import scipy.io as sio
import scipy.sparse

import expect


def level5(path):
    """Members of a Level 5 file as scipy reads it."""
    a = sio.loadmat(path, chars_as_strings=True, mat_dtype=True)
    b = sio.loadmat(path, chars_as_strings=True, mat_dtype=False)
    classes = {n: c for n, _, c in sio.whosmat(path)}
    entries = {}
    for k, val in a.items():
        if k.startswith("__"):
            continue
        val = with_complex(val, b[k])
        if classes[k] in ("struct", "cell") and isinstance(val, np.ndarray) and val.dtype == object \
                and (val.size == 0 or classes[k] == "struct"):
            # an empty cell or struct, or a struct without fields (scipy:
            # an object array either way)
            entries[k] = {"marker": classes[k], "shape": list(val.shape)}
            continue
        expect.members(k, val, entries)
    return entries


def with_complex(a, b):
    """a (mat_dtype=True) with the complex values of b (plain read)."""
    if scipy.sparse.issparse(b):
        return b if np.iscomplexobj(b.data) else a
    if isinstance(b, np.ndarray) and b.dtype.kind == "c":
        return b.astype(np.complex64 if a.dtype == np.float32 else np.complex128)
    if isinstance(a, np.ndarray) and a.dtype == object:
        out = np.empty(a.shape, dtype=object)
        for i in np.ndindex(a.shape):
            out[i] = with_complex(a[i], b[i])
        return out
    if isinstance(a, np.ndarray) and a.dtype.names:
        out = a.copy()
        for i in np.ndindex(a.shape):
            for f in a.dtype.names:
                out[i][f] = with_complex(a[i][f], b[i][f])
        return out
    return a


def h5_class(obj):
    c = obj.attrs.get("MATLAB_class", b"")
    return c.decode() if isinstance(c, bytes) else str(c)


def h5_sparse(g):
    """A MATLAB sparse group read with h5py: MATLAB_sparse rows, jc, ir, data."""
    rows = int(g.attrs["MATLAB_sparse"])
    jc = g["jc"][()].astype(np.int64)
    cols = len(jc) - 1
    cls = h5_class(g)
    if "data" in g:
        data = g["data"][()]
        if data.dtype.names == ("real", "imag"):
            data = data["real"] + 1j * data["imag"]
        ir = g["ir"][()].astype(np.int64)
    else:
        data, ir = np.zeros(0), np.zeros(0, dtype=np.int64)
    if cls == "logical":
        data = data != 0
    m = scipy.sparse.csc_matrix((data, ir, jc), shape=(rows, cols)).toarray()
    e = expect.array_entry(m)
    e["sparse"] = True
    return e


def h5_fields(f, g):
    """A struct's field names: MATLAB_fields, or the dataset (in #refs#)
    its reference points to when MATLAB stores a long list so."""
    a = g.attrs["MATLAB_fields"]
    if isinstance(a, h5py.Reference):
        a = f[a][()]
    return ["".join(c.astype(str)) for c in a]


def h5_numeric(ds):
    """A MATLAB numeric dataset: dimensions reversed, logical as bool."""
    v = ds[()].T
    if h5_class(ds) == "logical":
        v = v.astype(bool)
    if v.dtype.names == ("real", "imag"):
        v = v["real"] + 1j * v["imag"]
    return np.asarray(v)


def v73(path):
    """Members of a v7.3 file: hdf5storage where it reads them, h5py
    where it does not."""
    f = h5py.File(path, "r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = hdf5storage.loadmat(path)
    entries = {}
    for k in f:
        if k.startswith("#"):
            continue
        obj = f[k]
        cls = h5_class(obj)
        if isinstance(obj, h5py.Group) and "MATLAB_sparse" in obj.attrs:
            entries[k] = h5_sparse(obj)
        elif isinstance(obj, h5py.Dataset) and obj.attrs.get("MATLAB_empty", 0) and cls in ("struct", "cell"):
            # MATLAB_empty: the dataset holds the size (MATLAB order)
            entries[k] = {"marker": cls, "shape": [int(x) for x in obj[()]]}
        elif isinstance(obj, h5py.Group) and isinstance(obj.attrs.get("MATLAB_fields"), h5py.Reference):
            for fn in h5_fields(f, obj):
                expect.members(k + "." + fn, h5_numeric(obj[fn]), entries)
        elif cls == "char" and not obj.attrs.get("MATLAB_empty", 0):
            entries[k] = char_entry(obj[()].T)
        else:
            expect.members(k, expect.h5s_normalize(got[k]), entries)
    return entries


def char_entry(units):
    """A char array of UTF-16 code units (MATLAB's dimensions) as numpy U
    strings along the last dimension, surrogate pairs joined."""
    dims = units.shape
    last = dims[-1]
    rows = units.reshape((-1, last), order="F") if units.size else np.zeros((int(np.prod(dims[:-1])), 0))
    cps = []
    for r in rows:
        out, j = [], 0
        while j < last:
            c = int(r[j])
            if 0xD800 <= c < 0xDC00 and j + 1 < last and 0xDC00 <= int(r[j + 1]) < 0xE000:
                c = 0x10000 + ((c - 0xD800) << 10) + (int(r[j + 1]) - 0xDC00)
                j += 1
            out.append(c)
            j += 1
        cps.append(out)
    width = max(last, 1)
    shape = list(dims[:-1])
    if not any(0xD800 <= c < 0xE000 for s in cps for c in s):
        return {"dtype": "<U%d" % width, "shape": shape,
                "strings": ["".join(map(chr, s)).rstrip("\0") for s in cps]}
    data = np.zeros((len(cps), width), dtype="<u4")
    for i, s in enumerate(cps):
        data[i, :len(s)] = s
    return {"dtype": "<U%d" % width, "shape": shape, "hex": data.tobytes().hex()}


def utf16(s):
    b = s.encode("utf-16-le")
    return np.frombuffer(b, dtype="<u2")


def char_unicode_matjl():
    """MAT.jl's stated values of char_unicode.mat (test/read.jl), as
    MATLAB char arrays of UTF-16 code units: a vector of strings is a
    char matrix of rows, a 3x2 matrix of strings of 8 units a 3x8x2
    array (MAT.jl reads the strings along the second dimension)."""
    row = lambda s: utf16(s).reshape(1, -1)
    rows = lambda ss: np.stack([utf16(s) for s in ss])
    f = [["😀𝄞𐍈🚀", "🚀😀𝄞𐍈"], ["𝄞𐍈🚀😀", "😀𝄞𐍈🚀"], ["𐍈🚀😀𝄞", "𝄞𐍈🚀😀"]]
    f3 = np.zeros((3, 8, 2), dtype="<u2")
    for i in range(3):
        for k in range(2):
            f3[i, :, k] = utf16(f[i][k])
    return {
        "a": row("Hello, MATLAB! 12345 ~!@#$%^&*()_+-=[]{};:,.<>/?"),
        "b": row("Café naïve résumé — π ≈ 3.14159"),
        "c": row("Music symbol: 𝄞  | Gothic letter: 𐍈"),
        "d": row("Mixed planes: A Ω Ж 中 😀 🚀 🧬"),
        "e": np.stack([utf16("AB"), utf16("😀")]),
        "f": f3,
        "g": rows(["ABC", "DEF"]),
    }


def write(path, entries, notes):
    if not path.endswith(".gz"):
        expect.write(path, entries, notes=notes)
        return
    # large (thousands of struct fields): compact and gzipped
    doc = json.dumps({"members": entries, "notes": notes}, sort_keys=True, separators=(",", ":"))
    with open(path, "wb") as fh:
        fh.write(gzip.compress(doc.encode() + b"\n", mtime=0))


def main():
    for name in ["struct", "cell"]:
        got = sio.loadmat("matlab/v7/%s.mat" % name, chars_as_strings=True, mat_dtype=True)
        entries = {}
        for k, val in got.items():
            if not k.startswith("__"):
                expect.members(k, val, entries)
        write("matlab/v7/%s.json" % name, entries, "scipy.io.loadmat(mat_dtype=True, chars_as_strings=True)")
        got = hdf5storage.loadmat("matlab/v7.3/%s.mat" % name)
        entries = {}
        for k, val in got.items():
            expect.members(k, expect.h5s_normalize(val), entries)
        write("matlab/v7.3/%s.json" % name, entries, "hdf5storage.loadmat; char arrays as one string per row like scipy")

    # Logical sparse (MATLAB stores its values as bytes under an miDOUBLE
    # tag in Level 5), with five other sparse matrices.
    for v in ["v6", "v7"]:
        write("matlab/%s/sparse.json" % v, level5("matlab/%s/sparse.mat" % v),
              "scipy.io.loadmat(mat_dtype=True), sparse matrices densified")
    write("matlab/v7.3/sparse.json", v73("matlab/v7.3/sparse.mat"), "h5py: MATLAB_sparse, jc, ir, data, densified")

    # test_basic (mat-io): the same MATLAB data saved -v7 and -v7.3; the
    # v7.3 file holds structs of 526 and 4093 fields (MATLAB_fields as a
    # reference) and struct().
    b7 = level5("objects/test_basic_v7.mat")  # the -v7 twin, with the object fixtures
    write("matlab/v7/test_basic_v7.json.gz", b7, "scipy.io.loadmat(mat_dtype=True), scipy.io.whosmat")
    raw = gzip.open("matlab/v7.3/test_basic_v73.mat.gz").read()
    tmp = "/tmp/gen_matlab_expect_test_basic_v73.mat"
    with open(tmp, "wb") as fh:
        fh.write(raw)
    b73 = v73(tmp)
    write("matlab/v7.3/test_basic_v73.json.gz", b73, "hdf5storage.loadmat; h5py for sparse, referenced MATLAB_fields, struct()")
    for k in sorted(set(b7) | set(b73)):
        if b7.get(k) != b73.get(k):
            print("test_basic: v7 and v7.3 differ at %s:\n  v7   %s\n  v7.3 %s" % (k, b7.get(k), b73.get(k)))

    # Characters outside the BMP.
    f = h5py.File("matlab/v7.3/char_unicode.mat", "r")
    stated = char_unicode_matjl()
    e73, e7 = {}, {}
    for k in f:
        units = f[k][()].T
        assert h5_class(f[k]) == "char" and f[k].attrs["MATLAB_int_decode"] == 2, k
        assert np.array_equal(units, stated[k]), k  # the file holds what MAT.jl says
        e73[k] = char_entry(units)
    for k, units in stated.items():
        e7[k] = char_entry(units)
    assert e7 == e73
    write("matlab/v7.3/char_unicode.json", e73, "h5py: the UTF-16 code units, pairs joined along the last dimension")
    write("matlab/v7/char_unicode.json", e7, "MAT.jl test/read.jl's stated values as UTF-16 code units, pairs joined along the last dimension")


main()
