#!/usr/bin/python3
"""Issues 13 and 14 at the issues' sizes: npyflow against h5py and
hdf5storage on an 800 MiB float64 array and a 10M-row table. Not run by
the tests.

    /usr/bin/python3 benchmarks/h5mat_800.py gen WORK
    /usr/bin/python3 benchmarks/h5mat_800.py run WORK NPYFLOW [RUNS] [CASE ...]
    /usr/bin/python3 benchmarks/h5mat_800.py wall2 WORK NPYFLOW [RUNS] [CASE ...]
    /usr/bin/python3 benchmarks/h5mat_800.py check WORK NPYFLOW [CASE ...]

gen writes the inputs into WORK (about 3.5 GB):

  x.npy       float64 (102400, 1024), 800 MiB: a random walk rounded to 3
              decimals (compresses about as much as measured data does)
  contig.h5   h5py, /x contiguous
  chunked.h5  h5py, /x chunks (400, 256), gzip 4 + shuffle: the chunking
              (hdf5's guess, at most 1 MiB) and filters that
              `npyflow convert x.npy out.h5` writes
  hs.mat      hdf5storage.savemat({'x': x}, format='7.3',
              matlab_compatible=True) (its defaults: gzip 7, shuffle,
              fletcher32)
  table.npy   10M rows: id i8, x f8, y f4, flag bool
  hs_t.mat    hdf5storage.savemat of {'t': {column: column vector}}

run times each case's two jobs (npyflow and the Python side) as whole
processes pinned to one core, `taskset -c 1 /usr/bin/time -f "%e %U %S %M"`,
RUNS times (default 5; CASE:N for N runs of one case) interleaved (the
inputs are read once first to warm the page cache), and prints min,
median and range of CPU seconds (user + sys), wall seconds and peak RSS.
Both sides do the same job, file to file: the Python side includes its
interpreter start-up and imports (the case `imports` measures those
alone), npyflow its start-up. mat_write_l3 is hdf5storage with npyflow's
compression (deflate 3, no shuffle, no fletcher32; its own chunking), to
be timed next to mat_write's npyflow row. Outputs go to WORK (page cache, no fsync
on either side).

check runs each npyflow conversion once more and compares its output with
the input (x.npy or table.npy): the .npy/.npz outputs with numpy, the .h5
with h5py, the .mat with hdf5storage.loadmat; then deletes the outputs.

wall2 times the compressed writers on both cores (`taskset -c 0,1`): where
npyflow's parallel chunk compression shows (wall clock, which the machine's
load makes noisy).
"""
import os
import statistics
import subprocess
import sys

ROWS, COLS = 102400, 1024
CHUNK, LEVEL = (400, 256), 4  # what npyflow convert x.npy out.h5 writes: chunks of <= 1 MiB, deflate 4 + shuffle
TROWS = 10_000_000
HERE = os.path.abspath(__file__)

# Python jobs: each is a whole process (python3 HERE job NAME IN OUT).
JOBS = {
    "imports": "import numpy, h5py, hdf5storage",
    "h5py_read": ("import numpy as np, h5py\n"
                  "with h5py.File(IN, 'r') as f:\n    a = f['x'][...]\nnp.save(OUT, a)"),
    "h5py_write": ("import numpy as np, h5py\na = np.load(IN)\n"
                   "with h5py.File(OUT, 'w') as f:\n"
                   "    f.create_dataset('x', data=a, chunks=%r, compression='gzip',"
                   " compression_opts=%d, shuffle=True)" % (CHUNK, LEVEL)),
    "hs_save": ("import numpy as np, hdf5storage\na = np.load(IN)\n"
                "hdf5storage.savemat(OUT, {'x': a}, format='7.3', matlab_compatible=True)"),
    "hs_save_l3": ("import numpy as np, hdf5storage\na = np.load(IN)\n"
                   "hdf5storage.savemat(OUT, {'x': a}, format='7.3', matlab_compatible=True,"
                   " gzip_compression_level=3, shuffle_filter=False, compressed_fletcher32_filter=False)"),
    "hs_load": ("import numpy as np, hdf5storage\na = hdf5storage.loadmat(IN)['x']\nnp.save(OUT, a)"),
    "hs_save_t": ("import numpy as np, hdf5storage\nt = np.load(IN)\n"
                  "hdf5storage.savemat(OUT, {'t': {k: t[k].reshape(-1, 1) for k in t.dtype.names}},"
                  " format='7.3', matlab_compatible=True)"),
    "hs_load_t": ("import numpy as np, hdf5storage\nt = hdf5storage.loadmat(IN)['t']\n"
                  "np.savez(OUT, **{'t.' + k: v for k, v in t.items()})"),
}

# case: (npyflow args or None, python job or None, input, output)
CASES = {
    "imports": (None, "imports", None, None),
    "h5_contig_read": (["--dataset", "/x"], "h5py_read", "contig.h5", "out.npy"),
    "h5_deflate_read": (["--dataset", "/x"], "h5py_read", "chunked.h5", "out.npy"),
    "h5_deflate_write": ([], "h5py_write", "x.npy", "out.h5"),
    "mat_write": ([], "hs_save", "x.npy", "out.mat"),
    "mat_write_l3": (None, "hs_save_l3", "x.npy", "out.mat"),
    "mat_read": ([], "hs_load", "hs.mat", "out.npy"),
    "table_mat_write": ([], "hs_save_t", "table.npy", "t.mat"),
    "table_mat_read": ([], "hs_load_t", "hs_t.mat", "out.npz"),
}


def gen(work):
    import h5py
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
    if not os.path.exists(p("contig.h5")):
        with h5py.File(p("contig.h5"), "w") as f:
            f.create_dataset("x", data=x)
    if not os.path.exists(p("chunked.h5")):
        with h5py.File(p("chunked.h5"), "w") as f:
            f.create_dataset("x", data=x, chunks=CHUNK, compression="gzip",
                             compression_opts=LEVEL, shuffle=True)
    if not os.path.exists(p("hs.mat")):
        job("hs_save", p("x.npy"), p("hs.mat"))
    if not os.path.exists(p("table.npy")):
        rng = np.random.default_rng(2)
        t = np.empty(TROWS, dtype=[("id", "<i8"), ("x", "<f8"), ("y", "<f4"), ("flag", "?")])
        t["id"] = np.arange(TROWS)
        t["x"] = np.round(np.cumsum(rng.standard_normal(TROWS)), 3)
        t["y"] = rng.standard_normal(TROWS).astype(np.float32)
        t["flag"] = rng.random(TROWS) < 0.3
        np.save(p("table.npy"), t)
    if not os.path.exists(p("hs_t.mat")):
        job("hs_save_t", p("table.npy"), p("hs_t.mat"))


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
    cmds.append((py, [sys.executable, HERE, "job", py] + args))
    return cmds


def load():
    return open("/proc/loadavg").read().split()[0]


def summary(label, res):
    cpu = sorted(r[1] for r in res)
    wall = sorted(r[0] for r in res)
    rss = max(r[2] for r in res)
    print("| %s | %d | %.2f | %.2f | %.2f - %.2f | %.2f - %.2f | %.0f |" % (
        label, len(res), cpu[0], statistics.median(cpu), cpu[0], cpu[-1], wall[0], wall[-1], rss), flush=True)


def run(work, npyflow, runs, cases, cores="1"):
    want = {}
    for c in cases:
        name, _, n = c.partition(":")
        want[name] = int(n) if n else runs
    plan = [(c, lbl, cmd) for c in want for lbl, cmd in commands(c, work, npyflow)]
    res = {(c, lbl): [] for c, lbl, _ in plan}
    loads = []
    for c in want:  # warm the page cache
        if CASES[c][2]:
            subprocess.run(["cat", os.path.join(work, CASES[c][2])], stdout=subprocess.DEVNULL, check=True)
    for r in range(1, max(want.values()) + 1):
        for c, lbl, cmd in plan:
            if r > want[c]:
                continue
            loads.append(load())
            t = timed(cmd, cores)
            print("# round %d %s %s: wall %.2f cpu %.2f rss %.0f MB (load %s)" % (r, c, lbl, t[0], t[1], t[2], loads[-1]),
                  file=sys.stderr, flush=True)
            res[(c, lbl)].append(t)
    print("1-minute load average at the runs: %s - %s" % (min(loads, key=float), max(loads, key=float)))
    print("| case: contender | runs | CPU s min | CPU s median | CPU s range | wall s range | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c, lbl, _ in plan:
        summary("%s: %s" % (c, lbl), res[(c, lbl)])


def check(work, npyflow, cases):
    import h5py
    import hdf5storage
    import numpy as np
    p = lambda n: os.path.join(work, n)
    x = np.load(p("x.npy"), mmap_mode="r")
    t = np.load(p("table.npy"), mmap_mode="r")
    for case in cases or ("h5_contig_read", "h5_deflate_read", "h5_deflate_write", "mat_write", "mat_read",
                          "table_mat_write", "table_mat_read"):
        nf, _, inp, out = CASES[case]
        out = p("check_" + out)
        subprocess.run([npyflow, "convert", "--progress=never"] + nf + [p(inp), out], check=True)
        if out.endswith(".npy"):
            ok = np.array_equal(np.load(out, mmap_mode="r"), x)
        elif out.endswith(".h5"):
            with h5py.File(out, "r") as f:
                ok = np.array_equal(f["x"][...], x)
        elif case == "mat_write":
            ok = np.array_equal(hdf5storage.loadmat(out)["x"], x)
        elif case == "table_mat_write":
            m = hdf5storage.loadmat(out)  # the variable is named after the input: table
            r = m["table"]
            # hdf5storage gives a structured array of shape (1,) whose
            # fields are (N, 1) sub-arrays: the struct's column vectors
            ok = r.shape == (1,) and all(r[k].shape == (1, len(t), 1) and np.array_equal(r[k].ravel(), t[k])
                                         for k in t.dtype.names)
        else:
            z = np.load(out)
            ok = all(np.array_equal(z["t." + k].ravel(), t[k]) and z["t." + k].shape == (len(t), 1)
                     for k in t.dtype.names)
        print("%s: npyflow output %s equal to the input: %s" % (case, os.path.basename(out), ok), flush=True)
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
    elif a[0] == "wall2":
        runs = int(a[3]) if len(a) > 3 else 3
        run(a[1], a[2], runs, a[4:] or ["h5_deflate_write", "mat_write", "table_mat_write"], cores="0,1")


if __name__ == "__main__":
    main()
