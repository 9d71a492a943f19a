#!/usr/bin/python3
"""Writes the inputs of the netCDF-4 writer's tests (ncwrite_test.go):

  table.npy      numpy: a table (structured array) with int32, float64,
                 a nested struct {x: int16, y: uint8}, datetime64[s] with
                 a NaT, bool, a (2,) float32 subarray field, U6 (with
                 a non-ASCII and an empty string) and S3 strings.
  cube.npy       numpy: a (2, 3, 4) float32 array.
  roundtrip.nc   netCDF4-python 1.6.2 (netCDF-C 4.9.0): a time coordinate
                 (float64, units), a (time, x) float32 variable, an
                 int32 one and a string one along time, converted
                 .nc -> .npz -> .nc.

The .cdl files are `ncdump -h` of npyflow's outputs, written by `make
check-netcdf` (check_netcdf.py), which also reads every output with
netCDF4-python and xarray against these inputs.

Run from this directory: /usr/bin/python3 gen_inputs.py
"""
import os

import netCDF4
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    dt = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", [("x", "<i2"), ("y", "u1")]),
                   ("t", "M8[s]"), ("ok", "?"), ("pair", "<f4", (2,)), ("name", "<U6"), ("code", "S3")])
    t = np.zeros(3, dtype=dt)
    t["a"] = [1, -5, 2**31 - 1]
    t["b"] = [2.5, -6.25, 1e300]
    t["c"]["x"] = [3, -7, 300]
    t["c"]["y"] = [4, 8, 255]
    t["t"] = np.array(["2020-01-01T00:00:01", "NaT", "1969-12-31T23:59:59"], dtype="M8[s]")
    t["ok"] = [True, False, True]
    t["pair"] = [[1, 2], [3, 4], [5, 6]]
    t["name"] = ["Zürich", "", "a b"]
    t["code"] = [b"ABC", b"x", b""]
    np.save(os.path.join(HERE, "table.npy"), t)
    np.save(os.path.join(HERE, "cube.npy"), np.arange(24, dtype="<f4").reshape(2, 3, 4) - 3.5)
    ds = netCDF4.Dataset(os.path.join(HERE, "roundtrip.nc"), "w", format="NETCDF4")
    ds.createDimension("time", 4)
    ds.createDimension("x", 3)
    tv = ds.createVariable("time", "f8", ("time",))
    tv.units = "hours since 2000-01-01"
    tv[:] = [0, 6, 12, 18]
    temp = ds.createVariable("temp", "f4", ("time", "x"))
    temp[:] = np.arange(12, dtype="f4").reshape(4, 3) / 4
    cnt = ds.createVariable("count", "i4", ("time",))
    cnt[:] = [1, 2, 3, -4]
    label = ds.createVariable("label", str, ("time",))
    for i, s in enumerate(["α", "", "gamma", "d"]):
        label[i] = s
    ds.close()


if __name__ == "__main__":
    main()
