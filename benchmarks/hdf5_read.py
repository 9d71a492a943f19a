#!/usr/bin/python3
"""Compares reading an 800 MB float64 HDF5 dataset with h5py and with
npyflow's hdf5 package (contiguous, and chunked + deflate with the same
chunking and level). Not run by the tests:

    /usr/bin/python3 benchmarks/hdf5_read.py [workdir]

It writes the two files with h5py (once), times h5py reading them in
batches of 8192 rows (best of 3), then runs `go test -run TestReadFileSpeed
./hdf5/` on the same files.
"""
import os
import subprocess
import sys
import time

import h5py
import numpy as np

ROWS, COLS, BATCH = 204800, 512, 8192  # 800 MiB of float64
here = os.path.dirname(os.path.abspath(__file__))
work = sys.argv[1] if len(sys.argv) > 1 else "/tmp/npyflow_hdf5_bench"
os.makedirs(work, exist_ok=True)
files = {
    "contiguous": (os.path.join(work, "contig.h5"), {}),
    "chunked-deflate": (os.path.join(work, "chunked.h5"), {"chunks": (256, COLS), "compression": "gzip", "compression_opts": 1}),
}
for name, (path, opts) in files.items():
    if os.path.exists(path):
        continue
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", shape=(ROWS, COLS), dtype="<f8", **opts)
        for s in range(0, ROWS, BATCH):
            idx = np.arange(s * COLS, (s + BATCH) * COLS, dtype=np.float64).reshape(BATCH, COLS)
            d[s:s + BATCH] = np.round(np.sin(idx / 100) * 1000) / 8

for name, (path, _) in files.items():
    with h5py.File(path, "r") as f:
        d = f["x"]
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            for s in range(0, ROWS, BATCH):
                d[s:s + BATCH]
            best = min(best, time.perf_counter() - t)
    print("h5py %s %s: %.3f s: %.0f MB/s" % (name, path, best, ROWS * COLS * 8 / best / 1e6), flush=True)
    env = dict(os.environ, HDF5_BENCH_FILE=path, HDF5_BENCH_DATASET="/x")
    subprocess.run(["go", "test", "-count=1", "-run", "TestReadFileSpeed", "-v", "./hdf5/"],
                   cwd=os.path.dirname(here), env=env, check=True)
