#!/bin/sh
# `npyflow convert x.arrow x.npy` of a one-column file before and after the
# CLI copies it as stored (copy_file_range), against cp (benchmarks/RESULTS.md,
# "Issue 16 speed targets"). Interleaved runs, each pinned to one core,
# CPU seconds (user + sys) of the whole process from /usr/bin/time.
#
# usage: BEFORE=npyflow-at-base AFTER=npyflow-at-head benchmarks/ipcwire.sh DIR RUNS
# Makes DIR/x.npy (100M float64, numpy) and DIR/x.arrow (AFTER convert
# --compression=none). Prints: NAME elapsed user sys maxrss_kB.
set -eu
D=$1
RUNS=${2:-5}
T="taskset -c 1 /usr/bin/time -f"
[ -f "$D/x.npy" ] || /usr/bin/python3 -c "import numpy as np; np.save('$D/x.npy', np.random.default_rng(1).standard_normal(100_000_000))"
[ -f "$D/x.arrow" ] || "$AFTER" convert --progress=never --compression=none "$D/x.npy" "$D/x.arrow"
run() { # NAME OUT CMD...
	name=$1 out=$2
	shift 2
	[ "$out" = /dev/null ] || rm -f "$out"
	sync
	$T "$name %e %U %S %M" "$@" 2>&1 >/dev/null | grep "^$name " || true
}
for i in $(seq "$RUNS"); do
	echo "# run $i load $(cut -d' ' -f1 /proc/loadavg)"
	run startup /dev/null "$AFTER" help
	run before "$D/b.npy" "$BEFORE" convert --progress=never "$D/x.arrow" "$D/b.npy"
	run after "$D/a.npy" "$AFTER" convert --progress=never "$D/x.arrow" "$D/a.npy"
	run after-sync "$D/s.npy" "$AFTER" convert --progress=never --sync "$D/x.arrow" "$D/s.npy"
	run cp "$D/c.arrow" cp "$D/x.arrow" "$D/c.arrow"
done
for f in b a s; do cmp "$D/x.npy" "$D/$f.npy" && echo "$f.npy equals x.npy"; done
