#!/usr/bin/python3
"""Check .npy/.npz files written by the Go code against the numpy fixtures.

    /usr/bin/python3 testdata/check_written.py OUTDIR [--strict-bytes] [-v]

For every OUTDIR/NAME.npy with a fixture testdata/npy/NAME.npy (and every
OUTDIR/NAME.npz with a fixture testdata/npz/NAME.npz) the file is loaded with
np.load and compared with the fixture:

  * dtype: equal as numpy dtypes, same dtype.str (byte order included) and
    the same header descriptor (numpy.lib.format.dtype_to_descr);
  * shape;
  * fortran_order, when it matters (at least two axes longer than 1);
  * values: floats/complex with np.array_equal(equal_nan=True) plus equal
    sign bits (so -0.0 != 0.0); bool by truth value (a writer may normalise
    byte 2 to 1); everything else (ints, strings, void, datetimes,
    structured) by comparing tobytes();
  * whether the file is byte-identical to the fixture (reported; a failure
    only with --strict-bytes).

npz archives must also have the same members in the same order.
Files without a fixture are listed as skipped. Prints "N passed, M failed"
and exits 1 if anything failed, 2 if nothing could be checked.
"""

import argparse
import os
import sys
import zipfile

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))
BIG = 10 ** 8  # max_header_size: the fixtures include headers numpy refuses


def read_header(fp):
    version = npformat.read_magic(fp)
    return npformat._read_array_header(fp, version, max_header_size=BIG)


def order_matters(shape):
    return sum(1 for s in shape if s > 1) >= 2


def compare_values(got, exp):
    k = exp.dtype.kind
    if k in "fc":
        if not np.array_equal(got, exp, equal_nan=True):
            return "values differ"
        parts = [(got.real, exp.real), (got.imag, exp.imag)] if k == "c" \
            else [(got, exp)]
        for g, e in parts:
            if not np.array_equal(np.signbit(g), np.signbit(e)):
                return "sign of zero/nan differs"
        return None
    if k == "b":
        return None if np.array_equal(got, exp) else "values differ"
    if np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(exp).tobytes():
        return "values differ (tobytes)"
    return None


def compare_arrays(got, exp, got_fortran, exp_fortran):
    errs = []
    if got.dtype != exp.dtype or got.dtype.str != exp.dtype.str:
        errs.append("dtype %r != expected %r" % (got.dtype, exp.dtype))
    elif repr(npformat.dtype_to_descr(got.dtype)) != \
            repr(npformat.dtype_to_descr(exp.dtype)):
        errs.append("descr %r != expected %r" % (
            npformat.dtype_to_descr(got.dtype), npformat.dtype_to_descr(exp.dtype)))
    if got.shape != exp.shape:
        errs.append("shape %r != expected %r" % (got.shape, exp.shape))
    if got_fortran != exp_fortran and order_matters(exp.shape):
        errs.append("fortran_order %r != expected %r" % (got_fortran, exp_fortran))
    if not errs:
        e = compare_values(got, exp)
        if e:
            errs.append(e)
    return errs


def load_npy(path):
    with open(path, "rb") as f:
        _, fortran, _ = read_header(f)
    return np.load(path, max_header_size=BIG), fortran


def check_npy(path, fixture):
    try:
        got, gf = load_npy(path)
    except Exception as e:  # noqa: BLE001
        return ["np.load failed: %s: %s" % (type(e).__name__, e)]
    exp, ef = load_npy(fixture)
    return compare_arrays(got, exp, gf, ef)


def npz_members(path):
    out = []
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            out.append((info.filename, zf.read(info.filename)))
    return out


def check_npz(path, fixture):
    import io
    try:
        got = npz_members(path)
    except Exception as e:  # noqa: BLE001
        return ["cannot open zip: %s: %s" % (type(e).__name__, e)]
    exp = npz_members(fixture)
    gnames, enames = [n for n, _ in got], [n for n, _ in exp]
    if gnames != enames:
        return ["members %r != expected %r" % (gnames, enames)]
    errs = []
    for (name, graw), (_, eraw) in zip(got, exp):
        if eraw[:6] != b"\x93NUMPY":
            if graw != eraw:
                errs.append("%s: raw member bytes differ" % name)
            continue
        try:
            gf = read_header(io.BytesIO(graw))[1]
            g = np.load(io.BytesIO(graw), max_header_size=BIG)
        except Exception as e:  # noqa: BLE001
            errs.append("%s: np.load failed: %s: %s" % (name, type(e).__name__, e))
            continue
        ef = read_header(io.BytesIO(eraw))[1]
        e = np.load(io.BytesIO(eraw), max_header_size=BIG)
        errs += ["%s: %s" % (name, m) for m in compare_arrays(g, e, gf, ef)]
    # numpy's own loader must accept it too
    try:
        with np.load(path, max_header_size=BIG) as z:
            for k in z.files:
                z[k]
    except Exception as e:  # noqa: BLE001
        errs.append("np.load(npz) failed: %s: %s" % (type(e).__name__, e))
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--fixtures", default=HERE,
                    help="testdata directory (default: this script's folder)")
    ap.add_argument("--strict-bytes", action="store_true",
                    help="also fail files that are not byte-identical")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    passed = failed = 0
    skipped, not_identical = [], []
    for fn in sorted(os.listdir(args.outdir)):
        stem, ext = os.path.splitext(fn)
        if ext not in (".npy", ".npz"):
            continue
        path = os.path.join(args.outdir, fn)
        fixture = os.path.join(args.fixtures, ext[1:], fn)
        if not os.path.isfile(fixture):
            skipped.append(fn)
            continue
        errs = (check_npy if ext == ".npy" else check_npz)(path, fixture)
        with open(path, "rb") as a, open(fixture, "rb") as b:
            identical = a.read() == b.read()
        if not identical:
            not_identical.append(fn)
            if args.strict_bytes:
                errs.append("not byte-identical to the fixture")
        if errs:
            failed += 1
            print("FAIL %s: %s" % (fn, "; ".join(errs)))
        else:
            passed += 1
            if args.verbose:
                print("ok   %s%s" % (fn, "" if identical else
                                     " (values match, bytes differ)"))
    if skipped:
        print("skipped (no fixture): %s" % ", ".join(skipped))
    if not_identical:
        print("not byte-identical to fixture (%d): %s"
              % (len(not_identical), ", ".join(not_identical)))
    print("%d passed, %d failed" % (passed, failed))
    if failed:
        sys.exit(1)
    if passed == 0:
        sys.exit(2)


if __name__ == "__main__":
    main()
