#!/usr/bin/python3
"""Writes the HDF5 fixtures of package hdf5 with h5py and the expectations
(read back by h5py) as JSON next to each file.

Run from this directory: /usr/bin/python3 gen_h5py.py
"""
import base64
import json
import os

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def compact(g, name, data):
    """A dataset with the compact layout (h5py has no high-level switch)."""
    data = np.asarray(data)
    space = h5py.h5s.create_simple(data.shape)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    tid = h5py.h5t.py_create(data.dtype, logical=True)
    dsid = h5py.h5d.create(g.id, name.encode(), tid, space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data)


def implicit(g, name, data, chunks):
    """Chunked, no filters, early allocation: the implicit index (latest)."""
    data = np.asarray(data)
    space = h5py.h5s.create_simple(data.shape)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    tid = h5py.h5t.py_create(data.dtype, logical=True)
    dsid = h5py.h5d.create(g.id, name.encode(), tid, space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data)


def common(f, latest):
    rng = np.random.default_rng(13)
    g = f.create_group("num")
    for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"]:
        info = np.iinfo(t) if t[0] in "iu" else None
        if info is not None:
            v = np.array([info.min, info.max, 0, 1, 7], dtype=t)
        else:
            v = np.array([-1.5, 0.0, 3.25, 65504 if t == "f2" else 1e30, -0.0], dtype=t)
        g.create_dataset(t, data=v)
    g.create_dataset("be_i4", data=np.arange(-3, 9, dtype=">i4").reshape(3, 4))
    g.create_dataset("be_f8", data=np.linspace(-1, 1, 6, dtype=">f8"))
    g.create_dataset("bool", data=np.array([True, False, True]))
    g.create_dataset("c16", data=np.array([1 + 2j, -3.5 - 0.25j]))
    g.create_dataset("c8", data=np.array([1 + 2j, -3.5 - 0.25j], dtype="c8"))
    g.create_dataset("scalar", data=np.float64(2.5))
    g.create_dataset("empty", data=h5py.Empty("f8"))
    g.create_dataset("zero", data=np.zeros((0, 3), dtype="i4"))
    g.create_dataset("m3d", data=np.arange(24, dtype="i2").reshape(2, 3, 4))
    compact(g, "compact", np.arange(12, dtype="<f4").reshape(3, 4))
    g.create_dataset("unwritten", shape=(2, 3), dtype="<f4", fillvalue=3.5)  # no storage: fill value

    s = f.create_group("str")
    s.create_dataset("fixed", data=np.array([b"abc", b"", b"hello worl"], dtype="S10"))
    s.create_dataset("vlen_utf8", data=["alpha", "", "\u00e9t\u00e9 \u2603", "x" * 40], dtype=h5py.string_dtype("utf-8"))
    s.create_dataset("vlen_ascii", data=[b"ab", b"cdef", b""], dtype=h5py.string_dtype("ascii"))
    s.create_dataset("scalar_vlen", data="only one", dtype=h5py.string_dtype())
    s.create_dataset("chunked_vlen", data=["s%d" % i * (i % 4) for i in range(30)], dtype=h5py.string_dtype(), chunks=(7,), compression="gzip")

    t = f.create_group("types")
    comp = np.dtype([("a", "<i4"), ("b", "<f8"), ("name", "S5"), ("v", "<u2", (2, 3))])
    cv = np.zeros(4, dtype=comp)
    cv["a"] = [1, -2, 3, -4]
    cv["b"] = [0.5, 1.5, -2.5, 1e10]
    cv["name"] = [b"x", b"yy", b"zzz", b"wwwww"]
    cv["v"] = np.arange(24).reshape(4, 2, 3)
    t.create_dataset("compound", data=cv)
    nested = np.dtype([("id", "u1"), ("pt", [("x", "f4"), ("y", ">f4")])])
    nv = np.zeros(3, dtype=nested)
    nv["id"] = [1, 2, 3]
    nv["pt"]["x"] = [1, 2, 3]
    nv["pt"]["y"] = [-1, -2, -3]
    t.create_dataset("nested", data=nv)
    et = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="i2")
    t.create_dataset("enum", data=np.array([0, 42, 1, 1], dtype="i2"), dtype=et)
    arr_t = h5py.h5t.array_create(h5py.h5t.IEEE_F32LE, (3,))
    ads = h5py.h5d.create(t.id, b"array", arr_t, h5py.h5s.create_simple((4,)))
    ads.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(12, dtype="f4").reshape(4, 3), mtype=arr_t)
    t.create_dataset("opaque", data=np.array([b"\x01\x02\x03\x04"] * 2, dtype="V4"))
    bds = h5py.h5d.create(t.id, b"bitfield", h5py.h5t.STD_B16BE, h5py.h5s.create_simple((3,)))
    bds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([1, 2, 0xabcd], dtype=">u2"), mtype=h5py.h5t.STD_B16BE)
    t.create_dataset("vlen_int", data=np.array([np.arange(3), np.arange(1)], dtype=object), dtype=h5py.vlen_dtype("i4"))
    f["types/named_t"] = np.dtype("<i8")
    t.create_dataset("uses_named", data=np.arange(3, dtype="<i8"), dtype=f["types/named_t"])

    c = f.create_group("chunk")
    big = rng.standard_normal((50, 37))
    c.create_dataset("gzip_shuffle_fletcher", data=big, chunks=(8, 10), compression="gzip", compression_opts=4, shuffle=True, fletcher32=True)
    c.create_dataset("plain", data=np.arange(100, dtype="i8").reshape(20, 5), chunks=(6, 3))
    # 200 chunks: a two-level v1 B-tree chunk index (earliest).
    c.create_dataset("btree_levels", data=(np.arange(200) % 199).astype("u1"), chunks=(1,))
    c.create_dataset("edge3d", data=np.arange(5 * 7 * 3, dtype="u2").reshape(5, 7, 3), chunks=(2, 3, 2), compression="gzip")
    fv = c.create_dataset("sparse", shape=(30,), dtype="f4", chunks=(5,), fillvalue=-7.0)
    fv[10:15] = np.arange(5)
    c.create_dataset("be_gzip", data=np.arange(40, dtype=">u4"), chunks=(16,), compression="gzip")
    c.create_dataset("compound_chunked", data=cv, chunks=(2,), compression="gzip", shuffle=True)
    u = c.create_dataset("unlimited", data=np.arange(25, dtype="i4"), maxshape=(None,), chunks=(4,))
    u2 = c.create_dataset("unlimited2", data=np.arange(60, dtype="f8").reshape(12, 5), maxshape=(None, None), chunks=(5, 2), compression="gzip")
    c.create_dataset("single", data=np.arange(20, dtype="f8").reshape(4, 5), chunks=(4, 5), compression="gzip")
    c.create_dataset("single_plain", data=np.arange(20, dtype="f8").reshape(4, 5), chunks=(4, 5))
    implicit(c, "implicit", np.arange(30, dtype="i4").reshape(6, 5), (4, 2))
    if latest:
        # Over 1024 chunks: a paged fixed array; an extensible array with
        # super blocks.
        c.create_dataset("many_chunks", data=(np.arange(1100) % 251).astype("u1"), chunks=(1,))
        c.create_dataset("many_chunks_gz", data=(np.arange(1030) % 251).astype("u1"), chunks=(1,), compression="gzip")
        c.create_dataset("ext_many", data=(np.arange(700) % 253).astype("u1"), chunks=(1,), maxshape=(None,))

    grp = f.create_group("groups")
    deep = grp.create_group("a/b/c")
    deep.create_dataset("leaf", data=np.arange(3))
    many = grp.create_group("many")
    for i in range(20):
        many.create_dataset("d%02d" % i, data=np.array([i]))
    grp["soft"] = h5py.SoftLink("/groups/a/b")
    grp["hard"] = deep["leaf"]
    grp.create_group("emptygroup")
    grp["ext"] = h5py.ExternalLink("other.h5", "/x")
    # 300 soft links: a two-level group B-tree (earliest), a fractal heap
    # with indirect blocks (latest).
    ml = grp.create_group("manylinks")
    for i in range(300):
        ml["link%03d_with_a_longer_name_to_fill_heap_blocks" % i] = h5py.SoftLink("/num/i1")
    grp["dangling"] = h5py.SoftLink("/no/such/object")

    r = f.create_group("refs")
    r.create_dataset("objrefs", data=[f["num/i4"].ref, f["groups/a"].ref, f["str/fixed"].ref], dtype=h5py.ref_dtype)
    r.create_dataset("regref", data=[f["num/i4"].regionref[1:3]], dtype=h5py.regionref_dtype)
    r.attrs["ref"] = f["chunk/plain"].ref

    a = f.create_group("attrs")
    a.attrs["str"] = np.bytes_(b"fixed")
    a.attrs["vstr"] = "variable \u00e9"
    a.attrs["strs"] = np.array([b"one", b"three"], dtype="S5")
    a.attrs["vstrs"] = np.array(["p", "qq", "rrr"], dtype=h5py.string_dtype())
    a.attrs["int"] = np.int32(-5)
    a.attrs["ints"] = np.arange(6, dtype=">i2").reshape(2, 3)
    a.attrs["u8"] = np.uint64(2**63 + 5)
    a.attrs["f"] = np.float64(3.5)
    a.attrs["fs"] = np.array([0.5, -1.25], dtype="f4")
    a.attrs["half"] = np.float16(1.5)
    a.attrs.create("vlen_seq", data=np.array([np.array([1, 2, 3], "i1"), np.array([4], "i1")], dtype=object), dtype=h5py.vlen_dtype("i1"))
    a.attrs["empty"] = h5py.Empty("i4")
    a.attrs["bool"] = np.bool_(True)
    a.attrs.create("enum", 42, dtype=et)
    a.attrs["comp"] = cv[:2]
    ds = f["num/f8"]
    ds.attrs["units"] = "m/s"
    dense = f.create_group("dense_attrs")
    for i in range(12):
        dense.attrs["attr%02d" % i] = np.arange(i + 1, dtype="i4")
    # Over 4 KiB: a huge object of the dense attribute heap (latest).
    dense.attrs["big"] = np.arange(600, dtype="<f8") / 4


def plain(dt):
    """dt without h5py's metadata (numpy's descr would show it), fields in
    offset order (numpy's descr is not defined otherwise; h5py keeps the
    order HDF5 stores, which may differ: see gen_misc.py)."""
    if dt.fields is None:
        if dt.subdtype is not None:
            return np.dtype((plain(dt.subdtype[0]), dt.subdtype[1]))
        return np.dtype(dt.str)
    names = sorted(dt.names, key=lambda n: dt.fields[n][1])
    return np.dtype({"names": names, "formats": [plain(dt.fields[n][0]) for n in names],
                     "offsets": [dt.fields[n][1] for n in names], "itemsize": dt.itemsize})


def b64(b):
    return base64.b64encode(b).decode()


def attr_json(obj, name):
    aid = h5py.h5a.open(obj.id, name.encode())
    tid = aid.get_type()
    out = {"class": tid.get_class()}
    try:
        v = obj.attrs[name]
    except Exception as e:  # noqa
        out["error"] = str(e)
        return out
    if isinstance(v, h5py.Empty):
        out["null"] = True
        return out
    cls = tid.get_class()
    if cls == h5py.h5t.REFERENCE:
        arr = np.atleast_1d(v)
        out["refs"] = [obj.file[x].name for x in arr.ravel()]
        return out
    if cls == h5py.h5t.STRING:
        arr = np.atleast_1d(np.asarray(v, dtype=object))
        out["strings"] = [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in arr.ravel()]
        out["shape"] = list(np.shape(v))
        return out
    if cls == h5py.h5t.VLEN:
        arr = np.atleast_1d(np.asarray(v, dtype=object))
        if tid.get_super().get_class() == h5py.h5t.STRING:
            # MATLAB_fields: sequences of 1-byte strings, one per name
            out["strings"] = [b"".join(np.asarray(x).tolist()).decode() for x in arr.ravel()]
            return out
        out["seqs"] = [np.asarray(x).tolist() for x in arr.ravel()]
        return out
    arr = np.asarray(v)
    out["shape"] = list(arr.shape)
    out["dtype"] = repr(np.lib.format.dtype_to_descr(plain(arr.dtype)))
    out["raw"] = b64(arr.tobytes())
    if arr.dtype.kind in "iub":
        out["ints"] = [int(x) for x in arr.ravel()]
    elif arr.dtype.kind == "f":
        out["floats"] = [float(x) for x in arr.ravel()]
    return out


def layout_json(ds):
    dcpl = ds.id.get_create_plist()
    lay = dcpl.get_layout()
    out = {"layout": {h5py.h5d.COMPACT: "compact", h5py.h5d.CONTIGUOUS: "contiguous", h5py.h5d.CHUNKED: "chunked"}.get(lay, str(lay))}
    if ds.chunks:
        out["chunks"] = list(ds.chunks)
    out["filters"] = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
    return out


def describe(path):
    f = h5py.File(path, "r")
    objs = {}

    def visit(name, obj):
        p = "/" + name
        e = {}
        e["attrs"] = {k: attr_json(obj, k) for k in obj.attrs.keys()}
        if isinstance(obj, h5py.Group):
            e["kind"] = "group"
            e["members"] = sorted(obj.keys())
        elif isinstance(obj, h5py.Dataset):
            e["kind"] = "dataset"
            e["shape"] = list(obj.shape) if obj.shape is not None else None
            e.update(layout_json(obj))
            e["class"] = obj.id.get_type().get_class()
            try:
                if obj.shape is None:
                    e["null"] = True
                    v = None
                elif obj.dtype.kind == "O":
                    sd = h5py.check_string_dtype(obj.dtype)
                    if sd is not None:
                        arr = obj.asstr()[()] if sd.encoding == "utf-8" else obj[()]
                        arr = np.array(np.asarray(arr, dtype=object).ravel().tolist())
                        if arr.size == 0:
                            arr = np.zeros(0, dtype="S1")
                        e["strings"] = [x.decode() if isinstance(x, bytes) else x for x in np.asarray(obj[()], dtype=object).ravel()]
                        v = arr.reshape(obj.shape)
                    elif h5py.check_vlen_dtype(obj.dtype) is not None:
                        e["seqs"] = [np.asarray(x).tolist() for x in obj[()].ravel()]
                        v = None
                    elif h5py.check_ref_dtype(obj.dtype) == h5py.Reference:
                        e["refs"] = [f[x].name if x else None for x in obj[()].ravel()]
                        v = None
                    else:
                        v = None
                elif obj.id.get_type().get_class() == h5py.h5t.OPAQUE:
                    v = None  # h5py gives V<n>; npyflow refuses opaque data
                else:
                    v = obj[()]
                    if obj.dtype.kind == "S":
                        e["strings"] = [x.rstrip(b"\0").decode() for x in np.asarray(v).ravel()]
                if v is not None:
                    arr = np.asarray(v)
                    e["dtype"] = repr(np.lib.format.dtype_to_descr(plain(arr.dtype)))
                    e["npshape"] = list(arr.shape)
                    e["raw"] = b64(arr.tobytes())
            except Exception as ex:  # noqa
                e["read_error"] = str(ex)
        else:
            e["kind"] = "datatype"
        objs[p] = e

    visit("", f)
    f.visititems(visit)
    f.close()
    return objs


def main():
    for name, libver in [("earliest", "earliest"), ("latest", "latest")]:
        path = os.path.join(HERE, name + ".h5")
        with h5py.File(path, "w", libver=libver) as f:
            common(f, libver == "latest")
            if libver == "latest":
                to = f.create_group("track_order", track_order=True)
                for n in ["zeta", "alpha", "mid"]:
                    to.create_dataset(n, data=np.array([len(n)]))
        with open(os.path.join(HERE, name + ".json"), "w") as out:
            json.dump(describe(path), out, indent=1, sort_keys=True)
    # A user block like MATLAB's.
    path = os.path.join(HERE, "userblock.h5")
    with h5py.File(path, "w", userblock_size=512) as f:
        f.create_dataset("x", data=np.arange(5, dtype="f8"))
        f.attrs["MATLAB_class"] = np.bytes_(b"double")
    with open(path, "r+b") as fh:
        fh.write(b"MATLAB 7.3 MAT-file, written by gen_h5py.py".ljust(116))
    with open(os.path.join(HERE, "userblock.json"), "w") as out:
        json.dump(describe(path), out, indent=1, sort_keys=True)
    # A filter the reader does not have (LZF, built into h5py).
    path = os.path.join(HERE, "lzf.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("lzf", data=np.repeat(np.arange(10, dtype="i4"), 100), chunks=(500,), compression="lzf")
    # Small files for the fuzz targets' seeds.
    for name, libver in [("small_earliest", "earliest"), ("small_latest", "latest")]:
        path = os.path.join(HERE, name + ".h5")
        with h5py.File(path, "w", libver=libver) as f:
            f.create_dataset("d", data=np.arange(30, dtype="<f8").reshape(10, 3), chunks=(4, 2),
                             compression="gzip", shuffle=True, fletcher32=True)
            f.create_dataset("e", data=np.arange(7, dtype=">i2"), maxshape=(None,), chunks=(3,))
            f.create_dataset("s", data=["a", "bc"], dtype=h5py.string_dtype())
            g = f.create_group("g")
            for i in range(10):
                g.attrs["a%d" % i] = i
            g.attrs["v"] = "text"
            g.create_group("h")
            g["r"] = f["d"].ref
        with open(os.path.join(HERE, name + ".json"), "w") as out:
            json.dump(describe(path), out, indent=1, sort_keys=True)
    # MATLAB-written v7.3 files (copied from MAT.jl's tests): only the
    # expectations are written here.
    for name in ["cell", "struct"]:
        path = os.path.join(HERE, "matlab", name + ".mat")
        with open(os.path.join(HERE, "matlab", name + ".json"), "w") as out:
            json.dump(describe(path), out, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
