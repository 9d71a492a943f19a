#!/usr/bin/python3
"""Write tiny netCDF-3 files with scipy.io.netcdf_file (a second producer
next to hdf5/testdata's netCDF4-python ones), which npyflow must refuse as
netCDF-3, not HDF5 (TestNetCDF3Refused).

Run from this directory: /usr/bin/python3 gen_netcdf3.py
"""
import numpy as np
from scipy.io import netcdf_file

for name, version in [("scipy_classic.nc", 1), ("scipy_64bit_offset.nc", 2)]:
    with netcdf_file(name, "w", version=version) as f:
        f.title = b"npyflow netCDF-3 fixture"
        f.createDimension("x", 3)
        v = f.createVariable("v", "f4", ("x",))
        v[:] = np.array([1.5, 2.5, 3.5], dtype="f4")
        v.units = b"m"
