#!/usr/bin/python3
"""Read the .h5 files TestHDF5AllDTypes wrote (every .npy of testdata/npy
converted by the hdf5 sink, and big-endian arrays over 4 KiB written
chunked with deflate and lz4 and contiguous) with h5py, compare each with
the .npy it came from (NAME.npy next to NAME.h5), and run h5dump on each.

Usage (make check-hdf5 runs it):
  rm -rf /tmp/h5all && mkdir /tmp/h5all
  NPYFLOW_H5ALL_DIR=/tmp/h5all go test -count=1 -run 'TestHDF5AllDTypes' ./pipeline/
  /usr/bin/python3 pipeline/testdata/h5all/check_h5all.py /tmp/h5all [--update]

What h5py must read:
  - numbers, bools, complex, S and records: the same dtype up to byte
    order (npyflow writes native order) and the same values (NaN equal to
    NaN, the same sign bits);
  - datetime64/timedelta64: h5py's opaque type tagged NUMPY:<dtype>,
    which h5py gives back as that dtype; the same values;
  - U: UTF-8 strings (fixed-length with the UTF-8 character set, or
    variable-length), which decode (.asstr()) to the same str values; in
    a record, the field's UTF-8 bytes, which decode to them (h5py.json
    holds the decoded values, as npyflow reads U back).
h5dump must print each file without error.

With --update, h5py's reading of every file that passed is written to
h5py.json next to this script ({NAME: {descr, h5py, strings, shape,
values | sha256, opaque}}), which the Go test compares with npyflow's
reading, so that `go test` needs no Python.
"""
import glob
import hashlib
import json
import os
import subprocess
import sys

import h5py
import hdf5plugin  # noqa: F401 - the system plugins (LZ4), as users load them
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "testdata"))
from gen_fixtures import enc_values  # noqa: E402

MAX_VALUES = 200  # more: a sha256 of the little-endian C-order bytes


def strings_kind(dt):
    si = h5py.check_string_dtype(dt)
    if si is None:
        return ""
    return ("vlen-" if si.length is None else "fixed-") + si.encoding


def decoded(ds):
    """h5py's array, strings decoded: U from UTF-8 strings, also from the
    fixed-length UTF-8 members of a record (which h5py gives as bytes)."""
    a = ds[()]
    kind = strings_kind(ds.dtype)
    if kind.endswith("utf-8"):
        a = np.asarray(ds.asstr()[()], dtype=str)
    a = np.asarray(a)
    if a.dtype.names is not None and utf8_members(a.dtype):
        out = np.zeros(a.shape, dtype=widen(a.dtype))
        fill(out, a)
        a = out
    return a, kind


def utf8_members(dt):
    if dt.names is not None:
        return any(utf8_members(dt.fields[n][0]) for n in dt.names)
    if dt.subdtype is not None:
        return utf8_members(dt.subdtype[0])
    si = h5py.check_string_dtype(dt)
    return si is not None and si.encoding == "utf-8" and si.length is not None


def widen(dt):
    """dt with fixed-length UTF-8 members as U<byte width> (the most
    characters they hold, as npyflow reads them), packed, metadata
    dropped."""
    if dt.names is not None:
        return np.dtype([(n, widen(dt.fields[n][0])) for n in dt.names])
    if dt.subdtype is not None:
        return np.dtype((widen(dt.subdtype[0]), dt.subdtype[1]))
    if utf8_members(dt):
        return np.dtype("<U%d" % dt.itemsize)
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


def same(a, b):
    """Equal values: by bytes for numbers in one byte order (NaN payloads
    and signs included), by value for strings."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "U" or b.dtype.kind == "U":
        return a.dtype.kind == b.dtype.kind and bool(np.all(a == b))
    if a.dtype.names is not None:
        if a.dtype.names != b.dtype.names:
            return False
        return all(same_field(a[n], b[n]) for n in a.dtype.names)
    return same_field(a, b)


def same_field(a, b):
    if a.dtype.kind == "U" and b.dtype.kind == "S":
        # a U field stored as fixed-length UTF-8: h5py gives the bytes
        return bool(np.all(np.char.encode(a, "utf-8") == b))
    if a.dtype.names is not None:
        return same(a, b)
    if a.dtype.kind == "b":
        # by truth value: numpy's bool bytes may be any nonzero byte
        return b.dtype.kind == "b" and bool(np.all((a.view(np.uint8) != 0) == (b.view(np.uint8) != 0)))
    if a.dtype.kind in "SU":
        return a.dtype.kind == b.dtype.kind and bool(np.all(a == b))
    if a.dtype.kind != b.dtype.kind or a.dtype.itemsize != b.dtype.itemsize:
        return False
    le = a.dtype.newbyteorder("<") if a.dtype.byteorder not in "|" else a.dtype
    return np.ascontiguousarray(a.astype(le)).tobytes() == np.ascontiguousarray(b.astype(le)).tobytes()


def plain(dt):
    """dt without h5py's metadata (string encodings, opaque marks)."""
    if dt.names is not None:
        return np.dtype({"names": list(dt.names), "formats": [plain(dt.fields[n][0]) for n in dt.names],
                         "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize})
    if dt.subdtype is not None:
        return np.dtype((plain(dt.subdtype[0]), dt.subdtype[1]))
    return np.dtype(dt.str)


def int_times(dt):
    """dt with datetime64/timedelta64 as int64 of the same byte order."""
    if dt.names is not None:
        return np.dtype({"names": list(dt.names), "formats": [int_times(dt.fields[n][0]) for n in dt.names],
                         "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize})
    if dt.subdtype is not None:
        return np.dtype((int_times(dt.subdtype[0]), dt.subdtype[1]))
    if dt.kind in "Mm":
        return np.dtype(dt.byteorder.replace("=", "<") + "i8")
    return dt


def le_bytes(a):
    def le(dt):
        if dt.names is not None:
            return np.dtype([(n, le(dt.fields[n][0])) for n in dt.names])
        if dt.subdtype is not None:
            return np.dtype((le(dt.subdtype[0]), dt.subdtype[1]))
        return dt.newbyteorder("<") if dt.byteorder not in "|=" else dt
    return np.ascontiguousarray(a.astype(le(a.dtype))).tobytes()


def check(path):
    name = os.path.basename(path)[:-3]
    src = np.load(os.path.join(os.path.dirname(path), name + ".npy"), max_header_size=10 ** 7)
    src = np.array(src, order="C")  # keeps a 0-d array 0-d
    with h5py.File(path, "r") as f:
        ds = f[name]
        got, kind = decoded(ds)
        tag = ""
        tid = ds.id.get_type()
        if isinstance(tid, h5py.h5t.TypeOpaqueID):
            tag = tid.get_tag().decode()
        units = {}
        for k, v in ds.attrs.items():
            if k == "units" or k.endswith(".units"):
                units[k] = v.decode() if isinstance(v, bytes) else str(v)
    if units:
        # times int64: the int64 counts of the times, with units
        src = src.astype(int_times(src.dtype))
    if not same(src, got):
        return None, "h5py read other values or type: %s %s, want %s %s" % (got.dtype, got.shape, src.dtype, src.shape)
    r = subprocess.run(["h5dump", path], capture_output=True)
    if r.returncode != 0 or r.stderr:
        return None, "h5dump: %s" % r.stderr.decode(errors="replace")[:300]
    rec = {
        "descr": repr(np.lib.format.dtype_to_descr(plain(got.dtype))),
        "h5py": ds_dtype_str(path, name),
        "strings": kind,
        "shape": list(got.shape),
    }
    if tag:
        rec["opaque"] = tag
    if units:
        rec["units"] = units
    if got.size <= MAX_VALUES:
        rec["values"] = enc_values(got)
    else:
        rec["sha256"] = hashlib.sha256(le_bytes(got)).hexdigest()
    return rec, None


def ds_dtype_str(path, name):
    with h5py.File(path, "r") as f:
        return f[name].dtype.str


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    d = argv[1]
    files = sorted(glob.glob(os.path.join(d, "*.h5")))
    if len(files) < 400:
        sys.exit("%s: %d .h5 files, want the Go test's (over 300)" % (d, len(files)))
    out, bad = {}, 0
    for path in files:
        name = os.path.basename(path)[:-3]
        try:
            rec, err = check(path)
        except Exception as e:  # noqa: BLE001 - report and go on
            rec, err = None, "%s: %s" % (type(e).__name__, e)
        if err:
            bad += 1
            print("FAIL %s: %s" % (name, err))
            continue
        out[name] = rec
    print("%d passed, %d failed" % (len(out), bad))
    if "--update" in argv[2:] and bad == 0:
        with open(os.path.join(HERE, "h5py.json"), "w") as f:
            json.dump(out, f, indent=0, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print("wrote", os.path.join(HERE, "h5py.json"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
