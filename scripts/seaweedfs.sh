#!/usr/bin/env bash
# SeaweedFS (an S3-compatible server) for npyflow's object-storage tests
# and measurements, built from the Go module proxy.
#
#   scripts/seaweedfs.sh [build]    build weed once (about 4 minutes on 2
#                                   cores, a ~230 MB binary), cache it in
#                                   ~/.cache/npyflow/weed, print its path
#   scripts/seaweedfs.sh start DIR  also start `weed server -s3` on free
#                                   ports with its data in DIR, wait until
#                                   a bucket can be created, create bucket
#                                   $BUCKET (default npyflow), and print
#                                   NPYFLOW_S3_ENDPOINT=... and WEED_PID=...
#
# `go install` refuses the module's replace directives, so the module is
# downloaded with `go mod download -json` and built inside its directory.
# Anonymous access is on by default; telemetry is turned off.
set -euo pipefail

VERSION=${WEED_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}
CACHE=${NPYFLOW_CACHE:-$HOME/.cache/npyflow}
BIN=$CACHE/weed

build() {
	if [[ -x $BIN && -f $BIN.version && $(cat "$BIN.version") == "$VERSION" ]]; then
		echo "$BIN"
		return
	fi
	mkdir -p "$CACHE"
	local dir
	dir=$(go mod download -json "github.com/seaweedfs/seaweedfs@$VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[[ -d $dir ]] || { echo "seaweedfs.sh: module download failed" >&2; exit 1; }
	echo "seaweedfs.sh: building weed $VERSION (several minutes)" >&2
	(cd "$dir" && GOFLAGS=-mod=mod go build -o "$BIN.tmp" ./weed)
	mv "$BIN.tmp" "$BIN"
	echo "$VERSION" >"$BIN.version"
	echo "$BIN"
}

# free_port prints a port p with p and p+10000 (weed's gRPC port) unused.
free_port() {
	local p
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 30000))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null &&
			! (exec 3<>/dev/tcp/127.0.0.1/$((p + 10000))) 2>/dev/null; then
			echo $p
			return
		fi
	done
	echo "seaweedfs.sh: no free port" >&2
	exit 1
}

start() {
	local dir=$1 bucket=${BUCKET:-npyflow}
	mkdir -p "$dir"
	build >/dev/null
	local m v f s
	m=$(free_port) v=$(free_port) f=$(free_port) s=$(free_port)
	# Without AWS_ACCESS_KEY_ID in its environment weed has no identities:
	# anonymous access, and signed requests with any key pass too.
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN \
		"$BIN" server -dir="$dir" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
		-master.port="$m" -volume.port="$v" -filer -filer.port="$f" \
		-s3 -s3.port="$s" -s3.port.iceberg=0 -s3.port.lance=0 \
		-master.telemetry=false -master.volumeSizeLimitMB=1024 -volume.max=0 \
		>"$dir/weed.log" 2>&1 &
	local pid=$!
	# It answers HTTP at once but needs several seconds before a bucket
	# can be created.
	for _ in $(seq 180); do
		code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT "http://127.0.0.1:$s/$bucket" || true)
		if [[ $code == 200 || $code == 409 ]]; then
			echo "NPYFLOW_S3_ENDPOINT=http://127.0.0.1:$s"
			echo "WEED_PID=$pid"
			return
		fi
		kill -0 "$pid" 2>/dev/null || { cat "$dir/weed.log" >&2; exit 1; }
		sleep 0.5
	done
	kill "$pid"
	echo "seaweedfs.sh: server did not accept a bucket in 90 s (log: $dir/weed.log)" >&2
	exit 1
}

case ${1:-build} in
build) build ;;
start) start "${2:?usage: seaweedfs.sh start DIR}" ;;
*) echo "usage: seaweedfs.sh [build | start DIR]" >&2; exit 2 ;;
esac
