#!/usr/bin/python3
"""Writes the netCDF-4 fixtures of issue 30 (point 4: netCDF-4 read as
netCDF readers read it) and their expectations, each producer's own
reading, to nc_pad.json:

  nc_pad.nc     netCDF4-python: an unlimited dimension of 10 records with
                variables written for fewer (7 with a _FillValue, 4
                without one: netCDF's default fill), a (time, nv) bounds
                variable never written (0 records), a string variable
                with a string _FillValue written for 2 records, a
                (time, x) variable written for 6 records, and a variable
                named like a dimension it is not the coordinate variable
                of (netCDF-C stores it as _nc4_non_coord_lat).
  nc_xarray.nc  xarray's to_netcdf (unlimited time, NaN-holding floats
                with a _FillValue, strings: xarray refuses a string
                _FillValue for netCDF4), then
                three more time records appended by netCDF4-python, as a
                logger appending to an xarray-made file does.

nc_pad.json, per file: "vars" netCDF4-python's reading with auto mask and
scale off (each variable by netCDF path: dimensions, shape, dtype, raw
bytes or strings), "tables" xarray's (decode_cf=False) to_dataframe of the
root group's one-dimensional variables per dimension after reset_index
(columns, and each column's values as raw bytes or strings), "attrs"
xarray's attributes of each variable (strings; numbers as Python's repr
of their float value, "nan" for NaN).

Run from this directory: /usr/bin/python3 gen_netcdf_pad.py
(Debian's python3-netcdf4 1.6.2 on netCDF-C 4.9.0, python3-xarray 2023.01).
"""
import base64
import json
import os

import netCDF4
import numpy as np
import xarray as xr

HERE = os.path.dirname(os.path.abspath(__file__))


def b64(b):
    return base64.b64encode(b).decode()


def gen_pad(path):
    ds = netCDF4.Dataset(path, "w", format="NETCDF4")
    ds.createDimension("time", None)
    ds.createDimension("nv", 2)
    ds.createDimension("x", 2)
    ds.createDimension("lat", 3)  # no coordinate variable: "lat" is a variable along x
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "hours since 2000-01-01"
    sensor = ds.createVariable("sensor", "f4", ("time",), fill_value=np.float32(-999))
    count = ds.createVariable("count", "i4", ("time",))
    small = ds.createVariable("small", "i1", ("time",))
    big = ds.createVariable("big", "u8", ("time",))
    bnds = ds.createVariable("time_bnds", "f8", ("time", "nv"))
    status = ds.createVariable("status", str, ("time",), fill_value="n/a")
    grid = ds.createVariable("grid", "f8", ("time", "x"), zlib=True)
    lat = ds.createVariable("lat", "f4", ("x",))
    lat.units = "degrees_north"
    v = ds.createVariable("v", "i2", ("lat",))
    ds.set_auto_maskandscale(False)
    t[:] = np.arange(10) * 0.5
    sensor[:7] = np.arange(7, dtype="f4") + 0.25
    count[:4] = [1, 2, 3, 4]
    small[:3] = [-1, 0, 1]
    big[:1] = [2**63 + 5]
    status[0] = "ok"
    status[1] = "bad"
    grid[:6, :] = np.arange(12, dtype="f8").reshape(6, 2)
    lat[:] = [45.5, -12.25]
    v[:] = [7, 8, 9]
    assert bnds.shape == (10, 2)
    ds.close()


def gen_xarray(path):
    x = xr.Dataset(
        {
            "temp": ("time", np.array([1.5, np.nan, 3.25, 4.0, np.nan], dtype="f4")),
            "name": ("time", np.array(["a", "bb", "ccc", "d", "e"], dtype=object)),
            "level": ("time", np.array([1, 2, 3, 4, 5], dtype="i8")),
        },
        coords={"time": np.array([0.0, 1.0, 2.0, 3.0, 4.0])},
    )
    x["time"].attrs["units"] = "days since 2001-01-01"
    enc = {"temp": {"_FillValue": np.float32(-9999)}}
    x.to_netcdf(path, engine="netcdf4", format="NETCDF4", unlimited_dims=["time"], encoding=enc)
    ds = netCDF4.Dataset(path, "a")
    ds.set_auto_maskandscale(False)
    ds["time"][5:8] = [5.0, 6.0, 7.0]
    ds.close()


def values(arr):
    arr = np.asarray(arr)
    if arr.dtype == object or arr.dtype.kind in "US":
        return {"strings": [str(s) for s in arr.ravel()]}
    return {"raw": b64(np.ascontiguousarray(arr).tobytes()), "dtype": arr.dtype.str}


def expect(path):
    out = {"vars": {}, "tables": {}, "attrs": {}}
    ds = netCDF4.Dataset(path)
    ds.set_auto_maskandscale(False)
    for name, v in ds.variables.items():
        e = {"dims": list(v.dimensions), "shape": list(v.shape)}
        e.update(values(v[...]))
        out["vars"]["/" + name] = e
    ds.close()
    x = xr.open_dataset(path, decode_cf=False)
    for d in x.dims:
        cols = [k for k in list(x.coords) + list(x.data_vars) if x[k].dims == (d,) and k != d]
        if not cols:
            continue
        df = x[cols].to_dataframe().reset_index()
        if d not in x.indexes:
            df = df.drop(columns=[d])  # xarray numbers the rows; npyflow gives no index column
        t = {"columns": list(df.columns), "values": {}}
        for c in df.columns:
            t["values"][c] = values(df[c].to_numpy())
        out["tables"][d] = t
    for k in x.variables:
        a = {}
        for an, av in x[k].attrs.items():
            if isinstance(av, str):
                a[an] = av
            else:
                a[an] = repr(float(np.asarray(av).ravel()[0]))
        out["attrs"][k] = a
    x.close()
    return out


def main():
    exp = {}
    for name, gen in [("nc_pad.nc", gen_pad), ("nc_xarray.nc", gen_xarray)]:
        path = os.path.join(HERE, name)
        gen(path)
        exp[name] = expect(path)
    with open(os.path.join(HERE, "nc_pad.json"), "w") as out:
        json.dump(exp, out, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
