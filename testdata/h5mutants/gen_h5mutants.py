#!/usr/bin/python3
"""Small filter-compressed HDF5 files and a netCDF-4 file for the mutation
test (cmd/npyflow/mutation_reliability_test.go): one file per filter, each
a few chunks, so that mutants hit the compressed chunks often. Next to each
X.h5 (or X.nc), X.chunks.json lists the byte offset and size of every
stored chunk (h5py's get_chunk_info), the region the test aims at.

Run from this directory: /usr/bin/python3 gen_h5mutants.py
Needs Debian's python3-h5py, python3-hdf5plugin, python3-bitshuffle,
hdf5-filter-plugin (LZ4), libaec (szip) and python3-netcdf4; Zstandard is
registered through ctypes on libzstd (hdf5/testdata/gen_filters_b.py).
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "hdf5", "testdata"))
from gen_filters_b import register_zstd  # noqa: E402  (sets HDF5_PLUGIN_PATH, imports h5py)

import h5py  # noqa: E402
import hdf5plugin  # noqa: E402
import netCDF4  # noqa: E402


def data(seed):
    rng = np.random.default_rng(seed)
    a = np.cumsum(rng.integers(-3, 4, size=(60, 40)), axis=1).astype("<i4")
    b = (np.sin(np.arange(1500) / 17.0) * 100).astype(">f8")
    return a, b


def chunks_json(path):
    out = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.chunks:
                for i in range(obj.id.get_num_chunks()):
                    c = obj.id.get_chunk_info(i)
                    out.append([int(c.byte_offset), int(c.size)])
        f.visititems(visit)
    with open(path.rsplit(".", 1)[0] + ".chunks.json", "w") as g:
        json.dump(sorted(out), g)


FILTERS = {
    "lz4": lambda: hdf5plugin.LZ4(),
    "zstd": lambda: {"compression": 32015, "compression_opts": (3,)},
    "blosc": lambda: hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE),
    "bitshuffle": lambda: hdf5plugin.Bitshuffle(cname="lz4"),
    "szip": lambda: {"compression": "szip", "compression_opts": ("nn", 16)},
    "lzf": lambda: {"compression": "lzf", "shuffle": True},
}


def main():
    register_zstd()
    for name, opts in FILTERS.items():
        path = os.path.join(HERE, f"filter_{name}.h5")
        a, b = data(len(name))
        with h5py.File(path, "w") as f:
            f.create_dataset("a", data=a, chunks=(20, 20), **opts())
            f.create_dataset("g/b", data=b, chunks=(400,), **opts())
        chunks_json(path)
    path = os.path.join(HERE, "netcdf4.nc")
    with netCDF4.Dataset(path, "w") as nc:
        nc.createDimension("time", None)
        nc.createDimension("x", 8)
        t = nc.createVariable("time", "f8", ("time",))
        t.units = "hours since 2000-01-01"
        v = nc.createVariable("v", "i2", ("time", "x"), zlib=True, fill_value=-999)
        v.scale_factor, v.add_offset, v.units = 0.01, 273.15, "K"
        p = nc.createVariable("p", "f4", ("time",), zlib=True, shuffle=True)
        t[:] = np.arange(50) * 6.0
        v[:] = (np.arange(400).reshape(50, 8) % 113) * 0.01 + 273.15
        p[:] = np.linspace(990, 1010, 50)
    chunks_json(path)


if __name__ == "__main__":
    main()
