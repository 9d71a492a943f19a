#!/bin/bash
# Issue 31: npyflow on 1 and on 2 cores, two ways: --threads 1 against
# --threads 2 (GOMAXPROCS 2, every goroutine free to use both cores), and
# taskset -c 0 against taskset -c 0,1 (Go sizes GOMAXPROCS by the CPU
# affinity: 1 and 2). Not run by the tests.
#
#   benchmarks/threads.sh WORK NPYFLOW [RUNS [CASES_REGEX]]
#
# WORK holds the inputs (made once, see benchmarks/NOTES.md "1 -> 2
# cores"): struct.npy (gen.py: 10M records of 29 bytes), struct.parquet,
# struct.arrow and structz.arrow (npyflow convert of struct.npy; zstd for
# structz), x.npy, lz4.h5 and zstd.h5 (h5filters.py gen with 51200 rows:
# 400 MiB of float64), x.zarr (npyflow convert --compression zstd x.npy).
# Each run is one whole process, `/usr/bin/time -f "%e %U %S %M"`, the
# output in $OUT (default /dev/shm/npyflow-threads) and removed after;
# RUNS rounds (default 3), every case and setting once per round, so that
# the load of the machine spreads over all of them. It prints one line per
# run (case setting wall cpu rss_mb), then the medians as a table.
set -eu
W=$1
NF=$2
RUNS=${3:-3}
ONLY=${4:-.}
OUT=${OUT:-/dev/shm/npyflow-threads}
mkdir -p "$OUT"

# name | input | output | flags
CASES="pq_to_npy|struct.parquet|o.npy|
npy_to_pq|struct.npy|o.parquet|
npy_to_arrow|struct.npy|o.arrow|
arrow_to_npy|struct.arrow|o.npy|
arrowzstd_to_npy|structz.arrow|o.npy|
h5lz4_to_npy|lz4.h5|o.npy|--dataset /x
h5zstd_to_npy|zstd.h5|o.npy|--dataset /x
npy_to_zarr|x.npy|o.zarr|--compression zstd
zarr_to_npy|x.zarr|o.npy|"
# name | prefix | threads
SETTINGS="t1||1
t2||2
cpu0|taskset -c 0|0
cpu01|taskset -c 0,1|0"

for f in struct.parquet struct.npy struct.arrow structz.arrow lz4.h5 zstd.h5 x.npy; do
	cat "$W/$f" >/dev/null
done
find "$W/x.zarr" -type f -exec cat {} + >/dev/null

RES=$OUT/results.txt
: >"$RES"
for r in $(seq "$RUNS"); do
	while IFS='|' read -r name src dst flags; do
		[[ $name =~ $ONLY ]] || continue
		while IFS='|' read -r st prefix threads; do
			rm -rf "${OUT:?}/$dst"
			# shellcheck disable=SC2086 # prefix and flags are words
			t=$({ $prefix /usr/bin/time -f "TIME %e %U %S %M" "$NF" convert --progress=never --threads "$threads" $flags "$W/$src" "$OUT/$dst" >/dev/null; } 2>&1 | grep '^TIME ')
			echo "$name $st $(echo "$t" | awk '{print $2, $3 + $4, int($5 / 1024)}')" | tee -a "$RES"
			rm -rf "${OUT:?}/$dst"
		done <<<"$SETTINGS"
	done <<<"$CASES"
done

/usr/bin/python3 - "$RES" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    name, st, wall, cpu, rss = line.split()
    if name not in order:
        order.append(name)
    runs[name, st].append((float(wall), float(cpu), int(rss)))
med = lambda name, st, i: statistics.median(x[i] for x in runs[name, st])
print("| case | --threads 1 wall / CPU | --threads 2 wall / CPU | speed-up | taskset -c 0 wall / CPU | taskset -c 0,1 wall / CPU | speed-up | serial share s | 8 / 16 / 64 cores (projected wall) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in order:
    c = {st: (med(n, st, 0), med(n, st, 1)) for st in ("t1", "t2", "cpu0", "cpu01")}
    t1, t2 = c["cpu0"][0], c["cpu01"][0]
    # Amdahl: T(2) = T(1) (s + (1 - s) / 2).
    s = min(1.0, max(0.0, 2 * t2 / t1 - 1))
    proj = " / ".join("%.2f" % (t1 * (s + (1 - s) / k)) for k in (8, 16, 64))
    cell = lambda st: "%.2f / %.2f s" % c[st]
    print("| %s | %s | %s | %.2fx | %s | %s | %.2fx | %.2f | %s s |" % (
        n, cell("t1"), cell("t2"), c["t1"][0] / c["t2"][0], cell("cpu0"), cell("cpu01"), t1 / t2, s, proj))
EOF
