#!/bin/sh
# Issue 16's speed targets measured by hand (benchmarks/RESULTS.md, section
# "Issue 16 speed targets"): interleaved runs, every command pinned to one
# core, CPU seconds (user + sys) of whole processes from /usr/bin/time.
#
# usage: benchmarks/issue16.sh DIR RUNS
#   DIR holds struct.npy (gen.py: 10M rows of i8, f8, f4, bool, M8[ms])
#   and struct-src.parquet (bin/gobench srcparquet); bin/npyflow, bin/gobench
#   and DuckDB's script are those of `make bench-compare` (run.py builds
#   them; DUCK names duckdb_bench.mjs where node finds @duckdb/node-api).
# Prints one line per run: NAME elapsed user sys maxrss_kB [cpu_secs of DuckDB's COPY].
set -eu
D=$1
RUNS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
NPYFLOW=${NPYFLOW:-$HERE/bin/npyflow}
GOBENCH=${GOBENCH:-$HERE/bin/gobench}
DUCK=${DUCK:-$HERE/duckdb_bench.mjs}
T="taskset -c 1 /usr/bin/time -f"
# Inputs: the struct table and a one-column int64 table (35M rows, 280 MB)
# as uncompressed IPC files.
[ -f "$D/s.arrow" ] || "$NPYFLOW" convert --progress=never --compression=none "$D/struct.npy" "$D/s.arrow"
[ -f "$D/i8.npy" ] || /usr/bin/python3 -c "import numpy as np; np.save('$D/i8.npy', np.arange(35_000_000, dtype='<i8')*7-3)"
[ -f "$D/i8.arrow" ] || "$NPYFLOW" convert --progress=never --compression=none "$D/i8.npy" "$D/i8.arrow"
run() { # NAME OUT CMD...
	name=$1 out=$2
	shift 2
	[ "$out" = /dev/null ] || rm -f "$out"
	sync
	$T "$name %e %U %S %M" "$@" 2>&1 >/tmp/issue16.out | grep "^$name " || true
	sed -n 's/^RESULT .*cpu_secs=\([0-9.]*\).*/duckdb_copy_cpu \1/p' /tmp/issue16.out
}
for i in $(seq "$RUNS"); do
	echo "# run $i load $(cut -d' ' -f1 /proc/loadavg)"
	run startup /dev/null "$NPYFLOW" help
	run ipc5-lib-pread "$D/o5p.npy" "$GOBENCH" ipc2npy-pread "$D/s.arrow" "$D/o5p.npy"
	run ipc5-cli "$D/o5.npy" "$NPYFLOW" convert --progress=never "$D/s.arrow" "$D/o5.npy"
	run ipc5-cli-sync "$D/o5.npy" "$NPYFLOW" convert --progress=never --sync "$D/s.arrow" "$D/o5.npy"
	run ipc5-lib "$D/o5l.npy" "$GOBENCH" ipc2npy-npyflow "$D/s.arrow" "$D/o5l.npy"
	run ipc5-cp "$D/c5.arrow" cp "$D/s.arrow" "$D/c5.arrow"
	run ipc5-cp-sync "$D/c5.arrow" sh -c "cp '$D/s.arrow' '$D/c5.arrow' && sync '$D/c5.arrow'"
	run ipc1-cli "$D/o1.npy" "$NPYFLOW" convert --progress=never "$D/i8.arrow" "$D/o1.npy"
	run ipc1-lib "$D/o1l.npy" "$GOBENCH" ipc2npy-npyflow "$D/i8.arrow" "$D/o1l.npy"
	run ipc1-lib-pread "$D/o1p.npy" "$GOBENCH" ipc2npy-pread "$D/i8.arrow" "$D/o1p.npy"
	run ipc1-cp "$D/c1.arrow" cp "$D/i8.arrow" "$D/c1.arrow"
	run ipc1-cp-sync "$D/c1.arrow" sh -c "cp '$D/i8.arrow' '$D/c1.arrow' && sync '$D/c1.arrow'"
	run pq-cli "$D/o.parquet" "$NPYFLOW" convert --progress=never "$D/struct.npy" "$D/o.parquet"
	run pq-duckdb "$D/d.parquet" node "$DUCK" copy "$D/struct-src.parquet" "$D/d.parquet"
done
# Values: the .npy outputs equal the .npy the .arrow files were made from.
cmp "$D/o5.npy" "$D/struct.npy" && cmp "$D/o5l.npy" "$D/struct.npy" && cmp "$D/o5p.npy" "$D/struct.npy" && cmp "$D/o1.npy" "$D/i8.npy" &&
	cmp "$D/o1l.npy" "$D/i8.npy" && cmp "$D/o1p.npy" "$D/i8.npy" && echo "outputs: byte-identical"
rm -f "$D/o.parquet" "$D/o5.npy" "$D/o5l.npy" "$D/o5p.npy" "$D/o1.npy" "$D/o1l.npy" "$D/o1p.npy" "$D/c5.arrow" "$D/c1.arrow" "$D/d.parquet"
