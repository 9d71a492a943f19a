#!/bin/sh
# Issue 23: npyflow against h5py + hdf5plugin reading 800 MiB of lz4-,
# zstd-, blosc- and bitshuffle-compressed chunks (see h5filters.py).
#
#   benchmarks/h5filters.sh [WORK] [RUNS]
#
# Builds bin/npyflow, writes the inputs into WORK (default
# /tmp/npyflow_h5filters, about 3 GB, kept between runs), times the cases
# interleaved (5 rounds, each job pinned to core 1), prints the table and
# the ratios, then checks npyflow's outputs against x.npy.
set -eu
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/npyflow_h5filters}
RUNS=${2:-5}
PY=/usr/bin/python3
go build -o bin/npyflow ./cmd/npyflow
$PY benchmarks/h5filters.py gen "$WORK"
$PY benchmarks/h5filters.py run "$WORK" bin/npyflow "$RUNS"
$PY benchmarks/h5filters.py check "$WORK" bin/npyflow
