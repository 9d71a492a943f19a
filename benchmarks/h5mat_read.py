#!/usr/bin/python3
"""Reading HDF5 datasets and MAT-files: npyflow against h5py,
hdf5storage.loadmat and scipy.io.loadmat. Not run by the tests.

    /usr/bin/python3 benchmarks/h5mat_read.py     # from the repository root

Writes (once) into benchmarks/data/h5mat/ a float64 array of H5MAT_MB
megabytes (default 256) as a (rows, 1024) matrix and as a column vector:

  h5_contig.h5   h5py, contiguous
  h5_deflate.h5  h5py, chunks of 256 x 1024, gzip 4 + shuffle
  v73_matrix.mat hdf5storage.savemat(matlab_compatible=True) (its chunking,
                 gzip + shuffle + fletcher32)
  v73_vector.mat the same values as an n x 1 vector
  v7.mat, v6.mat scipy.io.savemat, compressed and not (the matrix)

Each reader runs in its own process, RUNS times (default 3); the table
gives the best wall time, the CPU time (user + system) of that run and
the process's peak RSS. The Python readers time only the read (imports
excluded) into a numpy array in memory; npyflow is timed end to end by
/usr/bin/time as `npyflow convert IN OUT.npy` (reading, reordering to C
order and writing the .npy to the same disk), so it does more work than
the Python readers.
"""
import os
import resource
import subprocess
import sys
import time

import numpy as np

MB = int(os.environ.get("H5MAT_MB", "256"))
RUNS = int(os.environ.get("RUNS", "3"))
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = os.path.join(root, "benchmarks", "data", "h5mat")
os.makedirs(work, exist_ok=True)
COLS = 1024
ROWS = MB * (1 << 20) // 8 // COLS


def data():
    idx = np.arange(ROWS * COLS, dtype=np.float64)
    return (np.round(np.sin(idx / 100) * 1000) / 8).reshape(ROWS, COLS)


def make():
    import h5py
    import hdf5storage
    import scipy.io as sio
    x = None
    files = {
        "h5_contig.h5": lambda p: h5py.File(p, "w").create_dataset("x", data=x).file.close(),
        "h5_deflate.h5": lambda p: h5py.File(p, "w").create_dataset(
            "x", data=x, chunks=(256, COLS), compression="gzip", compression_opts=4, shuffle=True).file.close(),
        "v73_matrix.mat": lambda p: hdf5storage.savemat(p, {"x": x}, matlab_compatible=True, format="7.3"),
        "v73_vector.mat": lambda p: hdf5storage.savemat(p, {"x": x.reshape(-1, 1)}, matlab_compatible=True, format="7.3"),
        "v7.mat": lambda p: sio.savemat(p, {"x": x}, do_compression=True),
        "v6.mat": lambda p: sio.savemat(p, {"x": x}, do_compression=False),
    }
    for name, save in files.items():
        p = os.path.join(work, name)
        if not os.path.exists(p):
            if x is None:
                x = data()
            save(p)


PY_READ = {
    "h5py": "import h5py\nwith h5py.File(P, 'r') as f:\n    a = f['x'][...]",
    "hdf5storage.loadmat": "import hdf5storage\na = hdf5storage.loadmat(P, variable_names=['x'])['x']",
    "scipy.io.loadmat": "import scipy.io\na = scipy.io.loadmat(P, variable_names=['x'])['x']",
}


def py_child(reader, path):
    """Runs in the child: imports, then times the read alone."""
    code = PY_READ[reader].split("\n")
    imports = [c for c in code if c.startswith("import")]
    body = "\n".join(c for c in code if not c.startswith("import"))
    g = {"P": path}
    exec("\n".join(imports), g)
    t0, c0 = time.perf_counter(), time.process_time()
    exec(body, g)
    t1, c1 = time.perf_counter(), time.process_time()
    assert g["a"].size == ROWS * COLS, g["a"].shape
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("RESULT %f %f %d" % (t1 - t0, c1 - c0, rss))


def run_py(reader, path):
    out = subprocess.run([sys.executable, __file__, "--child", reader, path],
                         capture_output=True, text=True, check=True).stdout
    line = [l for l in out.splitlines() if l.startswith("RESULT")][0].split()
    return float(line[1]), float(line[2]), int(line[3])


def run_npyflow(binary, path):
    out = os.path.join(work, "out.npy")
    res = subprocess.run(["/usr/bin/time", "-v", binary, "convert", path, out],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(res.stderr)
    wall = user = sys_ = rss = 0.0
    for line in res.stderr.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock)"):
            v = line.rsplit(" ", 1)[1]
            parts = [float(p) for p in v.split(":")]
            wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
        elif line.startswith("User time"):
            user = float(line.rsplit(" ", 1)[1])
        elif line.startswith("System time"):
            sys_ = float(line.rsplit(" ", 1)[1])
        elif line.startswith("Maximum resident"):
            rss = int(line.rsplit(" ", 1)[1])
    os.remove(out)
    return wall, user + sys_, int(rss)


def main():
    make()
    binary = os.path.join(work, "npyflow")
    subprocess.run(["go", "build", "-o", binary, "./cmd/npyflow"], cwd=root, check=True)
    cases = [
        ("h5_contig.h5", "h5py"), ("h5_deflate.h5", "h5py"),
        ("v73_matrix.mat", "hdf5storage.loadmat"), ("v73_vector.mat", "hdf5storage.loadmat"),
        ("v7.mat", "scipy.io.loadmat"), ("v6.mat", "scipy.io.loadmat"),
    ]
    print("| file | MB on disk | reader | wall s | CPU s | peak RSS MB |")
    print("|---|---:|---|---:|---:|---:|")
    for name, reader in cases:
        p = os.path.join(work, name)
        size = os.path.getsize(p) / 1e6
        for label, fn in ((reader, lambda: run_py(reader, p)),
                          ("npyflow convert -> .npy", lambda: run_npyflow(binary, p))):
            fn()  # warm the page cache
            best = min(fn() for _ in range(RUNS))
            print("| %s | %.0f | %s | %.2f | %.2f | %.0f |" % (name, size, label, best[0], best[1], best[2] / 1024),
                  flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        py_child(sys.argv[2], sys.argv[3])
    else:
        main()
