#!/usr/bin/python3
"""Writes the fixtures of issues 22 and 23 that are not filter decoders,
with the producers named below, and their expectations (each producer's
own reading) as JSON next to the files:

  compound.h5   h5py: compound members stored out of offset order (h5py
                inserts them in the dtype's name order at the dtype's
                offsets), also nested and inside a chunked dataset and an
                attribute.
  strings.h5    h5py's low-level h5t API: fixed-length strings with each
                padding (NULLTERM, NULLPAD, SPACEPAD), the bytes written
                unconverted, also inside a compound and an array member.
  filters.h5    h5py: a lossy filter (zfp, 32013, through Debian's
                hdf5-filter-plugin-zfp), an optional unregistered filter
                (40000) that the library skipped for every chunk, the same
                filter with chunks written by write_direct_chunk as if it
                had been applied, and plain datasets next to them.
  dimscales.h5  h5py's dimension scales (make_scale, attach_scale) in a
                plain HDF5 file.
  nc4.nc        netCDF4-python (NETCDF4): several dimensions (one
                unlimited, one without a coordinate variable), coordinate
                variables, _FillValue, units, scale_factor/add_offset,
                zlib, strings, a scalar, a subgroup using a parent
                dimension.
  nc4_classic.nc netCDF4-python (NETCDF4_CLASSIC): the _nc3_strict mark.
  nc3_*.nc      netCDF4-python's netCDF-3 formats (CDF-1, CDF-2, CDF-5).

*.json: the h5py reading of each HDF5 file in gen_h5py.py's format (read
by read_test.go's checkDataset), plus per-test keys described in
misc_test.go; netcdf.json: netCDF4-python's and xarray's reading of the
.nc files.

Run from this directory: /usr/bin/python3 gen_misc.py
netCDF4-python 1.6.2 accepts compression='zstd', but Debian's libnetcdf
ships no zstd plugin (lib__nch5zstd), so the variable would be written
uncompressed: not used (netCDF-C would write HDF5 filter 32015).
"""
import base64
import json
import os

import h5py
import netCDF4
import numpy as np
import xarray as xr
from h5py import h5d, h5p, h5s, h5t, h5z

from gen_h5py import b64, describe, plain

HERE = os.path.dirname(os.path.abspath(__file__))


def dump(name, obj):
    with open(os.path.join(HERE, name), "w") as out:
        json.dump(obj, out, indent=1, sort_keys=True)


def field_values(arr, prefix=""):
    """Each field's values (nested fields as a.b), by name, as raw bytes."""
    out = {}
    for n in arr.dtype.names:
        v = arr[n]
        if v.dtype.names is not None:
            out.update(field_values(v, prefix + n + "."))
        else:
            out[prefix + n] = b64(np.ascontiguousarray(v).tobytes())
    return out


def stored_members(ds):
    t = ds.id.get_type()
    return [t.get_member_name(i).decode() for i in range(t.get_nmembers())]


# ---------------------------------------------------------------- compound

def gen_compound():
    path = os.path.join(HERE, "compound.h5")
    ooo = np.dtype({"names": ["b", "a"], "formats": ["<i4", "<i4"], "offsets": [4, 0], "itemsize": 8})
    inner = np.dtype({"names": ["y", "x"], "formats": ["<f8", "<i2"], "offsets": [8, 0], "itemsize": 16})
    outer = np.dtype({"names": ["z", "p", "c", "s"], "formats": [">i2", inner, "<f4", "S3"],
                      "offsets": [28, 0, 16, 20], "itemsize": 32})
    with h5py.File(path, "w") as f:
        v = np.zeros(5, dtype=ooo)
        v["a"] = [1, 2, 3, 4, 5]
        v["b"] = [-10, -20, -30, -40, -50]
        f.create_dataset("ooo", data=v)
        w = np.zeros(4, dtype=outer)
        w["z"] = [7, -7, 300, -300]
        w["p"]["x"] = [11, 12, 13, 14]
        w["p"]["y"] = [0.5, -1.5, 2.25, 1e100]
        w["c"] = [1.5, 2.5, -3.5, 4.5]
        w["s"] = [b"abc", b"d", b"", b"xy"]
        f.create_dataset("nested", data=w)
        big = np.zeros(100, dtype=ooo)
        big["a"] = np.arange(100)
        big["b"] = -np.arange(100) * 3
        f.create_dataset("chunked", data=big, chunks=(16,), compression="gzip", shuffle=True)
        f.create_dataset("scalar", data=v[2])
        f["ooo"].attrs["rec"] = v[:2]
    exp = describe(path)
    with h5py.File(path, "r") as f:
        for p in ["/ooo", "/nested", "/chunked", "/scalar"]:
            arr = np.atleast_1d(f[p][()])
            exp[p]["fields"] = field_values(arr)
            exp[p]["stored_members"] = stored_members(f[p])
    dump("compound.json", exp)


# ----------------------------------------------------------------- strings

RAW = [b"ab\x00cd", b"ab   ", b"  x  ", b"ab\x00  ", b"abcde", b"", b"a b \x00", b"     "]


def str_type(size, pad):
    t = h5t.C_S1.copy()
    t.set_size(size)
    t.set_strpad(pad)
    return t


def raw_dataset(g, name, tid, data, chunks=None):
    """A dataset of type tid holding data's bytes unconverted (the memory
    type is the file type)."""
    space = h5s.create_simple(data.shape)
    dcpl = None
    if chunks:
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk(chunks)
        dcpl.set_deflate(4)
    d = h5d.create(g.id, name.encode(), tid, space, dcpl=dcpl)
    d.write(h5s.ALL, h5s.ALL, data, mtype=tid)


def gen_strings():
    path = os.path.join(HERE, "strings.h5")
    raw = np.array(RAW, dtype="S5")
    pads = [("nullterm", h5t.STR_NULLTERM), ("nullpad", h5t.STR_NULLPAD), ("spacepad", h5t.STR_SPACEPAD)]
    with h5py.File(path, "w") as f:
        for name, pad in pads:
            raw_dataset(f, name, str_type(5, pad), raw)
            raw_dataset(f, name + "_chunked", str_type(5, pad), np.tile(raw, 6).reshape(8, 6), chunks=(3, 4))
        # A compound {id i4, sp S6 spacepad, nt S4 nullterm, arr S3 spacepad [2]}
        # written as raw records.
        size = 4 + 6 + 4 + 6
        ct = h5t.create(h5t.COMPOUND, size)
        ct.insert(b"id", 0, h5t.STD_I32LE)
        ct.insert(b"sp", 4, str_type(6, h5t.STR_SPACEPAD))
        ct.insert(b"nt", 10, str_type(4, h5t.STR_NULLTERM))
        ct.insert(b"arr", 14, h5t.array_create(str_type(3, h5t.STR_SPACEPAD), (2,)))
        recs = [(1, b"ab    ", b"x\x00yz", b"a  b  "), (2, b"      ", b"wxyz", b"   c\x00 "),
                (3, b"abcdef", b"\x00abc", b"xyz   ")]
        buf = b"".join(i.to_bytes(4, "little") + sp + nt + arr for i, sp, nt, arr in recs)
        data = np.frombuffer(buf, dtype="V%d" % size)
        raw_dataset(f, "compound", ct, data)
        # A scalar SPACEPAD attribute (Fortran style).
        aid = h5py.h5a.create(f["spacepad"].id, b"title", str_type(8, h5t.STR_SPACEPAD), h5s.create(h5s.SCALAR))
        aid.write(np.array(b"Fortran ", dtype="S8"), mtype=str_type(8, h5t.STR_SPACEPAD))
    exp = describe(path)
    with h5py.File(path, "r") as f:
        exp["/compound"]["fields"] = field_values(f["compound"][()])
        exp["/spacepad"]["title"] = f["spacepad"].attrs["title"].decode()
    dump("strings.json", exp)


# ----------------------------------------------------------------- filters

def gen_filters():
    path = os.path.join(HERE, "filters.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("plain", data=np.arange(12, dtype="<i4").reshape(3, 4))
        f.create_dataset("gzip", data=np.arange(40, dtype="<f8"), chunks=(16,), compression="gzip")
        # zfp (lossy), fixed-accuracy mode 3 with tolerance 1e-3 (H5Z-ZFP's
        # generic cd_values: mode, 0, tolerance as a double).
        tol = np.frombuffer(np.float64(1e-3).tobytes(), dtype="<u4")
        f.create_dataset("zfp", data=np.linspace(0, 1, 64).reshape(8, 8), chunks=(4, 8), compression=32013,
                         compression_opts=(3, 0, int(tol[0]), int(tol[1]), 0, 0))
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_filter(40000, h5z.FLAG_OPTIONAL, (7, 8))
        space = h5s.create_simple((10,))
        d = h5d.create(f.id, b"skipped", h5t.STD_I32LE, space, dcpl=dcpl)
        d.write(h5s.ALL, h5s.ALL, np.arange(10, dtype="<i4"))
        d = h5d.create(f.id, b"direct", h5t.STD_I32LE, space, dcpl=dcpl)
        for i in range(3):
            # bytes reversed: what an unknown filter might have made of them
            d.write_direct_chunk((i * 4,), np.arange(i * 4, i * 4 + 4, dtype="<i4").tobytes()[::-1], 0)
    # The newer chunk indexes (libver latest): fixed array, extensible
    # array, v2 B-tree and single chunk, each with the optional filter
    # skipped, and one with it claimed.
    latest = os.path.join(HERE, "filters_latest.h5")
    with h5py.File(latest, "w", libver="latest") as f:
        for name, shape, maxshape, chunks in [("fixed", (10,), (10,), (4,)), ("ext", (10,), (None,), (4,)),
                                              ("bt2", (4, 5), (None, None), (2, 2)), ("single", (10,), (10,), (10,))]:
            dcpl = h5p.create(h5p.DATASET_CREATE)
            dcpl.set_chunk(chunks)
            dcpl.set_filter(40000, h5z.FLAG_OPTIONAL, ())
            space = h5s.create_simple(shape, tuple(h5s.UNLIMITED if m is None else m for m in maxshape))
            d = h5d.create(f.id, b"skipped_" + name.encode(), h5t.STD_I16BE, space, dcpl=dcpl)
            d.write(h5s.ALL, h5s.ALL, np.arange(int(np.prod(shape)), dtype=">i2").reshape(shape))
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_filter(40000, h5z.FLAG_OPTIONAL, ())
        d = h5d.create(f.id, b"direct_ext", h5t.STD_I32LE, h5s.create_simple((10,), (h5s.UNLIMITED,)), dcpl=dcpl)
        d.write(h5s.ALL, h5s.ALL, np.arange(10, dtype="<i4"))  # skipped in every chunk ...
        d.write_direct_chunk((4,), np.arange(4, 8, dtype="<i4").tobytes()[::-1], 0)  # ... but this one
    for path, jname in [(path, "filters.json"), (latest, "filters_latest.json")]:
        gen_filter_expect(path, jname)


def gen_filter_expect(path, jname):
    exp = describe(path)
    with h5py.File(path, "r") as f:
        for p in exp:
            if exp[p]["kind"] != "dataset":
                continue
            dcpl = f[p].id.get_create_plist()
            exp[p]["pipeline"] = [{"id": fl[0], "flags": fl[1], "params": list(fl[2]), "name": fl[3].decode()}
                                  for fl in (dcpl.get_filter(i) for i in range(dcpl.get_nfilters()))]
            try:
                f[p][()]
                exp[p]["h5py_reads"] = True
            except Exception:  # noqa
                exp[p]["h5py_reads"] = False
            exp[p]["chunk_masks"] = []
            if f[p].chunks:
                n = f[p].id.get_num_chunks()
                exp[p]["chunk_masks"] = [f[p].id.get_chunk_info(i).filter_mask for i in range(n)]
    dump(jname, exp)


# ------------------------------------------------------------------ netCDF

def gen_nc4(path, fmt):
    ds = netCDF4.Dataset(path, "w", format=fmt)
    ds.title = "npyflow netCDF-4 fixture"
    ds.createDimension("time", None)
    ds.createDimension("lat", 3)
    ds.createDimension("lon", 4)
    ds.createDimension("station", 2)  # no coordinate variable
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "hours since 2000-01-01 00:00:00"
    t.calendar = "standard"
    lat = ds.createVariable("lat", "f4", ("lat",))
    lat.units = "degrees_north"
    lon = ds.createVariable("lon", "f4", ("lon",))
    lon.units = "degrees_east"
    temp = ds.createVariable("temp", "i2", ("time", "lat", "lon"), zlib=True, complevel=4, fill_value=-999)
    temp.units = "K"
    temp.scale_factor = 0.01
    temp.add_offset = 273.15
    pres = ds.createVariable("pressure", "f4", ("time",), fill_value=np.float32(-1e30))
    pres.units = "hPa"
    cnt = ds.createVariable("count", "i4", ("time",), zlib=True)
    flag = ds.createVariable("flag", "u1" if fmt == "NETCDF4" else "i1", ("time",), fill_value=7)
    elev = ds.createVariable("elevation", "f8", ("station",))
    elev.units = "m"
    code = ds.createVariable("code", "i8" if fmt == "NETCDF4" else "i4", ("station",))
    ds.createVariable("scalar", "f8", ())
    lat[:] = [-10, 0, 10]
    lon[:] = [0, 90, 180, 270]
    t[:] = [0, 6, 12, 18, 24]
    ds.set_auto_maskandscale(False)
    temp[:] = (np.arange(60).reshape(5, 3, 4) * 7 - 200).astype("i2")
    temp[1, 1, 1] = -999
    pres[:] = [1000, 1001.5, -1e30, 999, 998.25]
    cnt[:] = [1, 2, 3, 4, 5]
    flag[:] = [0, 1, 7, 1, 0]
    elev[:] = [12.5, 1800]
    code[:] = [101, 202]
    ds["scalar"][...] = 3.5
    if fmt == "NETCDF4":
        name = ds.createVariable("name", str, ("station",))
        name[0] = "Alpha"
        name[1] = "Beta station"
        g = ds.createGroup("sub")
        g.createDimension("level", 2)
        lev = g.createVariable("level", "i4", ("level",))
        lev[:] = [850, 500]
        wind = g.createVariable("wind", "f4", ("time", "level"))
        wind[:] = np.arange(10, dtype="f4").reshape(5, 2)
        g.createVariable("gust", "f4", ("time",))[:] = [1, 2, 3, 4, 5]
    ds.close()


def dim_owner(var, name):
    g = var.group()
    while g is not None:
        if name in g.dimensions:
            return g
        g = g.parent
    raise KeyError(name)


def gpath(g):
    return g.path if g.path != "/" else ""


def nc_expect(path):
    out = {"dims": [], "vars": {}, "order": {}}
    ds = netCDF4.Dataset(path)
    ds.set_auto_maskandscale(False)
    out["data_model"] = ds.data_model

    def walk(g):
        for name, d in g.dimensions.items():
            out["dims"].append({"path": gpath(g) + "/" + name, "name": name, "size": len(d),
                                "unlimited": d.isunlimited()})
        out["order"][g.path] = list(g.variables)
        for name, v in g.variables.items():
            e = {"dims": list(v.dimensions),
                 "dim_paths": [gpath(dim_owner(v, n)) + "/" + n for n in v.dimensions],
                 "shape": list(v.shape)}
            for a in ["units", "scale_factor", "add_offset", "_FillValue"]:
                if a in v.ncattrs():
                    val = v.getncattr(a)
                    if isinstance(val, str):
                        e[a] = val
                    else:
                        arr = np.atleast_1d(np.asarray(val))
                        e[a] = {"dtype": arr.dtype.str, "raw": b64(arr.tobytes()), "value": float(arr[0])}
            vals = v[...]
            if v.dtype == str:
                e["strings"] = list(np.asarray(vals, dtype=object).ravel())
            else:
                e["raw"] = b64(np.ascontiguousarray(np.asarray(vals)).tobytes())
            out["vars"][gpath(g) + "/" + name] = e
        for sub in g.groups.values():
            walk(sub)

    walk(ds)
    ds.close()
    # xarray's grouping of the root group's 1-D variables by dimension:
    # to_dataframe's columns after reset_index (the dimension first).
    x = xr.open_dataset(path, mask_and_scale=False, decode_times=False)
    tables = {}
    for d in x.dims:
        cols = [k for k in x.data_vars if x[k].dims == (d,)]
        if not cols and d not in x.coords:
            continue
        df = x[cols].to_dataframe() if cols else x[[d]].to_dataframe()
        tables[d] = {"columns": list(df.reset_index().columns), "coordinate": d in x.coords}
    x.close()
    out["tables"] = tables
    return out


def gen_netcdf():
    exp = {}
    for name, fmt in [("nc4.nc", "NETCDF4"), ("nc4_classic.nc", "NETCDF4_CLASSIC")]:
        path = os.path.join(HERE, name)
        gen_nc4(path, fmt)
        exp[name] = nc_expect(path)
    for name, fmt in [("nc3_classic.nc", "NETCDF3_CLASSIC"), ("nc3_64bit_offset.nc", "NETCDF3_64BIT_OFFSET"),
                      ("nc3_64bit_data.nc", "NETCDF3_64BIT_DATA")]:
        path = os.path.join(HERE, name)
        ds = netCDF4.Dataset(path, "w", format=fmt)
        ds.createDimension("x", 3)
        ds.createVariable("v", "f4", ("x",))[:] = [1, 2, 3]
        ds.close()
        with open(path, "rb") as fh:
            exp[name] = {"magic": b64(fh.read(4)), "format": fmt}
    dump("netcdf.json", exp)


def gen_dimscales():
    """h5py's own dimension scales (H5DS) in a plain HDF5 file."""
    path = os.path.join(HERE, "dimscales.h5")
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(4, dtype="<f4")
        f["x"].make_scale("x")
        f["y"] = np.array([10, 20, 30], dtype="<i2")
        f["y"].make_scale("y axis")
        f["data"] = np.arange(12, dtype="<f8").reshape(4, 3)
        f["data"].dims[0].attach_scale(f["x"])
        f["data"].dims[1].attach_scale(f["y"])
        f["half"] = np.zeros((4, 2), dtype="u1")
        f["half"].dims[0].attach_scale(f["x"])
        f["plain"] = np.ones(3, dtype="<i4")
    exp = describe(path)
    for e in exp.values():
        # References inside sequences and compounds: h5py's values are
        # Python objects; the paths they point to are dim_paths below.
        for a in ["DIMENSION_LIST", "REFERENCE_LIST"]:
            if a in e["attrs"]:
                e["attrs"][a] = {"class": e["attrs"][a]["class"]}
    with h5py.File(path, "r") as f:
        for p in ["/data", "/half", "/plain", "/x", "/y"]:
            ds = f[p]
            exp[p]["dim_paths"] = [dim.values()[0].name if len(dim) else "" for dim in ds.dims]
            exp[p]["is_scale"] = bool(h5py.h5ds.is_scale(ds.id))
    dump("dimscales.json", exp)


gen_compound()
gen_dimscales()
gen_strings()
gen_filters()
gen_netcdf()
