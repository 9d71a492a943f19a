#!/usr/bin/env bash
# Issue 15 throughput check: a 1 GiB float64 .npy (16,777,216 rows of 8)
# converted to Parquet (zstd) inside a local S3 server (SeaweedFS, started
# by scripts/seaweedfs.sh) against the same conversion on local disk.
#
#   benchmarks/s3_throughput.sh [RUNS] [WORKDIR]
#
# RUNS (default 5) interleaved runs of each, npyflow pinned to core 1
# (taskset -c 1; the server is not pinned and its CPU is not counted),
# each timed by /usr/bin/time -f "%e %U %S %M" (wall s, user s, sys s,
# peak RSS KiB). Prints one line per run with the 1-minute load average,
# then min / median / max per contender. Needs /usr/bin/python3 with
# numpy, Go, curl; WORKDIR (default /tmp/npyflow-s3bench, about 2.5 GB)
# is removed at the end.
set -euo pipefail

RUNS=${1:-5}
# PIN: the command that pins npyflow (default taskset -c 1; PIN= runs it
# unpinned, on every core, as users run it, sharing them with the server).
PIN=${PIN-taskset -c 1}
# COPY=1 also times an s3 -> s3 .npy copy (no conversion): the server's own
# time to move the bytes down and up, the floor of the s3 run.
WORK=${2:-/tmp/npyflow-s3bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$WORK"
BIN=$WORK/npyflow

cleanup() {
	[[ -n ${WEED_PID:-} ]] && kill "$WEED_PID" 2>/dev/null && sleep 2 && kill -9 "$WEED_PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$ROOT" && go build -o "$BIN" ./cmd/npyflow)

# The input, written in slices (bounded memory).
/usr/bin/python3 - "$WORK/big.npy" <<'EOF'
import sys
import numpy as np
rows, cols = 16777216, 8
a = np.lib.format.open_memmap(sys.argv[1], mode="w+", dtype="<f8", shape=(rows, cols))
rng = np.random.default_rng(15)
step = 1 << 20
for i in range(0, rows, step):
    a[i:i + step] = rng.standard_normal((step, cols))
a.flush()
EOF

eval "$("$ROOT/scripts/seaweedfs.sh" start "$WORK/weed")"
export AWS_ACCESS_KEY_ID=npyflow AWS_SECRET_ACCESS_KEY=npyflow AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
Q="endpoint=$NPYFLOW_S3_ENDPOINT&region=us-east-1&disable_https=true"
"$BIN" convert --progress=never "$WORK/big.npy" "s3://npyflow/big.npy?$Q"

run() { # cmd...: one timed run, labelled $label
	local load
	load=$(cut -d' ' -f1 /proc/loadavg)
	$PIN /usr/bin/time -o "$WORK/time" -f "%e %U %S %M" "$@" >/dev/null
	printf '%s\tload %s\t%s\n' "$label" "$load" "$(tail -1 "$WORK/time")"
}

results=$WORK/results.tsv
: >"$results"
for i in $(seq "$RUNS"); do
	rm -f "$WORK/out.parquet"
	label=local run "$BIN" convert --progress=never "$WORK/big.npy" "$WORK/out.parquet" | tee -a "$results"
	label=s3 run "$BIN" convert --progress=never "s3://npyflow/big.npy?$Q" "s3://npyflow/out.parquet?$Q" | tee -a "$results"
	if [[ -n ${COPY:-} ]]; then # the server alone: the same bytes down and up, no conversion
		label=s3-copy run "$BIN" convert --progress=never "s3://npyflow/big.npy?$Q" "s3://npyflow/copy.npy?$Q" | tee -a "$results"
	fi
done
ls -l "$WORK/out.parquet" | awk '{print "local output bytes", $5}'
curl -sI "$NPYFLOW_S3_ENDPOINT/npyflow/out.parquet" | tr -d '\r' | awk 'tolower($1)=="content-length:" {print "s3 output bytes", $2}'

# Summary: CPU = user + sys.
awk -F'\t' '
{ split($3, f, " "); lab=$1; n[lab]++; cpu[lab, n[lab]] = f[2] + f[3]; wall[lab, n[lab]] = f[1]; rss[lab, n[lab]] = f[4] / 1024 }
function med(arr, lab, k,   i, j, t, v) {
	for (i = 1; i <= k; i++) v[i] = arr[lab, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return sprintf("%.1f / %.1f / %.1f", v[1], (k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2), v[k])
}
END {
	for (lab in n) printf "%s: %d runs; CPU s min/median/max %s; wall s %s; peak RSS MiB %s\n", lab, n[lab], med(cpu, lab, n[lab]), med(wall, lab, n[lab]), med(rss, lab, n[lab])
}' "$results"
