#!/usr/bin/python3
"""Runs gen_octave.m (Octave save -v7 and -v6) and writes the expectations
from scipy.io.loadmat. Run from this directory: /usr/bin/python3 gen_octave.py
"""
import subprocess

import scipy
import scipy.io as sio

import expect

subprocess.run(["octave", "--no-gui", "--quiet", "--no-window-system", "gen_octave.m"], check=True)
ver = subprocess.run(["octave", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
for name in ["octave_v6", "octave_v7"]:
    got = sio.loadmat(name + ".mat", chars_as_strings=True)
    entries = {}
    for k, val in got.items():
        if not k.startswith("__"):
            expect.members(k, val, entries)
    expect.write(name + ".json", entries,
                 notes="%s save; expected from scipy %s io.loadmat(chars_as_strings=True) "
                 "(storage types: Octave stores each class as itself)" % (ver, scipy.__version__))
