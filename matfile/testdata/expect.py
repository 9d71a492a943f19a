"""Shared helper of the fixture generators: flattens what a reader
(scipy.io.loadmat, hdf5storage.loadmat) returned into the member paths
matfile uses, and writes the expectations as JSON.

Each member: class (MATLAB class as the producer's reader reports it),
dtype (numpy typestr, little-endian), shape, and the values in MATLAB's
column-major order: "hex" (the little-endian bytes) for numbers and bools
("sha256" of those bytes when over 4 KiB),
"strings" for char arrays (one per row, as chars_as_strings gives them).
"""
import json
import numpy as np


def members(name, v, out):
    """Flatten v (as scipy.io.loadmat returns it, struct_as_record=True)."""
    if isinstance(v, np.ndarray) and v.dtype.names is not None:
        n = v.size
        flat = v.reshape(-1, order="F")
        if n == 0 or not v.dtype.names:
            out[name] = {"marker": "struct", "shape": list(v.shape)}
            return
        for k in range(n):
            prefix = name if n == 1 else "%s(%d)" % (name, k + 1)
            for f in v.dtype.names:
                members(prefix + "." + f, flat[k][f], out)
        return
    if isinstance(v, np.ndarray) and v.dtype == object:
        if v.size == 0:
            out[name] = {"marker": "cell", "shape": list(v.shape)}
            return
        flat = v.reshape(-1, order="F")
        for k in range(v.size):
            members("%s{%d}" % (name, k + 1), flat[k], out)
        return
    if hasattr(v, "toarray"):  # scipy.sparse
        v = v.toarray()
        out[name] = array_entry(np.asarray(v))
        out[name]["sparse"] = True
        return
    out[name] = array_entry(np.asarray(v))


def array_entry(a):
    if a.dtype.kind == "U":
        flat = a.reshape(-1, order="F")
        return {"dtype": "<U%d" % (a.dtype.itemsize // 4), "shape": list(a.shape),
                "strings": [str(s) for s in flat]}
    dt = a.dtype.newbyteorder("<") if a.dtype.byteorder not in "|" else a.dtype
    b = np.asfortranarray(a.astype(dt)).tobytes(order="F")
    if len(b) > 4096:
        import hashlib
        return {"dtype": dt.str, "shape": list(a.shape), "sha256": hashlib.sha256(b).hexdigest()}
    return {"dtype": dt.str, "shape": list(a.shape), "hex": b.hex()}


def write(path, entries, notes=None):
    doc = {"members": entries}
    if notes:
        doc["notes"] = notes
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def h5s_normalize(v):
    """Turns what hdf5storage.loadmat returns into scipy.io.loadmat's
    shapes: char arrays (hdf5storage: an (m, 1) array of row strings) as
    (m,) arrays, an m x 0 char as m empty strings, recursively through
    cells and structs."""
    import numpy as np
    if isinstance(v, np.ndarray) and v.dtype.kind == "U" and v.ndim == 2 and v.shape[1] == 1:
        return v.reshape(v.shape[0])
    if isinstance(v, np.ndarray) and v.dtype.kind == "U" and v.ndim == 2 and v.shape[1] == 0:
        # An m x 0 char: hdf5storage returns the empty (m, 0) array, scipy
        # m empty strings.
        return np.array([""] * v.shape[0], dtype="U1")
    if isinstance(v, np.ndarray) and v.dtype == object:
        out = np.empty(v.shape, dtype=object)
        for i, x in np.ndenumerate(v):
            out[i] = h5s_normalize(x)
        return out
    if isinstance(v, np.ndarray) and v.dtype.names is not None:
        out = np.empty(v.shape, dtype=[(f, object) for f in v.dtype.names])
        for i in np.ndindex(v.shape):
            out[i] = tuple(h5s_normalize(np.asarray(v[i][f])) for f in v.dtype.names)
        if out.ndim == 1:
            out = out.reshape((1, out.shape[0]))
        return out
    return v
