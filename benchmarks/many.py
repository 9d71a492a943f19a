"""Issue 28: the cost of a file of N arrays, npyflow against the Python
tools (`make many`). Makes the files of benchmarks/manyarrays.py (1,000
and 8,000 arrays of 16 float64; hdf5storage's v7.3 struct 1,000 and
4,000 fields, the most its MATLAB_fields attribute holds), then times,
interleaved, RUNS rounds of each:

  npyflow convert IN out.npz        (bin/npyflow)
  the Python tool reading every array and np.savez writing them:
    .npz      np.load
    .h5       h5py (visititems)
    v7 .mat   scipy.io.loadmat
    v7.3 .mat h5py (visititems), as hdf5storage reads them

Prints a markdown table: the median wall time and CPU time (user+sys)
of each, and the growth from 1,000 to 8,000 arrays (linear: 8x).
    /usr/bin/python3 many.py DATA_DIR NPYFLOW [RUNS]
"""
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

READ = {
    "npz": "z = np.load(IN); d = {k: z[k] for k in z.files}",
    "h5": "import h5py\nd = {}\nwith h5py.File(IN, 'r') as f:\n"
          "    f.visititems(lambda k, o: d.__setitem__(k, o[()]) if isinstance(o, h5py.Dataset) else None)",
    "mat": "import scipy.io\nm = scipy.io.loadmat(IN)\nd = {k: v for k, v in m.items() if not k.startswith('__')}\n"
           "if list(d) == ['s']:\n    s = d['s'][0, 0]\n    d = {'s.' + k: s[k] for k in s.dtype.names}",
}
TOOL = {"npz": ("npz", "numpy"), "h5": ("h5", "h5py"), "h5dense": ("h5", "h5py"),
        "matvars": ("mat", "scipy"), "matstruct": ("mat", "scipy"),
        "mat73vars": ("h5", "h5py"), "mat73struct": ("h5", "h5py")}
SIZES = {"mat73struct": (1000, 4000)}


def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    data, npyflow = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    out = os.path.join(data, "out.npz")
    rows = []
    for kind, (rd, tool) in TOOL.items():
        res = {}
        for n in SIZES.get(kind, (1000, 8000)):
            path = subprocess.run([PY, os.path.join(HERE, "manyarrays.py"), data, str(n), kind],
                                  check=True, capture_output=True, text=True).stdout.split()[-1]
            prog = "import numpy as np\nIN = %r\n%s\nnp.savez(%r, **d)\n" % (path, READ[rd], out)
            t = {"npyflow": [], tool: []}
            for _ in range(runs):
                t["npyflow"].append(timed([npyflow, "convert", "--progress=never", path, out]))
                t[tool].append(timed([PY, "-c", prog]))
            res[n] = {k: (med([w for w, _ in v]), med([c for _, c in v])) for k, v in t.items()}
        lo, hi = sorted(res)
        for who in ("npyflow", tool):
            label = kind if hi == 8000 else "%s (%d,000 fields)" % (kind, hi // 1000)
            rows.append("| %s | %s | %.2f s (%.2f) | %.2f s (%.2f) | %.1fx | %.2fx |" % (
                label, who, res[lo][who][0], res[lo][who][1], res[hi][who][0], res[hi][who][1],
                res[hi][who][1] / max(res[lo][who][1], 1e-3),
                res[hi]["npyflow"][1] / max(res[hi][tool][1], 1e-3) if who == "npyflow" else 1.0))
    print("| input | tool | 1,000: wall (CPU) | 8,000: wall (CPU) | CPU growth | CPU at 8,000 vs the Python tool |")
    print("|---|---|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
