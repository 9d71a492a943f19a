#!/usr/bin/python3
"""Reading a large float64 MAT-file variable: npyflow's matfile package
against scipy.io.loadmat (v6, v7) and hdf5storage.loadmat (v7.3).

Writes an n x 1 float64 x (MAT_MB megabytes, default 200) with
scipy.io.savemat (-v6 uncompressed, -v7 compressed) and
hdf5storage.savemat(matlab_compatible=True) (-v7.3, chunked and deflated
as hdf5storage does by default; as the vector and as a 1000-column
matrix) into benchmarks/data/mat/, times the
Python readers (best of MAT_RUNS, default 3), then runs
BenchmarkReadFiles of ./matfile on the same files. Not run by the tests.

    /usr/bin/python3 benchmarks/mat_read.py        # from the repository root
"""
import os
import re
import resource
import subprocess
import time

import hdf5storage
import numpy as np
import scipy.io as sio

MB = int(os.environ.get("MAT_MB", "200"))
RUNS = int(os.environ.get("MAT_RUNS", "3"))
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = os.path.join(root, "benchmarks", "data", "mat")
os.makedirs(out, exist_ok=True)

n = MB * 1000 * 1000 // 8
x = (np.arange(n, dtype=np.float64) % 1000) * 0.001 + np.sin(np.arange(n) * 1e-3)
x = x.reshape(n, 1)
files = {
    "v6.mat": lambda p: sio.savemat(p, {"x": x}, do_compression=False),
    "v7.mat": lambda p: sio.savemat(p, {"x": x}, do_compression=True),
    "v73.mat": lambda p: hdf5storage.savemat(p, {"x": x}, matlab_compatible=True, format="7.3"),
    # The same values as a 1000-column matrix: HDF5 rows are MATLAB
    # columns, so it streams (and decodes in parallel) by columns.
    "v73_matrix.mat": lambda p: hdf5storage.savemat(p, {"x": x.reshape(n // 1000, 1000)},
                                                    matlab_compatible=True, format="7.3"),
}
for name, save in files.items():
    p = os.path.join(out, name)
    if not os.path.exists(p):
        save(p)


def best(fn):
    """Best wall time and the CPU time of that run (the machine may be
    shared: CPU seconds are the steadier number)."""
    t = []
    for _ in range(RUNS):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        t.append((time.perf_counter() - t0, time.process_time() - c0))
    return min(t)


rows = []
for name in files:
    p = os.path.join(out, name)
    if name.startswith("v73"):
        sec = best(lambda: hdf5storage.loadmat(p, variable_names=["x"]))
        rows.append((name, "hdf5storage.loadmat", sec))
    else:
        sec = best(lambda: sio.loadmat(p, variable_names=["x"]))
        rows.append((name, "scipy.io.loadmat", sec))

env = dict(os.environ, MATFILE_BENCH_DIR=out)
binary = os.path.join(out, "matfile.test")
subprocess.run(["go", "test", "-c", "-o", binary, "./matfile/"], cwd=root, check=True)
for name in files:
    runs = []
    for _ in range(RUNS):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res = subprocess.run([binary, "-test.run", "XXX", "-test.bench", "BenchmarkReadFiles/" + name,
                              "-test.benchtime", "1x"], cwd=os.path.join(root, "matfile"), env=env,
                             capture_output=True, text=True, check=True).stdout
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        m = re.search(r"\s(\d+) ns/op", res)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        runs.append((int(m.group(1)) / 1e9, cpu))
    rows.append((name, "npyflow matfile (WalkVariables + Var.Array)", min(runs)))

print("| file | size | reader | wall s | CPU s | MB/s (wall) | MB/s (CPU) |")
print("|---|---|---|---|---|---|---|")
for name, reader, (sec, cpu) in sorted(rows):
    size = os.path.getsize(os.path.join(out, name)) / 1e6
    print("| %s | %.0f MB | %s | %.3f | %.3f | %.0f | %.0f |" % (name, size, reader, sec, cpu, MB / sec, MB / cpu))
