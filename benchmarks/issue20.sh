#!/bin/sh
# Issue 20, one engine: the CLI before and after the refactor, on the same
# inputs, interleaved (benchmarks/RESULTS.md, "Issue 20: one engine, before
# and after").
#
# usage: BEFORE=path/npyflow AFTER=path/npyflow benchmarks/issue20.sh DIR [RUNS] [BIG_RUNS]
#   DIR holds the inputs of `make bench-compare` (run.py makes them):
#     struct.npy    gen.py: 10M rows of (i8, f8, f4, bool, M8[ms]), 290 MB
#     pq4.parquet   bin/gobench pqsrc4: 10M rows (i8, f8, f4, bool), zstd, written by pqarrow
#     struct.arrow  struct.npy as an uncompressed IPC file (npyflow convert --compression=none)
#     f64.npy       gen.py: float64 values (10M: 80 MB)
#     big.npy       gen.py: 4 GiB of struct records (BIG_RUNS=0 skips it)
# Jobs (`npyflow convert --progress=never IN OUT`): npy2pq struct.npy ->
# .parquet; pq2npy pq4.parquet -> .npy; arrow2npy struct.arrow -> .npy;
# mat73-table struct.npy -> .mat (v7.3, the default: a 1x1 struct of
# columns); mat73-f64 f64.npy -> .mat; big big.npy -> .parquet (peak RSS).
# Each round runs every job with both binaries back to back, the order
# swapped every round (B A, A B, ...), each pinned to one core (PIN,
# default 1) under /usr/bin/time, the output removed and `sync` run first.
# Prints one line per run: JOB before|after elapsed user sys maxrss_kB.
# benchmarks/issue20_summary.py turns them into medians and paired ratios.
set -eu
D=$1
RUNS=${2:-7}
BIG_RUNS=${3:-3}
PIN=${PIN:-1}
: "${BEFORE:?BEFORE=npyflow binary before the refactor}" "${AFTER:?AFTER=npyflow binary after it}"
O=${OUTDIR:-$D/issue20-out}
mkdir -p "$O"
one() { # JOB VARIANT BIN IN EXT
	out="$O/$1-$2.$5"
	rm -f "$out"
	sync
	taskset -c "$PIN" /usr/bin/time -f "$1 $2 %e %U %S %M" "$3" convert --progress=never "$4" "$out" 2>&1 >/dev/null | grep "^$1 $2 "
}
pair() { # ROUND JOB IN EXT
	if [ $(($1 % 2)) = 0 ]; then
		one "$2" before "$BEFORE" "$3" "$4"
		one "$2" after "$AFTER" "$3" "$4"
	else
		one "$2" after "$AFTER" "$3" "$4"
		one "$2" before "$BEFORE" "$3" "$4"
	fi
}
for i in $(seq "$RUNS"); do
	echo "# round $i load $(cut -d' ' -f1 /proc/loadavg)"
	pair "$i" npy2pq "$D/struct.npy" parquet
	pair "$i" pq2npy "$D/pq4.parquet" npy
	pair "$i" arrow2npy "$D/struct.arrow" npy
	pair "$i" mat73-table "$D/struct.npy" mat
	pair "$i" mat73-f64 "$D/f64.npy" mat
done
for i in $(seq "$BIG_RUNS"); do
	echo "# big round $i load $(cut -d' ' -f1 /proc/loadavg)"
	pair "$i" big "$D/big.npy" parquet
done
# The two binaries' outputs: .npy byte-identical; Parquet and MAT-files
# the same size (a MAT-file's header holds its creation time).
for j in pq2npy arrow2npy; do
	[ -f "$O/$j-before.npy" ] && cmp "$O/$j-before.npy" "$O/$j-after.npy" && echo "# $j: outputs byte-identical"
done
for f in npy2pq-%s.parquet mat73-table-%s.mat mat73-f64-%s.mat big-%s.parquet; do
	b=$(printf "$O/$f" before) a=$(printf "$O/$f" after)
	[ -f "$b" ] || continue
	echo "# $(basename "$a"): $(stat -c %s "$b") bytes before, $(stat -c %s "$a") after"
done
rm -rf "$O"
