#!/usr/bin/python3
"""Writes h5py_types.h5 with h5py: numpy datetime64/timedelta64 as h5py's
opaque types tagged NUMPY:<dtype> (h5py.opaque_dtype), UTF-8 strings
fixed-length (h5py.string_dtype('utf-8', n)) and variable-length
(h5py.string_dtype()), and ASCII fixed-length strings, in every layout;
and h5py_types.json, what npyflow must read: per dataset the numpy dtype
(U for UTF-8 strings, n the longest value in characters; the tagged dtype
for opaque ones), the shape and the values (testdata/README.md's
encoding), all as h5py reads them back (asstr() for UTF-8).

Run from the repository root: /usr/bin/python3 hdf5/testdata/gen_h5py_types.py
"""
import json
import os
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "testdata"))
from gen_fixtures import enc_values  # noqa: E402

NAT = np.iinfo(np.int64).min
TIMES = [0, NAT, 1, -1, 1700000000000, 2**62, -(2**62)]
TEXT = ["", "a", "abc", "é", "日本", "😀x", "a\x00b", "\U0010ffff", "long value of 24 chars.."]


def widen(dt):
    """The dtype npyflow reads for a record h5py read: fixed-length UTF-8
    members as U<byte width>, packed (as h5py wrote it), metadata gone."""
    if dt.names is not None:
        return np.dtype([(n, widen(dt.fields[n][0])) for n in dt.names])
    if dt.subdtype is not None:
        return np.dtype((widen(dt.subdtype[0]), dt.subdtype[1]))
    si = h5py.check_string_dtype(dt)
    if si is not None and si.encoding == "utf-8" and si.length:
        return np.dtype("<U%d" % si.length)
    return np.dtype(dt.str)


def fill(dst, src):
    """dst[...] = src field by field, UTF-8 members decoded."""
    if src.dtype.names is not None:
        for n in src.dtype.names:
            fill(dst[n], src[n])
    elif dst.dtype.kind == "U" and src.dtype.kind == "S":
        dst[...] = np.char.decode(src, "utf-8")
    else:
        dst[...] = src


def widened(a):
    out = np.zeros(a.shape, dtype=widen(a.dtype))
    fill(out, a)
    return out


def main():
    path = os.path.join(HERE, "h5py_types.h5")
    expect = {}
    with h5py.File(path, "w", libver="earliest") as f:
        def add(name, data, dtype=None, **kw):
            if dtype is None:
                f.create_dataset(name, data=data, **kw)
            else:
                f.create_dataset(name, data=data, dtype=dtype, **kw)

        for unit, order in [("ms", "<"), ("ns", ">"), ("D", "<"), ("10s", "<")]:
            dt = np.dtype(order + "M8[" + unit + "]")
            a = np.array(TIMES, dtype="<i8").astype(order + "i8").view(dt)
            add("dt_" + unit + ("_be" if order == ">" else ""), a.astype(h5py.opaque_dtype(dt)))
        td = np.array(TIMES, dtype="<i8").view("<m8[us]")
        add("td_us", td.astype(h5py.opaque_dtype(td.dtype)))
        add("td_s_chunked", np.arange(-500, 1500, dtype="<i8").view("<m8[s]").reshape(40, 50).astype(
            h5py.opaque_dtype(np.dtype("<m8[s]"))), chunks=(8, 10), compression="gzip", shuffle=True)
        add("dt_scalar", np.array(TIMES[4], dtype="<i8").view("<M8[ms]").astype(h5py.opaque_dtype(np.dtype("<M8[ms]"))))
        rec = np.zeros(3, dtype=[("t", h5py.opaque_dtype(np.dtype("<M8[s]"))), ("x", "<f4")])
        rec["t"] = np.array([0, 86400, NAT], dtype="<i8").view("<M8[s]")
        rec["x"] = [1.5, -2, 3]
        add("rec_time", rec)

        vtext = [t.replace("\x00", "\t") for t in TEXT]  # vlen strings hold no NUL
        text = np.array(vtext, dtype=object)
        width = max(len(s.encode()) for s in TEXT)
        enc = np.array([s.encode() for s in TEXT], dtype="S%d" % width)
        add("utf8_fixed", enc.astype(h5py.string_dtype("utf-8", width)))
        add("utf8_vlen", text, dtype=h5py.string_dtype())
        add("utf8_vlen_2d_chunked", np.array(vtext * 20, dtype=object).reshape(20, len(TEXT)), dtype=h5py.string_dtype(),
            chunks=(4, 3), compression="gzip")
        big = np.array([("%d é" % i).encode() for i in range(3000)], dtype="S8")
        big = big.astype(h5py.string_dtype("utf-8", 8))
        add("utf8_fixed_contiguous", big)
        add("utf8_fixed_chunked", big.reshape(100, 30), chunks=(10, 30), compression="gzip")
        add("ascii_fixed", np.array([b"", b"ab", b"hello"], dtype="S5"))
        add("utf8_scalar", "naïve ✓", dtype=h5py.string_dtype())

        # records with fixed-length UTF-8 members (as npyflow writes U
        # fields), nested and in a subarray, beside an ASCII member: U<n>
        # for UTF-8 (n the member's byte width), S for ASCII
        inner = np.dtype([("name", h5py.string_dtype("utf-8", 6)), ("v", ">i2")])
        rdt = np.dtype([("id", "<i4"), ("text", h5py.string_dtype("utf-8", 12)), ("code", "S3"),
                        ("inner", inner), ("tags", h5py.string_dtype("utf-8", 4), (2,))])
        rtext = ["", "é", "日本", "😀x", "a\x00b", "\U0010ffff", "naïve ✓"]
        recu = np.zeros(len(rtext), dtype=rdt)
        recu["id"] = np.arange(len(rtext)) - 3
        recu["text"] = [t.encode() for t in rtext]
        recu["code"] = [b"", b"ab", b"xyz", b"q", b"", b"z", b"ok"]
        recu["inner"]["name"] = [t.encode() for t in ["ü", "", "ab", "€€", "x", "日", "é"]]
        recu["inner"]["v"] = [1, -2, 300, -32768, 32767, 0, 7]
        recu["tags"] = [[t.encode() for t in p] for p in [("a", "ß"), ("", "€"), ("ok", ""), ("😀", "b"), ("", ""), ("z", "zz"), ("ñ", "n")]]
        add("rec_utf8", recu)
        bad = np.zeros(2, dtype=np.dtype([("k", "<i2"), ("s", h5py.string_dtype("utf-8", 4))]))
        bad["s"] = [b"ok", b"a\xff"]  # not UTF-8: npyflow's read names the field
        add("bad_utf8_rec", bad)
        add("rec_utf8_chunked", np.tile(recu, 10), chunks=(16,), compression="gzip", shuffle=True)

    with h5py.File(path, "r") as f:
        for name in sorted(f):
            if name.startswith("bad_"):
                continue
            ds = f[name]
            si = h5py.check_string_dtype(ds.dtype)
            if si is not None and si.encoding == "utf-8":
                a = np.array(ds.asstr()[()], dtype=str)
            else:
                a = ds[()]
                if si is None and ds.dtype.kind not in "Mm" and ds.dtype.names is None:
                    a = np.asarray(a)
            a = np.asarray(a)
            if ds.dtype.names is not None:
                a = widened(a)
            if a.dtype.kind == "U":
                a = a.astype("<U%d" % max(1, max((len(s) for s in a.ravel()), default=1)))
            descr = np.lib.format.dtype_to_descr(a.dtype)
            expect[name] = {"descr": repr(descr), "shape": list(a.shape), "values": enc_values(a),
                            "type": str(ds.id.get_type().__class__.__name__)}
    with open(os.path.join(HERE, "h5py_types.json"), "w") as f:
        json.dump(expect, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")
    print("wrote", path, "with", len(expect), "datasets")


if __name__ == "__main__":
    main()
