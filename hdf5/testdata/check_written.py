#!/usr/bin/python3
"""Check HDF5 files npyflow's writer made, with h5py and h5dump.

Usage:
  HDF5_WRITTEN_DIR=/tmp/w go test -run TestWriteFixtures ./hdf5/
  /usr/bin/python3 hdf5/testdata/check_written.py /tmp/w [--update hdf5/testdata/written]

For every NAME.h5 in the directory with a NAME.expect.json (what the Go test
meant to write), this reads the file with h5py into the same JSON form
(every object, dtype, shape, value, layout, chunk shape, filters and
attribute) and compares; runs `h5dump` (no error, nothing on stderr) and
`h5dump -H -p -B` (superblock version 0, version-1 object headers, and the
expected layouts and filters), and lets the HDF5 library edit a copy (insert
into and delete from every group, extend unlimited datasets, add attributes)
and reads it back.

Datasets compressed with the plugin filters LZ4 (32004) and Zstandard
(32015) are read through the filters h5py has: `import hdf5plugin`, which
in Debian's build (python3-hdf5plugin 4.0) registers nothing itself but
leaves libhdf5 to load the system plugins, so LZ4 comes from
hdf5-filter-plugin's libh5lz4.so (the HDF5 LZ4 plugin); Debian has no
Zstandard plugin, so filter 32015 is registered with libhdf5 through ctypes
on libzstd, as gen_filters_b.py does (only when no plugin provides it).
h5dump runs with HDF5_PLUGIN_PATH set to the plugin directory; it cannot
decode Zstandard, so for files holding zstd datasets only `h5dump -H -p -B`
runs (headers, filter ids, names and parameters). The filter names and
parameters in the file must be those the reference plugins store.

With --update, each file that passed is
copied to the given directory with the JSON h5py's reading gave
(NAME.json), for the committed fixtures the Go test compares against; only
files under 1 MB are copied.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

import h5py
import hdf5plugin  # noqa: F401 - the system plugins (LZ4), as users load them
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN_DIR = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"

# The plugin filters npyflow writes: h5py's compression name for them, and
# the name the reference plugin registers (stored in the file).
PLUGINS = {
    32004: ("lz4", "HDF5 lz4 filter; see http://www.hdfgroup.org/services/contributions.html"),
    32015: ("zstd", "Zstandard compression: http://www.zstd.net"),
}

if not h5py.h5z.filter_avail(32015):
    sys.path.insert(0, HERE)
    from gen_filters_b import BITSHUFFLE_MISSING, register_zstd  # noqa: E402

    if BITSHUFFLE_MISSING:
        # Only gen_filters_b.py's own bitshuffle fixtures need the module;
        # h5py reads filter 32008 through the system plugin.
        print("note: no Python bitshuffle module (%s): its cases are skipped; "
              "this check has none (npyflow writes no bitshuffle)" % BITSHUFFLE_MISSING)

    register_zstd()


def fl(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def dtype_json(dt):
    if h5py.check_ref_dtype(dt) is not None:
        return "ref"
    si = h5py.check_string_dtype(dt)
    if si is not None and si.length is None:
        return "vlen-str:" + si.encoding
    base = h5py.check_vlen_dtype(dt)
    if base is not None:
        return ["vlen", dtype_json(base)]
    if dt.names is not None:
        out = []
        for name in dt.names:
            sub = dt.fields[name][0]
            if sub.subdtype is not None:
                out.append([name, dtype_json(sub.subdtype[0]), list(sub.subdtype[1])])
            else:
                out.append([name, dtype_json(sub)])
        return out
    return dt.str


def value_json(f, v, dt):
    """One element as JSON."""
    if h5py.check_ref_dtype(dt) is not None:
        return f[v].name if v else None
    si = h5py.check_string_dtype(dt)
    if si is not None and si.length is None:
        return v.decode(si.encoding) if isinstance(v, bytes) else v
    base = h5py.check_vlen_dtype(dt)
    if base is not None:
        return [value_json(f, x, base) for x in np.asarray(v, dtype=base).ravel()]
    if dt.names is not None:
        out = {}
        for name in dt.names:
            sub = dt.fields[name][0]
            if sub.subdtype is not None:
                out[name] = [value_json(f, x, sub.subdtype[0]) for x in np.asarray(v[name]).ravel()]
            else:
                out[name] = value_json(f, v[name], sub)
        return out
    k = dt.kind
    if k == "b":
        return bool(v)
    if k in "iu":
        return int(v)
    if k == "f":
        return fl(v)
    if k == "c":
        return [fl(v.real), fl(v.imag)]
    if k == "S":
        return bytes(v).decode("latin-1")
    raise ValueError("unexpected dtype %r" % (dt,))


def array_json(f, arr, dt):
    arr = np.asarray(arr, dtype=dt)
    return [value_json(f, x, dt) for x in arr.ravel()]


def attrs_json(f, obj):
    out = {}
    for name in obj.attrs:
        aid = obj.attrs.get_id(name)
        dt = aid.dtype
        shape = list(aid.shape)
        val = obj.attrs[name]
        out[name] = {"dtype": dtype_json(dt), "shape": shape, "values": array_json(f, val, dt)}
    return out


def file_json(path):
    objs = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            p = "/" + name if name else "/"
            if isinstance(obj, h5py.Group):
                objs[p] = {"kind": "group", "attrs": attrs_json(f, obj)}
                return
            dcpl = obj.id.get_create_plist()
            layout = {h5py.h5d.COMPACT: "compact", h5py.h5d.CONTIGUOUS: "contiguous", h5py.h5d.CHUNKED: "chunked"}[dcpl.get_layout()]
            compression, opts = obj.compression, obj.compression_opts
            for i in range(dcpl.get_nfilters()):
                code, _, vals, _ = dcpl.get_filter(i)
                if code in PLUGINS:
                    compression, opts = PLUGINS[code][0], list(vals)
            objs[p] = {
                "kind": "dataset",
                "dtype": dtype_json(obj.dtype),
                "shape": list(obj.shape),
                "maxshape": list(obj.maxshape) if obj.maxshape is not None else None,
                "values": array_json(f, obj[()], obj.dtype),
                "layout": layout,
                "chunks": list(obj.chunks) if obj.chunks else None,
                "compression": compression,
                "compression_opts": opts,
                "shuffle": bool(obj.shuffle),
                "attrs": attrs_json(f, obj),
            }
        visit("", f)
        f.visititems(visit)
    return {"objects": objs}


def same(a, b, at="$"):
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return "%s: keys %s vs %s" % (at, sorted(a), sorted(b))
        for k in a:
            r = same(a[k], b[k], at + "." + k)
            if r:
                return r
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (at, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            r = same(x, y, "%s[%d]" % (at, i))
            if r:
                return r
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else "%s: %r vs %r" % (at, a, b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return None if a == b else "%s: %r vs %r" % (at, a, b)
    return None if a == b else "%s: %r vs %r" % (at, a, b)


def h5dump(*args):
    env = dict(os.environ, HDF5_PLUGIN_PATH=PLUGIN_DIR)
    return subprocess.run(["h5dump", *args], capture_output=True, text=True, env=env)


def check_dump(path, got):
    comps = [o.get("compression") for o in got["objects"].values()]
    if "zstd" not in comps:  # h5dump has no Zstandard plugin
        r = h5dump(path)
        if r.returncode != 0 or r.stderr.strip():
            return "h5dump failed (%d): %s" % (r.returncode, r.stderr.strip()[:500])
    r = h5dump("-H", "-p", "-B", path)
    if r.returncode != 0 or r.stderr.strip():
        return "h5dump -H -p -B failed: %s" % r.stderr.strip()[:500]
    out = r.stdout
    for want in ("SUPERBLOCK_VERSION 0", "OBJECTHEADER_VERSION 0", "OFFSET_SIZE 8", "LENGTH_SIZE 8"):
        if want not in out:
            return "h5dump -B: no %r" % want
    layouts = [o.get("layout") for o in got["objects"].values()]
    for lay, word in (("chunked", "CHUNKED"), ("compact", "COMPACT"), ("contiguous", "CONTIGUOUS")):
        if (lay in layouts) != (word in out):
            return "h5dump -p: layout %s %s" % (word, "missing" if lay in layouts else "unexpected")
    if "gzip" in comps and "COMPRESSION DEFLATE" not in out:
        return "h5dump -p: no DEFLATE"
    for fid, (comp, name) in PLUGINS.items():
        for o in got["objects"].values():
            if o.get("compression") != comp:
                continue
            want = "FILTER_ID %d\n *COMMENT %s\n *PARAMS { %s }" % (
                fid, re.escape(name), " ".join(str(v) for v in o["compression_opts"]))
            if not re.search(want, out):
                return "h5dump -p: no filter %d named %r with parameters %s" % (fid, name, o["compression_opts"])
    return None


def check_modify(path, has_zstd):
    """The HDF5 library edits a copy: members inserted into every group
    (splitting its B-tree nodes), one deleted, unlimited datasets extended
    (new chunks in the chunk B-tree, compressed by the library's filters),
    attributes added; then h5dump (headers only with zstd datasets)."""
    tmp = path[:-3] + ".modified.h5"
    shutil.copy(path, tmp)
    try:
        groups, grow = [], []
        with h5py.File(tmp, "a") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Group):
                    groups.append(obj.name)
                elif obj.maxshape and obj.maxshape[0] is None:
                    grow.append(obj.name)
            visit("", f)
            f.visititems(visit)
            for g in groups:
                for i in range(40):
                    f[g].create_dataset("added_%02d" % i, data=np.arange(i))
                f[g].attrs["added"] = 1
                del f[g]["added_00"]
            for d in grow:
                ds = f[d]
                n = ds.shape[0]
                ds.resize(n + 300, axis=0)
                ds[n:] = 7
        with h5py.File(tmp, "r") as f:
            for g in groups:
                if "added_00" in f[g] or list(f[g]["added_39"][()]) != list(range(39)) or f[g].attrs["added"] != 1:
                    return "after the library's edits: group %s is wrong" % g
            for d in grow:
                if not (f[d][-300:] == 7).all():
                    return "after the library's edits: %s did not grow" % d
        r = h5dump("-H", tmp) if has_zstd else h5dump(tmp)
        if r.returncode != 0 or r.stderr.strip():
            return "h5dump after the library's edits: %s" % r.stderr.strip()[:500]
    finally:
        os.remove(tmp)
    return None


def check_matlab(path):
    """The MATLAB-style case read by hdf5storage (MATLAB conventions)."""
    try:
        import hdf5storage
    except ImportError:
        return None
    tmp = path[:-3] + ".mat"
    shutil.copy(path, tmp)
    try:
        d = hdf5storage.loadmat(tmp)
        with h5py.File(path, "r") as f:
            if not {"x", "c", "s", "z", "l"} <= set(d):
                return "hdf5storage: variables %s" % sorted(d)
            if not np.array_equal(d["x"], f["x"][()].T, equal_nan=True):
                return "hdf5storage: x differs"
            if d["l"].dtype != np.bool_ or d["l"].shape != (5, 1):
                return "hdf5storage: logical l is %s %s" % (d["l"].dtype, d["l"].shape)
            if d["z"].dtype != np.complex128 or d["z"].shape != (3, 1):
                return "hdf5storage: complex z is %s %s" % (d["z"].dtype, d["z"].shape)
            if d["s"].dtype.names != ("f", "name"):
                return "hdf5storage: struct s fields %s" % (d["s"].dtype.names,)
            cells = d["c"].ravel()
            if len(cells) != 2 or cells[1].shape != (64, 64) or not np.array_equal(cells[1], f["#refs#/b"][()].T, equal_nan=True):
                return "hdf5storage: cell c is %s of %s" % (d["c"].shape, [x.shape for x in cells])
    finally:
        os.remove(tmp)
    return None


def main():
    args = sys.argv[1:]
    update = None
    if "--update" in args:
        i = args.index("--update")
        update = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    d = args[0]
    names = sorted(n[:-3] for n in os.listdir(d) if n.endswith(".h5"))
    bad = 0
    for name in names:
        path = os.path.join(d, name + ".h5")
        exp_path = os.path.join(d, name + ".expect.json")
        if not os.path.exists(exp_path):
            continue
        with open(exp_path) as fh:
            expect = json.load(fh)
        try:
            got = file_json(path)
        except Exception as e:  # noqa: BLE001 - report any h5py failure
            print("FAIL %s: h5py: %s" % (name, e))
            bad += 1
            continue
        why = same(expect, got) or check_dump(path, got)
        if not why and os.path.getsize(path) < 1 << 30:  # not the sparse 4.5 GiB one
            why = check_modify(path, any(o.get("compression") == "zstd" for o in got["objects"].values()))
        if not why and name == "matlab":
            why = check_matlab(path)
        if why:
            print("FAIL %s: %s" % (name, why))
            bad += 1
            continue
        print("ok   %s (%d objects, %d bytes)" % (name, len(got["objects"]), os.path.getsize(path)))
        if update and os.path.getsize(path) < 1 << 20:
            shutil.copy(path, os.path.join(update, name + ".h5"))
            with open(os.path.join(update, name + ".json"), "w") as fh:
                json.dump(got, fh, indent=1, sort_keys=True)
                fh.write("\n")
    if bad:
        sys.exit("%d of %d files failed" % (bad, len(names)))


if __name__ == "__main__":
    main()
