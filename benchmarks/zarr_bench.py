#!/usr/bin/python3
"""Zarr v2 speed and memory: npyflow against zarr-python 2 (issue 29).

    zarr_bench.py speed DIR NPYFLOW [MIB] [RUNS]
        A float64 array of MIB mebibytes (default 1024; shape (rows, 1024))
        is made in DIR/in.npy, then for zstd (level 3) and blosc-lz4
        (clevel 5, byte shuffle), in chunks of 256x1024 (2 MiB):
          write  .npy -> .zarr (v2): zarr-python `z[:] = np.load(mmap)`,
                 npyflow `convert in.npy out.zarr --zarr-format 2`
          read   .zarr -> .npy, both from the store zarr-python wrote:
                 zarr-python `np.save(out, z[:])`, npyflow `convert`
        on 1 core (taskset -c 0) and on 2. Every run is its own process
        under /usr/bin/time -v: wall and CPU (user+sys) of the whole
        process; zarr-python's wall is also given without the interpreter
        start and imports (its "op" time), which is what the ratio uses.
        The outputs are checked equal to the input.
    zarr_bench.py memory DIR NPYFLOW [MIB]
        A MIB (default 4096) float64 .npy converted to .zarr (v2, zstd)
        and back by npyflow under /usr/bin/time -v: the peak RSS of each.

Nothing it makes is kept but DIR/in*.npy (rm -rf DIR to free the disk).
`make -C benchmarks bench-zarr` runs both (data/zarr.md); a run is in
zarr_results.md.
"""
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

PY = "/usr/bin/python3"
TIME = "/usr/bin/time"
COLS = 1024
CHUNK_ROWS = 256

ZP_WRITE = r"""
import sys, time
import numpy as np, zarr
from numcodecs import Blosc, Zstd
src, dst, comp = sys.argv[1:4]
c = Zstd(level=3) if comp == "zstd" else Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE)
a = np.load(src, mmap_mode="r")
t = time.perf_counter()
z = zarr.open(dst, mode="w", shape=a.shape, chunks=(%d, a.shape[1]), dtype=a.dtype, compressor=c)
z[:] = a
print("OP %%.3f" %% (time.perf_counter() - t))
""" % CHUNK_ROWS

ZP_READ = r"""
import sys, time
import numpy as np, zarr
src, dst = sys.argv[1:3]
t = time.perf_counter()
np.save(dst, zarr.open(src, mode="r")[:])
print("OP %.3f" % (time.perf_counter() - t))
"""


def make_input(path, mib):
    rows = mib * (1 << 20) // (8 * COLS)
    if os.path.exists(path) and os.path.getsize(path) >= rows * COLS * 8:
        return rows
    a = np.lib.format.open_memmap(path + ".tmp", mode="w+", dtype="<f8", shape=(rows, COLS))
    rng = np.random.default_rng(29)
    step = 4096
    for r in range(0, rows, step):
        n = min(step, rows - r)
        i = np.arange(r * COLS, (r + n) * COLS, dtype=np.float64).reshape(n, COLS)
        # a smooth signal with measurement noise to two decimals: it
        # compresses, but not to nothing
        a[r:r + n] = np.round(np.sin(i * 1e-4) * 1000 + rng.normal(0, 1, (n, COLS)), 2)
    a.flush()
    del a
    os.rename(path + ".tmp", path)
    return rows


def timed(cmd, cores):
    """Runs cmd under /usr/bin/time -v: (wall s, cpu s, max RSS MiB, op s)."""
    if cores == 1:
        cmd = ["taskset", "-c", "0"] + cmd
    t = time.perf_counter()
    p = subprocess.run([TIME, "-v"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
    sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", p.stderr).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    m = re.search(r"OP ([\d.]+)", p.stdout)
    return wall, user + sys_, rss, float(m.group(1)) if m else wall


def same(a, b):
    x = np.load(a, mmap_mode="r")
    y = np.load(b, mmap_mode="r")
    return x.shape == y.shape and x.dtype == y.dtype and all(
        np.array_equal(x[r:r + 8192], y[r:r + 8192]) for r in range(0, x.shape[0], 8192))


def speed(d, npyflow, mib, runs):
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "in.npy")
    rows = make_input(src, mib)
    env = "GOMAXPROCS"
    print("## Zarr v2, %d MiB float64 (%d x %d), chunks %d x %d; %s; %d run(s), best wall"
          % (mib, rows, COLS, CHUNK_ROWS, COLS, os.uname().nodename, runs))
    print()
    print("| codec | op | cores | zarr-python wall (op) s | zarr-python CPU s | npyflow wall s | npyflow CPU s | npyflow / zarr-python |")
    print("|---|---|---|---|---|---|---|---|")
    for comp in ("zstd", "blosc"):
        zp = os.path.join(d, "zp.zarr")
        nf = os.path.join(d, "nf.zarr")
        out = os.path.join(d, "out.npy")
        for cores in (1, 2):
            os.environ[env] = str(cores)
            res = {}
            for name, cmd in (
                ("zp-write", [PY, "-c", ZP_WRITE, src, zp, comp]),
                ("nf-write", [npyflow, "convert", "--progress=never", "--zarr-format", "2", "--chunks",
                              "%d,%d" % (CHUNK_ROWS, COLS), "--compression", comp, src, nf]),
                ("zp-read", [PY, "-c", ZP_READ, zp, out]),
                ("nf-read", [npyflow, "convert", "--progress=never", zp, out]),
            ):
                best = None
                for _ in range(runs):
                    if name.endswith("write"):
                        shutil.rmtree(zp if name == "zp-write" else nf, ignore_errors=True)
                    elif os.path.exists(out):
                        os.remove(out)
                    r = timed(cmd, cores)
                    if best is None or r[3] < best[3]:
                        best = r
                    if name.endswith("read") and not same(src, out):
                        sys.exit("%s: %s differs from the input" % (name, out))
                res[name] = best
            for op in ("write", "read"):
                z, n = res["zp-" + op], res["nf-" + op]
                print("| %s | %s | %d | %.2f (%.2f) | %.2f | %.2f | %.2f | %.2f |"
                      % (comp if comp == "zstd" else "blosc-lz4", op, cores, z[0], z[3], z[1], n[0], n[1], n[0] / z[3]))
            sys.stdout.flush()
        del os.environ[env]
        for p in (zp, nf):
            shutil.rmtree(p, ignore_errors=True)
        if os.path.exists(out):
            os.remove(out)


def memory(d, npyflow, mib):
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "in%d.npy" % mib)
    make_input(src, mib)
    z = os.path.join(d, "mem.zarr")
    out = os.path.join(d, "mem.npy")
    shutil.rmtree(z, ignore_errors=True)
    print("## npyflow peak RSS, %d MiB float64 .npy -> .zarr (v2, zstd) -> .npy" % mib)
    print()
    print("| step | wall s | CPU s | max RSS MiB |")
    print("|---|---|---|---|")
    for step, cmd in (("npy -> zarr", [npyflow, "convert", "--progress=never", "--zarr-format", "2", src, z]),
                      ("zarr -> npy", [npyflow, "convert", "--progress=never", z, out])):
        w, c, rss, _ = timed(cmd, 2)
        print("| %s | %.2f | %.2f | %.0f |" % (step, w, c, rss))
    if not same(src, out):
        sys.exit("memory: the round trip differs from the input")
    shutil.rmtree(z, ignore_errors=True)
    os.remove(out)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("speed", "memory"):
        sys.exit(__doc__)
    if sys.argv[1] == "speed":
        speed(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1024,
              int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    else:
        memory(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 4096)
