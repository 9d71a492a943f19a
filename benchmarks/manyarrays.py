"""Files of N small arrays (16 float64 each), written by the Python tools,
for issue 28's linear-cost benchmark (pipeline's BenchmarkManyArrays and
`make many`).

    /usr/bin/python3 manyarrays.py DIR N [KIND ...]

Writes into DIR, for each KIND (default: all):
  npz_N.npz          np.savez, N members a0..a{N-1}
  h5_N.h5            h5py, N datasets in the root group (symbol table)
  h5dense_N.h5       h5py libver='latest': dense link storage (fractal
                     heap, v2 B-tree name index)
  matvars_N.mat      scipy.io.savemat, N variables (v7, compressed)
  matstruct_N.mat    scipy.io.savemat, one 1x1 struct s of N fields
  mat73vars_N.mat    hdf5storage.savemat v7.3, N variables
  mat73struct_N.mat  hdf5storage.savemat v7.3, one struct s of N fields
A file that already exists is kept. Values: array i holds i*L .. i*L+L-1,
L = $MANY_LEN (default 16). With $MANY_JSON set, also writes
KIND_N.json: the count and the values of a few arrays as numpy reads
them back from the file written (the pipeline's TestArchiveOpenedOnce
fixtures, pipeline/testdata/many, are made with N=200, MANY_LEN=4).
"""
import os
import sys

import numpy as np

KINDS = ["npz", "h5", "h5dense", "matvars", "matstruct", "mat73vars", "mat73struct"]


LEN = int(os.environ.get("MANY_LEN", "16"))


def arrays(n):
    base = np.arange(LEN, dtype=np.float64)
    return {"a%d" % i: base + LEN * i for i in range(n)}


def readback(kind, path, names):
    """The values of names as the producer's own reader gives them."""
    if kind == "npz":
        with np.load(path) as z:
            return {k: z[k].ravel().tolist() for k in names}
    if kind in ("h5", "h5dense", "mat73vars", "mat73struct"):
        import h5py
        with h5py.File(path, "r") as f:
            g = f["s"] if kind == "mat73struct" else f
            return {k: np.asarray(g[k]).ravel().tolist() for k in names}
    import scipy.io
    m = scipy.io.loadmat(path, squeeze_me=True)
    if kind == "matstruct":
        return {k: np.ravel(m["s"][k].item()).tolist() for k in names}
    return {k: np.ravel(m[k]).tolist() for k in names}


def write(kind, path, n):
    a = arrays(n)
    if kind == "npz":
        np.savez(path, **a)
    elif kind in ("h5", "h5dense"):
        import h5py
        kw = {"libver": "latest"} if kind == "h5dense" else {}
        with h5py.File(path, "w", **kw) as f:
            for k, v in a.items():
                f.create_dataset(k, data=v)
    elif kind == "matvars":
        import scipy.io
        scipy.io.savemat(path, a, do_compression=True)
    elif kind == "matstruct":
        import scipy.io
        scipy.io.savemat(path, {"s": a}, do_compression=True)
    elif kind in ("mat73vars", "mat73struct"):
        import hdf5storage
        data = a if kind == "mat73vars" else {"s": a}
        # column vectors as MATLAB stores them
        hdf5storage.savemat(path, data, format="7.3", oned_as="column",
                            store_python_metadata=False, matlab_compatible=True)
    else:
        raise SystemExit("unknown kind " + kind)


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    kinds = sys.argv[3:] or KINDS
    os.makedirs(d, exist_ok=True)
    ext = {"npz": ".npz", "h5": ".h5", "h5dense": ".h5"}
    for k in kinds:
        p = os.path.join(d, "%s_%d%s" % (k, n, ext.get(k, ".mat")))
        if not os.path.exists(p):
            write(k, p, n)
        if os.environ.get("MANY_JSON"):
            import json
            names = ["a0", "a%d" % (n // 2), "a%d" % (n - 1)]
            with open(os.path.join(d, "%s_%d.json" % (k, n)), "w") as f:
                json.dump({"count": n, "values": readback(k, p, names)}, f, indent=1, sort_keys=True)
                f.write("\n")
        print(p)


if __name__ == "__main__":
    main()
