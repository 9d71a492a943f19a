#!/bin/sh
# Issue 14, v7 MAT write in bounded memory, session 15
# (benchmarks/RESULTS.md, "Issue 14: v7 MAT write in bounded memory
# (session 15)").
#
# usage: NEW=path/npyflow MAIN=path/npyflow benchmarks/mat_v7_bounded15.sh DIR [RUNS]
#   NEW, MAIN: the npyflow binaries compared (this branch, main).
#   DIR gets, if not there yet (numpy, seed 14):
#     arr.npy    float64 (100000, 1000), 800 MB, standard normal
#     tab.npy    10,000,000 rows of (id <i8, x <f8, y <f4, flag |b1), 210 MB
#                (a 1x1 struct of four 10000000x1 columns in MATLAB)
#     words.npy  <U8 (4000000,), 128 MB: 'w0000000'... with every 1000th
#                'café 001' (char data beyond ASCII: stored as miUTF16)
#     wide.npy   float64 (4, 4000000), 128 MB, standard normal (a wide
#                variable: spooled row by row, read back in tiles)
#     square.npy float64 (10000, 10000), 800 MB, standard normal (the
#                shortest column runs of the column-major band)
# Jobs: `npyflow convert --progress=never IN out.mat --mat-version V` for
# arr v7, tab v7, words v7, words v6, wide v7, square v7. Each round runs every job with each
# binary pinned to one core (taskset -c 1 /usr/bin/time -f "%e %U %S %M"),
# interleaved, the output removed and `sync` run before each run.
# Then one run of MAIN on arr with GODEBUG=gctrace=1 shows where main's
# second 800 MB goes (the heap at its last collections), and the checks:
# for every job NEW's and MAIN's files are the same bytes after the
# 128-byte header (which holds the creation time), and scipy.io.loadmat
# of NEW's files gives the inputs back.
set -eu
D=$1
RUNS=${2:-3}
: "${NEW:?NEW=npyflow binary of this branch}" "${MAIN:?MAIN=npyflow binary of main}"
/usr/bin/python3 - "$D" <<'PY'
import os, sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(14)
if not os.path.exists(f"{d}/arr.npy"):
    np.save(f"{d}/arr.npy", rng.standard_normal((100000, 1000)))
if not os.path.exists(f"{d}/tab.npy"):
    n = 10_000_000
    t = np.zeros(n, dtype=[("id", "<i8"), ("x", "<f8"), ("y", "<f4"), ("flag", "|b1")])
    t["id"] = np.arange(n)
    t["x"] = rng.standard_normal(n)
    t["y"] = rng.standard_normal(n).astype("f4")
    t["flag"] = rng.random(n) < 0.5
    np.save(f"{d}/tab.npy", t)
if not os.path.exists(f"{d}/words.npy"):
    w = np.array(["w%07d" % i for i in range(4_000_000)])
    w[::1000] = "caf\u00e9 001"
    np.save(f"{d}/words.npy", w)
if not os.path.exists(f"{d}/wide.npy"):
    np.save(f"{d}/wide.npy", rng.standard_normal((4, 4_000_000)))
if not os.path.exists(f"{d}/square.npy"):
    np.save(f"{d}/square.npy", rng.standard_normal((10000, 10000)))
PY
JOBS="arr:7 tab:7 words:7 words:6 wide:7 square:7"
LOG=$(mktemp)
run() { # NAME BIN IN VERSION
	rm -f "$D/out.mat"
	sync
	taskset -c 1 /usr/bin/time -f "$3-v$4 $1 %e %U %S %M" "$2" convert --progress=never "$D/$3.npy" "$D/out.mat" --mat-version "$4" 2>&1 >/dev/null | grep "^$3-v$4 $1 " | tee -a "$LOG"
}
for i in $(seq "$RUNS"); do
	echo "# round $i load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
	for j in $JOBS; do
		run main "$MAIN" "${j%:*}" "${j#*:}"
		run new "$NEW" "${j%:*}" "${j#*:}"
	done
done
echo "# main with GODEBUG=gctrace=1 on arr v7 (last collections):"
rm -f "$D/out.mat"
GODEBUG=gctrace=1 taskset -c 1 "$MAIN" convert --progress=never "$D/arr.npy" "$D/out.mat" --mat-version 7 2>&1 | grep '^gc ' | tail -3
for j in $JOBS; do
	in=${j%:*} v=${j#*:}
	"$MAIN" convert --progress=never "$D/$in.npy" "$D/main.mat" --mat-version "$v"
	"$NEW" convert --progress=never "$D/$in.npy" "$D/new-$in-v$v.mat" --mat-version "$v"
	cmp -i 128 "$D/main.mat" "$D/new-$in-v$v.mat"
	echo "# $in v$v: new and main .mat are the same bytes after the header"
	rm -f "$D/main.mat"
done
/usr/bin/python3 - "$D" <<'PY'
import sys, numpy as np, scipy.io as sio
d = sys.argv[1]
def load(path, name):
    m = {k: v for k, v in sio.loadmat(path).items() if not k.startswith("__")}
    assert list(m) == [name], list(m)
    return m[name]
for name in ("arr", "wide", "square"):
    a = np.load(f"{d}/{name}.npy")
    x = load(f"{d}/new-{name}-v7.mat", name)
    assert x.dtype == a.dtype and x.shape == a.shape and np.array_equal(x, a)
    print(f"# scipy.io.loadmat: {name} v7 equals {name}.npy", x.dtype, x.shape)
    del a, x
t = np.load(f"{d}/tab.npy")
s = load(f"{d}/new-tab-v7.mat", "tab")[0, 0]
for f in t.dtype.names:
    assert s[f].shape == (len(t), 1) and np.array_equal(s[f][:, 0], t[f]), f
print("# scipy.io.loadmat: tab v7 is a struct of", s.dtype.names, "10000000x1 columns equal to tab.npy's fields")
w = np.load(f"{d}/words.npy")
for v in (7, 6):
    x = load(f"{d}/new-words-v{v}.mat", "words")
    assert x.shape == w.shape and np.array_equal(x, w), v
    print(f"# scipy.io.loadmat: words v{v} equals words.npy", x.dtype, x.shape)
PY
rm -f "$D"/new-*.mat "$D/out.mat"
/usr/bin/python3 - "$LOG" <<'PY'
import collections, statistics as st, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    job, name, e, u, s, m = line.split()
    runs[job, name].append((float(u) + float(s), float(u), float(s), int(m)))
print("job       contender  CPU s min / median / max   user med  sys med  peak RSS MB min-max")
for (job, name), v in runs.items():
    c = sorted(x[0] for x in v)
    print(f"{job:9s} {name:9s}  {c[0]:5.2f} / {st.median(c):5.2f} / {c[-1]:5.2f}"
          f"      {st.median(x[1] for x in v):5.2f}    {st.median(x[2] for x in v):5.2f}"
          f"    {min(x[3] for x in v) / 1024:.0f}-{max(x[3] for x in v) / 1024:.0f}")
PY
rm -f "$LOG"
