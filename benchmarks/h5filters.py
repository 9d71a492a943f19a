#!/usr/bin/python3
"""Issue 23: reading 800 MiB of lz4-, zstd-, blosc- and bitshuffle-
compressed HDF5 chunks, npyflow against h5py with hdf5plugin. Not run by
the tests; benchmarks/h5filters.sh runs it all.

    /usr/bin/python3 benchmarks/h5filters.py gen WORK
    /usr/bin/python3 benchmarks/h5filters.py run WORK NPYFLOW [RUNS] [CASE ...]
    /usr/bin/python3 benchmarks/h5filters.py check WORK NPYFLOW [CASE ...]

gen writes into WORK (about 3 GB): x.npy, float64 (102400, 1024), 800 MiB,
a random walk rounded to 3 decimals; then, with h5py + hdf5plugin and
Debian's plugins, /x with chunks (400, 256) (800 KiB each) through

  lz4.h5         hdf5plugin.LZ4()                 (filter 32004)
  zstd.h5        filter 32015, level 3            (libzstd through the
                 ctypes filter of hdf5/testdata/gen_filters_b.py: Debian
                 has no zstd plugin)
  blosc.h5       hdf5plugin.Blosc()               (32001: lz4, level 5,
                 byte shuffle, c-blosc 1.21)
  bitshuffle.h5  hdf5plugin.Bitshuffle()          (32008: bitshuffle + lz4)

run times each case's two jobs as whole processes pinned to one core,
`taskset -c 1 /usr/bin/time -f "%e %U %S %M"`, RUNS rounds (default 5)
interleaved (npyflow, h5py, next case), inputs in the page cache: npyflow
`convert --dataset /x X.h5 out.npy`, and the Python job
`a = h5py.File(X.h5)['x'][...]; np.save(out.npy, a)` (its start-up and
imports included; the case `imports` measures them alone). It prints
min, median and range of CPU seconds (user + sys), wall seconds, peak RSS,
then the ratios of the CPU medians, npyflow / h5py.

check converts each file once more with npyflow and compares the .npy
with x.npy.
"""
import os
import statistics
import subprocess
import sys

ROWS, COLS = 102400, 1024
CHUNK = (400, 256)
HERE = os.path.abspath(__file__)
TESTDATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "hdf5", "testdata")

FILTERS = {
    "lz4": "hdf5plugin.LZ4()",
    "zstd": "dict(compression=32015, compression_opts=(3,))",
    "blosc": "hdf5plugin.Blosc()",
    "bitshuffle": "hdf5plugin.Bitshuffle()",
}

READ = ("import sys\nsys.path.insert(0, %r)\n"
        "import numpy as np, h5py, hdf5plugin\n"
        "from gen_filters_b import register_zstd\nregister_zstd()\n") % TESTDATA
JOBS = {
    "imports": READ,
    "h5py_read": READ + "with h5py.File(IN, 'r') as f:\n    a = f['x'][...]\nnp.save(OUT, a)",
}

# case: (npyflow args or None, python job, input, output)
CASES = {"imports": (None, "imports", None, None)}
for _name in FILTERS:
    CASES[_name + "_read"] = (["--dataset", "/x"], "h5py_read", _name + ".h5", "out.npy")


def gen(work):
    exec(READ, globals())
    import h5py
    import hdf5plugin  # noqa: F401 - used by the FILTERS expressions
    import numpy as np
    os.makedirs(work, exist_ok=True)
    p = lambda n: os.path.join(work, n)
    if not os.path.exists(p("x.npy")):
        rng = np.random.default_rng(1)
        x = np.empty((ROWS, COLS))
        last = 0.0
        for s in range(0, ROWS, 8192):
            b = np.cumsum(rng.standard_normal((min(8192, ROWS - s)) * COLS)) + last
            last = b[-1]
            x[s:s + 8192] = np.round(b, 3).reshape(-1, COLS)
        np.save(p("x.npy"), x)
    x = np.load(p("x.npy"), mmap_mode="r")
    for name, expr in FILTERS.items():
        if os.path.exists(p(name + ".h5")):
            continue
        with h5py.File(p(name + ".h5"), "w") as f:
            d = f.create_dataset("x", shape=x.shape, dtype=x.dtype, chunks=CHUNK, **eval(expr))
            for s in range(0, ROWS, 8000):
                d[s:s + 8000] = x[s:s + 8000]
        print("%s.h5: %d bytes" % (name, os.path.getsize(p(name + ".h5"))), flush=True)


def job(name, inp, out):
    exec(JOBS[name], {"IN": inp, "OUT": out})


def timed(cmd, cores="1"):
    r = subprocess.run(["taskset", "-c", cores, "/usr/bin/time", "-f", "TIME %e %U %S %M"] + cmd,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("%s: %s" % (cmd, r.stderr))
    line = [l for l in r.stderr.splitlines() if l.startswith("TIME ")][-1].split()
    e, u, s, m = float(line[1]), float(line[2]), float(line[3]), int(line[4])
    return e, u + s, m / 1024


def commands(case, work, npyflow):
    nf, py, inp, out = CASES[case]
    cmds = []
    if nf is not None:
        cmds.append(("npyflow", [npyflow, "convert", "--progress=never"] + nf +
                     [os.path.join(work, inp), os.path.join(work, "nf_" + out)]))
    args = [os.path.join(work, inp), os.path.join(work, "py_" + out)] if inp else ["-", "-"]
    cmds.append(("h5py" if inp else "python start-up", [sys.executable, HERE, "job", py] + args))
    return cmds


def load():
    return open("/proc/loadavg").read().split()[0]


def run(work, npyflow, runs, cases):
    plan = [(c, lbl, cmd) for c in cases for lbl, cmd in commands(c, work, npyflow)]
    res = {(c, lbl): [] for c, lbl, _ in plan}
    loads = []
    for c in cases:  # warm the page cache
        if CASES[c][2]:
            subprocess.run(["cat", os.path.join(work, CASES[c][2])], stdout=subprocess.DEVNULL, check=True)
    for r in range(1, runs + 1):
        for c, lbl, cmd in plan:
            loads.append(load())
            t = timed(cmd)
            print("# round %d %s %s: wall %.2f cpu %.2f rss %.0f MB (load %s)" % (r, c, lbl, t[0], t[1], t[2], loads[-1]),
                  file=sys.stderr, flush=True)
            res[(c, lbl)].append(t)
    print("1-minute load average at the runs: %s - %s" % (min(loads, key=float), max(loads, key=float)))
    print()
    print("| case: contender | runs | CPU s min | CPU s median | CPU s range | wall s range | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    med = {}
    for c, lbl, _ in plan:
        cpu = sorted(x[1] for x in res[(c, lbl)])
        wall = sorted(x[0] for x in res[(c, lbl)])
        med[(c, lbl)] = statistics.median(cpu)
        print("| %s: %s | %d | %.2f | %.2f | %.2f - %.2f | %.2f - %.2f | %.0f |" % (
            c, lbl, len(cpu), cpu[0], med[(c, lbl)], cpu[0], cpu[-1], wall[0], wall[-1],
            max(x[2] for x in res[(c, lbl)])), flush=True)
    print()
    print("| check | ratio npyflow / h5py (CPU medians) | target | verdict |")
    print("|---|---:|---:|---|")
    for c in cases:
        if CASES[c][0] is None:
            continue
        ratio = med[(c, "npyflow")] / med[(c, "h5py")]
        print("| read 800 MiB %s | %.2f | 0.70 | %s |" % (c[:-5], ratio, "met" if ratio <= 0.7 else "NOT met"))


def check(work, npyflow, cases):
    import numpy as np
    p = lambda n: os.path.join(work, n)
    x = np.load(p("x.npy"), mmap_mode="r")
    for case in cases or [c for c in CASES if CASES[c][0] is not None]:
        nf, _, inp, out = CASES[case]
        out = p("check_" + out)
        subprocess.run([npyflow, "convert", "--progress=never"] + nf + [p(inp), out], check=True)
        ok = np.array_equal(np.load(out, mmap_mode="r"), x)
        print("%s: npyflow output equal to x.npy: %s" % (case, ok), flush=True)
        os.remove(out)


def main():
    a = sys.argv[1:]
    if a[0] == "job":
        job(a[1], a[2], a[3])
    elif a[0] == "gen":
        gen(a[1])
    elif a[0] == "run":
        runs = int(a[3]) if len(a) > 3 else 5
        run(a[1], a[2], runs, a[4:] or list(CASES))
    elif a[0] == "check":
        check(a[1], a[2], a[3:])


if __name__ == "__main__":
    main()
