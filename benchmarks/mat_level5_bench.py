#!/usr/bin/python3
"""MAT Level 5 (v6 and v7) against scipy.io: issue 14's 800 MB float64
array and 10M-row table, read and written. Not run by the tests.

Usage (from the repository root, npyflow built at bin/npyflow or --npyflow):

    /usr/bin/python3 benchmarks/mat_level5_bench.py gen --dir /tmp/m7/data
    /usr/bin/python3 benchmarks/mat_level5_bench.py run --dir /tmp/m7/data [--runs 5] [--only REGEX]

gen writes, once:
  arr.npy      float64 (100000, 1000), 800 MB, numpy's standard normal
               (random mantissas: zlib level 6 keeps about 96% of it)
  arr_v6.mat   scipy.io.savemat({"x": a})                      (-v6)
  arr_v7.mat   scipy.io.savemat({"x": a}, do_compression=True) (-v7)
  tab.npy      10,000,000 rows of (id <i8, x <f8, y <f4, flag |b1)
  tab.parquet  npyflow convert tab.npy tab.parquet
  tab_v6.mat, tab_v7.mat  scipy.io.savemat({"t": {"id": ..., ...}},
               oned_as="column"): a 1x1 struct whose fields are
               10000000x1 column vectors

run times each job as a whole process pinned to one core:
  taskset -c 1 /usr/bin/time -f "%e %U %S %M" CMD     (--cpu picks the core)
and prints, per job, the runs' CPU seconds (user + sys), wall seconds and
peak RSS. The contenders of a job are run interleaved (A B A B ...).
The scipy side of each job is a Python process doing the same job:
  read array:  scipy.io.loadmat(x.mat)["x"], then np.save(out.npy, x)
               (what loadmat returns is Fortran-ordered: np.save writes a
               Fortran-order .npy, as npyflow --fortran-order does)
  write array: np.load(arr.npy), then scipy.io.savemat(out.mat, ...)
  read table:  loadmat(tab.mat)["t"], its fields copied into a
               structured array, np.save(out.npy)
  write table: np.load(tab.npy), savemat({"t": {f: column}},
               oned_as="column"), as npyflow writes a table
Each scipy process also prints the seconds of the loadmat/savemat call
alone (after imports and np.load), shown as "op s".
"""

import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS, COLS = 100000, 1000
TROWS = 10_000_000

SCIPY = r"""
import sys, time, numpy as np, scipy.io as sio
job, src, out = sys.argv[1:4]
if job == "read_array":
    t = time.process_time()
    x = sio.loadmat(src)["x"]
    op = time.process_time() - t
    np.save(out, x)
elif job == "write_array":
    a = np.load(src)
    t = time.process_time()
    sio.savemat(out, {"x": a}, do_compression=sys.argv[4] == "7")
    op = time.process_time() - t
elif job == "read_table":
    t = time.process_time()
    s = sio.loadmat(src)["t"][0, 0]
    op = time.process_time() - t
    names = s.dtype.names
    rec = np.empty(s[names[0]].shape[0], dtype=[(n, s[n].dtype) for n in names])
    for n in names:
        rec[n] = s[n][:, 0]
    np.save(out, rec)
elif job == "write_table":
    a = np.load(src)
    t = time.process_time()
    sio.savemat(out, {"t": {n: a[n] for n in a.dtype.names}}, oned_as="column", do_compression=sys.argv[4] == "7")
    op = time.process_time() - t
print("OP %.3f" % op)
"""


def gen(d, npyflow):
    import numpy as np
    import scipy.io as sio
    os.makedirs(d, exist_ok=True)
    p = lambda n: os.path.join(d, n)
    rng = np.random.default_rng(14)
    if not os.path.exists(p("arr_v7.mat")):
        a = rng.standard_normal((ROWS, COLS))
        np.save(p("arr.npy"), a)
        sio.savemat(p("arr_v6.mat"), {"x": a})
        sio.savemat(p("arr_v7.mat"), {"x": a}, do_compression=True)
        del a
    if not os.path.exists(p("tab_v7.mat")):
        t = np.empty(TROWS, dtype=[("id", "<i8"), ("x", "<f8"), ("y", "<f4"), ("flag", "|b1")])
        t["id"] = np.arange(TROWS) * 7 - 3
        t["x"] = rng.standard_normal(TROWS)
        t["y"] = np.round(rng.standard_normal(TROWS), 2).astype(np.float32)
        t["flag"] = rng.random(TROWS) < 0.3
        np.save(p("tab.npy"), t)
        cols = {n: t[n] for n in t.dtype.names}
        sio.savemat(p("tab_v6.mat"), {"t": cols}, oned_as="column")
        sio.savemat(p("tab_v7.mat"), {"t": cols}, oned_as="column", do_compression=True)
        subprocess.run([npyflow, "convert", "--progress=never", p("tab.npy"), p("tab.parquet")], check=True)
    for n in sorted(os.listdir(d)):
        print(n, os.path.getsize(p(n)))


CPU = "1"


def timed(cmd):
    r = subprocess.run(["taskset", "-c", CPU, "/usr/bin/time", "-f", "TIME %e %U %S %M"] + cmd,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    m = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)", r.stderr)
    op = re.search(r"OP ([\d.]+)", r.stdout)
    return (float(m.group(1)), float(m.group(2)) + float(m.group(3)), int(m.group(4)) / 1024,
            float(op.group(1)) if op else None)


def run(d, npyflow, runs, only, outdir):
    os.makedirs(outdir, exist_ok=True)
    inp = lambda n: os.path.join(d, n)
    p = lambda n: os.path.join(outdir, n) if n.startswith("out") or n.endswith(".py") else inp(n)
    py = p("scipy_side.py")
    with open(py, "w") as f:
        f.write(SCIPY)
    nf = [npyflow, "convert", "--progress=never"]
    jobs = []
    for v in ("6", "7"):
        jobs.append(("read array v%s" % v, [
            ("npyflow convert x.mat out.npy", nf + [p("arr_v%s.mat" % v), p("out.npy")]),
            ("npyflow convert --fortran-order x.mat out.npy", nf + ["--fortran-order", p("arr_v%s.mat" % v), p("out.npy")]),
            ("scipy loadmat + np.save", ["/usr/bin/python3", py, "read_array", p("arr_v%s.mat" % v), p("out_py.npy")]),
        ]))
        jobs.append(("write array v%s" % v, [
            ("npyflow convert arr.npy out.mat --mat-version %s" % v, nf + ["--mat-version", v, p("arr.npy"), p("out.mat")]),
            ("np.load + scipy savemat", ["/usr/bin/python3", py, "write_array", p("arr.npy"), p("out_py.mat"), v]),
        ]))
        jobs.append(("read table v%s" % v, [
            ("npyflow convert t.mat out.npy", nf + [p("tab_v%s.mat" % v), p("out.npy")]),
            ("npyflow convert t.mat out.parquet", nf + [p("tab_v%s.mat" % v), p("out.parquet")]),
            ("scipy loadmat + structured np.save", ["/usr/bin/python3", py, "read_table", p("tab_v%s.mat" % v), p("out_py.npy")]),
        ]))
        jobs.append(("write table v%s" % v, [
            ("npyflow convert tab.npy out.mat --mat-version %s" % v, nf + ["--mat-version", v, p("tab.npy"), p("out.mat")]),
            ("npyflow convert tab.parquet out.mat --mat-version %s" % v, nf + ["--mat-version", v, p("tab.parquet"), p("out.mat")]),
            ("np.load + scipy savemat", ["/usr/bin/python3", py, "write_table", p("tab.npy"), p("out_py.mat"), v]),
        ]))
    for name, cs in jobs:
        if only and not re.search(only, name):
            continue
        res = {c: [] for c, _ in cs}
        loads = []
        for _ in range(runs):
            for c, cmd in cs:
                loads.append(os.getloadavg()[0])
                res[c].append(timed(cmd))
        print("\n### %s (%d runs each, interleaved; 1-min load %.1f-%.1f)\n" % (name, runs, min(loads), max(loads)))
        print("| contender | CPU s min | CPU s median | CPU s range | wall s range | op s (median) | peak RSS MB |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for c, rs in res.items():
            cpu = sorted(r[1] for r in rs)
            wall = sorted(r[0] for r in rs)
            ops = sorted(r[3] for r in rs if r[3] is not None)
            op = "%.2f" % ops[len(ops) // 2] if ops else ""
            print("| %s | %.2f | %.2f | %.2f-%.2f | %.2f-%.2f | %s | %.0f |" % (
                c, cpu[0], cpu[len(cpu) // 2], cpu[0], cpu[-1], wall[0], wall[-1], op, max(r[2] for r in rs)), flush=True)
        for f in ("out.npy", "out_py.npy", "out.mat", "out_py.mat", "out.parquet"):
            if os.path.exists(p(f)):
                os.remove(p(f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["gen", "run"])
    ap.add_argument("--dir", default="/tmp/npyflow-mat5")
    ap.add_argument("--npyflow", default=os.path.join(ROOT, "bin", "npyflow"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--outdir", default="", help="where outputs go (default: --dir)")
    ap.add_argument("--cpu", default="1", help="the core every contender is pinned to")
    a = ap.parse_args()
    global CPU
    CPU = a.cpu
    if a.what == "gen":
        gen(a.dir, a.npyflow)
    else:
        run(a.dir, a.npyflow, a.runs, a.only, a.outdir or a.dir)


if __name__ == "__main__":
    sys.exit(main())
