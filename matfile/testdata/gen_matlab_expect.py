#!/usr/bin/python3
"""Writes the expectations of the MATLAB-written files in matlab/ (from
MAT.jl's tests, see matlab/README.md): Level 5 ones from
scipy.io.loadmat(mat_dtype=True) (MATLAB stores small doubles as miUINT8;
mat_dtype gives the class), v7.3 ones from hdf5storage.loadmat.

Run from this directory: /usr/bin/python3 gen_matlab_expect.py
"""
import hdf5storage
import scipy.io as sio

import expect


def main():
    for name in ["struct", "cell"]:
        got = sio.loadmat("matlab/v7/%s.mat" % name, chars_as_strings=True, mat_dtype=True)
        entries = {}
        for k, val in got.items():
            if not k.startswith("__"):
                expect.members(k, val, entries)
        expect.write("matlab/v7/%s.json" % name, entries,
                     notes="scipy.io.loadmat(mat_dtype=True, chars_as_strings=True)")
        got = hdf5storage.loadmat("matlab/v7.3/%s.mat" % name)
        entries = {}
        for k, val in got.items():
            expect.members(k, expect.h5s_normalize(val), entries)
        expect.write("matlab/v7.3/%s.json" % name, entries,
                     notes="hdf5storage.loadmat; char arrays as one string per row like scipy")


main()
