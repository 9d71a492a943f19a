#!/bin/sh
# Issue 16, Arrow IPC (uncompressed) -> .npy against cp, session 15
# (benchmarks/RESULTS.md, "Issue 16: Arrow IPC -> .npy, session 15").
#
# usage: NEW=path/npyflow MAIN=path/npyflow [NEWNC=...] [EXTRA=...] \
#          benchmarks/ipc_npy15.sh DIR [RUNS]
#   DIR holds struct.npy (gen.py: 10M rows of i8, f8, f4, bool, M8[ms]) and
#   s.arrow (npyflow convert --compression=none struct.npy s.arrow).
#   NEW, MAIN: the npyflow binaries compared (this branch, main); NEWNC,
#   EXTRA: optional more contenders (a -tags nocloud build, a variant).
# Each round runs every contender once pinned to one core (taskset -c 1)
# and once unpinned (both cores), interleaved, the output removed and
# `sync` run before each run (no run pays for an earlier one's writeback).
# Prints one line per run: MODE NAME elapsed user sys maxrss_kB, then a
# summary (CPU = user + sys) and checks every .npy against struct.npy.
set -eu
D=$1
RUNS=${2:-5}
: "${NEW:?NEW=npyflow binary of this branch}" "${MAIN:?MAIN=npyflow binary of main}"
LOG=$(mktemp)
run() { # MODE NAME CMD...
	mode=$1 name=$2
	shift 2
	rm -f "$D/out.npy" "$D/out.arrow"
	sync
	case $mode in
	pinned) pin="taskset -c 1" ;;
	*) pin="" ;;
	esac
	$pin /usr/bin/time -f "$mode $name %e %U %S %M" "$@" 2>&1 >/dev/null | grep "^$mode $name " | tee -a "$LOG"
	case $name in
	cp | *help) ;;
	*) cmp "$D/out.npy" "$D/struct.npy" || { echo "$name: output differs" >&2; exit 1; } ;;
	esac
}
for i in $(seq "$RUNS"); do
	for mode in pinned unpinned; do
		echo "# round $i $mode load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
		run $mode cp cp "$D/s.arrow" "$D/out.arrow"
		run $mode main "$MAIN" convert --progress=never "$D/s.arrow" "$D/out.npy"
		run $mode new "$NEW" convert --progress=never "$D/s.arrow" "$D/out.npy"
		[ -z "${NEWNC:-}" ] || run $mode new-nocloud "$NEWNC" convert --progress=never "$D/s.arrow" "$D/out.npy"
		[ -z "${EXTRA:-}" ] || run $mode extra "$EXTRA" convert --progress=never "$D/s.arrow" "$D/out.npy"
		run $mode new-help "$NEW" help
		[ -z "${NEWNC:-}" ] || run $mode new-nocloud-help "$NEWNC" help
	done
done
rm -f "$D/out.npy" "$D/out.arrow"
echo "# every .npy written equals struct.npy (cmp)"
/usr/bin/python3 - "$LOG" <<'PY'
import collections, statistics as st, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    mode, name, e, u, s, m = line.split()
    runs[mode, name].append((float(u) + float(s), float(e), int(m)))
cp = {mode: st.median(c for c, _, _ in v) for (mode, name), v in runs.items() if name == "cp"}
cpw = {mode: st.median(w for _, w, _ in v) for (mode, name), v in runs.items() if name == "cp"}
print("mode      contender           CPU s min/median/max   wall s min/median/max  peak RSS MB  CPU/cp  wall/cp")
for (mode, name), v in runs.items():
    c = sorted(x[0] for x in v)
    w = sorted(x[1] for x in v)
    print(f"{mode:9s} {name:18s} {c[0]:.2f} / {st.median(c):.2f} / {c[-1]:.2f}    {w[0]:.2f} / {st.median(w):.2f} / {w[-1]:.2f}"
          f"      {max(x[2] for x in v) / 1024:5.0f}     {st.median(c) / cp[mode]:5.2f}   {st.median(w) / cpw[mode]:5.2f}")
PY
rm -f "$LOG"
