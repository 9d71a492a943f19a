#!/usr/bin/python3
"""Read the .h5 files the hdf5 sink wrote with each --compression (deflate,
lz4, zstd, none) with h5py and hdf5plugin, and compare every dataset with
the .npy the Go test wrote next to it (NAME.expect.npy).

Usage (make check-hdf5 runs it):
  NPYFLOW_H5SINK_DIR=/tmp/h5sink go test -count=1 -run TestHDF5SinkCompression ./pipeline/
  /usr/bin/python3 pipeline/testdata/h5sink/check_h5sink.py /tmp/h5sink

LZ4 comes from Debian's hdf5-filter-plugin through hdf5plugin; Debian has
no Zstandard plugin, so filter 32015 is registered with libhdf5 through
ctypes on libzstd (hdf5/testdata/gen_filters_b.py's register_zstd), as
check_written.py does.
"""
import glob
import os
import sys

import h5py
import hdf5plugin  # noqa: F401 - the system plugins, as users load them
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
if not h5py.h5z.filter_avail(32015):
    sys.path.insert(0, os.path.join(ROOT, "hdf5", "testdata"))
    from gen_filters_b import BITSHUFFLE_MISSING, register_zstd  # noqa: E402

    if BITSHUFFLE_MISSING:
        # Only gen_filters_b.py's own bitshuffle fixtures need the module;
        # h5py reads filter 32008 through the system plugin.
        print("note: no Python bitshuffle module (%s): its cases are skipped; "
              "this check has none (npyflow writes no bitshuffle)" % BITSHUFFLE_MISSING)

    register_zstd()

FILTERS = {"deflate": 1, "lz4": 32004, "zstd": 32015}


def main(d):
    files = sorted(glob.glob(os.path.join(d, "*.h5")))
    if len(files) < 6:
        sys.exit(f"{d}: {len(files)} .h5 files, want the test's")
    bad = 0
    for path in files:
        name = os.path.basename(path)[:-3]
        base, comp = name.split("_", 1)
        want = np.load(os.path.join(d, name + ".expect.npy"))
        with h5py.File(path, "r") as f:
            ds = f[base]
            got = ds[()]
            ids = [ds.id.get_create_plist().get_filter(i)[0] for i in range(ds.id.get_create_plist().get_nfilters())]
        comp = next((c for c in ("none", *FILTERS) if comp.startswith(c)), "deflate")
        want_ids = [] if comp == "none" else [2, FILTERS[comp]]
        ok = got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want) and ids == want_ids
        print(f"{'ok ' if ok else 'BAD'} {name}: {got.dtype}{got.shape} filters {ids}")
        bad += not ok
    if bad:
        sys.exit(f"{bad} files differ")
    print(f"{len(files)} files read by h5py {h5py.__version__} equal the inputs")


if __name__ == "__main__":
    main(sys.argv[1])
