#!/usr/bin/python3
"""Write a large float64 array as a MAT-file: npyflow vs hdf5storage and scipy.

Usage (from the repository root; not run by the tests):

    /usr/bin/python3 benchmarks/mat_write_bench.py [--n ELEMENTS] [--runs R] [--dir DIR]

numpy generates a float64 random walk of N elements (default 2**24, 128 MiB;
--n 100000000 for the issue's 800 MB) shaped (N/1024, 1024) and saves it as
.npy. Each contender writes it to a MAT-file in its own process and reports
the time of the write only (Python contenders from the array in memory;
npyflow streaming from the .npy file in the page cache, so it does more):

  npyflow v7.3        matfile.Writer, chunked, deflate 3 on all cores
  npyflow v7.3 none   the same without compression
  npyflow v7          Level 5, zlib (parallel blocks)
  npyflow v6          Level 5, uncompressed
  hdf5storage v7.3    hdf5storage.savemat(matlab_compatible=True), its
                      defaults (gzip 7 + shuffle + fletcher32)
  scipy v7            scipy.io.savemat(do_compression=True)
  scipy v6            scipy.io.savemat()

The median of --runs runs (after one warm-up) and the output size are
printed as a Markdown table. Needs /usr/bin/python3 with numpy, scipy,
hdf5storage, and Go.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PY_CONTENDER = r"""
import sys, time, numpy as np
kind, src, out = sys.argv[1:4]
a = np.load(src)
t = time.perf_counter()
if kind == "hdf5storage":
    import hdf5storage
    hdf5storage.savemat(out, {"x": a}, format="7.3", matlab_compatible=True)
elif kind == "scipy7":
    import scipy.io
    scipy.io.savemat(out, {"x": a}, do_compression=True)
else:
    import scipy.io
    scipy.io.savemat(out, {"x": a})
print("RESULT op_secs=%.4f" % (time.perf_counter() - t))
"""


def result(stdout):
    for line in stdout.splitlines():
        if line.startswith("RESULT op_secs="):
            return float(line.split("=", 1)[1])
    raise SystemExit("no RESULT in:\n" + stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    import numpy as np

    d = args.dir or tempfile.mkdtemp(prefix="matbench")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "x.npy")
    n = args.n // 1024 * 1024
    if not os.path.exists(src) or os.path.getsize(src) < n * 8:
        rng = np.random.default_rng(14)
        a = np.round(np.cumsum(rng.standard_normal(n)), 6).reshape(n // 1024, 1024)
        np.save(src, a)
        del a
    test_bin = os.path.join(d, "matfile.test")
    subprocess.run(["go", "test", "-c", "-o", test_bin, "./matfile/"], cwd=ROOT, check=True)
    py = os.path.join(d, "contender.py")
    with open(py, "w") as f:
        f.write(PY_CONTENDER)

    def npyflow(ver):
        def run(out):
            env = dict(os.environ, MATFILE_BENCH_IN=src, MATFILE_BENCH_OUT=out, MATFILE_BENCH_VERSION=ver)
            r = subprocess.run([test_bin, "-test.run", "^TestWriteBenchFile$", "-test.count=1"],
                               env=env, capture_output=True, text=True, check=True)
            return result(r.stdout)
        return run

    def python(kind):
        def run(out):
            r = subprocess.run(["/usr/bin/python3", py, kind, src, out], capture_output=True, text=True, check=True)
            return result(r.stdout)
        return run

    contenders = [
        ("npyflow v7.3", npyflow("7.3")),
        ("npyflow v7.3 none", npyflow("7.3-none")),
        ("npyflow v7", npyflow("7")),
        ("npyflow v6", npyflow("6")),
        ("hdf5storage v7.3", python("hdf5storage")),
        ("scipy v7", python("scipy7")),
        ("scipy v6", python("scipy6")),
    ]
    mb = n * 8 / 1e6
    print(f"float64 ({n // 1024}, 1024), {mb:.0f} MB, median of {args.runs} runs after a warm-up, {os.cpu_count()} CPUs\n")
    print("| contender | seconds | MB/s | output MB |")
    print("|---|---:|---:|---:|")
    for name, run in contenders:
        out = os.path.join(d, "out.mat")
        times = []
        for i in range(args.runs + 1):
            if os.path.exists(out):
                os.remove(out)
            t = run(out)
            if i > 0:
                times.append(t)
        med = statistics.median(times)
        print(f"| {name} | {med:.2f} | {mb / med:.0f} | {os.path.getsize(out) / 1e6:.0f} |", flush=True)
        os.remove(out)


if __name__ == "__main__":
    sys.exit(main())
