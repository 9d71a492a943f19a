#!/bin/sh
# Issue 31: parallel Parquet reading and writing, against the peers, whole
# processes, hot cache, interleaved in one run. Prints one line per run:
#   label wall_s user_s sys_s maxrss_kb
#
# Jobs (10M rows of gen.py's struct: i8 id, f8 x, f4 y, ? flag, M8[ms] ts):
#   read-*   DuckDB-written Parquet (zstd, 122,880-row groups) -> .npy
#            (npyflow convert) vs arrow-go pqarrow ReadTable (pqread, writes
#            nothing)
#   write-*  struct.npy -> Parquet zstd (npyflow convert) vs DuckDB's COPY
#            from memory (duckdb_bench.mjs: its RESULT line times the COPY
#            statement alone)
# Each npyflow job runs with GOMAXPROCS=1, GOMAXPROCS=2 and under
# `taskset -c 0`; OLD (optional) is a binary to compare with.
#
# usage: benchmarks/parquet_par.sh DIR NEW [OLD] [ROUNDS]   (make parquet-par)
#   DIR holds (or gets) struct.npy, struct.parquet and duck.parquet; it
#   needs node with @duckdb/node-api in a node_modules of DIR or a folder
#   above it, and DIR/pqread (go build -o DIR/pqread ./pqread).
set -e
d=$1 new=$2 old=${3:-} rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
test -f "$d/struct.npy" || /usr/bin/python3 "$here/gen.py" "$d" 1 10000000 0
test -f "$d/struct.parquet" || "$new" convert --progress=never "$d/struct.npy" "$d/struct.parquet"
cp "$here/duckdb_bench.mjs" "$d/"
test -f "$d/duck.parquet" || node "$d/duckdb_bench.mjs" copy "$d/struct.parquet" "$d/duck.parquet"
t() { # label command...
	label=$1
	shift
	printf '%s ' "$label"
	/usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1
}
cat /proc/loadavg
for i in $(seq "$rounds"); do
	for b in $old $new; do
		n=$(basename "$b")
		for p in 1 2; do
			rm -f "$d/out.npy" "$d/out.parquet"
			t "read-$n-P$p" env GOMAXPROCS=$p "$b" convert --progress=never "$d/duck.parquet" "$d/out.npy"
			t "write-$n-P$p" env GOMAXPROCS=$p "$b" convert --progress=never "$d/struct.npy" "$d/out.parquet"
		done
		rm -f "$d/out.npy" "$d/out.parquet"
		t "read-$n-taskset0" taskset -c 0 "$b" convert --progress=never "$d/duck.parquet" "$d/out.npy"
		t "write-$n-taskset0" taskset -c 0 "$b" convert --progress=never "$d/struct.npy" "$d/out.parquet"
	done
	t read-pqarrow "$d/pqread" "$d/duck.parquet"
	t read-pqarrow-taskset0 taskset -c 0 "$d/pqread" "$d/duck.parquet"
	printf 'write-duckdb '
	node "$d/duckdb_bench.mjs" copy "$d/struct.parquet" "$d/duck_out.parquet" | tr '\n' ' '
	echo
done
cat /proc/loadavg
rm -f "$d/out.npy" "$d/out.parquet" "$d/duck_out.parquet"
