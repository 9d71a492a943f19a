#!/usr/bin/python3
"""Writes synth_objects_v73.mat with h5py in the layout MATLAB gives
objects in v7.3 files (as test_time_v73.mat, test_enum_v73.mat and
test_dynamic_v73.mat, MATLAB-written, show it): each variable a uint32
reference dataset (0xDD000000, ndims, dims, object ids, class id) with
MATLAB_class and MATLAB_object_decode 3; #subsystem#/MCOS a cell of
references (MATLAB_class FileWrapper__) to the linking metadata (uint8),
the canonical empty, the property values, and three class cells; inside
the subsystem, references are plain uint32 arrays.

It covers what the MATLAB-written v7.3 fixtures here do not: a table
with row names, units and a description (its props holding struct(),
which MATLAB stores as a MATLAB_empty dataset of [1 1]), a string array
with an empty and a <missing> string, objects in a struct's fields and
in a cell. The values (expected in objects_test.go) are the ones written
here.

Run from this directory: /usr/bin/python3 gen_v73_synth.py
"""
import struct
import time

import h5py
import numpy as np

MAGIC = 0xDD000000
refs = None
count = [0]


def header(path):
    text = ("MATLAB 7.3 MAT-file, Platform: h5py fixture, Created on: %s HDF5 schema 1.00 ."
            % time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(0)))
    b = text.encode().ljust(116, b" ") + b"\0" * 8 + b"\x00\x02IM"
    with open(path, "r+b") as f:
        f.write(b)


def cls(obj, name):
    obj.attrs.create("MATLAB_class", np.bytes_(name))


def refname():
    count[0] += 1
    n, s = count[0], ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(ord("a") + r) + s
    return s


def put(group, name, value):
    """Writes a MATLAB value (a tuple (kind, ...)) as name in group."""
    kind = value[0]
    if kind == "double":
        a = np.asarray(value[1], dtype=np.float64)
        d = group.create_dataset(name, data=a.T)
        cls(d, "double")
    elif kind == "uint32":
        d = group.create_dataset(name, data=np.asarray(value[1], dtype=np.uint32).T)
        cls(d, "uint32")
    elif kind == "uint8":
        d = group.create_dataset(name, data=np.asarray(value[1], dtype=np.uint8).T)
        cls(d, "uint8")
    elif kind == "uint64":
        d = group.create_dataset(name, data=np.asarray(value[1], dtype=np.uint64).T)
        cls(d, "uint64")
    elif kind == "logical":
        d = group.create_dataset(name, data=np.asarray(value[1], dtype=np.uint8).T)
        cls(d, "logical")
        d.attrs.create("MATLAB_int_decode", np.int32(1))
    elif kind == "char":
        s = value[1]
        if s == "":
            d = group.create_dataset(name, data=np.array([0, 0], dtype=np.uint64))
            cls(d, "char")
            d.attrs.create("MATLAB_empty", np.uint8(1))
        else:
            d = group.create_dataset(name, data=np.array([[ord(c) for c in s]], dtype=np.uint16).T)
            cls(d, "char")
            d.attrs.create("MATLAB_int_decode", np.int32(2))
    elif kind == "empty":  # (kind, class, dims)
        d = group.create_dataset(name, data=np.array(value[2], dtype=np.uint64))
        cls(d, value[1])
        d.attrs.create("MATLAB_empty", np.uint8(1))
    elif kind == "cell":  # (kind, dims, [values] column-major)
        dims, vals = value[1], value[2]
        rs = []
        for v in vals:
            n = refname()
            put(refs, n, v)
            rs.append(refs[n].ref)
        a = np.array(rs, dtype=h5py.ref_dtype).reshape(tuple(reversed(dims)))
        d = group.create_dataset(name, data=a)
        cls(d, "cell")
    elif kind == "struct":  # (kind, [(field, value)])
        g = group.create_group(name)
        cls(g, "struct")
        fields = [f for f, _ in value[1]]
        vl = h5py.vlen_dtype(np.dtype("S1"))
        g.attrs.create("MATLAB_fields", np.array([np.array(list(f), dtype="S1") for f in fields], dtype=object), dtype=vl)
        for f, v in value[1]:
            put(g, f, v)
    elif kind == "ref":  # inside the subsystem: a plain uint32 array
        ids, classid = value[1], value[2]
        put(group, name, ("uint32", [[MAGIC], [2], [1], [len(ids)]] + [[i] for i in ids] + [[classid]]))
    elif kind == "object":  # a variable: (kind, class, ids, classid)
        a = np.array([[MAGIC, 2, 1, len(value[2])] + value[2] + [value[3]]], dtype=np.uint32)
        d = group.create_dataset(name, data=a)
        cls(d, value[1])
        d.attrs.create("MATLAB_object_decode", np.int32(3))
    else:
        raise ValueError(kind)


def strings_payload(dims, strs):
    """A string array's saveobj value: uint64 words (None is <missing>)."""
    w = [1, len(dims)] + list(dims)
    units = []
    for s in strs:
        if s is None:
            w.append(2**64 - 1)
            continue
        u = s.encode("utf-16-le")
        w.append(len(u) // 2)
        units += [struct.unpack("<H", u[i:i + 2])[0] for i in range(0, len(u), 2)]
    while len(units) % 4:
        units.append(0)
    for i in range(0, len(units), 4):
        w.append(units[i] | units[i + 1] << 16 | units[i + 2] << 32 | units[i + 3] << 48)
    return ("uint64", [w])


def metadata(names, classes, objects, blocks, saveobj):
    """The FileWrapper__ linking metadata (version 4)."""
    def u32(*v):
        return struct.pack("<%dI" % len(v), *v)

    def pad(b):
        return b + b"\0" * (-len(b) % 8)

    nm = b"".join(n.encode() + b"\0" for n in names)
    idx = {n: i + 1 for i, n in enumerate(names)}
    r1 = u32(0, 0, 0, 0) + b"".join(u32(0, idx[c], 0, 0) for c in classes)
    def blk(props):
        return pad(u32(len(props), *[x for p, v in props for x in (idx[p], 1, v)]))
    r2 = pad(u32(0)) + b"".join(blk(b) for b in saveobj)
    r3 = u32(0, 0, 0, 0, 0, 0) + b"".join(u32(c, 0, 0, s, n, k + 1) for k, (c, s, n) in enumerate(objects))
    r4 = pad(u32(0)) + b"".join(blk(b) for b in blocks)
    r5 = b"".join(pad(u32(0)) for _ in range(len(objects) + 1))
    head = 40 + len(nm)
    o1 = head + (-head % 8)
    offs = [o1]
    for r in (r1, r2, r3, r4, r5, b""):
        offs.append(offs[-1] + len(r))
    offs.append(offs[-1] + 8)
    body = u32(4, len(names)) + u32(*offs) + nm + b"\0" * (o1 - head) + r1 + r2 + r3 + r4 + r5 + b"\0" * 8
    return np.frombuffer(body, dtype=np.uint8)


def main():
    global refs
    path = "synth_objects_v73.mat"
    names = ["data", "ndims", "nrows", "rownames", "nvars", "varnames", "props", "table", "any", "string", "datetime", "tz"]
    classes = ["table", "string", "datetime"]  # class ids 1, 2, 3
    # objects: (class id, saveobj id, block id)
    objects = [(1, 0, 1), (2, 1, 0), (2, 2, 0), (3, 0, 2)]
    contents = [
        ("cell", [1, 2], [("double", [[1], [2], [3]]), ("ref", [2], 2)]),       # 0 data
        ("double", [[2]]),                                                        # 1 ndims
        ("double", [[3]]),                                                        # 2 nrows
        ("cell", [3, 1], [("char", "R1"), ("char", "R2"), ("char", "R3")]),       # 3 rownames
        ("double", [[2]]),                                                        # 4 nvars
        ("cell", [1, 2], [("char", "A"), ("char", "B")]),                         # 5 varnames
        ("struct", [("useVariableNamesOriginal", ("logical", [[0]])),             # 6 props
                    ("CustomProps", ("empty", "struct", [1, 1])),
                    ("Description", ("char", "synthetic")),
                    ("DimensionNames", ("cell", [1, 2], [("char", "Row"), ("char", "Variables")])),
                    ("UserData", ("empty", "double", [0, 0])),
                    ("VariableUnits", ("cell", [1, 2], [("char", "m"), ("char", "")])),
                    ("VariableDescriptions", ("empty", "cell", [0, 0]))]),
        strings_payload([3, 1], ["apple", "", None]),                             # 7 string obj 2
        strings_payload([1, 1], ["héllo"]),                                       # 8 string obj 3
        ("double", [[1577836800000.0]]),                                          # 9 datetime data
        ("char", "UTC"),                                                          # 10 tz
    ]
    blocks = [[(p, i) for i, p in enumerate(["data", "ndims", "nrows", "rownames", "nvars", "varnames", "props"])],
              [("data", 9), ("tz", 10)]]
    saveobj = [[("any", 7)], [("any", 8)]]
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        refs = f.create_group("#refs#")
        ce = refs.create_dataset("a", data=np.array([0, 0], dtype=np.uint64))
        cls(ce, "canonical empty")
        ce.attrs.create("MATLAB_empty", np.uint8(1))
        count[0] = 1
        mcos = [("uint8", [list(metadata(names, classes, objects, blocks, saveobj))])]
        mcos_refs = []
        for v in mcos:
            n = refname()
            put(refs, n, v)
            mcos_refs.append(refs[n].ref)
        mcos_refs.append(ce.ref)
        for v in contents + [("cell", [4, 1], [("empty", "struct", [1, 0])] * 4),
                             ("double", [[0], [0], [0], [0]]),
                             ("cell", [4, 1], [("empty", "struct", [1, 0])] * 4)]:
            n = refname()
            put(refs, n, v)
            mcos_refs.append(refs[n].ref)
        sub = f.create_group("#subsystem#")
        m = sub.create_dataset("MCOS", data=np.array([mcos_refs], dtype=h5py.ref_dtype))
        cls(m, "FileWrapper__")
        m.attrs.create("MATLAB_object_decode", np.int32(3))
        put(f, "tbl", ("object", "table", [1], 1))
        put(f, "s", ("struct", [("greet", ("object", "string", [3], 2)), ("when", ("object", "datetime", [4], 3))]))
        n = refname()
        put(refs, n, ("object", "string", [2], 2))
        d = f.create_dataset("c", data=np.array([[refs[n].ref]], dtype=h5py.ref_dtype))
        cls(d, "cell")
        put(f, "nofields", ("empty", "struct", [1, 1]))
        put(f, "x", ("double", [[1.5, 2.5]]))
    header(path)


if __name__ == "__main__":
    main()
