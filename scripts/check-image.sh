#!/bin/sh
# Checks the container image's file tree without a container runtime:
# check-image.sh ROOTFS (made by scripts/image-context.sh; make check-image).
#
#  1. usr/local/bin/npyflow is a static executable: no ELF interpreter, no
#     dynamic section, built with CGO_ENABLED=0 and -trimpath.
#  2. From a copy of ROOTFS and nothing else (chroot, empty environment,
#     as the image's user 65532), `npyflow version` prints the stamped
#     version and commit, and a numpy-written structured .npy converts to
#     Parquet and back; numpy (Debian's python3) checks the result equals
#     the input, and the Parquet footer names the build (created_by).
#
# Needs root (chroot), readelf, and /usr/bin/python3 with numpy for step 2's
# comparison. Exits non-zero naming the first check that failed.
set -eu
root=${1:?usage: check-image.sh ROOTFS}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/usr/local/bin/npyflow
fail() { echo "check-image: FAIL: $*" >&2; exit 1; }

[ -x "$bin" ] || fail "$bin missing"
hdr=$(readelf -lW "$bin") || fail "$bin is not an ELF file"
echo "$hdr" | grep -q 'Requesting program interpreter' && fail "$bin has an ELF interpreter (dynamically linked)"
echo "$hdr" | grep -q ' DYNAMIC ' && fail "$bin has a dynamic section"
info=$(go version -m "$bin")
echo "$info" | grep -Eq 'build[[:space:]]+CGO_ENABLED=0' || fail "$bin was not built with CGO_ENABLED=0"
echo "$info" | grep -Eq 'build[[:space:]]+-trimpath=true' || fail "$bin was not built with -trimpath"
echo "check-image: ok: $bin is static ($(du -h "$bin" | cut -f1)), CGO_ENABLED=0, -trimpath"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$root/." "$tmp/"
mkdir -p "$tmp/data"
chown 65532:65532 "$tmp/data"
src=$here/testdata/demo/stations/north/readings_1.npy
cp "$src" "$tmp/data/in.npy"
chroot=$(command -v chroot) || fail "no chroot"
run() { env -i TMPDIR=/tmp "$chroot" --userspec=65532:65532 "$tmp" /usr/local/bin/npyflow "$@"; }

ver=$(run version) || fail "npyflow version failed in the empty root"
echo "check-image: ok: npyflow version: $(echo "$ver" | head -1)"
line=$(echo "$ver" | head -1)
case $line in
"npyflow "*" (build "*")"*) ;;
*) fail "npyflow version printed '$line', want 'npyflow VERSION (build COMMIT) ...'" ;;
esac
if [ -n "${EXPECT_VERSION:-}" ]; then
	case $line in "npyflow $EXPECT_VERSION (build ${EXPECT_COMMIT:-}"*) ;; *) fail "version line '$line', want version $EXPECT_VERSION commit ${EXPECT_COMMIT:-}" ;; esac
fi

run convert /data/in.npy /data/out.parquet || fail "npy -> Parquet failed in the empty root"
run convert /data/out.parquet /data/back.npy || fail "Parquet -> npy failed in the empty root"
want=$(echo "$line" | sed -n 's/^npyflow \([^ ]*\) (build \([^)]*\)).*/npyflow version \1 (build \2)/p')
grep -aqF "$want" "$tmp/data/out.parquet" || fail "out.parquet does not say created_by '$want'"
echo "check-image: ok: created_by '$want'"
/usr/bin/python3 - "$src" "$tmp/data/back.npy" <<'PY' || fail "the round trip through Parquet changed the data"
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.dtype == b.dtype, (a.dtype, b.dtype)
assert a.shape == b.shape, (a.shape, b.shape)
for f in a.dtype.names or [None]:
    x, y = (a, b) if f is None else (a[f], b[f])
    assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f
print(f"check-image: ok: {sys.argv[1].rsplit('/', 1)[-1]} {a.dtype} x {a.shape[0]} -> Parquet -> .npy, numpy finds it equal")
PY
echo "check-image: all checks passed"
