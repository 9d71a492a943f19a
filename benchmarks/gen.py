#!/usr/bin/python3
"""Generates the benchmark inputs with numpy (Debian's python3-numpy).

usage: gen.py DATADIR F64_ELEMS STRUCT_ROWS BIG_BYTES

Writes, skipping files that already exist with the right size:
  f64.npy     F64_ELEMS float64 values (standard normal, seed 1)
  struct.npy  STRUCT_ROWS records of STRUCT_DTYPE (see below)
  big.npy     BIG_BYTES/29 records of STRUCT_DTYPE, written in chunks
              (0 skips it)

Values are deterministic (numpy's PCG64 with fixed seeds), so every run
measures the same bytes.
"""
import os
import sys

import numpy as np

# Packed (numpy's default, align=False): 29 bytes per record.
STRUCT_DTYPE = np.dtype([
    ("id", "<i8"),
    ("x", "<f8"),
    ("y", "<f4"),
    ("flag", "?"),
    ("ts", "<M8[ms]"),
])

CHUNK = 1 << 20  # rows per generated chunk


def struct_chunk(rng, start, n):
    a = np.empty(n, dtype=STRUCT_DTYPE)
    a["id"] = np.arange(start, start + n, dtype=np.int64)
    a["x"] = rng.standard_normal(n)
    a["y"] = rng.random(n, dtype=np.float32) * 100
    a["flag"] = rng.random(n) < 0.3
    # Milliseconds from 2024-01-01, increasing by 0..999 ms per row: a
    # realistic event-time column.
    base = np.datetime64("2024-01-01T00:00:00", "ms").astype(np.int64)
    steps = rng.integers(0, 1000, n, dtype=np.int64)
    a["ts"] = (base + start * 500 + np.cumsum(steps)).astype("M8[ms]")
    return a


def have(path, shape, dtype):
    """Reports whether path already holds an array of shape and dtype."""
    if not os.path.exists(path):
        return False
    try:
        a = np.load(path, mmap_mode="r")
        return a.shape == tuple(shape) and a.dtype == dtype
    except Exception:
        return False


def write_chunked(path, n, dtype, make):
    tmp = path + ".tmp"
    out = np.lib.format.open_memmap(tmp, mode="w+", dtype=dtype, shape=(n,))
    for start in range(0, n, CHUNK):
        k = min(CHUNK, n - start)
        out[start:start + k] = make(start, k)
    out.flush()
    del out
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    d = sys.argv[1]
    n64, nstruct, big_bytes = (int(x) for x in sys.argv[2:5])
    os.makedirs(d, exist_ok=True)

    p = os.path.join(d, "f64.npy")
    if not have(p, (n64,), np.dtype("<f8")):
        rng = np.random.default_rng(1)
        write_chunked(p, n64, np.dtype("<f8"),
                      lambda s, k: rng.standard_normal(k))
        print("wrote", p)

    p = os.path.join(d, "struct.npy")
    if not have(p, (nstruct,), STRUCT_DTYPE):
        rng = np.random.default_rng(2)
        write_chunked(p, nstruct, STRUCT_DTYPE,
                      lambda s, k: struct_chunk(rng, s, k))
        print("wrote", p)

    p = os.path.join(d, "big.npy")
    nbig = big_bytes // STRUCT_DTYPE.itemsize
    if nbig > 0 and not have(p, (nbig,), STRUCT_DTYPE):
        rng = np.random.default_rng(3)
        write_chunked(p, nbig, STRUCT_DTYPE,
                      lambda s, k: struct_chunk(rng, s, k))
        print("wrote", p)


if __name__ == "__main__":
    main()
