#!/bin/sh
# CPU of reading a 10M-row Parquet file (5 columns, npyflow's writer, page
# CRCs) into .npy: OLD and NEW npyflow binaries, pinned to core 1, 5
# interleaved runs each. Prints "binary wall user sys maxrss_kb".
# Usage: benchmarks/parquet_read_once.sh OLD NEW
set -e
old=$1 new=$2
d=${TMPDIR:-/tmp}/pq_read_once
mkdir -p "$d"
/usr/bin/python3 -c "
import numpy as np
rng=np.random.default_rng(1)
n=10_000_000
a=np.zeros(n,dtype=[('a','<f8'),('b','<i8'),('c','<f4'),('d','<i4'),('e','<f8')])
a['a']=rng.standard_normal(n); a['b']=np.arange(n); a['c']=rng.standard_normal(n)
a['d']=rng.integers(0,1000,n); a['e']=np.round(rng.standard_normal(n),2)
np.save('$d/x.npy',a)
"
"$new" convert "$d/x.npy" "$d/x.parquet"
cat /proc/loadavg
for i in 1 2 3 4 5; do
	for b in "$old" "$new"; do
		rm -f "$d/out.npy"
		printf '%s ' "$(basename "$b")"
		taskset -c 1 /usr/bin/time -f "%e %U %S %M" "$b" convert "$d/x.parquet" "$d/out.npy" 2>&1 | tail -1
	done
done
cat /proc/loadavg
rm -rf "$d"
