#!/usr/bin/python3
"""Regenerate the NumPy conformance fixtures under testdata/.

Run from the repository root with a Python that has numpy (Debian's
python3-numpy, numpy 1.24):

    /usr/bin/python3 testdata/gen_fixtures.py

Output is deterministic: every value comes from a fixed list or a fixed
arithmetic formula (no random generators, whose streams may change between
numpy releases), and zip members carry numpy's fixed 1980-01-01 timestamp.
The script deletes and rewrites testdata/npy/, testdata/npz/ and
testdata/malformed/.  See testdata/README.md for the JSON format.
"""

import ast
import io
import json
import math
import os
import re
import shutil
import struct
import sys
import warnings
import zipfile

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))
NPY_DIR = os.path.join(HERE, "npy")
NPZ_DIR = os.path.join(HERE, "npz")
BAD_DIR = os.path.join(HERE, "malformed")

BIG_HEADER = 10 ** 7  # max_header_size used when loading our own big headers

warnings.simplefilter("ignore")  # v2/v3 "can only be read by" warnings etc.


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")


def save_bytes(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def wrap_header(text, version=(1, 0), align=64, encoding=None):
    """Hand-build an npy preamble+header around `text` (no padding logic of
    numpy: pad with spaces so the data starts on an `align` boundary, then
    a newline)."""
    if encoding is None:
        encoding = "utf-8" if version == (3, 0) else "latin-1"
    body = text.encode(encoding) if isinstance(text, str) else text
    lenfmt = "<H" if version[0] == 1 else "<I"
    pre = 6 + 2 + struct.calcsize(lenfmt)
    total = pre + len(body) + 1
    pad = (-total) % align
    body = body + b" " * pad + b"\n"
    return (b"\x93NUMPY" + bytes(version) + struct.pack(lenfmt, len(body)) + body)


def split_npy(raw):
    """Return (version, header_text_raw, data_offset) from npy bytes."""
    major, minor = raw[6], raw[7]
    if major == 1:
        (hlen,) = struct.unpack("<H", raw[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", raw[8:12])
        start = 12
    enc = "utf-8" if major == 3 else "latin-1"
    text = raw[start:start + hlen].decode(enc)
    return [major, minor], text, start + hlen


def header_dict(text, version):
    if version[0] <= 2:
        text = npformat._filter_header(text)  # drop Python-2 'L' suffixes
    return ast.literal_eval(text)


# ---------------------------------------------------------------------------
# Value encoding for the JSON "values" list
# ---------------------------------------------------------------------------

def enc_scalar(x, dt):
    if dt.names is not None:
        return [enc_field(x[name], dt.fields[name][0]) for name in dt.names]
    k = dt.kind
    if k == "b":
        return bool(x)
    if k in "iu":
        return str(int(x))
    if k == "f":
        return repr(float(x))
    if k == "c":
        return [repr(float(x.real)), repr(float(x.imag))]
    if k == "S":
        return bytes(x).hex()
    if k == "U":
        return str(x)
    if k == "V":
        return bytes(x).hex()
    if k in "Mm":
        return str(int(np.array([x]).view(np.int64)[0]))
    raise TypeError("unsupported dtype %r" % (dt,))


def final_base(dt):
    while dt.subdtype is not None:
        dt = dt.subdtype[0]
    return dt


def enc_field(v, fdt):
    if fdt.subdtype is not None:
        base = final_base(fdt)
        flat = np.asarray(v).reshape(-1)  # C order, sub-subarrays flattened
        return [enc_scalar(e, base) for e in flat]
    return enc_scalar(v, fdt)


def enc_values(a):
    flat = np.ravel(a, order="C")  # logical C order, also for F arrays / 0-d
    return [enc_scalar(e, a.dtype) for e in flat]


def describe_array(raw, a, name=None):
    """The JSON description of npy bytes `raw` whose loaded array is `a`."""
    version, text, off = split_npy(raw)
    hd = header_dict(text, version)
    d = {}
    if name is not None:
        d["name"] = name
    d.update({
        "version": version,
        "header": text.rstrip(" \n"),
        "descr": repr(hd["descr"]),
        "dtype_str": a.dtype.str,
        "shape": list(a.shape),
        "fortran_order": bool(hd["fortran_order"]),
        "data_offset": off,
        "itemsize": a.dtype.itemsize,
        "fields": list(a.dtype.names) if a.dtype.names is not None else None,
        "values": enc_values(a),
    })
    return d


# ---------------------------------------------------------------------------
# Value pools (deterministic)
# ---------------------------------------------------------------------------

N_POOL = 24
I64_MIN = -(2 ** 63)


def int_pool(bits, signed):
    if signed:
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        base = [0, 1, -1, lo, hi, lo + 1, hi - 1, 42, -42, 100, -100]
    else:
        lo, hi = 0, 2 ** bits - 1
        base = [0, 1, hi, hi - 1, 2 ** (bits - 1), 2 ** (bits - 1) - 1, 42, 100, 7]
    span = hi - lo + 1
    i = 0
    while len(base) < N_POOL:
        base.append(lo + (i * 2654435761 + 12345) % span)
        i += 1
    return base


def float_pool(t):
    fi = np.finfo(t)
    base = [0.0, -0.0, 1.5, -2.25, math.nan, math.inf, -math.inf,
            float(fi.max), -float(fi.max), float(fi.tiny),
            float(fi.smallest_subnormal), 1.0 / 3.0, math.pi, -1e-5, 1e10,
            0.1, 65504.0, -7.0]
    i = 0
    while len(base) < N_POOL:
        base.append((i * 37 % 101) / 8.0 - 6.0)
        i += 1
    with np.errstate(all="ignore"):
        return [t(v) for v in base]


def complex_pool(t):
    ft = np.float32 if t == np.complex64 else np.float64
    f = [float(v) for v in float_pool(ft)]
    out = []
    for i in range(N_POOL):
        out.append(complex(f[i], f[(i * 5 + 3) % N_POOL]))
    return out


S_POOL = [b"hello", b"", b"a\x00b", b"\xff\x00\x01", b"ab", b"\x00\x00x",
          b"12345", b"\x00", b"tail\x00", b"\xe9"]
U_POOL = ["abcd", "", "a\x00b", "\u00e9", "\u65e5\u672c", "\U0001F600", "x",
          "\x00z", "\U0010FFFF", "caf\u00e9", "\u00ff\u0100"]
DT_POOL = [0, I64_MIN, 1, -1, 1700000000, 2 ** 63 - 1, I64_MIN + 1, 86400,
           -86400, 31536000, 123456789012]


def pool_for(dt, n, start=0):
    """n deterministic values of (native-order) scalar dtype dt as ndarray,
    starting at pool index `start`."""
    nat = dt.newbyteorder("=") if dt.byteorder in "<>" else dt
    k = dt.kind
    if k == "b":
        vals = [((i + start) * 3) % 5 in (0, 1) for i in range(n)]
        return np.array(vals, dtype=nat)
    if k in "iu":
        p = int_pool(dt.itemsize * 8, k == "i")
    elif k == "f":
        p = float_pool(nat.type)
    elif k == "c":
        p = complex_pool(nat.type)
    elif k == "S":
        p = S_POOL + [b"s%d" % i for i in range(N_POOL)]
        p = [v[:dt.itemsize] for v in p]
    elif k == "U":
        p = U_POOL + ["u%d" % i for i in range(N_POOL)]
        p = [v[:dt.itemsize // 4] for v in p]
    elif k == "V":
        m = dt.itemsize
        p = [bytes(((i * 37 + j * 11) ^ (255 if i % 3 == 0 else 0)) % 256
                   for j in range(m)) for i in range(N_POOL)]
        return np.array([p[(i + start) % len(p)] for i in range(n)], dtype=nat)
    elif k in "Mm":
        p = DT_POOL + [i * 1000003 - 5000 for i in range(N_POOL)]
        ints = [p[(i + start) % len(p)] for i in range(n)]
        return np.array(ints, dtype=np.int64).view(nat)
    else:
        raise TypeError(dt)
    vals = [p[(i + start) % len(p)] for i in range(n)]
    return np.array(vals, dtype=nat)


def fill(dt, shape, start=0):
    """A deterministic array of dtype dt (any byte order / structure); field
    j of a struct starts its value pool at a different index so that fields
    hold different values."""
    dt = np.dtype(dt)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.names is None and dt.subdtype is None:
        return pool_for(dt, n, start).astype(dt).reshape(shape)
    a = np.zeros(shape, dtype=dt)
    for j, name in enumerate(dt.names):
        fdt = dt.fields[name][0]
        st = start + 3 * j + 1
        if fdt.subdtype is not None:
            base = final_base(fdt)
            sub = a[name]
            sub[...] = fill(base, sub.shape, st)
        else:
            a[name] = fill(fdt, shape, st)
    return a


# ---------------------------------------------------------------------------
# NPY fixtures
# ---------------------------------------------------------------------------

npy_names = []


def emit_npy(name, raw, note=None, expect=None):
    """Write NAME.npy (bytes raw) and NAME.json. `expect` is the array that
    was saved; the loaded array must equal it byte for byte."""
    path = os.path.join(NPY_DIR, name + ".npy")
    assert name not in npy_names, name
    write_bytes(path, raw)
    a = np.load(path, max_header_size=BIG_HEADER)
    if expect is not None:
        assert a.dtype == expect.dtype and a.shape == expect.shape, name
        assert a.tobytes() == np.ascontiguousarray(expect).tobytes(), name
    d = describe_array(raw, a, name)
    if note:
        d["note"] = note
    write_json(os.path.join(NPY_DIR, name + ".json"), d)
    npy_names.append(name)
    return a


def emit_saved(name, arr, note=None):
    raw = save_bytes(arr)
    version, text, _ = split_npy(raw)
    hd = header_dict(text, version)
    # np.save writes dtype_to_descr(dtype) in the header
    assert repr(hd["descr"]) == repr(npformat.dtype_to_descr(arr.dtype)), name
    return emit_npy(name, raw, note, expect=arr)


SCALAR_TYPES = [
    # (name, typestr without byte order, multi-byte?)
    ("b1", "b1", False), ("i1", "i1", False), ("u1", "u1", False),
    ("i2", "i2", True), ("i4", "i4", True), ("i8", "i8", True),
    ("u2", "u2", True), ("u4", "u4", True), ("u8", "u8", True),
    ("f2", "f2", True), ("f4", "f4", True), ("f8", "f8", True),
    ("c8", "c8", True), ("c16", "c16", True),
    ("S5", "S5", False), ("U4", "U4", True), ("V3", "V3", False),
]
for unit in ["s", "ms", "us", "ns", "D", "Y", "M", "W", "h", "m", "10ms"]:
    SCALAR_TYPES.append(("M8_" + unit, "M8[%s]" % unit, True))
SCALAR_TYPES.append(("M8_generic", "M8", True))
for unit in ["s", "ms", "us", "ns", "D", "25s"]:
    SCALAR_TYPES.append(("m8_" + unit, "m8[%s]" % unit, True))

SHAPES = [("empty", (0,), False), ("0d", (), False), ("1d", (7,), False),
          ("2d_c", (3, 4), False), ("2d_f", (3, 4), True)]


def gen_scalar_fixtures():
    for tname, ts, multi in SCALAR_TYPES:
        orders = [("le", "<"), ("be", ">")] if multi else [(None, "|")]
        for otag, oc in orders:
            dt = np.dtype(oc + ts if multi else ts)
            for stag, shape, fortran in SHAPES:
                a = fill(dt, shape)
                if fortran:
                    a = np.asfortranarray(a)
                    assert a.flags.f_contiguous and not a.flags.c_contiguous
                parts = [tname] + ([otag] if otag else []) + [stag]
                emit_saved("_".join(parts), a)
    # 3-D C and F arrays
    for tname in ["f8", "i2"]:
        for otag, oc in [("le", "<"), ("be", ">")]:
            a = fill(np.dtype(oc + tname), (2, 3, 4))
            emit_saved("%s_%s_3d_c" % (tname, otag), a)
            emit_saved("%s_%s_3d_f" % (tname, otag), np.asfortranarray(a))
    # bool bytes other than 0/1 (set through a uint8 view)
    raw = np.array([0, 1, 2, 255, 0, 2, 128], dtype=np.uint8)
    emit_saved("b1_nonzero_bytes", raw.view(np.bool_),
               note="bytes 00 01 02 ff 00 02 80: any nonzero byte is true")
    # zero-size item types; numpy turns S0/U0 into S1/U1 when building arrays,
    # so those two headers are hand-written (numpy loads them as |S0 / <U0)
    emit_saved("V0_1d", np.zeros(3, dtype="V0"))
    for nm, descr in [("S0_1d", "|S0"), ("U0_le_1d", "<U0"), ("U0_be_1d", ">U0")]:
        text = ("{'descr': '%s', 'fortran_order': False, 'shape': (3,), }"
                % descr) + " " * 20
        emit_npy(nm, wrap_header(text),
                 note="hand-written header; np.save cannot produce itemsize-0 S/U")
    # a few extra interesting 1-D value sets
    emit_saved("f8_le_specials",
               np.array([math.nan, -math.nan, math.inf, -math.inf, -0.0, 0.0,
                         5e-324, 1.7976931348623157e308, 2.0 ** -1022],
                        dtype="<f8"))
    emit_saved("M8_ns_le_nat", np.array([I64_MIN, 0, 2 ** 63 - 1, I64_MIN + 1],
                                        dtype="<i8").view("<M8[ns]"))
    emit_saved("U4_le_unicode", np.array(["", "\u00e9", "\u65e5\u672c",
                                          "\U0001F600", "a\x00b", "\x00\x00a"],
                                         dtype="<U4"))
    emit_saved("S5_interior_nul", np.array([b"", b"a\x00b", b"\x00\x00\x00\x00a",
                                            b"abc\x00"], dtype="S5"))


def gen_record_fixtures():
    def rec(name, dt, shape=(3,), note=None, fortran=False):
        a = fill(np.dtype(dt), shape)
        if fortran:
            a = np.asfortranarray(a)
        emit_saved(name, a, note)

    rec("rec_simple", [("a", "<i4"), ("b", "<f8"), ("c", "|S3")])
    rec("rec_simple_empty", [("a", "<i4"), ("b", "<f8")], shape=(0,))
    rec("rec_simple_0d", [("a", "<i4"), ("b", ">f8")], shape=())
    rec("rec_subarray", [("a", "<i4"), ("b", "<f8", (2,)), ("c", ">i2", (2, 2)),
                         ("d", "|u1", (2, 3, 4))])
    rec("rec_nested", [("x", "<i4"),
                       ("inner", [("p", "<f4"),
                                  ("q", [("r", "<i2"), ("s", "|S3")])])])
    rec("rec_aligned", np.dtype([("a", "u1"), ("b", "<i4"), ("c", "u1"),
                                 ("d", "<f8"), ("e", "u1")], align=True),
        note="align=True: padding is written as ('', '|V<n>')")
    rec("rec_offsets", np.dtype({"names": ["a", "b", "c"],
                                 "formats": ["<i4", ">i2", "|u1"],
                                 "offsets": [4, 10, 13], "itemsize": 20}),
        note="explicit offsets: leading, middle and trailing gaps")
    rec("rec_titles", [(("Title A", "a"), "<i4"), (("Title B", "b"), "<f8")])
    # numpy builds ('', t) list descriptors with the name 'f0', but the dict
    # form keeps an empty name, and np.save / np.load round-trip it.
    rec("rec_empty_name", np.dtype({"names": ["", "b"], "formats": ["<i4", "<f8"],
                                    "offsets": [0, 4], "itemsize": 12}),
        note="a real (non-void) field named ''")
    rec("rec_subsubarray", [("a", (np.dtype(("<f8", (2,))), (3,))), ("b", "<i2")],
        note="field type is a subarray of a subarray: ('<f8', (2,)), (3,)")
    rec("rec_struct_subarray", [("id", "<i4"),
                                ("pts", [("x", "<f4"), ("y", ">f4")], (2,))],
        note="subarray whose base is a struct")
    rec("rec_mixed_endian", [("le", "<i4"), ("be", ">i4"), ("lef", "<f8"),
                             ("bef", ">f8"), ("leu", "<U2"), ("beu", ">U2")])
    rec("rec_strings_dates", [("u", "<U3"), ("s", "|S4"), ("t", "<M8[ms]"),
                              ("d", "<m8[s]"), ("v", "|V2"), ("ok", "|b1")])
    rec("rec_2d_f", [("a", "<i4"), ("b", "<f4", (2,))], shape=(3, 4), fortran=True)
    rec("rec_2d_c", [("a", "<i4"), ("b", "<f4", (2,))], shape=(3, 4))
    # 500 fields with long names: header > 65535 bytes -> version 2.0
    rec("rec_500_long_names",
        [(("field_%03d_" % i).ljust(128, "x"), "<f4") for i in range(500)],
        shape=(2,), note="header too long for v1.0 -> v2.0")
    # non-latin-1 field name -> version 3.0
    rec("rec_cjk_name", [("\u65e5\u672c\u8a9e", "<i4"), ("x", "<f8")],
        note="non latin-1 field name -> v3.0 (utf-8 header)")
    # 4000 fields: header > numpy's 10000-character default read limit
    rec("rec_4000_fields", [("c%d" % i, "<i2") for i in range(4000)], shape=(2,),
        note="header > 65535 bytes (v2.0) and > numpy's 10000-char read limit: "
        "np.load needs max_header_size although numpy wrote it")
    rec("rec_1000_fields", [("c%d" % i, "<i2") for i in range(1000)], shape=(2,),
        note="v1.0 header > numpy's 10000-char read limit: np.load needs "
        "max_header_size although numpy wrote it")


def gen_handwritten_fixtures():
    # subarray of subarray written by hand exactly as the grammar allows
    text = ("{'descr': [('a', ('<i2', (2,)), (3,))], 'fortran_order': False, "
            "'shape': (2,), }") + " " * 20
    data = np.arange(12, dtype="<i2").tobytes()
    emit_npy("hand_subsubarray", wrap_header(text) + data,
             note="hand-written header")
    # numpy < 1.14 style: 16-aligned, pprint multi-line, Python-2 'L' suffix,
    # trailing commas, double quotes.
    text = ('{"descr": "<i8",\n'
            ' "fortran_order": False,\n'
            ' "shape": (3L,),\n'
            ' }')
    data = np.array([1, -2, 2 ** 62], dtype="<i8").tobytes()
    emit_npy("old_style_v1", wrap_header(text, align=16) + data,
             note="hand-written numpy<1.14 style header (16-aligned, L suffix)")
    text = ("{'descr': '<f4', 'fortran_order': True, 'shape': (2L, 3L), }")
    data = np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3) / 4
                             ).tobytes(order="F")
    emit_npy("old_style_v1_fortran", wrap_header(text, align=16) + data,
             note="hand-written 16-aligned header with L suffixes, F order")
    # any key order, tabs/CR/newlines, no trailing comma, no padding at all
    text = "{'shape':\t(2, 2),\r\n'fortran_order' : False , 'descr':'>u2'}"
    body = text.encode("latin-1") + b"\n"
    raw = (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body +
           np.array([[1, 2], [3, 65535]], dtype=">u2").tobytes())
    emit_npy("hand_key_order_ws", raw,
             note="unsorted keys, tab/CR whitespace, no alignment padding")
    # trailing bytes after the data are ignored by numpy
    raw = save_bytes(np.array([1, 2, 3], dtype="<i4")) + b"TRAILING"
    emit_npy("trailing_bytes", raw, note="8 junk bytes after the data (ignored)")
    # explicit version 2.0 and 3.0 with a small header (np.save with version=)
    for ver in [(2, 0), (3, 0)]:
        buf = io.BytesIO()
        npformat.write_array(buf, np.array([1.5, -2.5], dtype="<f8"), version=ver)
        emit_npy("f8_le_v%d" % ver[0], buf.getvalue(),
                 note="written with numpy.lib.format.write_array(version=%r)"
                 % (ver,))
    # latin-1 (non-ASCII, non-UTF-8) field name in a v1.0 header
    emit_saved("rec_latin1_name", fill([("caf\u00e9", "<i4")], (2,)))


def gen_growth():
    out = []
    for fortran in (False, True):
        for k in range(21):
            shape = (3, 10 ** k) if fortran else (10 ** k, 3)
            buf = io.BytesIO()
            npformat.write_array_header_1_0(
                buf, {"descr": "<f8", "fortran_order": fortran, "shape": shape})
            hb = buf.getvalue()
            out.append({"shape": [str(s) for s in shape],
                        "fortran_order": fortran,
                        "header_len": len(hb),
                        "header_bytes_hex": hb.hex()})
    write_json(os.path.join(NPY_DIR, "growth.json"), out)


# ---------------------------------------------------------------------------
# NPZ fixtures
# ---------------------------------------------------------------------------

def describe_npz(path):
    members = []
    npz = np.load(path)
    keys = {}
    for k in npz.files:
        keys[k + ".npy" if k + ".npy" in npz.zip.namelist() else k] = k
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            raw = zf.read(info.filename)
            is_npy = raw[:6] == b"\x93NUMPY"
            m = {"key": keys[info.filename], "zipname": info.filename,
                 "compressed": info.compress_type != zipfile.ZIP_STORED,
                 "is_npy": is_npy}
            if is_npy:
                a = npz[m["key"]]
                d = describe_array(raw, a)
                m.update(d)  # same keys as an npy fixture JSON, minus "name"
            else:
                assert npz[m["key"]] == raw
                m["content_hex"] = raw.hex()
            members.append(m)
    npz.close()
    return {"members": members}


def zinfo(name, compressed=False):
    zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    zi.compress_type = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    zi.external_attr = 0o600 << 16
    return zi


def gen_npz():
    a = np.arange(6, dtype="<i8").reshape(2, 3)
    b = np.array([1.5, math.nan, -0.0], dtype=">f4")
    p0 = np.array([b"x", b"yz"], dtype="S2")
    p1 = np.asfortranarray(np.arange(6, dtype="<u2").reshape(3, 2))
    names = []
    np.savez(os.path.join(NPZ_DIR, "savez_mixed.npz"), p0, p1, a=a, b=b)
    np.savez_compressed(os.path.join(NPZ_DIR, "savez_compressed_mixed.npz"),
                        p0, p1, a=a, b=b)
    np.savez(os.path.join(NPZ_DIR, "empty.npz"))
    names += ["savez_mixed", "savez_compressed_mixed", "empty"]

    with zipfile.ZipFile(os.path.join(NPZ_DIR, "non_npy_member.npz"), "w") as zf:
        zf.writestr(zinfo("x.npy"), save_bytes(np.array([1, 2, 3], dtype="<i4")))
        zf.writestr(zinfo("readme.txt"), b"not an array\n")
    with zipfile.ZipFile(os.path.join(NPZ_DIR, "no_suffix.npz"), "w") as zf:
        zf.writestr(zinfo("raw"), save_bytes(np.array([7, 8], dtype="<i2")))
        zf.writestr(zinfo("y.npy", True), save_bytes(np.array([0.5], dtype="<f8")))
    names += ["non_npy_member", "no_suffix"]

    x = np.arange(5, dtype="<i8") * 10 - 20
    y = fill(np.dtype("<f4"), (5, 3))
    z = np.array(["a", "\u00e9t\u00e9", "", "xyz", "\u65e5"], dtype="<U3")
    np.savez(os.path.join(NPZ_DIR, "table.npz"), x=x, y=y, z=z)
    names.append("table")

    for n in names:
        write_json(os.path.join(NPZ_DIR, n + ".json"),
                   describe_npz(os.path.join(NPZ_DIR, n + ".npz")))
    return names


# ---------------------------------------------------------------------------
# Malformed inputs
# ---------------------------------------------------------------------------

cases = []


def numpy_result(path):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.load(path)
            if isinstance(a, np.lib.npyio.NpzFile):
                for k in a.files:
                    a[k]
        return True, None
    except BaseException as e:  # noqa: B902 - numpy raises many kinds
        msg = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        msg = re.sub(r" at 0x[0-9a-fA-F]+", "", msg)  # keep output deterministic
        msg = re.sub(r" {2,}", " ", msg)
        return False, msg[:200]


def bad(file, kind, what, data, strict_only=False):
    path = os.path.join(BAD_DIR, file)
    write_bytes(path, data)
    loads, err = numpy_result(path)
    if loads and not strict_only:
        raise AssertionError("numpy unexpectedly loads %s" % file)
    c = {"file": file, "what": what, "kind": kind, "numpy_loads": loads}
    if err:
        c["numpy_error"] = err
    cases.append(c)


def hdr(d_text, version=(1, 0), data=b"", align=64):
    return wrap_header(d_text, version, align) + data


def gen_malformed():
    good = save_bytes(np.array([1.0, 2.0, 3.0], dtype="<f8"))
    body = good[6:]
    F8 = "'descr': '<f8', 'fortran_order': False, "
    D3 = np.array([1.0, 2.0, 3.0], dtype="<f8").tobytes()

    bad("magic_92.npy", "magic", "first byte 0x92 instead of 0x93",
        b"\x92NUMPY" + body)
    bad("magic_lowercase.npy", "magic", "magic spelled \\x93numpy",
        b"\x93numpy" + body)
    bad("magic_zip.npy", "magic", "a zip local header where npy magic belongs",
        b"PK\x03\x04" + body)
    bad("truncated_7_bytes.npy", "truncated", "only the first 7 bytes",
        good[:7])
    bad("magic_only.npy", "truncated", "\\x93NUMPY alone, no version",
        b"\x93NUMPY")
    bad("empty.npy", "truncated", "empty file", b"")
    bad("header_len_short.npy", "truncated",
        "version then one byte of the 2-byte header length", good[:9])
    for v in [(1, 1), (0, 0), (2, 2), (255, 255), (4, 0)]:
        bad("version_%d_%d.npy" % v, "version", "version (%d,%d)" % v,
            good[:6] + bytes(v) + good[8:])
    bad("header_len_beyond_file.npy", "truncated",
        "header length 1000 but the file ends after 60 header bytes",
        b"\x93NUMPY\x01\x00" + struct.pack("<H", 1000) + good[10:70])
    bad("data_one_byte_short.npy", "truncated",
        "(3,) <f8 with 23 data bytes", good[:-1])
    bad("data_missing.npy", "truncated", "(3,) <f8 with no data",
        good[:-24])
    bad("v2_header_len_4gib.npy", "too_large",
        "v2.0 header length 0xffffffff, file ends after 16 header bytes",
        b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFFF) + b"{'descr': '<f8',")

    bad("header_not_dict.npy", "header_value", "header is a list literal",
        hdr("['<f8', False, (3,)]", data=D3))
    bad("header_tuple_of_dict.npy", "header_value",
        "header is a tuple: dict followed by ', 1'",
        hdr("{%s'shape': (3,), }, 1" % F8, data=D3))
    bad("missing_key_shape.npy", "header_value", "no 'shape' key",
        hdr("{'descr': '<f8', 'fortran_order': False, }", data=D3))
    bad("extra_key.npy", "header_value", "extra key 'extra'",
        hdr("{%s'shape': (3,), 'extra': 1, }" % F8, data=D3))
    bad("duplicate_key.npy", "header_value",
        "'shape' given twice (Python keeps the last, a strict parser rejects)",
        hdr("{%s'shape': (2,), 'shape': (3,), }" % F8, data=D3),
        strict_only=True)
    bad("fortran_order_int.npy", "header_value", "'fortran_order': 1",
        hdr("{'descr': '<f8', 'fortran_order': 1, 'shape': (3,), }", data=D3))
    bad("fortran_order_str.npy", "header_value", "'fortran_order': 'False'",
        hdr("{'descr': '<f8', 'fortran_order': 'False', 'shape': (3,), }",
            data=D3))
    bad("fortran_order_lowercase.npy", "header_syntax",
        "'fortran_order': false (a bare name, not a literal)",
        hdr("{'descr': '<f8', 'fortran_order': false, 'shape': (3,), }",
            data=D3))
    bad("shape_negative.npy", "header_value",
        "shape (-1, 3) with 3 elements of data (numpy 1.24 infers -1 -> 1)",
        hdr("{%s'shape': (-1, 3), }" % F8, data=D3), strict_only=True)
    bad("shape_bool.npy", "header_value",
        "shape (True, 3): bool is not an int for a strict reader",
        hdr("{%s'shape': (True, 3), }" % F8, data=D3), strict_only=True)
    bad("shape_float.npy", "header_value", "shape (3.0,)",
        hdr("{%s'shape': (3.0,), }" % F8, data=D3))
    bad("shape_list.npy", "header_value", "shape [3] (list, not tuple)",
        hdr("{%s'shape': [3], }" % F8, data=D3))
    bad("shape_bare_int.npy", "header_value", "shape 3 (not a tuple)",
        hdr("{%s'shape': 3, }" % F8, data=D3))
    bad("shape_string.npy", "header_value", "shape ('3',)",
        hdr("{%s'shape': ('3',), }" % F8, data=D3))
    bad("shape_bytes_overflow.npy", "overflow",
        "shape (2**61,) <f8: element count fits int64, byte size does not",
        hdr("{%s'shape': (%d,), }" % (F8, 2 ** 61), data=D3))
    bad("shape_count_overflow.npy", "overflow",
        "shape (2**32, 2**32): element count wraps to 0 in int64",
        hdr("{%s'shape': (%d, %d), }" % (F8, 2 ** 32, 2 ** 32)))
    bad("shape_dim_exceeds_int64.npy", "overflow",
        "shape (2**64,): a dimension that does not fit int64",
        hdr("{%s'shape': (%d,), }" % (F8, 2 ** 64), data=D3))
    bad("shape_huge_byte_count.npy", "too_large",
        "shape (2**40,) <f8 (8 TiB) with 24 bytes of data: check against the "
        "stream/limits before allocating",
        hdr("{%s'shape': (%d,), }" % (F8, 2 ** 40), data=D3))

    bad("header_call.npy", "header_syntax", "shape written as tuple([3])",
        hdr("{%s'shape': tuple([3]), }" % F8, data=D3))
    bad("header_call_dtype.npy", "header_syntax", "descr written as dtype('<f8')",
        hdr("{'descr': dtype('<f8'), 'fortran_order': False, 'shape': (3,), }",
            data=D3))
    bad("header_arith.npy", "header_syntax", "shape (2+1,)",
        hdr("{%s'shape': (2+1,), }" % F8, data=D3))
    bad("trailing_garbage.npy", "header_syntax", "junk after the closing brace",
        hdr("{%s'shape': (3,), } junk" % F8, data=D3))
    bad("unterminated_string.npy", "header_syntax", "descr string never closed",
        hdr("{'descr': '<f8, 'fortran_order': False, 'shape': (3,), }", data=D3))
    bad("unclosed_dict.npy", "header_syntax", "no closing brace",
        hdr("{%s'shape': (3,), " % F8, data=D3))
    bad("v3_invalid_utf8.npy", "header_syntax",
        "v3.0 header with bytes ff fe inside a field name",
        wrap_header(b"{'descr': [('a\xff\xfe', '<f8')], 'fortran_order': False, "
                    b"'shape': (3,), }", version=(3, 0)) + D3)
    bad("v3_L_suffix.npy", "header_syntax",
        "Python-2 'L' suffix is only tolerated in v1.0/v2.0 headers",
        wrap_header("{%s'shape': (3L,), }" % F8, version=(3, 0)) + D3)
    deep = "[" * 10000 + "]" * 10000
    bad("descr_deep_nesting.npy", "header_syntax",
        "descr is 10000 nested lists (also over numpy's 10000-char limit)",
        hdr("{'descr': %s, 'fortran_order': False, 'shape': (3,), }" % deep,
            data=D3))

    bad("descr_garbage.npy", "dtype", "descr 'hello'",
        hdr("{'descr': 'hello', 'fortran_order': False, 'shape': (3,), }",
            data=D3))
    bad("descr_unknown_typestr.npy", "dtype", "descr '<x4'",
        hdr("{'descr': '<x4', 'fortran_order': False, 'shape': (3,), }",
            data=D3))
    bad("descr_int.npy", "dtype", "descr 8 (an int)",
        hdr("{'descr': 8, 'fortran_order': False, 'shape': (3,), }", data=D3))
    bad("descr_dup_fields.npy", "dtype", "two fields named 'a'",
        hdr("{'descr': [('a', '<i4'), ('a', '<i4')], 'fortran_order': False, "
            "'shape': (3,), }", data=bytes(24)))
    bad("descr_dict.npy", "dtype",
        "descr as a dict {'a': '<i4'} (numpy iterates its keys)",
        hdr("{'descr': {'a': '<i4'}, 'fortran_order': False, 'shape': (3,), }",
            data=bytes(24)))
    bad("descr_field_bad_arity.npy", "dtype", "a 4-tuple field",
        hdr("{'descr': [('a', '<i4', (2,), 1)], 'fortran_order': False, "
            "'shape': (3,), }", data=bytes(24)))
    bad("descr_object.npy", "unsupported",
        "descr '|O' (pickled objects; refused without allow_pickle)",
        hdr("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
            data=b"\x80\x02]q\x00."))
    bad("descr_object_O8.npy", "unsupported",
        "descr '|O8' (old spelling of object)",
        hdr("{'descr': '|O8', 'fortran_order': False, 'shape': (1,), }",
            data=b"\x80\x02]q\x00."))
    bad("descr_object_field.npy", "unsupported", "struct with an '|O' field",
        hdr("{'descr': [('a', '<i4'), ('o', '|O')], 'fortran_order': False, "
            "'shape': (1,), }", data=bytes(12)))
    bad("descr_longdouble.npy", "unsupported",
        "descr '<f16' (x86 80-bit long double; numpy on x86-64 loads it)",
        hdr("{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }",
            data=bytes(32)), strict_only=True)
    bad("descr_clongdouble.npy", "unsupported",
        "descr '<c32' (complex long double)",
        hdr("{'descr': '<c32', 'fortran_order': False, 'shape': (2,), }",
            data=bytes(64)), strict_only=True)

    # npz with one good and one broken member (fails only when read)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zinfo("good.npy"), good)
        zf.writestr(zinfo("bad.npy"), b"\x93NUMPY\x09\x09" + good[8:])
    bad("npz_bad_member.npz", "version",
        "npz whose member bad.npy has version (9,9); good.npy is fine",
        buf.getvalue())

    write_json(os.path.join(BAD_DIR, "cases.json"), cases)


# ---------------------------------------------------------------------------

def reset_dir(d):
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)


def main():
    if np.lib.NumpyVersion(np.__version__) < "1.24.0":
        sys.exit("numpy >= 1.24 required (found %s)" % np.__version__)
    for d in (NPY_DIR, NPZ_DIR, BAD_DIR):
        reset_dir(d)
    gen_scalar_fixtures()
    gen_record_fixtures()
    gen_handwritten_fixtures()
    gen_growth()
    npz = gen_npz()
    gen_malformed()
    print("numpy %s: %d npy fixtures, %d npz fixtures, %d malformed cases"
          % (np.__version__, len(npy_names), len(npz), len(cases)))


if __name__ == "__main__":
    main()
