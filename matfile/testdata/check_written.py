#!/usr/bin/python3
"""Check MAT-files written by npyflow's matfile.Writer with other readers.

Usage: /usr/bin/python3 matfile/testdata/check_written.py [--commit]

1. numpy writes DIR/src.npz with one member per case (every dtype the
   writer maps, shapes, empties, strings, structured arrays ...).
2. `go test -run TestWriteForChecker ./matfile/` (with MATFILE_WRITE_DIR=DIR)
   converts it to out_v6.mat, out_v7.mat, out_v73.mat (WriteArray) and
   stream_v*.mat (CreateVariable in batches of 2 rows).
3. Every file is loaded by scipy.io.loadmat (v6, v7) or hdf5storage.loadmat
   (v7.3, plus `h5dump` with no errors) and by Octave (`load`), and each
   variable is compared with what the mapping documented in
   matfile/write.go promises: MATLAB class, size and values.
4. With --commit the verified files and expected.json (class, size and
   column-major values of every variable, as the readers returned them) are
   copied to matfile/testdata/written/ for the Go tests.

Run from the repository root. Needs python3-scipy, python3-hdf5storage,
python3-h5py, hdf5-tools and octave.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VERSIONS = ["6", "7", "73"]


def cases():
    rng = np.random.default_rng(14)
    c = {}
    c["f8"] = np.arange(12, dtype="<f8").reshape(3, 4) / 7.0
    c["f8neg"] = np.array([[-0.0, np.inf], [-np.inf, 1e-310]])
    c["f4"] = np.array([1.5, -2.25, 3.0e38], dtype="<f4")
    c["f2"] = np.array([[1.0, 65504.0, 6e-8], [-2.5, 0.0, 1e-4]], dtype="<f2")
    for k in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
        info = np.iinfo(k)
        c[k] = np.array([[info.min, 0, info.max], [1, 2, 3]], dtype="<" + k)
    c["b1"] = np.array([[True, False], [False, True], [True, True]])
    c["c8"] = np.array([1 + 2j, -3.5j, 4], dtype="<c8")
    c["c16"] = (np.arange(6) + 1j * np.arange(6, 12)).reshape(2, 3)
    c["scalar"] = np.float64(3.25)
    c["scalar_i"] = np.int16(-7)
    c["empty2"] = np.zeros((0, 3))
    c["empty1"] = np.zeros((0,), dtype="<i4")
    c["empty50"] = np.zeros((5, 0), dtype="<u2")
    c["emptystr"] = np.array(["", ""])
    c["cube"] = np.arange(24, dtype="<i4").reshape(2, 3, 4)
    c["tall"] = np.arange(120, dtype="<i2").reshape(40, 3) * 3 - 100
    c["tall3"] = np.arange(11 * 2 * 3, dtype="<f4").reshape(11, 2, 3) / 4
    c["fortran"] = np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3))
    c["big_endian"] = np.array([[1, 2], [3, 4]], dtype=">i4")
    c["words"] = np.array(["ab", "cde", "", "f"])
    c["hello"] = np.str_("hello w\u00f6rld \u20ac")
    c["grid"] = np.array([["ab", "c"], ["d", "efg"]])
    c["bytes"] = np.array([b"xy", b"z"])
    # Outside the BMP: UTF-16 surrogate pairs, as MATLAB stores them (the
    # char array is a unit wider: 2x4; the struct's 2x2 needs no more than
    # U2's width); one row, and strings in a struct.
    c["wide_emoji"] = np.array(["a\U0001F600b", "xy"])
    c["wide_row"] = np.str_("\U0001F600 \U0001D11E\u00e9")
    c["wide_rec"] = np.array([("\U0001F680", 1.0), ("ok", 2.0)], dtype=[("s", "<U2"), ("x", "<f8")])
    c["dt_ms"] = np.array(["2024-01-02T03:04:05.250", "NaT", "1969-12-31"], dtype="datetime64[ms]")
    c["dt_M"] = np.array(["2024-03", "1960-11"], dtype="datetime64[M]")
    c["td_s"] = np.array([90, -5, "NaT"], dtype="timedelta64[s]")
    inner = np.dtype([("u", "<u2"), ("w", "<f8")])
    rec = np.dtype([("x", "<f8"), ("n", "<i4"), ("ok", "?"), ("name", "<U4"),
                    ("v", "<f4", (2,)), ("z", "<c16"), ("sub", inner)])
    t = np.zeros(4, dtype=rec)
    t["x"] = [0.5, 1.5, -2.0, 1e300]
    t["n"] = [1, -2, 3, 2**31 - 1]
    t["ok"] = [True, False, True, False]
    t["name"] = ["a", "bb", "", "dddd"]
    t["v"] = rng.integers(-50, 50, size=(4, 2))
    t["z"] = [1j, 2, 3 + 3j, -1]
    t["sub"]["u"] = [1, 2, 3, 65535]
    t["sub"]["w"] = [0.25, 0.5, 0.75, 1.0]
    c["table"] = t
    c["rec0"] = np.array((7, 1.5, "hi"), dtype=[("a", "<i8"), ("b", "<f4"), ("s", "<U3")])
    c["emptytab"] = np.zeros(0, dtype=[("a", "<f8")])
    # the longest names: 63 characters (field name slots of 64 in Level 5)
    c["L" + "n" * 62] = np.array([[1, 2]], dtype="<i2")
    c["longfields"] = np.array([(1.0, 2)], dtype=[("F" + "x" * 62, "<f8"), ("short", "<u1")])
    return c


def mat_dims(shape, top):
    if len(shape) == 0:
        return (1, 1)
    if len(shape) == 1:
        return (1, shape[0]) if top else (shape[0], 1)
    return tuple(shape)


CLASS = {"f8": "double", "f4": "single", "f2": "single", "i1": "int8", "i2": "int16",
         "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32",
         "u8": "uint64", "b1": "logical", "c8": "single", "c16": "double"}

UNIT_S = {"W": 604800, "D": 86400, "h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def expected(x, top=True):
    """The MATLAB variable npyflow promises for numpy array x."""
    x = np.asarray(x)
    if x.dtype.names:
        fields = {}
        for n in x.dtype.names:
            fields[n] = expected(x[n], top=False)
        return {"class": "struct", "size": [1, 1], "fields": fields}
    k = x.dtype.kind
    if k in "US":
        # MATLAB char: UTF-16 code units (a character outside the BMP is a
        # surrogate pair of two), the strings padded with spaces to the
        # width in characters, or to the most units one needs if more.
        n = x.dtype.itemsize // (4 if k == "U" else 1)
        if k == "S":
            x = np.char.decode(x, "ascii")
        units = [utf16_units(s) for s in x.reshape(-1)]
        w = max([len(u) for u in units] + [n])
        units = [u + [0x20] * (w - len(u)) for u in units]
        shape = x.shape + (w,)
        chars = np.array(units, dtype="<u2").reshape(shape) if units and w else np.zeros(shape, dtype="<u2")
        dims = mat_dims(shape, True)  # one string is a row, also in a struct
        m = chars.reshape(dims)
        vals = [int(v) for v in m.flatten(order="F")]
        out = {"class": "char", "size": list(dims), "values": vals,
               "text": "".join(chr(v) for v in vals)}
        if any(0xD800 <= v < 0xE000 for v in vals):
            out["pairs"] = True
        return out
    if k in "mM":
        unit, mult = np.datetime_data(x.dtype)
        i = x.view("<i8").astype(float)
        if unit in ("M", "Y"):
            secs = (x.astype("datetime64[s]").view("<i8")).astype(float)
        else:
            secs = i * UNIT_S[unit] * mult
        secs[x.view("<i8") == np.iinfo("<i8").min] = np.nan
        dims = mat_dims(x.shape, top)
        return {"class": "double", "size": list(dims), "values": fmt_vals(secs.reshape(dims).flatten(order="F"))}
    key = x.dtype.str[1:]
    cls = CLASS[key]
    dims = mat_dims(x.shape, top)
    m = x.reshape(dims)
    out = {"class": cls, "size": list(dims)}
    if k == "c":
        out["complex"] = True
        out["values"] = fmt_vals(m.real.flatten(order="F"))
        out["imag"] = fmt_vals(m.imag.flatten(order="F"))
    else:
        out["values"] = fmt_vals(m.flatten(order="F"))
    return out


def utf16_units(s):
    """The UTF-16 code units of s."""
    b = s.encode("utf-16-le")
    return [int(v) for v in np.frombuffer(b, dtype="<u2")]


def char_units(v):
    """The UTF-16 code units of a U array a reader returned (code points,
    one per element, or strings along the last axis) with its size."""
    vals = []
    for ch in v.flatten(order="F"):
        vals += utf16_units(ch) if ch else [0]
    return vals


def fmt_vals(a):
    a = np.asarray(a)
    if a.dtype.kind == "b":
        return [int(v) for v in a]
    if a.dtype.kind in "iu":
        return [int(v) for v in a]
    out = []
    for v in a.astype(float):
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        else:
            out.append(float(v))
    return out


def same_vals(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, str) or isinstance(y, str):
            if str(x) != str(y):
                return False
        elif isinstance(x, float) or isinstance(y, float):
            if float(x) != float(y) or math.copysign(1, float(x)) != math.copysign(1, float(y)):
                return False
        elif x != y:
            return False
    return True


def compare(path, want, got, errs):
    if want["class"] != got["class"]:
        errs.append(f"{path}: class {got['class']}, want {want['class']}")
        return
    if list(want["size"]) != list(got["size"]):
        errs.append(f"{path}: size {got['size']}, want {want['size']}")
        return
    if want["class"] == "struct":
        if list(want["fields"]) != list(got["fields"]):
            errs.append(f"{path}: fields {list(got['fields'])}, want {list(want['fields'])}")
            return
        for n in want["fields"]:
            compare(path + "." + n, want["fields"][n], got["fields"][n], errs)
        return
    if bool(want.get("complex")) != bool(got.get("complex")):
        errs.append(f"{path}: complex {got.get('complex')}, want {want.get('complex')}")
        return
    for part in ("values", "imag"):
        if part in want and not same_vals(want[part], got[part]):
            errs.append(f"{path}: {part} {got[part][:8]}..., want {want[part][:8]}...")


# ---- scipy (Level 5) ----

SCIPY_CLASS = {"float64": "double", "float32": "single", "int8": "int8", "int16": "int16",
               "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16",
               "uint32": "uint32", "uint64": "uint64", "bool": "logical",
               "complex64": "single", "complex128": "double"}


def from_scipy(v):
    v = np.asarray(v)
    if v.dtype.names:
        assert v.shape == (1, 1), v.shape
        return {"class": "struct", "size": [1, 1],
                "fields": {n: from_scipy(v[n][0, 0]) for n in v.dtype.names}}
    if v.dtype.kind == "U":
        vals = [ord(ch) for ch in v.flatten(order="F")]
        return {"class": "char", "size": list(v.shape), "values": vals}
    out = {"class": SCIPY_CLASS[v.dtype.name], "size": list(v.shape)}
    if v.dtype.kind == "c":
        out["complex"] = True
        out["values"] = fmt_vals(v.real.flatten(order="F"))
        out["imag"] = fmt_vals(v.imag.flatten(order="F"))
    else:
        out["values"] = fmt_vals(v.flatten(order="F"))
    return out


def has_pairs(w):
    if w["class"] == "struct":
        return any(has_pairs(f) for f in w["fields"].values())
    return bool(w.get("pairs"))


def scipy_skips(want):
    """Variables with surrogate pairs: scipy 1.10 refuses them in Level 5
    files ("buffer is too small for requested array"), MATLAB's and
    Octave's own as well; the others are read by name."""
    return sorted(k for k, w in want.items() if has_pairs(w))


def check_scipy(path, want):
    import scipy.io
    names = [k for k in want if k not in scipy_skips(want)]
    d = scipy.io.loadmat(path, chars_as_strings=False, squeeze_me=False, mat_dtype=False, variable_names=names)
    got = {k: from_scipy(v) for k, v in d.items() if not k.startswith("__")}
    # loadmat returns logical arrays as uint8; whosmat reports the flag of
    # top-level variables. Fields: uint8 0/1 is accepted for logical here
    # and Octave (which keeps the class) checks the flag.
    logical = {n for n, _, c in scipy.io.whosmat(path) if c == "logical"}

    def relabel(w, g, top):
        if w["class"] == "struct" and g["class"] == "struct":
            for n in w["fields"]:
                if n in g["fields"]:
                    relabel(w["fields"][n], g["fields"][n], False)
        elif w["class"] == "logical" and g["class"] == "uint8":
            if not top or top in logical:
                g["class"] = "logical"
    for k in got:
        if k in want:
            relabel(want[k], got[k], k)
    return got


# ---- hdf5storage (v7.3) ----

def from_h5s(v, cls):
    v = np.asarray(v)
    if v.dtype.names and cls == "struct":
        # hdf5storage returns a 1x1 struct as a (1,) structured array whose
        # fields are subarrays of the field's shape.
        assert v.shape in ((1,), (1, 1)), v.shape
        return {"class": "struct", "size": [1, 1],
                "fields": {n: from_h5s(v[n].reshape(v[n].shape[v.ndim:]), "struct" if v.dtype[n].base.names else None)
                           for n in v.dtype.names}}
    if v.dtype.kind == "U":
        # hdf5storage returns a char array as strings: the last MATLAB
        # dimension (UTF-16 code units, surrogate pairs joined into one
        # character) joined into each string (that axis left with size 1),
        # of numpy width the number of units.
        n = v.dtype.itemsize // 4
        shape = v.shape[:-1] + (v.shape[-1] * n,)
        units = [u + [0x20] * (n - len(u)) for u in (utf16_units(s) for s in v.reshape(-1))]
        chars = np.array(units, dtype="<u2").reshape(shape) if v.size and n else np.zeros(shape, "<u2")
        vals = [int(c) for c in chars.flatten(order="F")]
        return {"class": "char", "size": list(chars.shape), "values": vals}
    return from_scipy(v)


def check_h5s(path, want):
    import h5py
    import hdf5storage
    d = hdf5storage.loadmat(path)
    got = {}
    with h5py.File(path, "r") as f:
        for k in f:
            if k.startswith("#"):
                continue
            cls = f[k].attrs["MATLAB_class"].decode()
            got[k] = from_h5s(d[k], cls)
            # hdf5storage 0.1.19 reads an empty array's stored size in
            # reverse (it writes it reversed too); MATLAB stores it in
            # MATLAB order. Check the stored size with h5py and accept
            # hdf5storage's reversed reading of it.
            fix_empty(f[k], got[k], want.get(k))
    r = subprocess.run(["h5dump", path], capture_output=True, text=True)
    if r.returncode != 0 or "error" in (r.stderr or "").lower():
        raise SystemExit(f"h5dump failed on {path}: {r.stderr[:500]}")
    return got


def fix_empty(obj, got, want):
    import h5py
    if want is None:
        return
    if isinstance(obj, h5py.Group):
        for n in want.get("fields", {}):
            if n in obj and n in got.get("fields", {}):
                fix_empty(obj[n], got["fields"][n], want["fields"][n])
        return
    if obj.attrs.get("MATLAB_empty", 0) == 1:
        stored = [int(x) for x in obj[()]]
        if stored != list(want["size"]):
            got["size"] = ["stored", stored]
        elif got["size"] == list(reversed(want["size"])):
            got["size"] = stored


# ---- Octave ----

OCTAVE_DUMP = r"""
1;
function dumpvar(fid, path, x)
  if isstruct(x)
    f = fieldnames(x);
    fprintf(fid, '%s\tstruct\t%s\t%s\n', path, sprintf('%d,', size(x)), strjoin(f', ','));
    for i = 1:numel(f)
      dumpvar(fid, [path '.' f{i}], x.(f{i}));
    end
    return
  end
  c = class(x);
  if ischar(x) || islogical(x)
    v = sprintf('%d,', double(x(:)));
    im = '';
  elseif isa(x, 'int64') || isa(x, 'uint64')
    % printf goes through double: print each value's two 32-bit halves
    v = sprintf('%d,', typecast(x(:)', 'uint32'));
    im = 'halves';
  elseif isinteger(x)
    v = sprintf('%d,', x(:));
    im = '';
  else
    v = sprintf('%.17g,', real(double(x(:))));
    im = '';
    if iscomplex(x)
      im = sprintf('%.17g,', imag(double(x(:))));
    end
  end
  fprintf(fid, '%s\t%s\t%s\t%s\t%s\n', path, c, sprintf('%d,', size(x)), v, im);
end
s = load(INFILE);
fid = fopen(OUTFILE, 'w');
names = fieldnames(s);
for i = 1:numel(names)
  dumpvar(fid, names{i}, s.(names{i}));
end
fclose(fid);
"""


def parse_num(t):
    t = t.strip()
    if t in ("NaN", "nan"):
        return "NaN"
    if t in ("Inf", "inf"):
        return "Inf"
    if t in ("-Inf", "-inf"):
        return "-Inf"
    if any(ch in t for ch in ".eE") or t == "-0":
        return float(t)
    return int(t)


def check_octave(path, want):
    with tempfile.TemporaryDirectory() as td:
        out = os.path.join(td, "dump.txt")
        script = os.path.join(td, "dump.m")
        with open(script, "w") as f:
            f.write(OCTAVE_DUMP.replace("INFILE", repr(path)).replace("OUTFILE", repr(out)))
        r = subprocess.run(["octave", "--no-gui", "--quiet", "--no-window-system", script],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise SystemExit(f"octave failed on {path}: {r.stderr[-2000:]}")
        # Octave 7 prints this on every scripted exit; it is not about the file.
        warn = [l for l in r.stderr.splitlines() if l.strip() and "ignoring const execution_exception" not in l]
        lines = open(out).read().splitlines()
    nodes = {}
    for line in lines:
        parts = line.split("\t")
        p, cls, size = parts[0], parts[1], [int(s) for s in parts[2].split(",") if s]
        if cls == "struct":
            nodes[p] = {"class": "struct", "size": size, "fields": {n: None for n in parts[3].split(",") if n}}
            continue
        vals = [parse_num(s) for s in parts[3].split(",") if s]
        if parts[4] == "halves":
            # little-endian halves of 64-bit integers
            u = np.array(vals, dtype="<u4").view("<u8" if cls == "uint64" else "<i8")
            vals = [int(v) for v in u]
            parts[4] = ""
        if cls == "char" and size[0] == 1 and any(v > 127 for v in vals):
            # Octave holds char as UTF-8 bytes: a row of non-ASCII text
            # comes back as its UTF-8 encoding.
            vals = [ord(ch) for ch in bytes(vals).decode("utf-8")]
            size = [1, len(vals)]
        node = {"class": cls, "size": size, "values": vals}
        if cls in ("double", "single"):
            node["values"] = [v if isinstance(v, str) else float(v) for v in vals]
        if parts[4]:
            node["complex"] = True
            node["imag"] = [v if isinstance(v, str) else float(v) for v in (parse_num(s) for s in parts[4].split(",") if s)]
        nodes[p] = node
    for p in sorted(nodes, key=lambda s: -s.count(".")):
        if "." in p:
            parent, name = p.rsplit(".", 1)
            nodes[parent]["fields"][name] = nodes[p]
    got = {p: n for p, n in nodes.items() if "." not in p}
    return got, warn


def octave_want(want, v73=False):
    """Octave reports a complex array whose imaginary parts are all zero as
    real (it narrows on load), so compare such arrays as real."""
    w = json.loads(json.dumps(want))

    def fix(n):
        if n["class"] == "struct":
            for c in n["fields"].values():
                fix(c)
        elif n.get("pairs") and not v73:
            # Octave 7 converts a Level 5 char row of UTF-16 to its UTF-8
            # (a pair is one character), and turns each unit of a pair in a
            # char array of several rows into '?' (it does both with the
            # files MATLAB writes).
            if len(n["size"]) == 2 and n["size"][0] == 1:
                b = np.array(n["values"], dtype="<u2").tobytes().decode("utf-16-le")
                n["values"] = [ord(ch) for ch in b]
                n["size"] = [1, len(b)]
            else:
                n["values"] = [ord("?") if 0xD800 <= v < 0xE000 else v for v in n["values"]]
        elif n.get("complex") and all(v == 0 for v in n["imag"]):
            del n["complex"]
            del n["imag"]
    for n in w.values():
        fix(n)
    return w


def octave_v73_want(want):
    """Octave 7 loads a v7.3 MAT-file as a plain HDF5 file: it ignores
    MATLAB_class (char comes back as its uint16 codes, logical as uint8,
    single as double), MATLAB_empty (an empty is the uint64 size vector it
    stores, which shows the stored order) and MATLAB_fields (fields in name
    order). Compare with that view: sizes and values must still agree."""
    w = json.loads(json.dumps(octave_want(want, True)))

    def fix(n):
        if n["class"] == "struct":
            n["fields"] = {k: fix(n["fields"][k]) for k in sorted(n["fields"])}
            return n
        if 0 in n["size"]:
            return {"class": "uint64", "size": [1, len(n["size"])], "values": list(n["size"])}
        n["class"] = {"single": "double", "logical": "uint8", "char": "uint16"}.get(n["class"], n["class"])
        return n
    return {k: fix(v) for k, v in w.items()}


def main():
    commit = "--commit" in sys.argv
    src = cases()
    want = {k: expected(v) for k, v in src.items()}
    with tempfile.TemporaryDirectory() as d:
        np.savez(os.path.join(d, "src.npz"), **src)
        env = dict(os.environ, MATFILE_WRITE_DIR=d)
        r = subprocess.run(["go", "test", "-count=1", "-run", "^TestWriteForChecker$", "./matfile/"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("go test failed:\n" + r.stdout + r.stderr)
        failures = 0
        checked = []
        for kind in ("out", "stream"):
            for v in VERSIONS:
                path = os.path.join(d, f"{kind}_v{v}.mat")
                if not os.path.exists(path):
                    print(f"skip {kind}_v{v}.mat (not written)")
                    continue
                readers = []
                if v == "73":
                    readers.append(("hdf5storage+h5dump", check_h5s(path, want)))
                else:
                    readers.append(("scipy", check_scipy(path, want)))
                og, warn = check_octave(path, want)
                readers.append(("octave", og))
                for rname, got in readers:
                    w = want
                    if rname == "octave":
                        w = octave_v73_want(want) if v == "73" else octave_want(want)
                    if rname == "scipy":
                        w = {k: x for k, x in want.items() if k not in scipy_skips(want)}
                        print(f"{kind}_v{v}.mat scipy: not read (surrogate pairs, which scipy 1.10 refuses): {', '.join(scipy_skips(want))}")
                    errs = []
                    if sorted(got) != sorted(w):
                        errs.append(f"variables {sorted(got)}, want {sorted(w)}")
                    for k in w:
                        if k in got:
                            compare(k, w[k], got[k], errs)
                    status = "ok" if not errs else f"{len(errs)} mismatches"
                    print(f"{kind}_v{v}.mat {rname}: {status}")
                    for e in errs:
                        print("   ", e)
                    failures += len(errs)
                if warn:
                    print(f"   octave said: {' | '.join(warn[:3])}")
                checked.append(f"{kind}_v{v}.mat")
        if failures:
            raise SystemExit(f"{failures} mismatches")
        if commit:
            dst = os.path.join(HERE, "written")
            os.makedirs(dst, exist_ok=True)
            shutil.copy(os.path.join(d, "src.npz"), dst)
            for name in [f"out_v{v}.mat" for v in VERSIONS] + ["stream_v73.mat"]:
                p = os.path.join(d, name)
                if os.path.exists(p):
                    shutil.copy(p, dst)
            with open(os.path.join(dst, "expected.json"), "w") as f:
                json.dump({"checked_by": ["scipy.io.loadmat", "hdf5storage.loadmat", "h5dump", "octave load"],
                           "variables": want}, f, indent=1, sort_keys=False)
            print("committed to", dst)


if __name__ == "__main__":
    main()
