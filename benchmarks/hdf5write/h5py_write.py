#!/usr/bin/python3
"""npyflow's HDF5 writer next to h5py writing the same float64 data with the
same chunking, shuffle and gzip level (not run by tests).

  /usr/bin/python3 benchmarks/hdf5write/h5py_write.py [MB] [level] [chunk_rows]

Makes MB megabytes (default 800) of a smooth float64 signal, rows x 16, in
data/hdf5write/, then times (write + close, page cache, no fsync):
h5py chunked shuffle+gzip, npyflow chunked shuffle+deflate (GOMAXPROCS
workers and 1 worker), h5py contiguous, npyflow contiguous. Each file is
checked with h5py to hold the data.
"""
import os
import subprocess
import sys
import time

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
mb = int(sys.argv[1]) if len(sys.argv) > 1 else 800
level = int(sys.argv[2]) if len(sys.argv) > 2 else 3
crow = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
d = os.path.join(here, "..", "data", "hdf5write")
os.makedirs(d, exist_ok=True)
rows = mb * 1000 * 1000 // (16 * 8)
src = os.path.join(d, "x%d.npy" % mb)
if not os.path.exists(src):
    x = np.round(1000 * np.sin(np.arange(rows * 16) * 1e-4) * 100) / 1000
    np.save(src, x.reshape(rows, 16))
x = np.load(src)

gobin = os.path.join(d, "hdf5write")
subprocess.run(["go", "build", "-o", gobin, "./hdf5write"], cwd=os.path.join(here, ".."), check=True)


def h5py_write(path, **kw):
    t = time.perf_counter()
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=x, **kw)
    return time.perf_counter() - t


def check(path):
    with h5py.File(path, "r") as f:
        assert np.array_equal(f["x"][:], x), path


def report(name, sec, path):
    print("%-34s %7.2f s %8.1f MB/s  file %7.1f MB" % (name, sec, x.nbytes / sec / 1e6, os.path.getsize(path) / 1e6))


print("%d MB float64 (%d x 16), chunks (%d, 16), gzip %d, shuffle" % (x.nbytes // 10**6, rows, crow, level))
out = os.path.join(d, "out.h5")
sec = h5py_write(out, chunks=(crow, 16), compression="gzip", compression_opts=level, shuffle=True)
report("h5py chunked shuffle+gzip", sec, out)
check(out)
for workers in (0, 1):
    r = subprocess.run([gobin, "-in", src, "-out", out, "-chunk", str(crow), "-level", str(level), "-shuffle",
                        "-workers", str(workers)], capture_output=True, text=True, check=True)
    sec = float(r.stdout.split()[1])
    report("npyflow chunked shuffle+deflate w=%s" % (workers or "all"), sec, out)
    check(out)
sec = h5py_write(out)
report("h5py contiguous", sec, out)
r = subprocess.run([gobin, "-in", src, "-out", out, "-chunk", "0"], capture_output=True, text=True, check=True)
report("npyflow contiguous", float(r.stdout.split()[1]), out)
check(out)
os.remove(out)
