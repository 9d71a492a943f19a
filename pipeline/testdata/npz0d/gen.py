#!/usr/bin/python3
"""Writes .npz archives holding 0-d members, as training checkpoints do
(np.savez(lr=0.01, ...)), for pipeline's npz sink tests. Run with
Debian's numpy, from this directory:

    /usr/bin/python3 gen.py

ckpt_1.npz is np.savez, ckpt_2.npz np.savez_compressed; each has the 0-d
members lr (<f8), step (<i8), tag (<U4, "sgé" padded in ckpt_2) and done (|b1), and w, a (3,)
<f4 array. The tests compare the members the npz sink writes with
numpy's members byte for byte, so no JSON is needed. sc.npz, mix1.npz and
mixn.npz mix 0-d and n-d members for convert's table (values below).
"""
import numpy as np

np.savez("ckpt_1.npz", lr=np.float64(0.01), step=np.int64(7), tag=np.str_("adam"),
         done=np.bool_(False), w=np.arange(3, dtype="<f4"))
np.savez_compressed("ckpt_2.npz", lr=np.float64(-2.5e-300), step=np.int64(2**53 + 1), tag=np.array("sgé", "<U4"),
                    done=np.bool_(True), w=np.array([np.nan, -0.0, 1e38], "<f4"))

# The README's example, all members 0-d: converted to a table, one record.
np.savez("sc.npz", lr=np.array(0.01), step=np.array(7))
# 0-d beside an array of one row (a table of one row) and beside an array
# of three rows (refused: the lengths differ).
np.savez("mix1.npz", lr=np.array(0.01), x=np.array([[1.5, -2.0]], "<f4"))
np.savez("mixn.npz", lr=np.array(0.01), x=np.arange(3.0))
