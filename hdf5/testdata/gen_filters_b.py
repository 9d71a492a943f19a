#!/usr/bin/python3
"""Writes the fixtures of the plugin filters blosc (32001), lz4 (32004),
bitshuffle (32008), zstd (32015) and blosc2 (32026), and h5py's reading of
each dataset as JSON next to each file.

Run from this directory with Debian's packages: /usr/bin/python3 gen_filters_b.py

Producers:
  filters_b_h5py.h5    h5py 3.7 with hdf5plugin 4.0 and Debian's plugins:
                       Blosc (c-blosc 1.21, every codec and shuffle mode,
                       block and split layouts chosen with c-blosc's
                       BLOSC_BLOCKSIZE / BLOSC_SPLITMODE variables), LZ4,
                       Bitshuffle (plain and LZ4); Zstandard through the
                       filter below (libzstd called as the reference
                       HDF5Plugin-Zstandard does, registered with libhdf5
                       through ctypes: Debian has no zstd plugin).
                       /bitshuffle/zstd_*: chunks written by this script
                       (bitshuffle's own transform, then libzstd, framed as
                       bitshuffle's HDF5 filter does) because Debian's
                       bitshuffle stores "zstd" chunks uncompressed.
  filters_b_tables.h5  PyTables 3.7: blosc with each of its codecs.
  filters_b_pandas.h5  pandas 1.5 HDFStore(complib='blosc:...').
  filters_b_blosc2.h5  Blosc2 frames written by this script from c-blosc2's
                       published formats (README_CHUNK_FORMAT, _CFRAME_FORMAT,
                       _B2ND_METALAYER), as hdf5-blosc2 stores them: Debian
                       has no Blosc2 library. Expected values are the arrays
                       written (no reader here can check them).
  filters_b_bad.h5     chunks a reader must refuse cleanly.

Each X.json maps dataset paths to shape, layout, chunks, filter ids, class,
numpy dtype and the array's bytes, zlib-compressed then base64 ("rawz"):
the format of gen_h5py.py otherwise.
"""
import base64
import ctypes
import json
import os
import struct
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

import h5py  # noqa: E402
import hdf5plugin  # noqa: E402
import lz4.block  # noqa: E402

# bitshuffle's own transform (the /bitshuffle/zstd_* chunks and Blosc2's
# bitshuffle slot) needs the Python bitshuffle module, which Debian does
# not package. The checkers import this file only for register_zstd, so
# without it they run (BITSHUFFLE_MISSING says why it is absent); writing
# the fixtures refuses (main) rather than drop their bitshuffle cases.
try:
    import bitshuffle  # noqa: E402
    BITSHUFFLE_MISSING = None
except ImportError as e:
    bitshuffle = None
    BITSHUFFLE_MISSING = str(e)



def plain(dt):
    """dt without h5py's metadata (as gen_h5py.py does)."""
    if dt.fields is None:
        if dt.subdtype is not None:
            return np.dtype((plain(dt.subdtype[0]), dt.subdtype[1]))
        return np.dtype(dt.str)
    return np.dtype({"names": list(dt.names), "formats": [plain(dt.fields[n][0]) for n in dt.names],
                     "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize})


def b64(b):
    return base64.b64encode(b).decode()


def layout_json(ds):
    dcpl = ds.id.get_create_plist()
    out = {"layout": "chunked", "chunks": list(ds.chunks)}
    out["filters"] = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
    return out

# ---------------------------------------------------------------------------
# Filter 32015 (Zstandard) registered with libhdf5 through ctypes: the
# reference plugin (HDF5Plugin-Zstandard) calls ZSTD_compress with the level
# in cd_values[0] and ZSTD_decompress with the frame's content size.

H5 = ctypes.CDLL("libhdf5_serial.so.103")
ZSTD = ctypes.CDLL("libzstd.so.1")
H5.H5allocate_memory.restype = ctypes.c_void_p
H5.H5allocate_memory.argtypes = [ctypes.c_size_t, ctypes.c_bool]
H5.H5free_memory.argtypes = [ctypes.c_void_p]
H5.H5Zregister.argtypes = [ctypes.c_void_p]
ZSTD.ZSTD_compressBound.restype = ctypes.c_size_t
ZSTD.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
ZSTD.ZSTD_compress.restype = ctypes.c_size_t
ZSTD.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
ZSTD.ZSTD_decompress.restype = ctypes.c_size_t
ZSTD.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
ZSTD.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
ZSTD.ZSTD_getFrameContentSize.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
ZSTD.ZSTD_isError.restype = ctypes.c_uint
ZSTD.ZSTD_isError.argtypes = [ctypes.c_size_t]

FILTER_FUNC = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_uint, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint),
                               ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_void_p))


class H5ZClass2(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("id", ctypes.c_int), ("encoder_present", ctypes.c_uint),
                ("decoder_present", ctypes.c_uint), ("name", ctypes.c_char_p), ("can_apply", ctypes.c_void_p),
                ("set_local", ctypes.c_void_p), ("filter", FILTER_FUNC)]


H5Z_FLAG_REVERSE = 0x0100


def _zstd_filter(flags, nelmts, cd_values, nbytes, buf_size, buf):
    try:
        src = buf[0]
        if flags & H5Z_FLAG_REVERSE:
            size = ZSTD.ZSTD_getFrameContentSize(src, nbytes)
            if size >= 0xFFFFFFFFFFFFFFFE:
                return 0
            out = H5.H5allocate_memory(max(size, 1), False)
            n = ZSTD.ZSTD_decompress(out, size, src, nbytes)
            cap = size
        else:
            level = cd_values[0] if nelmts > 0 else 3
            cap = ZSTD.ZSTD_compressBound(nbytes)
            out = H5.H5allocate_memory(cap, False)
            n = ZSTD.ZSTD_compress(out, cap, src, nbytes, level)
        if ZSTD.ZSTD_isError(n):
            H5.H5free_memory(out)
            return 0
        H5.H5free_memory(src)
        buf[0] = out
        buf_size[0] = cap
        return n
    except Exception:  # noqa: BLE001 - a filter must not raise into C
        return 0


_ZSTD_FUNC = FILTER_FUNC(_zstd_filter)
_ZSTD_CLASS = H5ZClass2(1, 32015, 1, 1, b"zstd (ctypes, libzstd)", None, None, _ZSTD_FUNC)


def register_zstd():
    """Registers filter 32015 with the libhdf5 h5py uses."""
    if H5.H5Zregister(ctypes.byref(_ZSTD_CLASS)) < 0:
        raise RuntimeError("H5Zregister failed")


def zstd_compress(b, level=3):
    cap = ZSTD.ZSTD_compressBound(len(b))
    out = ctypes.create_string_buffer(cap)
    n = ZSTD.ZSTD_compress(out, cap, b, len(b), level)
    assert not ZSTD.ZSTD_isError(n)
    return out.raw[:n]


# ---------------------------------------------------------------------------
# Bitshuffle + Zstandard chunks, framed as bitshuffle's HDF5 filter does:
# big-endian uint64 decoded size, uint32 block size in bytes, then per block
# a big-endian uint32 size and a zstd frame of the bitshuffled block; the
# last n%8 elements stored as they are.

def bshuf_default_block(es):
    return max(8192 // es // 8 * 8, 128)


def bitshuffle_zstd_chunk(arr, block=0, level=3):
    es = arr.dtype.itemsize
    v = np.frombuffer(arr.tobytes(), dtype="V%d" % es)
    block = block or bshuf_default_block(es)
    out = [struct.pack(">QI", v.size * es, block * es)]
    pos = 0
    while pos + 8 <= v.size:
        k = min(block, (v.size - pos) // 8 * 8)
        shuffled = bitshuffle.bitshuffle(v[pos:pos + k], k).tobytes()
        z = zstd_compress(shuffled, level)
        out.append(struct.pack(">I", len(z)) + z)
        pos += k
    out.append(v[pos:].tobytes())
    return b"".join(out)


# ---------------------------------------------------------------------------
# Blosc2 (c-blosc2 README_CHUNK_FORMAT.rst, README_CFRAME_FORMAT.rst,
# README_B2ND_METALAYER.rst), written from the documents.

B2_CODECS = {"blosclz": 0, "lz4": 1, "zlib": 3, "zstd": 4}


def b2_stream(s, codec):
    """A compressed stream: (stored size, bytes) as c-blosc2 writes it."""
    if s.count(s[:1]) == len(s):  # a run of one byte
        if s[0] == 0:
            return struct.pack("<i", 0)
        return struct.pack("<i", -s[0]) + b"\x01"
    if codec == "lz4":
        z = lz4.block.compress(s, store_size=False)
    elif codec == "zlib":
        z = zlib.compress(s, 5)
    elif codec == "zstd":
        z = zstd_compress(s, 3)
    else:  # blosclz: literal runs only (valid BloscLZ, no matches)
        z = b"".join(bytes([len(s[i:i + 32]) - 1]) + s[i:i + 32] for i in range(0, len(s), 32))
    if len(z) >= len(s):
        z = s
    return struct.pack("<i", len(z)) + z


def b2_forward(block, ts, filters):
    """Applies a filter pipeline (6 slots: 0 none, 1 shuffle, 2 bitshuffle,
    35 bytedelta), first slot first, to one block."""
    for filt in filters:
        n = len(block) // ts
        if filt == 0 or ts == 1 and filt == 1:
            continue
        if filt == 1:
            body = np.frombuffer(block[:n * ts], dtype=np.uint8).reshape(n, ts).T.tobytes()
            block = body + block[n * ts:]
        elif filt == 2:
            n8 = n - n % 8
            if n8:
                v = np.frombuffer(block[:n8 * ts], dtype="V%d" % ts)
                block = bitshuffle.bitshuffle(v, n8).tobytes() + block[n8 * ts:]
        elif filt == 35:  # bytedelta: each of the ts streams as byte differences
            s = np.frombuffer(block[:n * ts], dtype=np.uint8).reshape(ts, n)
            d = np.diff(s, axis=1, prepend=0).astype(np.uint8)
            block = d.tobytes() + block[n * ts:]
        else:
            raise ValueError(filt)
    return block


def b2_chunk(data, ts, blocksize, codec="lz4", filt=1, split=False, memcpyed=False, special=0):
    """One Blosc2 chunk, format version 5 with the 32-byte extended header.
    filt is a filter id for the last slot, or the 6 slots."""
    nbytes = len(data)
    flags = 0x05 | (B2_CODECS[codec] << 5) | (0 if split else 0x10)
    slots = list(filt) if isinstance(filt, (list, tuple)) else [0, 0, 0, 0, 0, filt]
    filters = bytes(slots)
    b2flags = special << 4

    def header(cbytes, fl):
        return (struct.pack("<BBBBiii", 5, 1, fl, min(ts, 255), nbytes, blocksize, cbytes)
                + filters + bytes([0, 0]) + bytes(6) + bytes([0, b2flags]))

    if special == 1:  # zeros
        return header(32, flags)
    if special == 3:  # one repeated value
        return header(32 + ts, flags) + data[:ts]
    if memcpyed:
        return header(32 + nbytes, flags | 0x02) + data
    nblocks = -(-nbytes // blocksize)
    body = b""
    starts = []
    base = 32 + 4 * nblocks
    for j in range(nblocks):
        block = data[j * blocksize:(j + 1) * blocksize]
        leftover = len(block) < blocksize
        f = b2_forward(block, ts, slots)
        streams = ts if split and not leftover else 1
        ns = len(f) // streams
        starts.append(base + len(body))
        for s in range(streams):
            body += b2_stream(f[s * ns:(s + 1) * ns], codec)
    cbytes = base + len(body)
    return header(cbytes, flags) + struct.pack("<%di" % nblocks, *starts) + body


def mp_int(v, code):
    return {"d2": b"\xd2" + struct.pack(">i", v), "d3": b"\xd3" + struct.pack(">q", v)}[code]


def b2nd_meta(shape, chunkshape, blockshape, dtype):
    nd = len(shape)
    m = bytes([0x97, 0, nd])
    m += bytes([0x90 + nd]) + b"".join(mp_int(x, "d3") for x in shape)
    m += bytes([0x90 + nd]) + b"".join(mp_int(x, "d2") for x in chunkshape)
    m += bytes([0x90 + nd]) + b"".join(mp_int(x, "d2") for x in blockshape)
    d = dtype.encode()
    return m + b"\x00\xdb" + struct.pack(">i", len(d)) + d


def b2_frame(chunk, nbytes, ts, blocksize, codec="lz4", metalayers=(), special_offset=None, filt=1):
    """A contiguous frame of one chunk, as blosc2_schunk_to_buffer writes it."""
    names = [n for n, _ in metalayers]
    # Header: fixed part (87 bytes), then the metalayers.
    h = bytearray(b"\x9e\xa8b2frame\x00\xd2\x00\x00\x00\x00\xcf" + bytes(8))
    h += bytes([0xa4, 0x10 | 2, 0, B2_CODECS[codec] | 5 << 4, 3])
    cbytes = 0 if special_offset is not None else len(chunk)
    h += mp_int(nbytes, "d3") + mp_int(cbytes, "d3")
    h += mp_int(ts, "d2") + mp_int(blocksize, "d2") + mp_int(nbytes, "d2")
    h += b"\xd1\x00\x01\xd1\x00\x01\xc2"
    slots = list(filt) if isinstance(filt, (list, tuple)) else [0, 0, 0, 0, 0, filt]
    h += b"\xd8\x06" + bytes(slots + [0, 0]) + bytes(8)
    assert len(h) == 87
    idx = bytearray(b"\x93\xcd\x00\x00\xde" + struct.pack(">H", len(names)))
    offpos = []
    for n in names:
        idx += bytes([0xa0 + len(n)]) + n.encode() + b"\xd2"
        offpos.append(87 + len(idx))
        idx += bytes(4)
    struct.pack_into(">H", idx, 2, len(idx))
    h += idx + b"\xdc" + struct.pack(">H", len(names))
    for (n, content), p in zip(metalayers, offpos):
        struct.pack_into(">i", h, p, len(h))
        h += b"\xc6" + struct.pack(">I", len(content)) + content
    struct.pack_into(">i", h, 11, len(h))
    # Chunks, then the offsets chunk (int64 offsets from the header's end).
    off = special_offset if special_offset is not None else 0
    offsets = b2_chunk(struct.pack("<q", off), 8, 8, memcpyed=True)
    trailer = b"\x94\x01\x93\xcd\x00\x06\xde\x00\x00\xdc\x00\x00"
    trailer += b"\xce" + struct.pack(">I", len(trailer) + 5 + 18) + b"\xd8\x00" + bytes(16)
    body = (b"" if special_offset is not None else chunk) + offsets + trailer
    frame = bytes(h) + body
    frame = frame[:16] + struct.pack(">Q", len(frame)) + frame[24:]
    return frame


def b2nd_blocks(chunk, blockshape):
    """The chunk's items as b2nd stores them: padded to whole blocks, the
    blocks in C order, each block in C order."""
    shape = chunk.shape
    ext = [-(-s // b) * b for s, b in zip(shape, blockshape)]
    padded = np.zeros(ext, dtype=chunk.dtype)
    padded[tuple(slice(0, s) for s in shape)] = chunk
    nb = [e // b for e, b in zip(ext, blockshape)]
    parts = []
    for idx in np.ndindex(*nb):
        sl = tuple(slice(i * b, (i + 1) * b) for i, b in zip(idx, blockshape))
        parts.append(np.ascontiguousarray(padded[sl]).tobytes())
    return b"".join(parts)


# Arrays written to datasets h5py cannot decode here (Blosc2, bitshuffle +
# zstd): their expected values are these arrays.
WRITTEN = {}


def blosc2_dataset(g, name, arr, chunks, blockshape=None, codec="lz4", filt=1, split=False, blocksize=0,
                   special=None):
    """A dataset with filter 32026, each chunk a frame written here."""
    ts = arr.dtype.itemsize
    chunkbytes = int(np.prod(chunks)) * ts
    nd = len(chunks)
    cd = [1, blocksize, ts, chunkbytes, 5, filt if isinstance(filt, int) else 1, B2_CODECS[codec]]
    if nd > 1:
        cd += [nd] + list(chunks)
    ds = g.create_dataset(name, shape=arr.shape, dtype=arr.dtype, chunks=chunks, compression=32026,
                          compression_opts=tuple(cd), allow_unknown_filter=True)
    WRITTEN[ds.name] = arr
    grid = [-(-s // c) for s, c in zip(arr.shape, chunks)]
    for k, idx in enumerate(np.ndindex(*grid)):
        start = [i * c for i, c in zip(idx, chunks)]
        full = np.zeros(chunks, dtype=arr.dtype)
        part = arr[tuple(slice(s, s + c) for s, c in zip(start, chunks))]
        full[tuple(slice(0, n) for n in part.shape)] = part
        if special == "zeros" and not full.any():
            frame = b2_frame(b"", chunkbytes, ts, 0, codec, special_offset=-(1 << 63) | (1 << 56))
        elif nd > 1:
            bs = blockshape or chunks
            data = b2nd_blocks(full, bs)
            bsize = int(np.prod(bs)) * ts
            ch = b2_chunk(data, ts, bsize, codec, filt, split)
            meta = b2nd_meta(chunks, chunks, bs, "|V%d" % ts)
            frame = b2_frame(ch, len(data), ts, bsize, codec, [("b2nd", meta)], filt=filt)
        else:
            data = full.tobytes()
            bsize = blocksize or chunkbytes
            if special == "value" and (full == full.flat[0]).all():
                ch = b2_chunk(data, ts, bsize, codec, filt, special=3)
            elif special == "memcpyed":
                ch = b2_chunk(data, ts, bsize, codec, filt, memcpyed=True)
            else:
                ch = b2_chunk(data, ts, bsize, codec, filt, split)
            frame = b2_frame(ch, len(data), ts, bsize, codec, filt=filt)
        ds.id.write_direct_chunk(tuple(start), frame, 0)
    return ds


# ---------------------------------------------------------------------------

def smooth(shape, dtype, seed):
    """Compressible values: a ramp with a small periodic wobble."""
    i = np.arange(int(np.prod(shape)))
    v = (i + seed) % 251 + (i * i + seed) % 13
    return v.reshape(shape).astype(dtype)


COMP = np.dtype([("a", "<i4"), ("b", ">f8"), ("c", "S3")])          # 15 bytes
COMP24 = np.dtype([("x", "<f8"), ("y", "<f8"), ("z", "<i8")])       # 24 bytes


def compound(n, dt, seed):
    i = np.arange(n)
    v = np.zeros(n, dtype=dt)
    for name in dt.names:
        t = dt.fields[name][0]
        if t.kind == "S":
            v[name] = [b"ab", b"c", b"xyz"] * (n // 3) + [b"q"] * (n % 3)
        else:
            v[name] = ((i + seed) % 97 + (i * i) % 7 - 3).astype(t)
    return v


def with_env(env, fn):
    """Runs fn with c-blosc's environment variables set (read by each
    blosc_compress call of the Blosc filter)."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return fn()
    finally:
        for k, v in old.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v


def write_h5py(path):
    register_zstd()
    with h5py.File(path, "w", libver="latest") as f:
        g = f.create_group("blosc")
        dtypes = ["<f8", "<i2", ">f4", "u1", COMP, ">i8"]
        for k, cname in enumerate(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]):
            for sh, shname in [(0, "none"), (1, "byte"), (2, "bit")]:
                dt = np.dtype(dtypes[(k + sh) % len(dtypes)])
                if dt.fields:
                    arr = compound(20 * 15, dt, k).reshape(20, 15)
                else:
                    arr = smooth((20, 15), dt, k * 3 + sh)
                g.create_dataset("%s_%s" % (cname, shname), data=arr, chunks=(8, 6),
                                 **hdf5plugin.Blosc(cname=cname, clevel=5, shuffle=sh))
        n = 5000
        ramp = smooth((n,), "<i4", 7)
        with_env({"BLOSC_BLOCKSIZE": "2048", "BLOSC_SPLITMODE": "ALWAYS"}, lambda: g.create_dataset(
            "blocks_split", data=ramp, chunks=(n,), **hdf5plugin.Blosc("blosclz", 5, 1)))
        with_env({"BLOSC_BLOCKSIZE": "2048", "BLOSC_SPLITMODE": "NEVER"}, lambda: g.create_dataset(
            "blocks_nosplit", data=ramp, chunks=(n,), **hdf5plugin.Blosc("lz4", 5, 1)))
        with_env({"BLOSC_BLOCKSIZE": "1000"}, lambda: g.create_dataset(
            "bitshuffle_odd_blocks", data=ramp, chunks=(1003,), **hdf5plugin.Blosc("zstd", 5, 2)))
        with_env({"BLOSC_BLOCKSIZE": "3000", "BLOSC_SPLITMODE": "ALWAYS"}, lambda: g.create_dataset(
            "compound_split", data=compound(900, COMP, 1), chunks=(700,), **hdf5plugin.Blosc("snappy", 5, 1)))
        g.create_dataset("compound24", data=compound(3000, COMP24, 2), chunks=(1100,),
                         **hdf5plugin.Blosc("blosclz", 9, 1))
        rng = np.random.default_rng(5)
        # Incompressible: the filter fails and HDF5 stores the chunk as it
        # is, flagged in the chunk's filter mask.
        g.create_dataset("incompressible", data=rng.integers(0, 256, 1000, dtype="u1"), chunks=(1000,),
                         **hdf5plugin.Blosc("lz4", 5, 1))
        # Items over 255 bytes: the filter stores type size 1.
        big = np.dtype([("v", "<f4", (75,))])
        g.create_dataset("typesize300", data=np.frombuffer(smooth((12, 75), "<f4", 3).tobytes(), dtype=big),
                         chunks=(5,), **hdf5plugin.Blosc("zlib", 5, 1))
        g.create_dataset("be_3d", data=smooth((9, 10, 11), ">f8", 4), chunks=(4, 5, 6),
                         **hdf5plugin.Blosc("zstd", 3, 2))

        g = f.create_group("lz4")
        g.create_dataset("default", data=smooth((30, 20), ">f4", 8), chunks=(12, 9), **hdf5plugin.LZ4())
        g.create_dataset("blocks", data=smooth((3000,), "<i2", 9), chunks=(1300,), **hdf5plugin.LZ4(nbytes=1000))
        g.create_dataset("raw_blocks", data=rng.integers(0, 2**31, 400, dtype="<i4"), chunks=(400,),
                         **hdf5plugin.LZ4(nbytes=1024))
        g.create_dataset("compound", data=compound(500, COMP, 3), chunks=(200,), **hdf5plugin.LZ4())

        g = f.create_group("bitshuffle")
        for cname in ["none", "lz4"]:
            for dt in ["u1", "<i2", ">f4", "<f8"]:
                g.create_dataset("%s_%s" % (cname, np.dtype(dt).str.replace("<", "le").replace(">", "be").replace("|", "")),
                                 data=smooth((21, 17), dt, 11), chunks=(7, 13), **hdf5plugin.Bitshuffle(cname=cname))
            g.create_dataset(cname + "_multiblock", data=smooth((4107,), "<i2", 12), chunks=(4107,),
                             **hdf5plugin.Bitshuffle(cname=cname))
            g.create_dataset(cname + "_nelems64", data=smooth((1000,), "<u4", 13), chunks=(333,),
                             **hdf5plugin.Bitshuffle(nelems=64, cname=cname))
            g.create_dataset(cname + "_compound", data=compound(301, COMP, 4), chunks=(150,),
                             **hdf5plugin.Bitshuffle(cname=cname))
        # Bitshuffle + zstd, chunks framed here (see the module comment).
        for name, arr, chunks, block in [("zstd_f8", smooth((23, 11), "<f8", 14), (10, 11), 0),
                                         ("zstd_multiblock", smooth((3001,), ">i4", 15), (3001,), 0),
                                         ("zstd_nelems16", smooth((99,), "<u2", 16), (50,), 16)]:
            ds = g.create_dataset(name, shape=arr.shape, dtype=arr.dtype, chunks=chunks,
                                  **hdf5plugin.Bitshuffle(nelems=block, cname="zstd"))
            WRITTEN[ds.name] = arr
            grid = [-(-s // c) for s, c in zip(arr.shape, chunks)]
            for idx in np.ndindex(*grid):
                start = [i * c for i, c in zip(idx, chunks)]
                full = np.zeros(chunks, dtype=arr.dtype)
                part = arr[tuple(slice(s, s + c) for s, c in zip(start, chunks))]
                full[tuple(slice(0, n) for n in part.shape)] = part
                ds.id.write_direct_chunk(tuple(start), bitshuffle_zstd_chunk(full, block), 0)

        g = f.create_group("zstd")
        g.create_dataset("f8_2d", data=smooth((25, 18), "<f8", 17), chunks=(10, 7), compression=32015,
                         compression_opts=(3,))
        g.create_dataset("be_i4", data=smooth((1000,), ">i4", 18), chunks=(300,), compression=32015,
                         compression_opts=(19,))
        g.create_dataset("compound", data=compound(400, COMP, 5), chunks=(128,), compression=32015,
                         compression_opts=(1,))
        g.create_dataset("shuffle_u2", data=smooth((40, 40), "<u2", 19), chunks=(16, 16), compression=32015,
                         compression_opts=(5,), shuffle=True, fletcher32=True)


def write_tables(path):
    import tables
    with tables.open_file(path, "w") as f:
        for k, c in enumerate(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]):
            for sh, bs in [(True, False), (False, True)]:
                flt = tables.Filters(complevel=5, complib="blosc:" + c, shuffle=sh, bitshuffle=bs)
                a = smooth((30, 7), "<f8" if sh else "<i4", k)
                f.create_carray("/", "%s_%s" % (c, "shuffle" if sh else "bitshuffle"), obj=a, filters=flt,
                                chunkshape=(8, 7))
        # A big chunk: several blocks, the last one short.
        f.create_carray("/", "big_blocks", obj=np.arange(70001, dtype="<i4") % 1000, chunkshape=(70001,),
                        filters=tables.Filters(complevel=9, complib="blosc:blosclz", shuffle=True))
        t = f.create_table("/", "table", description=compound(50, COMP24, 6).dtype,
                           filters=tables.Filters(complevel=5, complib="blosc:zstd"), chunkshape=(16,))
        t.append(compound(50, COMP24, 6))


def write_pandas(path):
    import pandas as pd
    df = pd.DataFrame({"i": np.arange(60, dtype="i8"), "x": np.linspace(0, 1, 60), "k": np.arange(60, dtype="i2") % 7})
    df.to_hdf(path, key="table_lz4", complib="blosc:lz4", complevel=5, format="table", mode="w", index=False)
    df.to_hdf(path, key="fixed_zstd", complib="blosc:zstd", complevel=5, format="fixed")
    df.to_hdf(path, key="table_blosclz", complib="blosc:blosclz", complevel=9, format="table", index=False)


def write_blosc2(path):
    with h5py.File(path, "w", libver="latest") as f:
        g = f.create_group("blosc2")
        blosc2_dataset(g, "lz4_1d", smooth((3000,), "<f8", 31), (1000,))
        blosc2_dataset(g, "zstd_split_blocks", smooth((5000,), "<i4", 32), (2500,), codec="zstd", split=True,
                       blocksize=1024)
        blosc2_dataset(g, "zlib_bitshuffle", smooth((777,), ">i8", 33), (300,), codec="zlib", filt=2,
                       blocksize=800)
        blosc2_dataset(g, "blosclz_literals", smooth((500,), "<u2", 34), (200,), codec="blosclz", filt=0)
        blosc2_dataset(g, "memcpyed", smooth((100,), "<f4", 35), (64,), special="memcpyed")
        z = np.zeros(400, dtype="<f8")
        z[350:] = 2.5
        blosc2_dataset(g, "special_zeros", z, (100,), special="zeros")
        blosc2_dataset(g, "special_value", z, (100,), special="value")
        runs = np.repeat(np.array([0, 7, 0, 255, 3], dtype="u1"), 64)
        blosc2_dataset(g, "runs", runs, (320,), filt=0, blocksize=64)
        blosc2_dataset(g, "b2nd_2d", smooth((37, 29), "<f8", 36), (16, 12), blockshape=(5, 4))
        blosc2_dataset(g, "b2nd_rows", smooth((40, 12), "<i2", 37), (20, 12), blockshape=(4, 12), codec="zstd",
                       filt=2)
        blosc2_dataset(g, "b2nd_3d", smooth((9, 10, 11), ">f4", 38), (4, 5, 6), blockshape=(2, 3, 4), codec="zlib",
                       split=True)
        blosc2_dataset(g, "b2nd_compound", compound(6 * 7, COMP, 7).reshape(6, 7), (4, 4), blockshape=(2, 3))
        # Shuffle then bytedelta (c-blosc2's plugin filter 35), as
        # python-blosc2 users pick them.
        blosc2_dataset(g, "shuffle_bytedelta", smooth((1500,), "<f4", 39), (700,), codec="zstd",
                       filt=[0, 0, 0, 0, 1, 35], blocksize=1000)


def write_bad(path):
    """Chunks a reader must refuse with a clean error."""
    with h5py.File(path, "w") as f:
        a = smooth((100,), "<i4", 41)
        # Debian's bitshuffle writes "zstd" chunks uncompressed (see the
        # module comment): the header's decoded size is then nonsense.
        f.create_dataset("bitshuffle_zstd_debian", data=a, chunks=(100,), **hdf5plugin.Bitshuffle(cname="zstd"))
        # A Blosc chunk whose header claims far more than the chunk holds.
        d = f.create_dataset("blosc_huge", shape=(100,), dtype="<i4", chunks=(100,), **hdf5plugin.Blosc("lz4", 5, 1))
        hdr = struct.pack("<BBBBiii", 2, 1, 0x21, 4, 1 << 30, 1 << 16, 80)
        d.id.write_direct_chunk((0,), hdr + bytes(64), 0)
        # LZ4 framing claiming a huge decoded size.
        d = f.create_dataset("lz4_huge", shape=(100,), dtype="<i4", chunks=(100,), **hdf5plugin.LZ4())
        d.id.write_direct_chunk((0,), struct.pack(">QI", 1 << 40, 1 << 30) + bytes(8), 0)
        # A Blosc2 chunk with a plugin codec (ZFP, 33) npyflow does not have.
        d = f.create_dataset("blosc2_plugin_codec", shape=(16,), dtype="<f8", chunks=(16,), compression=32026,
                             compression_opts=(1, 0, 8, 128, 5, 1, 33), allow_unknown_filter=True)
        ch = bytearray(b2_chunk(np.arange(16, dtype="<f8").tobytes(), 8, 128, "lz4", 1))
        ch[2] = (ch[2] & 0x1F) | (6 << 5)
        ch[22] = 33
        d.id.write_direct_chunk((0,), b2_frame(bytes(ch), 128, 8, 128), 0)


def describe(path):
    """h5py's reading of every dataset (the arrays written for those h5py
    cannot decode here)."""
    objs = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            filters = layout_json(obj)["filters"]
            if not set(filters) & {32001, 32004, 32008, 32015, 32026}:
                return
            p = "/" + name
            e = {"kind": "dataset", "attrs": {}, "shape": list(obj.shape)}
            e.update(layout_json(obj))
            e["class"] = obj.id.get_type().get_class()
            v = WRITTEN[p] if p in WRITTEN else obj[()]
            arr = np.asarray(v)
            e["dtype"] = repr(np.lib.format.dtype_to_descr(plain(arr.dtype)))
            e["npshape"] = list(arr.shape)
            e["rawz"] = b64(zlib.compress(arr.tobytes(), 9))
            objs[p] = e
        f.visititems(visit)
    return objs


def main():
    if BITSHUFFLE_MISSING:
        # The committed fixtures hold bitshuffle datasets the Go tests read.
        sys.exit("gen_filters_b.py: the Python bitshuffle module is needed to write the bitshuffle cases "
                 "(%s); the fixtures are left as they are" % BITSHUFFLE_MISSING)
    for name, fn in [("filters_b_h5py", write_h5py), ("filters_b_tables", write_tables),
                     ("filters_b_pandas", write_pandas), ("filters_b_blosc2", write_blosc2)]:
        path = os.path.join(HERE, name + ".h5")
        fn(path)
        with open(os.path.join(HERE, name + ".json"), "w") as out:
            json.dump(describe(path), out, indent=1, sort_keys=True)
    write_bad(os.path.join(HERE, "filters_b_bad.h5"))


if __name__ == "__main__":
    main()
