#!/usr/bin/python3
"""numpy contenders. Each prints one line:

    RESULT op_secs=<seconds of the timed operation> check=<value>

usage:
  pybench.py load IN.npy            np.load (whole read)
  pybench.py save IN.npy OUT.npy    np.save of IN, loaded first (untimed)
  pybench.py savez IN.npy OUT.npz   np.savez_compressed(OUT, x=IN)
  pybench.py npzload IN.npz         np.load(IN)["x"], fully read
  pybench.py expect IN.npy          prints VERIFY <summary> of a structured
                                    array, the format duckdb_bench.mjs check
                                    and gobench ipccheck print

Only the operation is timed: interpreter start-up, the numpy import and
loading the input of a write are not.
"""
import os
import sys
import time

import numpy as np


def check(a):
    if a.dtype.names:
        return "rows=%d,id_sum=%d" % (a.shape[0], int(a["id"].sum()))
    return "n=%d,sum=%.6e" % (a.size, float(a.sum()))


def main():
    op = sys.argv[1]
    if op == "expect":
        a = np.load(sys.argv[2], mmap_mode="r")
        print("VERIFY rows=%d,id_sum=%d,x_sum=%.5e,flag_sum=%d,ts_min=%d,ts_max=%d" % (
            a.shape[0], int(a["id"].sum()), float(a["x"].sum()), int(a["flag"].sum()),
            int(a["ts"].min().astype(np.int64)), int(a["ts"].max().astype(np.int64))))
        return
    if op == "load":
        t = time.perf_counter()
        a = np.load(sys.argv[2])
        secs = time.perf_counter() - t
    elif op in ("save", "savez"):
        a = np.load(sys.argv[2])
        out = sys.argv[3]
        t = time.perf_counter()
        if op == "save":
            with open(out, "wb") as f:
                np.save(f, a)
        else:
            with open(out, "wb") as f:
                np.savez_compressed(f, x=a)
        secs = time.perf_counter() - t
    elif op == "npzload":
        t = time.perf_counter()
        with np.load(sys.argv[2]) as z:
            a = z["x"]
        secs = time.perf_counter() - t
    else:
        sys.exit("unknown op " + op)
    line = "RESULT op_secs=%.6f check=%s" % (secs, check(a))
    if op in ("save", "savez"):
        line += " out_bytes=%d" % os.path.getsize(out)
    print(line + " version=%s" % np.__version__)


if __name__ == "__main__":
    main()
