#!/usr/bin/python3
"""Checks the netCDF-4 files npyflow wrote (TestNetCDFWrite with
NPYFLOW_NC_DIR=DIR; `make check-netcdf` runs both) with the netCDF tools:

  - `ncdump -h` of each file is the committed .cdl beside this script
    (which TestNetCDFWrite compares with npyflow's own reading, so that
    `make test` checks the structure without the tools);
  - netCDF4-python (auto mask and scale off) and xarray read the same
    variables, dimensions and values as the inputs: table.npy's fields
    (nested ones joined with _; strings as netCDF strings; datetime64 as CF time that xarray decodes
    back to the same datetime64, NaT included; bool back to bool),
    cube.npy over the dimensions given, and roundtrip.nc's variables after
    .nc -> .npz -> .nc.

Usage: /usr/bin/python3 check_netcdf.py DIR
"""
import os
import subprocess
import sys

import netCDF4
import numpy as np
import xarray as xr

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("check_netcdf: " + msg)
    sys.exit(1)


def main(out):
    for name in ["table", "cube", "roundtrip"]:
        path = os.path.join(out, name + ".nc")
        got = subprocess.run(["ncdump", "-h", path], check=True, capture_output=True, text=True).stdout
        with open(os.path.join(HERE, name + ".cdl")) as fh:
            want = fh.read()
        if got != want:
            fail(f"{name}.nc: ncdump -h differs from {name}.cdl:\n{got}")

    t = np.load(os.path.join(HERE, "table.npy"))
    ds = netCDF4.Dataset(os.path.join(out, "table.nc"))
    ds.set_auto_maskandscale(False)
    fields = {"a": t["a"], "b": t["b"], "c_x": t["c"]["x"], "c_y": t["c"]["y"],
              "t": t["t"].view("<i8"), "ok": t["ok"].astype("i1"), "pair": t["pair"],
              "name": t["name"].astype(object), "code": t["code"].astype("U").astype(object)}
    if sorted(ds.variables) != sorted(fields):
        fail(f"table.nc variables {sorted(ds.variables)}")
    for k, want in fields.items():
        v = ds[k]
        if v.dimensions[0] != "dim_0" or v.dtype != (str if want.dtype == object else want.dtype) or not np.array_equal(v[...], want):
            fail(f"table.nc {k}: {v.dimensions} {v.dtype} {v[...]!r}, want {want!r}")
    ds.close()
    x = xr.open_dataset(os.path.join(out, "table.nc"))
    if not np.array_equal(x["t"].values.view("i8"), t["t"].astype("M8[ns]").view("i8")) or not np.array_equal(x["ok"].values, t["ok"]):
        fail(f"xarray decodes t {x['t'].values} ok {x['ok'].values}")
    df = x.to_dataframe()
    if len(df) != 6 or list(x.dims) != ["dim_0", "dim_1"]:
        fail(f"xarray table {x}")
    x.close()

    c = np.load(os.path.join(HERE, "cube.npy"))
    x = xr.open_dataset(os.path.join(out, "cube.nc"))
    if x["cube"].dims != ("z", "lat", "lon") or not np.array_equal(x["cube"].values, c):
        fail(f"cube.nc: {x}")
    x.close()

    a = netCDF4.Dataset(os.path.join(HERE, "roundtrip.nc"))
    b = netCDF4.Dataset(os.path.join(out, "roundtrip.nc"))
    for d in [a, b]:
        d.set_auto_maskandscale(False)
    if sorted(a.variables) != sorted(b.variables) or {k: len(v) for k, v in a.dimensions.items()} != {k: len(v) for k, v in b.dimensions.items()}:
        fail(f"roundtrip.nc: {b}")
    for k in a.variables:
        va, vb = a[k], b[k]
        if va.dimensions != vb.dimensions or va.dtype != vb.dtype or not np.array_equal(va[...], vb[...]):
            fail(f"roundtrip.nc {k}: {vb}")
    xa = xr.open_dataset(os.path.join(HERE, "roundtrip.nc"), decode_cf=False)
    xb = xr.open_dataset(os.path.join(out, "roundtrip.nc"), decode_cf=False)
    for k in xa.variables:
        if xa[k].values.tolist() != xb[k].values.tolist() or xa[k].dims != xb[k].dims:
            fail(f"xarray roundtrip {k}")
    # hdf5's TestNetCDFWriterLayout: a variable lat along x stored as
    # _nc4_non_coord_lat next to the dimension lat without coordinates
    d = netCDF4.Dataset(os.path.join(out, "layout.nc"))
    d.set_auto_maskandscale(False)
    got = {k: (v.dimensions, v[...].tolist()) for k, v in d.variables.items()}
    want = {"lat": (("x",), [1, 2]), "x": (("x",), [0.0, 0.0]), "name": (("x",), ["ab", "é"]), "s": ((), 0.0)}
    if got != want or list(d.variables) != list(want) or {k: len(v) for k, v in d.dimensions.items()} != {"x": 2, "lat": 3}:
        fail(f"layout.nc: {got} {d.dimensions}")
    d.close()
    print("check_netcdf: table.nc, cube.nc, roundtrip.nc, layout.nc read right by ncdump, netCDF4-python and xarray")


if __name__ == "__main__":
    main(sys.argv[1])
