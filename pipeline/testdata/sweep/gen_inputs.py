#!/usr/bin/python3
"""Writes the write sweep's inputs, in/*.npy and in/*.npz, with numpy
(run from this directory: /usr/bin/python3 gen_inputs.py). Small arrays
of values every output format can hold (the extremes of each type are
in testdata/npy): every dtype plain and big-endian, all of them as the
fields of one record in each byte order, nested and subarray fields,
Fortran order, 0-d, empty, and .npz archives mixing them.
"""
import numpy as np

NAT = "NaT"
# name -> (dtype without byte order, values)
TYPES = {
    "b1": ("b1", [True, False, True, False]),
    "i1": ("i1", [-128, 127, 0, -1]),
    "u1": ("u1", [0, 255, 7, 128]),
    "i2": ("i2", [-32768, 32767, 0, -1]),
    "u2": ("u2", [0, 65535, 7, 256]),
    "i4": ("i4", [-2**31, 2**31 - 1, 0, -1]),
    "u4": ("u4", [0, 2**32 - 1, 7, 2**31]),
    "i8": ("i8", [-2**63, 2**63 - 1, 2**53 + 1, -1]),
    "u8": ("u8", [0, 2**64 - 1, 2**53 + 1, 2**63]),
    "f2": ("f2", [0.1, -0.0, np.inf, 65504.0]),
    "f4": ("f4", [0.1, -0.0, np.nan, 3.4028235e38]),
    "f8": ("f8", [0.1, -0.0, np.nan, 1e-300]),
    "c8": ("c8", [1.5 - 2j, -0.0 + 0.1j, complex(np.nan, 1), 0j]),
    "c16": ("c16", [1.5 - 2j, -0.0 + 0.1j, complex(1, np.inf), 1e-300j]),
    "U3": ("U3", ["a\x00b", "xy", "", "é€"]),
    "M8_ms": ("M8[ms]", ["2024-02-29T13:37:01.123", "2020-01-01T00:00:00.100", NAT, "1969-12-31T23:59:59.999"]),
    "M8_us": ("M8[us]", ["2024-02-29T13:37:01.123456", "1900-01-01T00:00:00.000001", NAT, "1970-01-01T00:00:00.000005"]),
    "M8_ns": ("M8[ns]", ["2024-02-29T13:37:01.123456789", "1970-01-01T00:00:00.000000001", NAT, "1800-01-01"]),
    "M8_s": ("M8[s]", ["2024-02-29T13:37:01", "1900-01-01", NAT, "2100-12-31T23:59:59"]),
    "M8_m": ("M8[m]", ["2024-02-29T13:37", "1900-01-01", NAT, "1969-12-31T23:59"]),
    "M8_h": ("M8[h]", ["2024-02-29T13", "1900-01-01", NAT, "1969-12-31T23"]),
    "M8_D": ("M8[D]", ["2024-02-29", "1900-01-01", NAT, "1969-12-31"]),
    "M8_W": ("M8[W]", [2826, -3653, NAT, -1]),
    "M8_10ms": ("M8[10ms]", [170921382112, 157783680010, NAT, -1]),
    "m8_us": ("m8[us]", [-5, 1500000, NAT, 86400 * 10**6]),
    "m8_ms": ("m8[ms]", [123, -100, NAT, 1]),
    "m8_ns": ("m8[ns]", [1, -5, NAT, 10**18]),
    "m8_s": ("m8[s]", [1, -60, NAT, 86400]),
    "m8_m": ("m8[m]", [1, -60, NAT, 1440]),
    "m8_h": ("m8[h]", [1, -24, NAT, 8760]),
    "m8_D": ("m8[D]", [1, -1, NAT, 36500]),
    "m8_W": ("m8[W]", [1, -1, NAT, 52]),
    "m8_10ms": ("m8[10ms]", [12, -3, NAT, 100]),
    "m8_25s": ("m8[25s]", [3, -4, NAT, 144]),
}
# dtypes some format refuses (kept out of the records, written plain)
ODD = {
    "S3": ("S3", [b"a\x00b", b"xy", b"", b"abc"]),
    "V2": ("V2", [b"\x00\x01", b"\xff\xfe", b"ab", b"\x00\x00"]),
    "M8_Y": ("M8[Y]", ["2024", "1900", NAT, "1969"]),
    "M8_M": ("M8[M]", ["2024-02", "1900-01", NAT, "1969-12"]),
    "M8_generic": ("M8", [NAT, NAT, NAT, NAT]),
}


def arr(t, vals, order):
    base = np.dtype(t)
    dt = base.newbyteorder(order) if base.itemsize > 1 and base.kind not in "SVb" else base
    if base.kind in "Mm":
        unit = np.datetime_data(base)
        a = np.array([np.datetime64(v) if base.kind == "M" and isinstance(v, str) and v != NAT else v for v in vals], dtype=object)
        out = np.empty(len(vals), dt)
        for i, v in enumerate(vals):
            if v == NAT:
                out[i] = np.datetime64("NaT") if base.kind == "M" else np.timedelta64("NaT")
            elif isinstance(v, str):
                out[i] = np.datetime64(v, unit)
            else:
                out[i] = np.array(v, "i8").view(base)
        return out
    return np.array(vals, dt)


for name, (t, vals) in list(TYPES.items()) + list(ODD.items()):
    np.save("in/%s_be.npy" % name, arr(t, vals, ">"))
for name in ["f8", "i8", "U3", "M8_ms", "m8_us"]:
    t, vals = TYPES[name]
    np.save("in/%s_le.npy" % name, arr(t, vals, "<"))

for order, tag in (("<", "le"), (">", "be")):
    cols = {n: arr(t, v, order) for n, (t, v) in TYPES.items()}
    # (timedeltas as td_*: DuckDB's names are case-insensitive)
    rec = np.empty(4, [(n.replace("m8_", "td_"), c.dtype) for n, c in cols.items()])
    for n, c in cols.items():
        rec[n.replace("m8_", "td_")] = c
    np.save("in/rec_%s.npy" % tag, rec)

# nested structs and subarray fields
nest = np.zeros(3, [("id", "<i4"), ("pos", [("x", ">f8"), ("y", "<f4")]), ("win", ">i2", (2,)),
                    ("grid", "<f8", (2, 3)), ("tag", "<U2"), ("deep", [("a", [("b", ">u2")]), ("t", "<M8[ms]", (2,))])])
nest["id"] = [1, -2, 3]
nest["pos"]["x"] = [0.5, -1.25, 1e10]
nest["pos"]["y"] = [0.1, 2, -3]
nest["win"] = [[1, 2], [3, -4], [-5, 6]]
nest["grid"] = np.arange(18).reshape(3, 2, 3) / 4
nest["tag"] = ["ab", "", "z"]
nest["deep"]["a"]["b"] = [7, 65535, 0]
nest["deep"]["t"] = np.array([["2024-02-29T13:37:01.123", "NaT"], ["1970-01-01", "2020-01-01T00:00:00.100"], ["NaT", "NaT"]], "M8[ms]")
np.save("in/rec_nested.npy", nest)

# Fortran order
np.save("in/f8_2d_f.npy", np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3) / 8))
np.save("in/i2_3d_f.npy", np.asfortranarray(np.arange(-12, 12, dtype="<i2").reshape(2, 3, 4)))
np.save("in/U3_2d_f.npy", np.asfortranarray(np.array([["a", "bc"], ["d\x00e", "fgh"]], ">U3")))
np.save("in/M8_ms_2d_f.npy", np.asfortranarray(arr("M8[ms]", TYPES["M8_ms"][1], "<").reshape(2, 2)))
np.save("in/rec_2d_f.npy", np.asfortranarray(np.array([[(1, 0.5), (2, -1)], [(3, 2), (4, 1e-3)]], [("a", ">i4"), ("b", "<f8")])))

# 0-d and empty
np.save("in/f8_0d.npy", np.array(0.1, ">f8"))
np.save("in/U3_0d.npy", np.array("a\x00b", "<U3"))
np.save("in/M8_ms_0d.npy", np.array("2024-02-29T13:37:01.123", "<M8[ms]"))
np.save("in/rec_0d.npy", np.array((1.5, 7), [("lr", "<f8"), ("step", ">i8")]))
np.save("in/f8_empty.npy", np.zeros(0, ">f8"))
np.save("in/i4_empty_2d.npy", np.zeros((0, 3), "<i4"))
np.save("in/U3_empty.npy", np.zeros(0, "<U3"))
np.save("in/rec_empty.npy", np.zeros(0, [("a", "<i4"), ("b", [("c", ">f8")])]))

# archives: 0-d scalars only, 0-d beside one row, members of different
# lengths (one table refused), and one of every kind
np.savez("in/scalars.npz", lr=np.array(0.01), step=np.array(7, ">i8"), tag=np.array("adam"))
np.savez("in/one_row.npz", lr=np.array(0.01), w=np.array([[1.5, -2.0]], "<f4"), t=np.array(["2024-02-29T13:37:01.123"], ">M8[ms]"))
np.savez_compressed("in/mixed.npz", x=np.arange(3, dtype=">i2"), y=np.array(2.5), s=np.array(["a", "bc"]),
                    r=np.array([(1, 2.0)], [("a", "<i4"), ("b", ">f8")]), e=np.zeros(0, "<f4"))
