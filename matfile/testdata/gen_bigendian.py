#!/usr/bin/python3
"""Writes big-endian Level 5 files ('MI'): scipy_v6.mat and scipy_v7.mat
rewritten element by element with every tag and value byte-swapped
(scipy.io.savemat writes only the machine's order; MATLAB on big-endian
machines wrote 'MI' files). Expectations from scipy.io.loadmat of the
big-endian files. Run after gen_scipy.py: /usr/bin/python3 gen_bigendian.py
"""
import struct
import zlib

import scipy.io as sio

import expect

SIZES = {1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 9: 8, 12: 8, 13: 8, 16: 1, 17: 2, 18: 4}


def swap(data, size):
    if size == 1:
        return data
    out = bytearray(len(data))
    for i in range(0, len(data), size):
        out[i:i + size] = data[i:i + size][::-1]
    return bytes(out)


def elements(b, top):
    """Converts a sequence of little-endian elements to big-endian."""
    out = bytearray()
    pos = 0
    while pos < len(b):
        typ, n = struct.unpack_from("<II", b, pos)
        if typ >> 16:
            n, typ = typ >> 16, typ & 0xFFFF
            data = b[pos + 4:pos + 4 + n]
            out += struct.pack(">I", (n << 16) | typ) + swap(data, SIZES[typ]).ljust(4, b"\0")
            pos += 8
            continue
        data = b[pos + 8:pos + 8 + n]
        if typ == 14:
            conv = elements(data, False)
        elif typ == 15:
            conv = zlib.compress(elements(zlib.decompress(data), True))
        else:
            conv = swap(data, SIZES[typ])
        out += struct.pack(">II", typ, len(conv)) + conv
        end = pos + 8 + n
        if typ != 15:
            pad = (8 - len(conv) % 8) % 8
            out += b"\0" * pad
            end += (8 - n % 8) % 8
        pos = end
    return bytes(out)


for src, dst in [("scipy_v6.mat", "scipy_be_v6.mat"), ("scipy_v7.mat", "scipy_be_v7.mat")]:
    b = open(src, "rb").read()
    hdr = b[:124] + b"\x01\x00MI"
    open(dst, "wb").write(hdr + elements(b[128:], True))
    got = sio.loadmat(dst, chars_as_strings=True)
    entries = {}
    for k, val in got.items():
        if not k.startswith("__"):
            expect.members(k, val, entries)
    expect.write(dst[:-4] + ".json", entries,
                 notes="big-endian rewrite of %s; expected from scipy.io.loadmat of the rewritten file" % src)
