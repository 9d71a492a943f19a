#!/usr/bin/python3
"""Writes the fixtures of the szip, n-bit, scale-offset, bzip2, lzo and lzf
decoders into filters_a/, with the producers' own libraries (Debian's h5py
3.7 on HDF5 1.10.8 with libaec, PyTables 3.7, pandas 1.5), and h5py's
reading of each file as JSON next to it (the format of gen_h5py.py; for
n-bit datasets also "stored": the bytes in the file's own datatype, read
with that type as memory type, so without any conversion; a float type that
is not IEEE gets no "dtype" nor "raw": npyflow refuses its values).

Run from this directory: /usr/bin/python3 gen_filters_a.py
"""
import base64
import ctypes
import json
import os
import warnings

import numpy as np
import h5py
import tables  # registers the lzo and bzip2 filters with the HDF5 library
import pandas as pd

from gen_h5py import describe

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "filters_a")
RNG = np.random.default_rng(23)


def lowlevel(g, name, data, ftype, chunks, filters, fill=None, fill_undefined=False, mtype=None, shape=None):
    """A chunked dataset of file type ftype with filters, a list of
    (id, flags, cd_values) set in order, written from data."""
    data = np.asarray(data)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    for fid, flags, cd in filters:
        if fid == h5py.h5z.FILTER_SCALEOFFSET:
            dcpl.set_scaleoffset(cd[0], cd[1])
        elif fid == h5py.h5z.FILTER_SZIP:
            dcpl.set_szip(cd[0], cd[1])
        elif fid == h5py.h5z.FILTER_DEFLATE:
            dcpl.set_deflate(cd[0])
        elif fid == h5py.h5z.FILTER_SHUFFLE:
            dcpl.set_shuffle()
        else:
            dcpl.set_filter(fid, flags, cd)
    if fill is not None:
        dcpl.set_fill_value(np.array(fill, dtype=data.dtype))
    if fill_undefined:
        lib = ctypes.CDLL("libhdf5_serial.so.103")
        lib.H5Pset_fill_value.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
        if lib.H5Pset_fill_value(dcpl.id, ftype.id, None) < 0:
            raise RuntimeError("H5Pset_fill_value(NULL)")
    space = h5py.h5s.create_simple(shape or data.shape)
    dsid = h5py.h5d.create(g.id, name.encode(), ftype, space, dcpl=dcpl)
    if mtype is None:
        mtype = h5py.h5t.py_create(data.dtype)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=mtype)
    return dsid


def int_type(base, precision, offset):
    t = base.copy()
    t.set_precision(precision)
    t.set_offset(offset)
    return t


def smooth(n, scale=100.0):
    return np.cumsum(RNG.normal(0, 1, n)) * scale / np.sqrt(n)


def lz_data(n, seed):
    """Bytes that make an LZ coder use every kind of instruction: short and
    long literal runs, short matches near and far (over 16 KiB back), long
    runs of zeros."""
    rng = np.random.default_rng(seed)
    words = [bytes(rng.integers(97, 123, rng.integers(2, 9)).astype("u1")) for _ in range(40)]
    out = bytearray()
    while len(out) < n:
        r = rng.random()
        if r < 0.45:
            out += words[rng.integers(0, 40)] + b" "
        elif r < 0.55:
            out += bytes(rng.integers(0, 256, rng.integers(1, 4)).astype("u1"))
        elif r < 0.58:
            out += bytes(rng.integers(0, 256, rng.integers(250, 700)).astype("u1"))
        elif r < 0.61:
            out += b"\0" * int(rng.integers(20, 2000))
        elif r < 0.70 and len(out) > 17000:
            start = int(rng.integers(0, len(out) - 16500))
            out += out[start:start + int(rng.integers(3, 300))]
        elif len(out) > 3200:
            back = int(rng.integers(1, 3100))
            out += out[-back:][:int(rng.integers(3, 12))]
        else:
            out += words[rng.integers(0, 40)]
    return np.frombuffer(bytes(out[:n]), "u1")


def gen_h5py(path):
    with h5py.File(path, "w", libver="latest") as f:
        # --- LZF (h5py's own filter) ---
        g = f.create_group("lzf")
        g.create_dataset("i4_1d", data=(np.arange(1000) % 37).astype("<i4"), chunks=(128,), compression="lzf")
        g.create_dataset("f8_2d", data=smooth(30 * 17).reshape(30, 17).round(2), chunks=(16, 10), compression="lzf")
        g.create_dataset("be_u2_3d", data=np.arange(5 * 7 * 9, dtype=">u2").reshape(5, 7, 9) // 3, chunks=(2, 3, 4), compression="lzf")
        comp = np.dtype([("a", "<i4"), ("b", ">f8"), ("name", "S5")])
        cv = np.zeros(20, dtype=comp)
        cv["a"] = np.arange(20) // 4
        cv["b"] = np.arange(20) / 8
        cv["name"] = [b"ab", b"abc"] * 10
        g.create_dataset("compound", data=cv, chunks=(6,), compression="lzf")
        # Random bytes do not shrink: those chunks are stored as they are,
        # their filter mask bit set.
        g.create_dataset("random", data=RNG.integers(0, 256, 500).astype("u1"), chunks=(100,), compression="lzf")
        g.create_dataset("fletcher", data=np.repeat(np.arange(50, dtype="<f4"), 7), chunks=(64,), compression="lzf", fletcher32=True)
        g.create_dataset("shuffle", data=np.arange(300, dtype="<i8") * 1001, chunks=(50,), compression="lzf", shuffle=True)
        g.create_dataset("long_runs", data=np.repeat(np.arange(4, dtype="u1"), 1500), chunks=(2500,), compression="lzf")
        g.create_dataset("mixed", data=lz_data(8000, 1), chunks=(6000,), compression="lzf")

        # --- SZIP (libaec through the HDF5 library) ---
        g = f.create_group("szip")
        NN, EC = h5py.h5z.SZIP_NN_OPTION_MASK, h5py.h5z.SZIP_EC_OPTION_MASK
        low = np.repeat(np.array([5, 5, 5, 6, 9, 9, 0, 0], dtype="u1"), 40)
        low[100:260] = 0  # zero blocks
        g.create_dataset("nn8_u1", data=low, chunks=(160,), compression="szip", compression_opts=("nn", 8))
        g.create_dataset("ec8_u1", data=low, chunks=(160,), compression="szip", compression_opts=("ec", 8))
        walk = (np.cumsum(RNG.integers(-3, 4, 600)) + 3000).astype("<u2")
        g.create_dataset("nn16_u2", data=walk, chunks=(256,), compression="szip", compression_opts=("nn", 16))
        g.create_dataset("ec32_u2_random", data=RNG.integers(0, 65536, 600).astype("<u2"), chunks=(256,), compression="szip", compression_opts=("ec", 32))
        g.create_dataset("nn32_be_i4", data=(np.cumsum(RNG.integers(-100, 100, 700)) - 5000).astype(">i4"), chunks=(300,), compression="szip", compression_opts=("nn", 32))
        g.create_dataset("nn8_f4_2d", data=smooth(30 * 10).astype("<f4").reshape(30, 10), chunks=(7, 10), compression="szip", compression_opts=("nn", 8))
        g.create_dataset("ec16_be_f8", data=smooth(200).astype(">f8"), chunks=(96,), compression="szip", compression_opts=("ec", 16))
        g.create_dataset("nn16_i8_2d", data=(np.arange(12 * 33, dtype="<i8") * 977).reshape(12, 33), chunks=(5, 33), compression="szip", compression_opts=("nn", 16))
        # Scanlines of 10 pixels, blocks of 8: padded scanlines.
        g.create_dataset("pad_i2_2d", data=(np.arange(17 * 10, dtype="<i2") * 7 - 300).reshape(17, 10), chunks=(6, 10), compression="szip", compression_opts=("nn", 8))
        # A last dimension smaller than a block: the scanline is the chunk.
        g.create_dataset("narrow_u1", data=(np.arange(40 * 3) % 11).astype("u1").reshape(40, 3), chunks=(20, 3), compression="szip", compression_opts=("nn", 8))
        # Precision 12 in 2-byte integers: 12 bits per sample.
        t12 = int_type(h5py.h5t.STD_U16LE, 12, 0)
        lowlevel(g, "prec12_u2", (np.arange(500) * 13 % 4096).astype("<u2"), t12, (200,),
                 [(h5py.h5z.FILTER_SZIP, 0, (NN, 16))])
        # Precision 20 in 4-byte integers, big-endian.
        t20 = int_type(h5py.h5t.STD_U32BE, 20, 0)
        lowlevel(g, "prec20_be_u4", (np.cumsum(RNG.integers(0, 50, 300)) % (1 << 20)).astype(">u4"), t20, (128,),
                 [(h5py.h5z.FILTER_SZIP, 0, (NN, 32))], mtype=h5py.h5t.STD_U32BE)
        # The chip and k13 options, kept in cd_values, change nothing for libaec.
        lowlevel(g, "chip_k13_u1", low, h5py.h5t.STD_U8LE, (160,),
                 [(h5py.h5z.FILTER_SZIP, 0, (NN | h5py.h5z.SZIP_CHIP_OPTION_MASK | h5py.h5z.SZIP_ALLOW_K13_OPTION_MASK, 8))])
        g.create_dataset("nn8_be_u2", data=walk.astype(">u2"), chunks=(256,), compression="szip", compression_opts=("nn", 8))
        lowlevel(g, "prec20_u4", (np.cumsum(RNG.integers(0, 50, 300)) % (1 << 20)).astype("<u4"), int_type(h5py.h5t.STD_U32LE, 20, 0), (128,),
                 [(h5py.h5z.FILTER_SZIP, 0, (EC, 16))])
        g.create_dataset("szip_deflate", data=walk, chunks=(200,), compression="szip", compression_opts=("nn", 8), shuffle=True, fletcher32=True)

        # --- scale-offset ---
        g = f.create_group("scaleoffset")
        for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
            info = np.iinfo(t)
            base = max(info.min, -100) if t[0] == "i" else 50
            v = (base + (np.arange(300) * 7) % 120).astype(t)
            g.create_dataset(t, data=v, chunks=(64,), scaleoffset=True)
        g.create_dataset("be_i4_2d", data=(np.arange(20 * 13, dtype=">i4") * 3 - 400).reshape(20, 13), chunks=(8, 5), scaleoffset=True)
        g.create_dataset("be_u8", data=(np.arange(100, dtype=">u8") + 2**40), chunks=(30,), scaleoffset=True)
        # A fill value; the first chunk untouched, others partly.
        d = g.create_dataset("fill_i2", shape=(100,), dtype="<i2", chunks=(16,), scaleoffset=True, fillvalue=-999)
        d[20:40] = np.arange(20) - 5
        d[41] = -999
        d[60:] = 7
        # Fixed minimum bits.
        g.create_dataset("minbits32_i4", data=np.arange(-50, 50, dtype="<i4") * 1000003, chunks=(32,), scaleoffset=32)
        g.create_dataset("minbits10_i4", data=(np.arange(200) % 1000).astype("<i4"), chunks=(64,), scaleoffset=10)
        # A chunk spanning the whole range: stored at full size.
        g.create_dataset("full_i1", data=np.tile(np.array([-128, 127, 0, 5], dtype="i1"), 25), chunks=(40,), scaleoffset=True)
        g.create_dataset("const_u2", data=np.full(50, 4321, dtype="<u2"), chunks=(25,), scaleoffset=True)
        g.create_dataset("f4_d2", data=smooth(300).astype("<f4"), chunks=(64,), scaleoffset=2)
        g.create_dataset("f8_d3_2d", data=smooth(30 * 12).reshape(30, 12), chunks=(7, 12), scaleoffset=3)
        g.create_dataset("be_f4_d1", data=smooth(100).astype(">f4"), chunks=(40,), scaleoffset=1)
        g.create_dataset("be_f8_d0", data=smooth(100, 1e4).astype(">f8"), chunks=(40,), scaleoffset=0)
        d = g.create_dataset("fill_f8", shape=(70,), dtype="<f8", chunks=(20,), scaleoffset=2, fillvalue=-1.5)
        d[10:30] = np.linspace(-3, 3, 20)
        d[50:] = 0.25
        # Undefined fill value (H5Pset_fill_value with NULL): a constant
        # chunk needs 0 bits per value.
        lowlevel(g, "nofill_const_i4", np.repeat(np.array([17, 17, 17, 18], dtype="<i4"), 25), h5py.h5t.STD_I32LE, (50,),
                 [(h5py.h5z.FILTER_SCALEOFFSET, 0, (h5py.h5z.SO_INT, 0))], fill_undefined=True)
        lowlevel(g, "nofill_f4", smooth(90).astype("<f4"), h5py.h5t.IEEE_F32LE, (30,),
                 [(h5py.h5z.FILTER_SCALEOFFSET, 0, (h5py.h5z.SO_FLOAT_DSCALE, 3))], fill_undefined=True)
        g.create_dataset("so_deflate", data=(np.arange(400) % 50).astype("<u4"), chunks=(100,), scaleoffset=True, compression="gzip", shuffle=True)

        # --- n-bit ---
        g = f.create_group("nbit")
        NB = [(h5py.h5z.FILTER_NBIT, h5py.h5z.FLAG_OPTIONAL, ())]
        v = np.arange(-10, 10, dtype="<i4") * 37
        lowlevel(g, "i4_p12_o3", v, int_type(h5py.h5t.STD_I32LE, 12, 3), (7,), NB)
        lowlevel(g, "u4_p12_o3", np.abs(v).astype("<u4"), int_type(h5py.h5t.STD_U32LE, 12, 3), (7,), NB)
        lowlevel(g, "be_u2_p9", (np.arange(60) * 9 % 512).astype(">u2").reshape(6, 10), int_type(h5py.h5t.STD_U16BE, 9, 0), (4, 4), NB)
        lowlevel(g, "be_i8_p40_o10", (np.arange(-30, 30, dtype=">i8") * 12345678), int_type(h5py.h5t.STD_I64BE, 40, 10), (16,), NB)
        lowlevel(g, "u1_p3_o2", (np.arange(50) % 8).astype("u1"), int_type(h5py.h5t.STD_U8LE, 3, 2), (16,), NB)
        lowlevel(g, "i2_p16_full", np.arange(-20, 20, dtype="<i2"), h5py.h5t.STD_I16LE, (16,), NB)
        # A float of 1 sign, 6 exponent and 13 mantissa bits at offset 7
        # (the library's own n-bit test type).
        ft = h5py.h5t.IEEE_F32BE.copy()
        ft.set_fields(26, 20, 6, 7, 13)
        ft.set_offset(7)
        ft.set_precision(20)
        ft.set_size(4)
        ft.set_ebias(31)
        lowlevel(g, "f4_custom", np.linspace(-10, 10, 30).astype("<f4"), ft, (8,), NB, mtype=h5py.h5t.NATIVE_FLOAT)
        # A compound: a reduced integer, a full double, a string (copied
        # as is) and an array of reduced integers.
        ct = h5py.h5t.create(h5py.h5t.COMPOUND, 24)
        ct.insert(b"a", 0, int_type(h5py.h5t.STD_I32LE, 12, 0))
        ct.insert(b"b", 4, h5py.h5t.IEEE_F64LE)
        st = h5py.h5t.C_S1.copy()
        st.set_size(3)
        ct.insert(b"s", 12, st)
        ct.insert(b"arr", 16, h5py.h5t.array_create(int_type(h5py.h5t.STD_U16LE, 10, 2), (2,)))
        ct.insert(b"u", 20, int_type(h5py.h5t.STD_U32BE, 17, 5))
        mt = np.dtype([("a", "<i4"), ("b", "<f8"), ("s", "S3"), ("arr", "<u2", (2,)), ("u", ">u4")])
        cvn = np.zeros(25, dtype=mt)
        cvn["a"] = np.arange(25) * 40 - 500
        cvn["b"] = np.arange(25) / 3
        cvn["s"] = [b"x", b"yz", b"abc", b""] * 6 + [b"q"]
        cvn["arr"] = np.arange(50).reshape(25, 2) * 17
        cvn["u"] = np.arange(25) * 4001
        mtype = h5py.h5t.py_create(mt)
        lowlevel(g, "compound", cvn, ct, (6,), NB, mtype=mtype)
        at = h5py.h5t.array_create(int_type(h5py.h5t.STD_I16LE, 7, 0), (2, 2))
        lowlevel(g, "array_i2_p7", (np.arange(-40, 40) % 100 - 50).astype("<i2").reshape(20, 2, 2), at, (6,), NB,
                 mtype=h5py.h5t.array_create(h5py.h5t.NATIVE_INT16, (2, 2)), shape=(20,))
        lowlevel(g, "nbit_deflate", (np.arange(300) % 200).astype("<u2"), int_type(h5py.h5t.STD_U16LE, 8, 0), (64,),
                 NB + [(h5py.h5z.FILTER_DEFLATE, 0, (4,))])


def gen_tables(path):
    with tables.open_file(path, "w") as f:
        for lib in ["bzip2", "lzo"]:
            g = f.create_group("/", lib)
            filt = tables.Filters(complevel=5, complib=lib)
            shuf = tables.Filters(complevel=9, complib=lib, shuffle=True)
            a = f.create_carray(g, "carray_f8", atom=tables.Float64Atom(), shape=(40, 20), chunkshape=(16, 8), filters=filt)
            a[:] = smooth(800).reshape(40, 20).round(3)
            b = f.create_carray(g, "carray_be_i4", atom=tables.Int32Atom(), shape=(90,), chunkshape=(40,), filters=shuf, byteorder="big")
            b[:] = np.arange(90) * 3 - 100
            m = f.create_carray(g, "mixed", atom=tables.UInt8Atom(), shape=(8000,), chunkshape=(6000,), filters=filt)
            m[:] = lz_data(8000, 2)
            e = f.create_earray(g, "earray_u2", atom=tables.UInt16Atom(), shape=(0, 5), chunkshape=(16, 5), filters=filt)
            e.append((np.arange(100 * 5) % 1000).astype("u2").reshape(100, 5))

            class Rec(tables.IsDescription):
                ident = tables.Int64Col(pos=0)
                x = tables.Float32Col(pos=1)
                name = tables.StringCol(6, pos=2)
            t = f.create_table(g, "table", Rec, filters=filt, chunkshape=(32,))
            r = t.row
            for i in range(150):
                r["ident"] = i * 11
                r["x"] = i / 7
                r["name"] = b"n%d" % (i % 13)
                r.append()
            t.flush()


def gen_pandas(path):
    df = pd.DataFrame({
        "i": np.arange(120, dtype="i8") * 3,
        "f": np.linspace(0, 1, 120),
        "g": (np.arange(120) % 7).astype("f4"),
    })
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pd.HDFStore(path, "w", complib="bzip2", complevel=5) as st:
            st.put("bzip2_fixed", df, format="fixed")
            st.put("bzip2_table", df, format="table", index=False)
        with pd.HDFStore(path, "a", complib="lzo", complevel=5) as st:
            st.put("lzo_fixed", df, format="fixed")
            st.put("lzo_table", df, format="table", index=False)


def gen_lzo1x(path):
    """LZO1X streams written by liblzo2 itself (PyTables links it): its
    fast coder (as PyTables uses) and its best one (lzo1x_999), which uses
    the 2- and 3-byte matches and the first-literal-run code the fast one
    leaves out. Each with the length and SHA-256 of its input."""
    import hashlib
    lib = ctypes.CDLL("liblzo2.so.2")
    if lib.__lzo_init_v2(0x20a0, 2, 4, 8, 4, 8, 8, 8, 8, 48) != 0:  # lzo_init()
        raise RuntimeError("lzo_init")
    wrk = ctypes.create_string_buffer(1 << 20)
    out = []
    rng = np.random.default_rng(7)
    inputs = [("text", lz_data(20000, 3).tobytes()),
              ("nomatch", bytes(rng.integers(0, 256, 100).astype("u1"))),
              ("zeros", bytes(5000))]
    for name, data in inputs:
        for coder in ["lzo1x_1_compress", "lzo1x_999_compress"]:
            dst = ctypes.create_string_buffer(len(data) + len(data) // 16 + 67)
            n = ctypes.c_size_t(len(dst))
            if getattr(lib, coder)(data, ctypes.c_size_t(len(data)), dst, ctypes.byref(n), wrk) != 0:
                raise RuntimeError(coder)
            out.append({"name": name + "/" + coder, "stream": base64.b64encode(dst.raw[:n.value]).decode(),
                        "len": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


def stored(path, objs):
    """Adds "stored" (the bytes in the file's datatype) to n-bit datasets."""
    with h5py.File(path, "r") as f:
        for p, e in objs.items():
            if e.get("kind") != "dataset" or h5py.h5z.FILTER_NBIT not in e.get("filters", []):
                continue
            d = f[p]
            ft = d.id.get_type()
            raw = np.empty(d.shape, dtype="V%d" % ft.get_size())
            d.id.read(h5py.h5s.ALL, h5py.h5s.ALL, raw, mtype=ft)
            e["stored"] = base64.b64encode(raw.tobytes()).decode()
            if isinstance(ft, h5py.h5t.TypeFloatID) and ft.get_fields()[2:] not in [(5, 0, 10), (8, 0, 23), (11, 0, 52)]:
                # Not an IEEE float: npyflow refuses the values (h5py
                # converts them), but the stored bytes are compared.
                for k in ["dtype", "raw", "npshape"]:
                    e.pop(k, None)
                e["note"] = "not an IEEE float: npyflow refuses its values"


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, gen in [("h5py", gen_h5py), ("tables", gen_tables), ("pandas", gen_pandas)]:
        path = os.path.join(HERE, name + ".h5")
        gen(path)
        objs = describe(path)
        stored(path, objs)
        with open(os.path.join(HERE, name + ".json"), "w") as out:
            json.dump(objs, out, indent=1, sort_keys=True)
    gen_lzo1x(os.path.join(HERE, "lzo1x.json"))


if __name__ == "__main__":
    main()
