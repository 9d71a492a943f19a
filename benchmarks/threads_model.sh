#!/bin/bash
# Issue 31: the per-stage CPU behind the cores model of benchmarks/NOTES.md
# ("1 -> 2 cores, end to end"). Each case of threads.sh is run REPS times
# (default 3, the profiles merged) by
# threadprof (pipeline.Convert under a CPU profile) with Threads 1; pprof
# then splits its CPU into the part that runs in the format library's
# worker goroutines when Threads > 1 (the regex of each case: the
# decoders or encoders the library hands out, as named in its code) and
# the rest, which stays on the one goroutine that drives a conversion
# (reading the input, mapping, writing the output file). Not run by the
# tests.
#
#   benchmarks/threads_model.sh WORK THREADPROF [REPS [CASES_REGEX]]
#
# WORK is threads.sh's. It prints, per case: total CPU, parallel CPU,
# serial CPU (ms, the mean of a run), the serial share s, and the projected wall of 2, 8, 16
# and 64 cores, serial + parallel / N (the CPU of start-up, I/O waits and
# the contention of more cores left out, so these are lower bounds).
set -eu
W=$1
TP=$2
REPS=${3:-3}
ONLY=${4:-.}
OUT=${OUT:-/dev/shm/npyflow-threads}
P=$OUT/prof
mkdir -p "$P"

# name | input | output | flags (threadprof -flag) | parallel regex
CASES='pq_to_npy|struct.parquet|o.npy||parquetio\.\(\*leafDecoder\)
npy_to_pq|struct.npy|o.parquet||parquetio\.\(\*Writer\)\.dispatch\.func
npy_to_arrow|struct.npy|o.arrow||^$
arrow_to_npy|struct.arrow|o.npy||^$
arrowzstd_to_npy|structz.arrow|o.npy||klauspost
h5lz4_to_npy|lz4.h5|o.npy|-flag dataset=/x|hdf5\.\(\*regionRead\)\.work
h5zstd_to_npy|zstd.h5|o.npy|-flag dataset=/x|hdf5\.\(\*regionRead\)\.work
npy_to_zarr|x.npy|o.zarr|-flag compression=zstd|zarr\.\(\*ArrayWriter\)\.writeCell
zarr_to_npy|x.zarr|o.npy||zarr\.\(\*Array\)\.loadUnit'

ms() {
	go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$@" 2>/dev/null |
		grep -o 'accounting for [0-9.]*m\?s' | grep -o '[0-9.]*m\?s$' |
		awk '/ms$/ {sub("ms", ""); print; next} {sub("s", ""); print $0 * 1000}'
}

echo "case total_ms parallel_ms serial_ms s T2 T8 T16 T64"
while IFS='|' read -r name src dst flags par; do
	[[ $name =~ $ONLY ]] || continue
	profs=()
	for r in $(seq "$REPS"); do
		rm -rf "${OUT:?}/$dst"
		# shellcheck disable=SC2086 # flags are words
		"$TP" -cpuprofile "$P/$name.$r.prof" -threads 1 $flags "$W/$src" "$OUT/$dst" >/dev/null
		rm -rf "${OUT:?}/$dst"
		profs+=("$P/$name.$r.prof")
	done
	tot=$(ms "${profs[@]}")
	p=$(ms -focus="$par" "${profs[@]}")
	echo "$name $tot ${p:-0} $REPS" | awk '{t = $2 / $4; p = $3 / $4; s = t - p
		printf "%s %d %d %d %.2f %.2f %.2f %.2f %.2f\n", $1, t, p, s, s / t,
			(s + p / 2) / 1000, (s + p / 8) / 1000, (s + p / 16) / 1000, (s + p / 64) / 1000}'
done <<<"$CASES"
