#!/usr/bin/python3
"""Writes type_systems_v73_synth.mat with h5py in the layout MATLAB
(R2025a, save -v7.3) gives objects of the java and handle (COM) type
systems, as a MATLAB-written file of mat-io's tests shows it (that file
is not redistributed here): both variables carry MATLAB_class and
MATLAB_object_decode 3, like MCOS objects, but hold no MCOS reference:

  javatype    java.lang.String('hello world'): a uint8 dataset of HDF5
              shape (18, 1), the object's Java serialization
              (stream magic AC ED, version 5, TC_STRING, length, UTF-8)
  handletype  actxserver('Excel.Application'): an object-reference
              dataset of HDF5 shape (1, n) pointing into #refs#
  x           a plain double (1x3), so that the file has a readable
              variable

MATLAB's size of either object is 1x1 (whos, and the Level 5 file's
array header).

Run from this directory: /usr/bin/python3 gen_type_systems_v73.py
"""
import struct
import time

import h5py
import numpy as np


def header(path):
    text = ("MATLAB 7.3 MAT-file, Platform: h5py fixture, Created on: %s HDF5 schema 1.00 ."
            % time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(0)))
    b = text.encode().ljust(116, b" ") + b"\0" * 8 + b"\x00\x02IM"
    with open(path, "r+b") as f:
        f.write(b)


def main():
    path = "type_systems_v73_synth.mat"
    with h5py.File(path, "w", userblock_size=512, libver="earliest") as f:
        refs = f.create_group("#refs#")
        targets = []
        for i, v in enumerate([np.array([[1.0]]), np.array([[72, 105]], dtype=np.uint16), np.array([[1]], dtype=np.uint8)]):
            d = refs.create_dataset("r%d" % i, data=v)
            d.attrs.create("MATLAB_class", np.bytes_({"f": "double", "u": "char"}[v.dtype.kind] if v.dtype != np.uint8 else "logical"))
            targets.append(d.ref)
        ser = b"\xac\xed" + struct.pack(">H", 5) + b"\x74" + struct.pack(">H", 11) + b"hello world"
        d = f.create_dataset("javatype", data=np.frombuffer(ser, dtype=np.uint8).reshape(18, 1))
        d.attrs.create("MATLAB_class", np.bytes_("java.lang.String"))
        d.attrs.create("MATLAB_object_decode", np.int32(3))
        d = f.create_dataset("handletype", shape=(1, len(targets)), dtype=h5py.ref_dtype)
        for i, r in enumerate(targets):
            d[0, i] = r
        d.attrs.create("MATLAB_class", np.bytes_("COM.Excel_Application"))
        d.attrs.create("MATLAB_object_decode", np.int32(3))
        d = f.create_dataset("x", data=np.array([[1.0, 2.0, 3.0]]).T)
        d.attrs.create("MATLAB_class", np.bytes_("double"))
    header(path)


if __name__ == "__main__":
    main()
