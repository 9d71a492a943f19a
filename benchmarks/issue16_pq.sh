#!/bin/sh
# Issue 16's write-side target, npy -> Parquet (zstd) at most 0.7x DuckDB's
# COPY of the same table from memory (benchmarks/RESULTS.md, section
# "Issue 16: npy -> Parquet, session 15"): interleaved rounds, every
# command pinned to one core, CPU seconds (user + sys) of whole processes
# from /usr/bin/time, DuckDB's COPY alone from its own cpu_secs.
#
# usage: benchmarks/issue16_pq.sh DIR RUNS NAME=NPYFLOW...
#   DIR holds struct.npy (gen.py: 10M rows of i8, f8, f4, bool, M8[ms])
#   and struct-src.parquet (bin/gobench srcparquet DIR/struct.npy
#   DIR/struct-src.parquet: DuckDB's source table). Each NAME=NPYFLOW is a
#   build of npyflow to run (e.g. this branch and main); their outputs are
#   compared byte for byte with the first one's. DUCK names
#   duckdb_bench.mjs where node finds @duckdb/node-api (run.py copies it
#   next to a node_modules symlink; see duck_modules in run.py).
# Prints one line per run: NAME elapsed user sys maxrss_kB, the load
# averages before each round, DuckDB's "duckdb_copy_cpu SECONDS" (the
# COPY alone), and whether the outputs are byte-identical.
set -eu
D=$1
RUNS=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
DUCK=${DUCK:-$HERE/duckdb_bench.mjs}
T="taskset -c 1 /usr/bin/time -f"
run() { # NAME OUT CMD...
	name=$1 out=$2
	shift 2
	rm -f "$out"
	sync
	$T "$name %e %U %S %M" "$@" 2>&1 >/tmp/issue16_pq.out | grep "^$name " || true
	sed -n 's/^RESULT .*cpu_secs=\([0-9.]*\).*/duckdb_copy_cpu \1/p' /tmp/issue16_pq.out
}
for i in $(seq "$RUNS"); do
	echo "# run $i load $(cut -d' ' -f1-3 /proc/loadavg)"
	for b in "$@"; do
		name=${b%%=*}
		run "$name" "$D/o-$name.parquet" "${b#*=}" convert --progress=never "$D/struct.npy" "$D/o-$name.parquet"
	done
	run duckdb-copy "$D/d.parquet" node "$DUCK" copy "$D/struct-src.parquet" "$D/d.parquet"
done
first=${1%%=*}
for b in "$@"; do
	name=${b%%=*}
	cmp "$D/o-$first.parquet" "$D/o-$name.parquet" && echo "outputs: $name byte-identical to $first"
done
for b in "$@"; do rm -f "$D/o-${b%%=*}.parquet"; done
rm -f "$D/d.parquet"
