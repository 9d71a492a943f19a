#!/usr/bin/python3
"""Writes the fixtures of the zfp filter (H5Z-ZFP, 32013) and h5py's
reading of each dataset as JSON next to the file.

Run from this directory with Debian's packages: /usr/bin/python3 gen_zfp.py

Producer: h5py 3.7 with hdf5plugin 4.0 and Debian's zfp plugin
(hdf5-filter-plugin-zfp 1.1.0, libzfp 1.0.0), which writes the chunks
and, through H5Z-ZFP's set_local, the zfp header into the cd_values.

  zfp.h5      /<mode>/<type>_<d>d: every mode (rate, precision, accuracy,
              reversible) for float32, float64, int32 and int64 in 1 to 4
              dimensions (expert parameters in 2 and 4), several chunks each, edge blocks partial;
              /special/*: zero blocks, subnormals, a wide range of
              exponents, NaN and infinities (reversible), a chunk with unit
              dimensions (a 2-D and a 4-D field inside 3-D and 5-D chunks),
              a fixed rate small enough to drop bit planes, the long mode
              encoding (expert parameters), a 4-D block of 256 values and
              chunks of arbitrary bytes (what the zfp library decodes).
  zfp.json    h5py's reading of every dataset ("rawz": the array's bytes,
              zlib-compressed then base64), in gen_filters_b.py's format.
  zfp_bad.h5  chunks and headers a reader must refuse cleanly (written
              with write_direct_chunk and the low-level API).
  ../../internal/zfp/testdata/chunks.json
              one stored chunk per mode and type with its cd_values and
              h5py's reading of its values, for the decoder's own tests.
"""
import base64
import json
import os
import zlib

import numpy as np

import h5py
import hdf5plugin

HERE = os.path.dirname(os.path.abspath(__file__))

SHAPES = {1: ((23,), (12,)), 2: ((6, 9), (5, 6)), 3: ((5, 3, 6), (4, 3, 6)), 4: ((5, 4, 3, 2), (5, 4, 3, 2))}

MODES = {
    "rate": lambda t: hdf5plugin.Zfp(rate=12.5 if t.kind == "f" else 20),
    "precision": lambda t: hdf5plugin.Zfp(precision=14 if t.kind == "f" else 24),
    "accuracy": lambda t: hdf5plugin.Zfp(accuracy=1e-3),
    "reversible": lambda t: hdf5plugin.Zfp(reversible=True),
    "expert": lambda t: hdf5plugin.Zfp(minbits=8, maxbits=600, maxprec=20, minexp=-12),
}

TYPES = [np.dtype("<f4"), np.dtype("<f8"), np.dtype("<i4"), np.dtype("<i8")]


def field(shape, dt, seed):
    """Smooth values with some noise, as zfp is made for."""
    rng = np.random.default_rng(seed)
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    v = np.zeros(shape)
    for i, g in enumerate(grids):
        v += np.sin(g * (i + 1.3)) * (10 ** i)
    v += rng.normal(0, 0.01, shape)
    if dt.kind == "i":
        scale = 1e5 if dt.itemsize == 4 else 1e12
        return np.round(v * scale).astype(dt)
    return (v * 37.5).astype(dt)


def write(path):
    with h5py.File(path, "w", libver="latest") as f:
        seed = 0
        for mode, opts in MODES.items():
            g = f.create_group(mode)
            for dt in TYPES:
                for d, (shape, chunks) in SHAPES.items():
                    if mode == "expert" and d not in (2, 4):
                        continue
                    seed += 1
                    name = "%s_%dd" % ({"f": "float", "i": "int"}[dt.kind] + str(8 * dt.itemsize), d)
                    g.create_dataset(name, data=field(shape, dt, seed), chunks=chunks, **opts(dt))
        s = f.create_group("special")
        v = field((8, 8), np.dtype("<f8"), 99)
        v[:4, :4] = 0  # a zero block
        v[4:, :4] *= 1e-310  # subnormal magnitudes
        v[:4, 4:] *= 1e300
        v[4:, 4:] = -0.0
        v[5, 6] = 1e-320
        for mode in ("rate", "precision", "accuracy", "reversible"):
            s.create_dataset("range_" + mode, data=v, chunks=(8, 8), **MODES[mode](v.dtype))
        v32 = field((8, 8), np.dtype("<f4"), 98)
        v32[:4, :4] = 0
        v32[4:, :4] *= np.float32(1e-40)
        v32[:4, 4:] *= np.float32(1e33)
        v32[0, 0], v32[1, 5] = 1e-45, 3e38
        s.create_dataset("range32_reversible", data=v32, chunks=(8, 8), **hdf5plugin.Zfp(reversible=True))
        s.create_dataset("range32_precision", data=v32, chunks=(8, 8), **hdf5plugin.Zfp(precision=20))
        w = field((4, 9), np.dtype("<f8"), 7)
        w[0, 0], w[1, 1], w[2, 2], w[3, 3] = np.nan, np.inf, -np.inf, -0.0
        s.create_dataset("nan_reversible", data=w, chunks=(4, 9), **hdf5plugin.Zfp(reversible=True))
        s.create_dataset("unit_dims_3d", data=field((6, 1, 10), np.dtype("<f4"), 11), chunks=(3, 1, 10),
                         **hdf5plugin.Zfp(rate=8))
        s.create_dataset("unit_dims_5d", data=field((2, 1, 3, 4, 5), np.dtype("<f8"), 12), chunks=(2, 1, 3, 4, 5),
                         **hdf5plugin.Zfp(precision=30))
        s.create_dataset("low_rate", data=field((16, 16), np.dtype("<f8"), 13), chunks=(16, 16),
                         **hdf5plugin.Zfp(rate=1.5))
        s.create_dataset("full_4d_block", data=field((4, 4, 4, 4), np.dtype("<i4"), 14), chunks=(4, 4, 4, 4),
                         **hdf5plugin.Zfp(precision=28))
        s.create_dataset("full_4d_rate", data=field((4, 4, 4, 8), np.dtype("<f4"), 15), chunks=(4, 4, 4, 4),
                         **hdf5plugin.Zfp(rate=3))
        s.create_dataset("uint32", data=field((20,), np.dtype("<i4"), 16).astype("<u4"), chunks=(20,),
                         **hdf5plugin.Zfp(reversible=True))
        # Bytes that are no zfp encoder's output still decode (zfp streams
        # have no checksum): what the zfp library makes of them.
        for name, t, opts in [("garbage_reversible", "<i4", hdf5plugin.Zfp(reversible=True)),
                              ("garbage_precision", "<f8", hdf5plugin.Zfp(precision=40)),
                              ("garbage_rate", "<f4", hdf5plugin.Zfp(rate=16))]:
            d = s.create_dataset(name, shape=(3, 12), dtype=t, chunks=(3, 12), **opts)
            d.id.write_direct_chunk((0, 0), bytes((i * 37 + 11) % 256 for i in range(512)), 0)
        s.create_dataset("float_be", data=field((12,), np.dtype(">f8"), 17), chunks=(12,),
                         **hdf5plugin.Zfp(reversible=True))


def b64(b):
    return base64.b64encode(b).decode()


def describe(path):
    objs = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            dcpl = obj.id.get_create_plist()
            e = {"kind": "dataset", "attrs": {}, "shape": list(obj.shape), "layout": "chunked",
                 "chunks": list(obj.chunks),
                 "filters": [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())],
                 "class": obj.id.get_type().get_class()}
            arr = np.asarray(obj[()])
            e["dtype"] = repr(np.lib.format.dtype_to_descr(arr.dtype))
            e["npshape"] = list(arr.shape)
            e["rawz"] = b64(zlib.compress(arr.tobytes(), 9))
            objs["/" + name] = e
        f.visititems(visit)
    return objs


def write_bad(path):
    """Chunks a reader must refuse: each dataset's first chunk is replaced."""
    good = {}
    with h5py.File(os.path.join(HERE, "zfp.h5"), "r") as f:
        for p in ("precision/float64_2d", "rate/float32_3d"):
            d = f[p]
            good[p] = (d.id.read_direct_chunk((0,) * d.ndim)[1], d[()], d.chunks)
    with h5py.File(path, "w", libver="latest") as f:
        def put(name, key, chunk, **opts):
            _, data, chunks = good[key]
            d = f.create_dataset(name, data=data, chunks=chunks, **(opts or MODES["precision"](data.dtype)))
            d.id.write_direct_chunk((0,) * data.ndim, chunk, 0)
        raw, _, _ = good["precision/float64_2d"]
        put("truncated", "precision/float64_2d", raw[:len(raw) // 2])
        put("short", "precision/float64_2d", raw[:4])
        raw, _, _ = good["rate/float32_3d"]
        put("rate_short", "rate/float32_3d", raw[:-8], **MODES["rate"](np.dtype("<f4")))
        # A header that does not describe the chunk: the cd_values of a
        # (4, 4) chunk on a dataset of (5, 8) chunks.
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((5, 8))
        with h5py.File(os.path.join(HERE, "zfp.h5"), "r") as z:
            cd = z["precision/float64_2d"].id.get_create_plist().get_filter(0)[2]
        cd = list(cd)
        cd[2] = (cd[2] & ~0xFFFFFF0) | (3 << 4)  # nx - 1 = 3 instead of 7
        dcpl.set_filter(32013, 0, tuple(cd))
        space = h5py.h5s.create_simple((9, 11))
        d = h5py.h5d.create(f.id, b"wrong_dims", h5py.h5t.IEEE_F64LE, space, dcpl=dcpl)
        d.write_direct_chunk((0, 0), good["precision/float64_2d"][0], 0)
        # A header of another codec version.
        cd2 = list(cd)
        cd2[1] = (cd2[1] & 0x00FFFFFF) | (9 << 24)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((5, 8))
        dcpl.set_filter(32013, 0, tuple(cd2))
        d = h5py.h5d.create(f.id, b"codec9", h5py.h5t.IEEE_F64LE, space, dcpl=dcpl)
        d.write_direct_chunk((0, 0), good["precision/float64_2d"][0], 0)


def write_chunks(path, out):
    """The first chunk of one dataset per mode and type (dimensions 1 to 4
    in turn), for internal/zfp's own tests: the filter's cd_values, the
    stored chunk and h5py's reading of the chunk's values."""
    chunks = []
    with h5py.File(path, "r") as f:
        d = 0
        for mode in ("rate", "precision", "accuracy", "reversible", "expert"):
            for dt in TYPES:
                dims = (2, 4)[d % 2] if mode == "expert" else d % 4 + 1
                d += 1
                name = "%s/%s_%dd" % (mode, {"f": "float", "i": "int"}[dt.kind] + str(8 * dt.itemsize), dims)
                ds = f[name]
                cd = ds.id.get_create_plist().get_filter(0)[2]
                _, raw = ds.id.read_direct_chunk((0,) * ds.ndim)
                vals = ds[tuple(slice(0, c) for c in ds.chunks)]
                chunks.append({"dataset": name, "cd": [int(c) for c in cd], "shape": list(ds.chunks),
                               "chunk": b64(raw), "values": b64(np.ascontiguousarray(vals).tobytes())})
    with open(out, "w") as fh:
        json.dump(chunks, fh, indent=1)


def main():
    path = os.path.join(HERE, "zfp.h5")
    write(path)
    with open(os.path.join(HERE, "zfp.json"), "w") as out:
        json.dump(describe(path), out, indent=1, sort_keys=True)
    write_bad(os.path.join(HERE, "zfp_bad.h5"))
    write_chunks(path, os.path.join(HERE, "..", "..", "internal", "zfp", "testdata", "chunks.json"))


if __name__ == "__main__":
    main()
