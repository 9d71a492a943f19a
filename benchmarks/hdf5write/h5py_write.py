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
import resource
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
    t, c = time.perf_counter(), time.process_time()
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=x, **kw)
    return time.perf_counter() - t, time.process_time() - c


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def go_write(*args):
    c = child_cpu()
    r = subprocess.run([gobin, "-in", src, "-out", out] + list(args), capture_output=True, text=True, check=True)
    return float(r.stdout.split()[1]), child_cpu() - c


def check(path):
    with h5py.File(path, "r") as f:
        assert np.array_equal(f["x"][:], x), path


def report(name, times, path):
    sec, cpu = times
    print("%-38s wall %7.2f s %7.1f MB/s   cpu %7.2f s %7.1f MB/cpu-s   file %7.1f MB" % (
        name, sec, x.nbytes / sec / 1e6, cpu, x.nbytes / cpu / 1e6, os.path.getsize(path) / 1e6))


print("%d MB float64 (%d x 16), chunks (%d, 16), gzip %d, shuffle" % (x.nbytes // 10**6, rows, crow, level))
out = os.path.join(d, "out.h5")
print("(npyflow's cpu includes reading the .npy input, which its wall time does not)")
report("h5py chunked shuffle+gzip", h5py_write(out, chunks=(crow, 16), compression="gzip", compression_opts=level, shuffle=True), out)
check(out)
for workers in (0, 1):
    t = go_write("-chunk", str(crow), "-level", str(level), "-shuffle", "-workers", str(workers))
    report("npyflow chunked shuffle+deflate w=%s" % (workers or "all"), t, out)
    check(out)
report("h5py contiguous", h5py_write(out), out)
report("npyflow contiguous", go_write("-chunk", "0"), out)
check(out)
os.remove(out)
