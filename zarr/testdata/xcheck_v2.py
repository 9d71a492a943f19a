#!/usr/bin/python3
"""Cross-check of Zarr v2 with zarr-python 2 (make check-zarr).

    xcheck_v2.py write DIR   writes the 512x512x3 uint8 reference image in
                             chunks of 100x100x1 with every compressor to
                             DIR/zp_v2.zarr, for npyflow to read
    xcheck_v2.py read DIR    reads every array npyflow wrote to
                             DIR/npyflow_v2.zarr and checks its values
                             (variable-length strings included)
"""
import sys

import numpy as np
import zarr
from numcodecs import BZ2, GZip, LZ4, Blosc, Zlib, Zstd


def image(h, w):
    y, x, k = np.meshgrid(np.arange(h), np.arange(w), np.arange(3), indexing="ij")
    return ((x * 7 + y * 13 + k * 101) & 255).astype(np.uint8)


COMPRESSORS = {
    "raw": None,
    "blosc_lz4": Blosc(cname="lz4", shuffle=Blosc.SHUFFLE),
    "blosc_blosclz": Blosc(cname="blosclz", shuffle=Blosc.BITSHUFFLE),
    "blosc_zstd": Blosc(cname="zstd", shuffle=Blosc.NOSHUFFLE),
    "blosc_zlib": Blosc(cname="zlib"),
    "zstd": Zstd(level=3),
    "lz4": LZ4(),
    "zlib": Zlib(level=5),
    "gzip": GZip(level=5),
    "bz2": BZ2(level=5),
}


# The variable-length strings npyflow writes (TestCrossTools' words).
STRINGS = ["a", "", "grüße", "x\x00y", "日本語テキスト", "end", "z"]


def write(d):
    root = zarr.open_group(d + "/zp_v2.zarr", mode="w")
    img = image(512, 512)
    for name, comp in COMPRESSORS.items():
        root.create_dataset(name, data=img, chunks=(100, 100, 1), compressor=comp)
    zarr.consolidate_metadata(root.store)
    print("zarr-python wrote %d reference images" % len(COMPRESSORS))


def read(d):
    g = zarr.open_consolidated(d + "/npyflow_v2.zarr", mode="r")
    n = 0
    for name, a in g.arrays(recurse=True):
        data = a[...]
        if name.startswith("image"):
            want = image(*a.shape[:2])
        elif name.startswith("f8"):
            want = (np.arange(a.size, dtype="<f8") * 1.25 - 40).reshape(a.shape)
        elif name.startswith("str_vlen_bytes"):
            want = np.array([s.encode() for s in STRINGS], dtype=object)
            if a.filters[0].codec_id != "vlen-bytes":
                raise SystemExit("npyflow's %s has filters %s" % (name, a.filters))
        elif name.startswith("str_vlen"):
            want = np.array(STRINGS, dtype=object)
            if a.filters[0].codec_id != "vlen-utf8":
                raise SystemExit("npyflow's %s has filters %s" % (name, a.filters))
        else:
            raise SystemExit("unexpected array %s" % name)
        if not np.array_equal(data, want):
            raise SystemExit("zarr-python reads npyflow's %s wrong" % name)
        n += 1
    if n == 0:
        raise SystemExit("no arrays in npyflow's output")
    print("zarr-python read %d npyflow v2 arrays" % n)


{"write": write, "read": read}[sys.argv[1]](sys.argv[2])
