#!/usr/bin/python3
"""Writes the Zarr v2 fixtures with zarr-python 2 (Debian python3-zarr,
python3-numcodecs) and, for each array, the values zarr-python reads
back, into v2_expect.json.

    /usr/bin/python3 zarr/testdata/gen_v2_zarr_python.py [OUTDIR]

OUTDIR defaults to zarr/testdata/v2.zarr next to this script.
"""
import json
import math
import os
import shutil
import sys

import numcodecs
import numpy as np
import zarr
from numcodecs import GZip, LZ4, BZ2, Blosc, Delta, Zlib, Zstd

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "v2.zarr")
shutil.rmtree(out, ignore_errors=True)
store = zarr.DirectoryStore(out)
root = zarr.group(store=store, overwrite=True)
root.attrs["title"] = "zarr-python 2 fixtures"

names = []


def add(name, data, **kw):
    a = root.create_dataset(name, data=data, **kw)
    names.append(name)
    return a


def image(h, w, c):
    y, x, k = np.meshgrid(np.arange(h), np.arange(w), np.arange(c), indexing="ij")
    return ((x * 7 + y * 13 + k * 101) & 255).astype(np.uint8)


# The reference image case in small, one array per compressor.
img = image(20, 15, 3)
for cname, comp in [
    ("raw", None),
    ("blosc_lz4", Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE)),
    ("blosc_lz4hc", Blosc(cname="lz4hc", clevel=5, shuffle=Blosc.BITSHUFFLE)),
    ("blosc_blosclz", Blosc(cname="blosclz", clevel=5, shuffle=Blosc.NOSHUFFLE)),
    ("blosc_zstd", Blosc(cname="zstd", clevel=3, shuffle=Blosc.SHUFFLE)),
    ("blosc_zlib", Blosc(cname="zlib", clevel=3, shuffle=Blosc.BITSHUFFLE)),
    ("zstd", Zstd(level=3)),
    ("lz4", LZ4()),
    ("zlib", Zlib(level=5)),
    ("gzip", GZip(level=5)),
    ("bz2", BZ2(level=5)),
]:
    add("image/" + cname, img, chunks=(7, 4, 1), compressor=comp)

x = np.arange(6 * 5, dtype=">f8").reshape(6, 5) * 0.5 - 3
add("f8_be_F", x, chunks=(4, 2), order="F", fill_value=np.nan, compressor=Blosc(cname="lz4", shuffle=Blosc.SHUFFLE))
add("i4_delta", (np.arange(40, dtype="<i4") * 37 - 500).reshape(8, 5), chunks=(3, 5), filters=[Delta(dtype="<i4")], compressor=Zstd(1))
add("u2_slash", np.arange(35, dtype="<u2").reshape(5, 7) * 1000, chunks=(2, 3), dimension_separator="/", compressor=None)
add("c16", (np.arange(6) + 1j * np.arange(6)[::-1]).astype("<c16"), chunks=(4,), fill_value=0)
add("bool", np.array([True, False, False, True, True, False, True]), chunks=(3,))
add("m8", np.array([1, -2, 3], dtype="<m8[s]"), chunks=(2,))
add("M8", np.array(["2020-01-01T00:00", "1969-12-31T23:59", "2000-02-29T12:00"], dtype="<M8[m]"), chunks=(2,))
add("f4_fill_inf", np.full((5, 4), np.inf, dtype="<f4"), chunks=(2, 2), fill_value=np.inf)
sp = root.create_dataset("sparse_i8", shape=(5, 6), chunks=(2, 4), dtype="<i8", fill_value=-9)
sp[0:2, 0:4] = np.arange(8).reshape(2, 4) - (1 << 40)
names.append("sparse_i8")
add("S5", np.array([b"ab", b"", b"hello", b"x\x00y"], dtype="S5"), chunks=(3,), fill_value=b"zz")
add("U4", np.array(["ab", "", "héllo"[:4], "日本"], dtype="<U4"), chunks=(3,), fill_value="")
add("vlen_utf8", np.array(["a", "", "grüße", "日本語テキスト", "end"], dtype=object), chunks=(2,), dtype=object, object_codec=numcodecs.VLenUTF8())
add("vlen_bytes", np.array([b"a", b"", b"\x00\x01\x02", b"long bytes here"], dtype=object), chunks=(3,), dtype=object, object_codec=numcodecs.VLenBytes())
# Raw (no compressor) vlen chunks: npyflow's writer must give these bytes.
add("vlen_utf8_raw", np.array(["a", "", "grüße", "x\x00y", "日本語"], dtype=object), chunks=(2,), dtype=object, object_codec=numcodecs.VLenUTF8(), compressor=None)
add("vlen_bytes_raw", np.array([b"ab", b"", b"\x00\x01\x02", b"x"], dtype=object), chunks=(3,), dtype=object, object_codec=numcodecs.VLenBytes(), compressor=None)
add("structured", np.array([(1, 2.5, b"ab"), (-3, np.nan, b"c")], dtype=[("a", "<i2"), ("b", "<f8"), ("c", "S2")]), chunks=(1,))
add("scalar", np.array(-123456, dtype="<i4"))
g = root.create_group("nested/deeper")
g.attrs["level"] = 2
a = g.create_dataset("u1", data=np.arange(10, dtype="u1"), chunks=(4,))
a.attrs["_ARRAY_DIMENSIONS"] = ["n"]
names.append("nested/deeper/u1")
zarr.consolidate_metadata(store)


def text(v, dt):
    if dt.kind == "f":
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return float(v)
    if dt.kind == "c":
        return [text(v.real, np.dtype("f8")), text(v.imag, np.dtype("f8"))]
    if dt.kind in "iumM":
        return str(int(v.view("i8") if dt.kind in "mM" else v))
    if dt.kind == "b":
        return int(v)
    if dt.kind in "U":
        return str(v)
    if dt.kind in "SV" or dt.kind == "O":
        if isinstance(v, str):
            return v
        return bytes(v).hex()
    return str(v)


expect = {}
for name in names:
    z = zarr.open_array(store, mode="r", path=name)
    data = z[...]
    dt = data.dtype
    if dt.names:
        vals = [bytes(r.tobytes()).hex() for r in np.atleast_1d(data)]
    elif dt.kind in "SV":
        vals = [(bytes(v) + b"\x00" * (dt.itemsize - len(bytes(v)))).hex() for v in data.ravel()]
    else:
        vals = [text(v, dt) for v in data.ravel()]
    expect[name] = {"shape": list(z.shape), "dtype": str(z.dtype), "values": vals}
# A zip store (zarr.ZipStore, entries stored uncompressed).
zpath = os.path.join(here, "v2.zip")
if os.path.exists(zpath):
    os.remove(zpath)
zs = zarr.ZipStore(zpath, mode="w")
zroot = zarr.group(store=zs)
zroot.create_dataset("image", data=image(9, 8, 3), chunks=(4, 4, 1), compressor=Blosc(cname="zstd", shuffle=Blosc.SHUFFLE))
zroot.create_group("g").create_dataset("x", data=np.arange(7, dtype="<i2") * -3, chunks=(3,), compressor=Zlib(1))
zs.close()
zs = zarr.ZipStore(zpath, mode="r")
for name in ["image", "g/x"]:
    data = zarr.open_array(zs, mode="r", path=name)[...]
    expect["zip:" + name] = {"shape": list(data.shape), "dtype": str(data.dtype), "values": [text(v, data.dtype) for v in data.ravel()]}
zs.close()
# A zip store whose entries are deflated (zarr.ZipStore(compression=
# zipfile.ZIP_DEFLATED)), of arrays without a compressor of their own.
import zipfile
dpath = os.path.join(here, "v2_deflate.zip")
if os.path.exists(dpath):
    os.remove(dpath)
zs = zarr.ZipStore(dpath, mode="w", compression=zipfile.ZIP_DEFLATED)
droot = zarr.group(store=zs)
droot.create_dataset("f8", data=np.arange(60, dtype="<f8").reshape(12, 5) * 0.25 - 2, chunks=(5, 5), compressor=None)
droot.create_dataset("u2", data=np.arange(1000, dtype="<u2") % 7, chunks=(256,), compressor=None, fill_value=3)
zs.close()
zs = zarr.ZipStore(dpath, mode="r")
for name in ["f8", "u2"]:
    data = zarr.open_array(zs, mode="r", path=name)[...]
    expect["zipdeflate:" + name] = {"shape": list(data.shape), "dtype": str(data.dtype), "values": [text(v, data.dtype) for v in data.ravel()]}
zs.close()

with open(os.path.join(here, "v2_expect.json"), "w") as f:
    json.dump(expect, f)
    f.write("\n")
print("wrote %d arrays to %s" % (len(names), out))
