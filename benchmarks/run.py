#!/usr/bin/python3
"""Side-by-side benchmarks of npyflow against numpy, sbinet/npyio, arrow-go
pqarrow, DuckDB and the file-copy floors. Run through `make bench-compare`
(or `make -C benchmarks compare`); see README.md.

Environment:
  SCALE    full (default: the sizes of issue 8) or small (a smoke run of
           about a minute)
  RUNS     measured runs per contender after one warm-up (default 5 full,
           2 small)
  BIG      workload 6 (4 GiB .npy -> Parquet): auto (default: on when the
           disk has room), 1 or 0
  ONLY     comma-separated workload ids to run (e.g. "w1,w3"); default all
  OUT      the report to write (default RESULTS.md for SCALE=full,
           data/RESULTS-<scale>.md otherwise)
  PROFILE  auto (default: CPU profile of npyflow where a target is missed),
           0 to skip

Every contender runs as its own process under /usr/bin/time -v (peak RSS)
and prints a RESULT line with the duration of its timed operation only (so
interpreter start-up and loading the input of a write-from-memory contender
are excluded); command-line contenders (npyflow CLI, cp) are timed as whole
processes. All inputs are in the page cache (the warm-up run sees to it);
outputs go to data/ and are deleted after each run.
"""
import filecmp
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
TIME = "/usr/bin/time"
BIN = os.path.join(HERE, "bin")
GOBENCH = os.path.join(BIN, "gobench")
CLI = os.path.join(BIN, "npyflow")
PQREAD = os.path.join(BIN, "pqread")

SCALES = {
    # f64 elements, struct rows, big bytes
    "full": dict(f64=100_000_000, struct=10_000_000, big=4 << 30, runs=5),
    "small": dict(f64=5_000_000, struct=500_000, big=64 << 20, runs=2),
}
STRUCT_ITEMSIZE = 29
RSS_LIMIT_MB = 300


def log(*a, **kw):
    print(*a, file=sys.stderr, flush=True, **kw)


def env(name, default):
    """An environment setting; empty counts as unset (make exports them so)."""
    return os.environ.get(name) or default


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


# ---------------------------------------------------------------- setup


def apt_install(pkg):
    log("installing", pkg, "with apt-get")
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", pkg], check=True,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def ensure_deps():
    if subprocess.run([PY, "-c", "import numpy"], capture_output=True).returncode:
        apt_install("python3-numpy")
    if not os.path.exists(TIME):
        apt_install("time")
    if shutil.which("npm") and not env("NPYFLOW_DUCKDB_MODULES", "") and not os.path.exists(
            os.path.join(HERE, "node_modules", "@duckdb", "node-api")):
        log("installing @duckdb/node-api with npm")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"],
                       cwd=HERE, check=False)
    os.makedirs(BIN, exist_ok=True)
    return build()


def build():
    """Builds bin/gobench and bin/npyflow from the working tree, or, when
    that does not compile (work in progress), from a snapshot of HEAD.
    Returns a description of the source measured."""
    head = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).strip()
    dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks"]).strip()
    log("building gobench and the npyflow CLI from the working tree")
    a = subprocess.run(["go", "build", "-o", GOBENCH, "./gobench"], cwd=HERE, capture_output=True, text=True)
    subprocess.run(["go", "build", "-o", PQREAD, "./pqread"], cwd=HERE, check=True)
    b = subprocess.run(["go", "build", "-o", CLI, "./cmd/npyflow"], cwd=ROOT, capture_output=True, text=True)
    if a.returncode == 0 and b.returncode == 0:
        return "working tree at %s%s" % (head, " (with uncommitted changes)" if dirty else "")
    log("the working tree does not build:\n" + (a.stderr + b.stderr)[-1500:])
    log("building from a snapshot of HEAD (%s) instead" % head)
    snap = os.path.join(HERE, "data", "src-head")
    shutil.rmtree(snap, ignore_errors=True)
    os.makedirs(snap)
    subprocess.run("git -C %s archive HEAD | tar -x -C %s" % (ROOT, snap), shell=True, check=True)
    mod = open(os.path.join(HERE, "go.mod")).read().replace("=> ../", "=> " + snap)
    modfile = os.path.join(HERE, "data", "snapshot.mod")
    open(modfile, "w").write(mod)
    shutil.copy(os.path.join(HERE, "go.sum"), modfile[:-4] + ".sum")
    subprocess.run(["go", "build", "-modfile", modfile, "-o", GOBENCH, "./gobench"], cwd=HERE, check=True)
    subprocess.run(["go", "build", "-o", CLI, "./cmd/npyflow"], cwd=snap, check=True)
    return "HEAD %s (snapshot: the working tree did not build)" % head


def duck_modules():
    """The node_modules directory holding @duckdb/node-api: the one named by
    NPYFLOW_DUCKDB_MODULES (an existing install elsewhere, e.g. /tmp/duck/node_modules),
    else benchmarks/node_modules (run.py installs it with npm)."""
    return env("NPYFLOW_DUCKDB_MODULES", "") or os.path.join(HERE, "node_modules")


def have_duckdb():
    return shutil.which("node") and os.path.exists(os.path.join(duck_modules(), "@duckdb", "node-api"))


def duck_script():
    """duckdb_bench.mjs where node resolves @duckdb/node-api from it. An ES
    module resolves packages from its own directory upwards (NODE_PATH does
    not apply), so with NPYFLOW_DUCKDB_MODULES the script is copied into
    data/duck/, next to a symlink node_modules -> that directory."""
    mods = env("NPYFLOW_DUCKDB_MODULES", "")
    if not mods:
        return os.path.join(HERE, "duckdb_bench.mjs")
    d = os.path.join(HERE, "data", "duck")
    os.makedirs(d, exist_ok=True)
    link = os.path.join(d, "node_modules")
    if os.path.islink(link) and os.readlink(link) != os.path.abspath(mods):
        os.remove(link)
    if not os.path.lexists(link):
        os.symlink(os.path.abspath(mods), link)
    dst = os.path.join(d, "duckdb_bench.mjs")
    shutil.copy(os.path.join(HERE, "duckdb_bench.mjs"), dst)
    return dst


def cli_commands():
    """The npyflow CLI's commands, from its usage text."""
    p = subprocess.run([CLI, "help"], capture_output=True, text=True)
    return set(re.findall(r"^  (\w[\w-]*)\s", p.stdout + p.stderr, re.M))


# ---------------------------------------------------------------- running

RESULT_RE = re.compile(r"^RESULT (.*)$", re.M)
PENDING_RE = re.compile(r"^PENDING (.*)$", re.M)


def run_once(cmd, out_path):
    """Runs cmd once under /usr/bin/time -v. Returns a dict with wall,
    op_secs, rss_mb, check, out_bytes, version, or status/reason."""
    tfile = os.path.join(DATA, ".time")
    if out_path and os.path.exists(out_path):
        os.remove(out_path)
    # Start every run with no dirty pages: otherwise the previous runs'
    # outputs are still being written back and the kernel throttles this
    # run's writes (runs writing 800 MB varied from 0.2 s to 1 s).
    os.sync()
    pin = ["taskset", "-c", env("PIN", "1")] if env("PIN", "1") != "none" and shutil.which("taskset") else []
    t0 = time.perf_counter()
    p = subprocess.run(pin + [TIME, "-v", "-o", tfile] + cmd, capture_output=True, text=True, cwd=HERE)
    wall = time.perf_counter() - t0
    tv = open(tfile).read() if os.path.exists(tfile) else ""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", tv)
    r = dict(wall=wall, rss_mb=int(m.group(1)) / 1024 if m else None)
    for key, pat in (("user", r"User time \(seconds\): ([\d.]+)"), ("sys", r"System time \(seconds\): ([\d.]+)"),
                     ("minflt", r"Minor \(reclaiming a frame\) page faults: (\d+)")):
        mm = re.search(pat, tv)
        if mm:
            r[key] = float(mm.group(1))
    if out_path and os.path.exists(out_path):
        r["out_bytes"] = os.path.getsize(out_path)
    pm = PENDING_RE.search(p.stdout)
    if pm or p.returncode == 3:
        r.update(status="pending", reason=pm.group(1) if pm else p.stderr.strip()[-300:])
        return r
    if p.returncode != 0:
        r.update(status="failed", reason=(p.stderr.strip() or p.stdout.strip())[-500:])
        return r
    r["status"] = "ok"
    rm = RESULT_RE.search(p.stdout)
    if rm:
        for kv in rm.group(1).split():
            k, _, v = kv.partition("=")
            if k == "op_secs":
                r["op_secs"] = float(v)
            elif k == "cpu_secs":
                r["cpu_op"] = float(v)
            elif k == "out_bytes":
                r["out_bytes"] = int(v)
            elif k in ("check", "version"):
                r[k] = v
    else:
        r["op_secs"] = wall  # a whole-process contender
    # CPU seconds: of the timed operation where the contender reports them
    # (DuckDB's COPY), else of the whole process (user + sys).
    r["cpu"] = r.get("cpu_op", r.get("user", 0) + r.get("sys", 0))
    return r


def verify(kind, path):
    """The VERIFY summary of an output file (see pybench.py expect)."""
    if kind == "parquet":
        if not have_duckdb():
            return None
        cmd = ["node", duck_script(), "check", path]
    elif kind.startswith("same:"):
        # The output must be the given file, byte for byte.
        want = kind[5:]
        return "same bytes as %s" % rel(want) if filecmp.cmp(path, want, shallow=False) else "DIFFERS from %s" % rel(want)
    else:
        cmd = [GOBENCH, "ipccheck", path]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
    m = re.search(r"^VERIFY (.*)$", p.stdout, re.M)
    return m.group(1) if m else "unreadable: " + (p.stderr.strip() or p.stdout.strip())[-200:]


def expect(path):
    p = subprocess.run(P("expect", path), capture_output=True, text=True)
    m = re.search(r"^VERIFY (.*)$", p.stdout, re.M)
    return m.group(1) if m else None


def measure(c, runs):
    """Warm-up plus runs of contender c; fills c['res']."""
    log("  %-32s" % c["name"], end="")
    if c.get("pending"):
        c["res"] = dict(status="pending", reason=c["pending"])
        log("pending:", c["pending"])
        return
    samples = []
    for i in range(runs + (0 if c.get("no_warmup") else 1)):
        r = run_once(c["cmd"], c.get("out"))
        if i == 0 and c.get("verify") and r["status"] == "ok" and os.path.exists(c["out"]):
            c["verified"] = verify(c["verify"], c["out"])
        if c.get("out") and os.path.exists(c["out"]):
            os.remove(c["out"])
        if r["status"] != "ok":
            c["res"] = r
            log(r["status"] + ":", r["reason"][:200])
            return
        if i > 0 or c.get("no_warmup"):
            samples.append(r)
    ops = [s["op_secs"] for s in samples]
    cpus = [s["cpu"] for s in samples]
    res = dict(status="ok", runs=len(samples), op=statistics.median(ops),
               op_min=min(ops), op_max=max(ops),
               wall=statistics.median(s["wall"] for s in samples),
               rss_mb=max(s["rss_mb"] or 0 for s in samples),
               check=samples[-1].get("check"), version=samples[-1].get("version"),
               user=statistics.median(s.get("user", 0) for s in samples),
               sys=statistics.median(s.get("sys", 0) for s in samples),
               minflt=statistics.median(s.get("minflt", 0) for s in samples),
               cpu=statistics.median(cpus), cpu_min=min(cpus), cpu_max=max(cpus))
    if "out_bytes" in samples[-1]:
        res["out_bytes"] = samples[-1]["out_bytes"]
    c["res"] = res
    log("%8.3f s  %6.3f s CPU (%.3f - %.3f)  %7.0f MB RSS  %s" % (res["op"], res["cpu"], res["cpu_min"], res["cpu_max"],
                                                                res["rss_mb"], res.get("check") or ""))


# ---------------------------------------------------------------- workloads


def npy_data_bytes(path):
    """The size of an .npy file's data (file size less header)."""
    with open(path, "rb") as f:
        head = f.read(12)
    if head[6] == 1:
        hl = 10 + int.from_bytes(head[8:10], "little")
    else:
        hl = 12 + int.from_bytes(head[8:12], "little")
    return os.path.getsize(path) - hl


def G(*args):
    return [GOBENCH] + list(args)


def P(*args):
    return [PY, os.path.join(HERE, "pybench.py")] + list(args)


def rel(p):
    return os.path.relpath(p, HERE)


def workloads(sc, cli, big_on):
    f64 = os.path.join(DATA, "f64.npy")
    st = os.path.join(DATA, "struct.npy")
    big = os.path.join(DATA, "big.npy")
    npz_in = os.path.join(DATA, "struct.npz")
    src_pq = os.path.join(DATA, "struct-src.parquet")
    o = lambda name: os.path.join(DATA, "out-" + name)
    convert = None if "convert" in cli else "the npyflow CLI has no convert command yet"
    duck = None if have_duckdb() else "node or @duckdb/node-api missing"

    W = []
    W.append(dict(
        id="w1", title="Read a %s-element float64 .npy into memory" % fmt_count(sc["f64"]),
        input=f64, kind="read",
        contenders=[
            dict(name="npyflow ReadFile", ref=True, cmd=G("read-npyflow", f64)),
            dict(name="npyflow Map (+touch every page)", cmd=G("mmap-npyflow", f64)),
            dict(name="np.load", cmd=P("load", f64)),
            dict(name="sbinet/npyio Read + bufio", cmd=G("read-sbinet", f64)),
            dict(name="os.ReadFile (floor)", cmd=G("readfile", f64), floor=True),
            dict(name="prototype: ReadFile + MADV_HUGEPAGE", cmd=G("read-hugepage", f64)),
        ]))
    W.append(dict(
        id="w2", title="Stream the same file in 64K-row batches", input=f64, kind="read",
        contenders=[
            dict(name="npyflow NewReaderAt+Next(65536)", ref=True, cmd=G("stream-npyflow", f64)),
            dict(name="npyflow ReadFile (whole, for scale)", cmd=G("read-npyflow", f64)),
        ]))
    W.append(dict(
        id="w3", title="%s-row structured array (i8, f8, f4, ?, M8[ms]) -> Parquet zstd" % fmt_count(sc["struct"]),
        input=st, kind="convert",
        contenders=[
            dict(name="npyflow library (end to end)", ref=True, cmd=G("parquet-npyflow", st, o("np.parquet")), out=o("np.parquet"), verify="parquet"),
            dict(name="npyflow convert CLI (end to end)", cmd=[CLI, "convert", "--progress=never", st, o("cli.parquet")], out=o("cli.parquet"), pending=convert, proc=True, verify="parquet"),
            dict(name="arrow-go pqarrow (from memory)", cmd=G("pqarrow", st, o("pqarrow.parquet")), out=o("pqarrow.parquet"), verify="parquet"),
            dict(name="arrow-go pqarrow, no dictionary (from memory)", cmd=G("pqarrow-nodict", st, o("pqarrow-nd.parquet")), out=o("pqarrow-nd.parquet"), verify="parquet"),
            dict(name="DuckDB COPY (from memory)", cmd=["node", duck_script() if duck is None else "duckdb_bench.mjs", "copy", src_pq, o("duck.parquet")], out=o("duck.parquet"), pending=duck, verify="parquet"),
        ]))
    W.append(dict(
        id="w4", title="The same array -> Arrow IPC file (uncompressed)", input=st, kind="convert",
        contenders=[
            dict(name="npyflow library (end to end)", ref=True, cmd=G("ipc-npyflow", st, o("np.arrow")), out=o("np.arrow"), verify="ipc"),
            dict(name="npyflow library, mmap input", cmd=G("ipcmmap-npyflow", st, o("npm.arrow")), out=o("npm.arrow"), verify="ipc"),
            dict(name="npyflow convert CLI (end to end)", cmd=[CLI, "convert", "--progress=never", "--compression=none", st, o("cli.arrow")], out=o("cli.arrow"), pending=convert, proc=True, verify="ipc"),
            dict(name="cp of the .npy (floor)", cmd=["cp", st, o("cp.npy")], out=o("cp.npy"), proc=True, floor=True),
            dict(name="pread+write copy of the .npy (user-space floor)", cmd=G("copy-userspace", st, o("copy.npy")), out=o("copy.npy"), floor=True),
        ]))
    W.append(dict(
        id="w5", title="Write the same array as a Deflate .npz", input=st, kind="write",
        contenders=[
            dict(name="npyflow NPZWriter(compressed)", ref=True, cmd=G("npz-npyflow", st, o("np.npz")), out=o("np.npz")),
            dict(name="np.savez_compressed", cmd=P("savez", st, o("numpy.npz")), out=o("numpy.npz")),
        ]))
    W.append(dict(
        id="w5r", title="Read that .npz (written by np.savez_compressed) back", input=st, kind="read",
        contenders=[
            dict(name="npyflow OpenNPZ+ReadArray", ref=True, cmd=G("npzread-npyflow", npz_in)),
            dict(name="np.load(...)['x']", cmd=P("npzload", npz_in)),
        ]))
    W.append(dict(
        id="w7", title="Write a %s-element float64 .npy from memory" % fmt_count(sc["f64"]),
        input=f64, kind="write",
        contenders=[
            dict(name="npyflow WriteArray", ref=True, cmd=G("write-npyflow", f64, o("np.npy")), out=o("np.npy")),
            dict(name="np.save", cmd=P("save", f64, o("numpy.npy")), out=o("numpy.npy")),
            dict(name="sbinet/npyio Write + bufio", cmd=G("write-sbinet", f64, o("sbinet.npy")), out=o("sbinet.npy")),
            dict(name="prototype: WriteArray of a MADV_HUGEPAGE buffer", cmd=G("write-hugepage", f64, o("huge.npy")), out=o("huge.npy")),
        ]))
    pq4 = os.path.join(DATA, "pq4.parquet")
    W.append(dict(
        id="w8", title="%s-row Parquet (i8, f8, f4, bool; zstd; written by pqarrow) -> .npy" % fmt_count(sc["struct"]),
        input=pq4, kind="convert", data_bytes=21 * sc["struct"],
        contenders=[
            dict(name="npyflow convert CLI (whole process)", ref=True, cmd=[CLI, "convert", "--progress=never", pq4, o("pq4.npy")], out=o("pq4.npy"), pending=convert, proc=True),
            dict(name="npyflow library (NewReader + npyio writer)", cmd=G("npy-from-parquet", pq4, o("pq4lib.npy")), out=o("pq4lib.npy")),
            dict(name="arrow-go pqarrow ReadTable (whole process)", cmd=[PQREAD, pq4], proc=True),
        ]))
    s_arrow = os.path.join(DATA, "struct.arrow")
    f_arrow = os.path.join(DATA, "f64.arrow")
    W.append(dict(
        id="w9", title="%s-row Arrow IPC file (i8, f8, f4, bool, M8[ms]; uncompressed) -> .npy" % fmt_count(sc["struct"]),
        input=s_arrow, kind="convert", data_bytes=STRUCT_ITEMSIZE * sc["struct"],
        contenders=[
            dict(name="npyflow convert CLI (whole process)", ref=True, cmd=[CLI, "convert", "--progress=never", s_arrow, o("s9.npy")], out=o("s9.npy"), pending=convert, proc=True, verify="same:" + st),
            dict(name="npyflow library ConvertIPC", cmd=G("ipc2npy-npyflow", s_arrow, o("s9lib.npy")), out=o("s9lib.npy"), verify="same:" + st),
            dict(name="npyflow library ConvertIPC, input through pread", cmd=G("ipc2npy-pread", s_arrow, o("s9pr.npy")), out=o("s9pr.npy"), verify="same:" + st),
            dict(name="cp of the .arrow (floor)", cmd=["cp", s_arrow, o("s9cp.arrow")], out=o("s9cp.arrow"), proc=True, floor=True),
        ]))
    W.append(dict(
        id="w10", title="%s-element one-column (f8) Arrow IPC file (uncompressed) -> .npy" % fmt_count(sc["f64"]),
        input=f_arrow, kind="convert", data_bytes=8 * sc["f64"],
        contenders=[
            dict(name="npyflow convert CLI (whole process)", ref=True, cmd=[CLI, "convert", "--progress=never", f_arrow, o("f10.npy")], out=o("f10.npy"), pending=convert, proc=True, verify="same:" + f64),
            dict(name="npyflow library ConvertIPC (copy_file_range)", cmd=G("ipc2npy-npyflow", f_arrow, o("f10lib.npy")), out=o("f10lib.npy"), verify="same:" + f64),
            dict(name="npyflow library ConvertIPC, input through pread", cmd=G("ipc2npy-pread", f_arrow, o("f10pr.npy")), out=o("f10pr.npy"), verify="same:" + f64),
            dict(name="cp of the .arrow (floor)", cmd=["cp", f_arrow, o("f10cp.arrow")], out=o("f10cp.arrow"), proc=True, floor=True),
        ]))
    w6 = dict(
        id="w6", title="A %s .npy (structured) -> Parquet zstd, peak RSS < %d MB" % (fmt_bytes(sc["big"]), RSS_LIMIT_MB),
        input=big, kind="convert", runs=1,
        contenders=[
            dict(name="npyflow library (streaming)", ref=True, cmd=G("parquet-npyflow", big, o("big.parquet")), out=o("big.parquet"), no_warmup=True, verify="parquet"),
            dict(name="npyflow convert CLI", cmd=[CLI, "convert", "--progress=never", big, o("bigcli.parquet")], out=o("bigcli.parquet"), pending=convert, proc=True, no_warmup=True, verify="parquet"),
        ])
    if not big_on:
        for c in w6["contenders"]:
            c["pending"] = c.get("pending") or "skipped (BIG=0 or not enough disk)"
    W.append(w6)
    return W


def fmt_count(n):
    for unit, d in (("G", 10**9), ("M", 10**6), ("K", 10**3)):
        if n >= d and n % d == 0:
            return "%d%s" % (n // d, unit)
    return str(n)


def fmt_bytes(n):
    for unit, d in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= d:
            return "%g %s" % (n / d, unit)
    return "%d B" % n


# ---------------------------------------------------------------- report


def ref_of(w):
    return next(c for c in w["contenders"] if c.get("ref"))


def ok(c):
    return c.get("res", {}).get("status") == "ok"


def targets(W):
    """Evaluates the targets of issue 8. Returns rows of
    (target, measured, verdict, workload id or None)."""
    by = {w["id"]: {c["name"]: c for c in w["contenders"]} for w in W}
    out = []

    def t(w, name):
        c = by[w].get(name)
        return c["res"]["op"] if c and ok(c) else None

    def tc(w, name):
        c = by[w].get(name)
        return c["res"]["cpu"] if c and ok(c) else None

    def add(label, a, b, limit, fmt, wid, cmp="le"):
        if a is None or b is None:
            out.append((label, "n/a (a contender is pending or failed)", "pending", None))
            return
        r = a / b
        good = r <= limit if cmp == "le" else r >= limit
        out.append((label, fmt % r, "met" if good else "MISSED", None if good else wid))

    add("Full read <= 1.2x np.load", t("w1", "npyflow ReadFile"), t("w1", "np.load"), 1.2,
        "npyflow / np.load = %.2fx", "w1")
    add("Full read >= 5x faster than sbinet/npyio", t("w1", "sbinet/npyio Read + bufio"), t("w1", "npyflow ReadFile"), 5,
        "sbinet / npyflow = %.1fx", "w1", cmp="ge")
    add("npy -> Parquet faster than pqarrow from memory", t("w3", "npyflow library (end to end)"), t("w3", "arrow-go pqarrow (from memory)"), 1.0,
        "npyflow / pqarrow = %.2fx", "w3")
    add("npy -> Parquet within 1.5x of DuckDB", t("w3", "npyflow library (end to end)"), t("w3", "DuckDB COPY (from memory)"), 1.5,
        "npyflow / DuckDB = %.2fx", "w3")
    add("Parquet -> .npy <= 1.0x pqarrow ReadTable (whole process)", t("w8", "npyflow convert CLI (whole process)"),
        t("w8", "arrow-go pqarrow ReadTable (whole process)"), 1.0, "npyflow / pqarrow = %.2fx", "w8")
    add("npy -> Arrow IPC within 1.5x of cp", t("w4", "npyflow library (end to end)"), t("w4", "cp of the .npy (floor)"), 1.5,
        "npyflow / cp = %.2fx", "w4")
    add("Deflate npz faster than np.savez_compressed", t("w5", "npyflow NPZWriter(compressed)"), t("w5", "np.savez_compressed"), 1.0,
        "npyflow / numpy = %.2fx", "w5")
    a = by["w5"]["npyflow NPZWriter(compressed)"].get("res", {}).get("out_bytes")
    b = by["w5"]["np.savez_compressed"].get("res", {}).get("out_bytes")
    add("Deflate npz output <= 1.05x numpy's size", a, b, 1.05, "npyflow / numpy size = %.3fx", "w5")
    # Issue 16, by CPU seconds (user + sys) of whole processes pinned to one
    # core, except DuckDB's COPY (the CPU of the statement alone).
    add("Issue 16: Arrow IPC -> .npy <= 1.3x cp (CPU, 5 columns)", tc("w9", "npyflow convert CLI (whole process)"),
        tc("w9", "cp of the .arrow (floor)"), 1.3, "npyflow / cp = %.2fx", "w9")
    add("Issue 16: Arrow IPC -> .npy <= 1.3x cp (CPU, 1 column, CLI)", tc("w10", "npyflow convert CLI (whole process)"),
        tc("w10", "cp of the .arrow (floor)"), 1.3, "npyflow / cp = %.2fx", "w10")
    add("Issue 16: the same, library ConvertIPC", tc("w10", "npyflow library ConvertIPC (copy_file_range)"),
        tc("w10", "cp of the .arrow (floor)"), 1.3, "npyflow / cp = %.2fx", "w10")
    add("Issue 16: npy -> Parquet (zstd) <= 0.7x DuckDB COPY (CPU)", tc("w3", "npyflow convert CLI (end to end)"),
        tc("w3", "DuckDB COPY (from memory)"), 0.7, "npyflow / DuckDB = %.2fx", "w3")
    add("Issue 16: Parquet -> .npy <= 1.0x pqarrow ReadTable (CPU, whole process)", tc("w8", "npyflow convert CLI (whole process)"),
        tc("w8", "arrow-go pqarrow ReadTable (whole process)"), 1.0, "npyflow / pqarrow = %.2fx", "w8")
    c = by["w6"]["npyflow library (streaming)"]
    if ok(c):
        rss = c["res"]["rss_mb"]
        good = rss < RSS_LIMIT_MB
        out.append(("4 GiB npy -> Parquet peak RSS < %d MB" % RSS_LIMIT_MB, "%.0f MB" % rss,
                    "met" if good else "MISSED", None if good else "w6"))
    else:
        out.append(("4 GiB npy -> Parquet peak RSS < %d MB" % RSS_LIMIT_MB, "n/a", "pending", None))
    return out


def profile(w, sc):
    """CPU profile of the npyflow reference contender of workload w: the
    top of `go tool pprof -top`."""
    c = ref_of(w)
    if c["cmd"][0] != GOBENCH:
        return None
    prof = os.path.join(DATA, "%s.prof" % w["id"])
    cmd = [GOBENCH, "-cpuprofile", prof] + c["cmd"][1:]
    subprocess.run(cmd, capture_output=True, cwd=HERE)
    if c.get("out") and os.path.exists(c["out"]):
        os.remove(c["out"])
    if not os.path.exists(prof):
        return None
    top = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=25", GOBENCH, prof],
                         capture_output=True, text=True, cwd=HERE).stdout
    lines = top.splitlines()
    # Drop pprof's preamble up to the "Showing nodes" line.
    for i, l in enumerate(lines):
        if l.startswith("Showing nodes"):
            lines = lines[i:]
            break
    return "\n".join(lines)


def machine():
    cpu = "unknown"
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip()
            break
    mem = "unknown"
    for l in open("/proc/meminfo"):
        if l.startswith("MemTotal"):
            mem = "%.1f GiB" % (int(l.split()[1]) / (1 << 20))
    gov = sh(["go", "version"]).strip()
    npv = sh([PY, "-c", "import numpy, sys; print(numpy.__version__, sys.version.split()[0])"]).split()
    gomod = open(os.path.join(HERE, "go.mod")).read()

    def modv(path):
        m = re.search(re.escape(path) + r" (v\S+)", gomod)
        return m.group(1) if m else "?"
    node = sh(["node", "--version"]).strip() if shutil.which("node") else "missing"
    return dict(nproc=os.cpu_count(), cpu=cpu, mem=mem, kernel=platform.release(), go=gov,
                numpy=npv[0], python=npv[1], arrow=modv("github.com/apache/arrow-go/v18"),
                sbinet=modv("github.com/sbinet/npyio"), node=node)


def fmt_secs(s):
    return "%.3f s" % s if s >= 0.1 else "%.1f ms" % (s * 1e3)


def report(path, sc_name, sc, runs, W, T, profiles, mach, started, finished, load0, load1, duck_version, source):
    L = []
    L.append("# npyflow benchmark results\n")
    L.append("Generated by `make bench-compare` (benchmarks/run.py, SCALE=%s, RUNS=%d) "
             "on %s; took %.1f min. Do not edit by hand: notes about these numbers are in "
             "[NOTES.md](NOTES.md).\n" % (sc_name, runs, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
                                           (finished - started) / 60))
    L.append("## Machine\n")
    L.append("| | |\n|---|---|")
    L.append("| CPU | %s, %d cores (nproc) |" % (mach["cpu"], mach["nproc"]))
    L.append("| Memory | %s |" % mach["mem"])
    L.append("| Kernel | Linux %s |" % mach["kernel"])
    L.append("| Go | %s |" % mach["go"])
    L.append("| numpy | %s (Debian python3-numpy, Python %s) |" % (mach["numpy"], mach["python"]))
    L.append("| DuckDB | %s via @duckdb/node-api, Node.js %s |" % (duck_version or "n/a", mach["node"]))
    L.append("| arrow-go | %s |" % mach["arrow"])
    L.append("| sbinet/npyio | %s |" % mach["sbinet"])
    L.append("| npyflow measured | %s |" % source)
    L.append("| Load average | %s at start, %s at end (other work shares this machine) |" % (load0, load1))
    L.append("")
    L.append("Method: each contender is its own process, run once to warm up and then %d times "
             "(workload 6: once, no warm-up); the table gives the median time of the timed "
             "operation, its spread (min-max), throughput (array data bytes / median time, "
             "MB = 10^6 bytes), the largest peak RSS of the measured runs (`/usr/bin/time -v`, "
             "whole process: Python's or Node's own footprint included) and the ratio of the "
             "contender's median to npyflow's reference row (>1: npyflow is faster). "
             "Library contenders time only their operation (no interpreter start-up; "
             "\"from memory\" contenders load their input before the clock starts); CLI and `cp` "
             "rows are whole processes. Inputs are in the page cache; outputs are written to "
             "the page cache (no fsync: the npyflow CLI syncs only with --sync, and renames "
             "its output into place), after a `sync` so that no run waits "
             "for an earlier run's writeback. Every command runs pinned to one core "
             "(`taskset -c $PIN`, 1 unless PIN=none); the CPU column is user + sys seconds of the "
             "whole process (DuckDB: of its COPY statement alone), the measure the issue 16 "
             "targets use, since wall clock means little on a shared machine.\n" % runs)

    L.append("## Results\n")
    for w in W:
        L.append("### %s: %s\n" % (w["id"].upper(), w["title"]))
        size = w.get("data_bytes") or (npy_data_bytes(w["input"]) if os.path.exists(w["input"]) else 0)
        L.append("Input: `%s`, %s of array data.\n" % (rel(w["input"]), fmt_bytes(size) if size else "not generated"))
        ref = ref_of(w)
        refop = ref["res"]["op"] if ok(ref) else None
        showsize = any(ok(c) and "out_bytes" in c["res"] for c in w["contenders"])
        hdr = "| Contender | Median | Min - max | Throughput | CPU s median (min - max) | Peak RSS | vs npyflow |"
        sep = "|---|---:|---:|---:|---:|---:|---:|"
        if showsize:
            hdr += " Output size |"
            sep += "---:|"
        L.append(hdr)
        L.append(sep)
        for c in w["contenders"]:
            r = c.get("res", {})
            name = c["name"] + (" **(ref)**" if c.get("ref") else "")
            if r.get("status") != "ok":
                cells = [name, r.get("status", "not run"), "", "", "", "", ""]
                if showsize:
                    cells.append("")
                L.append("| " + " | ".join(cells) + " |")
                continue
            ratio = "%.2fx" % (r["op"] / refop) if refop else "n/a"
            cells = [name, fmt_secs(r["op"]), "%s - %s" % (fmt_secs(r["op_min"]), fmt_secs(r["op_max"])),
                     "%.0f MB/s" % (size / r["op"] / 1e6) if size else "",
                     "%.3f (%.3f - %.3f)" % (r["cpu"], r["cpu_min"], r["cpu_max"]), "%.0f MB" % r["rss_mb"], ratio]
            if showsize:
                ob = r.get("out_bytes")
                cells.append("%.1f MB" % (ob / 1e6) if ob else "")
            L.append("| " + " | ".join(cells) + " |")
        # Compare the checks of the same kind as the reference's (the
        # floors and the stream report byte or batch counts instead).
        key = lambda c: tuple(kv.split("=")[0] for kv in (c["res"].get("check") or "").split(","))
        checks = {c["res"]["check"] for c in w["contenders"]
                  if ok(c) and c["res"].get("check") and refop and key(c) == key(ref)}
        notes = []
        if len(checks) > 1:
            notes.append("**Contenders disagree on the values read/written**: %s" % ", ".join(sorted(checks)))
        elif checks:
            notes.append("Value check (sum of the array, or of the id column): %s." % ", ".join(sorted(checks)))
        same = [c for c in w["contenders"] if c.get("verified") and c.get("verify", "").startswith("same:")]
        if same:
            good = [c["name"] for c in same if c["verified"].startswith("same bytes")]
            notes.append("Outputs compared byte for byte with the .npy the input was made from: %s."
                         % ("identical for " + ", ".join(good) if good else "none identical"))
            for c in same:
                if not c["verified"].startswith("same bytes"):
                    notes.append("**%s: output %s**" % (c["name"], c["verified"]))
        if any(c.get("verified") and c not in same for c in w["contenders"]):
            want = expect(w["input"])
            good = [c["name"] for c in w["contenders"] if c.get("verified") and c not in same and c["verified"] == want]
            bad = [c for c in w["contenders"] if c.get("verified") and c not in same and c["verified"] != want]
            notes.append("Output values read back (DuckDB for Parquet, arrow-go for IPC) and compared "
                         "with numpy's summary `%s`: %s." % (want, "match for " + ", ".join(good) if good else "none match"))
            for c in bad:
                notes.append("**%s: output differs**: `%s`" % (c["name"], c["verified"]))
        for c in w["contenders"]:
            r = c.get("res", {})
            if r.get("status") in ("pending", "failed"):
                notes.append("%s %s: %s" % (c["name"], r["status"], r.get("reason", "").replace("\n", " ")[:300]))
        L.append("")
        for n in notes:
            L.append("- " + n)
        L.append("")

    L.append("## Process counters\n")
    L.append("Medians over the measured runs, from `/usr/bin/time -v`, for the whole process "
             "(a from-memory contender's loading included): CPU seconds in user and kernel mode "
             "and minor page faults. Kernel time and faults explain most of the gaps in plain "
             "reads and writes, where a CPU profile sees only one long syscall.\n")
    L.append("| Workload | Contender | User CPU | Sys CPU | Minor faults |\n|---|---|---:|---:|---:|")
    for w in W:
        for c in w["contenders"]:
            if ok(c):
                r = c["res"]
                L.append("| %s | %s | %.2f s | %.2f s | %d |" % (w["id"], c["name"], r.get("user", 0), r.get("sys", 0), r.get("minflt", 0)))
    L.append("")
    L.append("## Targets (issue 8; issue 16 by CPU seconds)\n")
    L.append("| Target | Measured | Verdict |\n|---|---|---|")
    for label, meas, verdict, _ in T:
        L.append("| %s | %s | %s |" % (label, meas, verdict))
    L.append("")
    if profiles:
        L.append("## CPU profiles of npyflow where a target is missed or another library is faster\n")
        L.append("`go tool pprof -top` of `bin/gobench -cpuprofile` running the npyflow row "
                 "(the timed operation only).\n")
        for wid, top in profiles.items():
            L.append("### %s\n\n```\n%s\n```\n" % (wid.upper(), top))

    L.append("## Commands\n")
    L.append("Run from `benchmarks/` (`make bench-compare` at the root runs all of this). "
             "Data generation: `/usr/bin/python3 gen.py %s %d %d %d`; DuckDB's source table: "
             "`bin/gobench srcparquet %s %s` (uncompressed Parquet, loaded with "
             "`CREATE TABLE t AS SELECT * FROM read_parquet(...)` before the clock starts); "
             "the .npz read input: `pybench.py savez`; workload w8's input: `bin/gobench pqsrc4 %d %s` "
             "(pqarrow, zstd, 1Mi-row groups). Each command below runs as "
             "`taskset -c 1 /usr/bin/time -v CMD`.\n" % (rel(DATA), sc["f64"], sc["struct"], sc["big"] if any(
                 ok(c) for c in W[-1]["contenders"]) else 0,
                 rel(os.path.join(DATA, "struct.npy")), rel(os.path.join(DATA, "struct-src.parquet")),
                 sc["struct"], rel(os.path.join(DATA, "pq4.parquet"))))
    L.append("```")
    for w in W:
        for c in w["contenders"]:
            cmd = " ".join(rel(a) if a.startswith(HERE) else a for a in c["cmd"])
            L.append("%-4s %s" % (w["id"], cmd.replace(PY + " ", "/usr/bin/python3 ")))
    L.append("```\n")
    # Sections measured by hand (after KEEP_MARK) survive a regeneration.
    kept = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if KEEP_MARK in old:
            kept = "\n" + old[old.index(KEEP_MARK):]
    with open(path, "w") as f:
        f.write("\n".join(L) + kept)
    log("wrote", path)


# ---------------------------------------------------------------- main


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


KEEP_MARK = "<!-- measured by hand: run.py keeps this line and everything after it -->"


def main():
    global DATA
    sc_name = env("SCALE", "full")
    if sc_name not in SCALES:
        sys.exit("SCALE must be one of " + ", ".join(SCALES))
    sc = SCALES[sc_name]
    runs = int(env("RUNS", sc["runs"]))
    DATA = os.path.join(HERE, "data", sc_name)
    os.makedirs(DATA, exist_ok=True)
    out = env("OUT", "") or (os.path.join(HERE, "RESULTS.md") if sc_name == "full"
                                     else os.path.join(HERE, "data", "RESULTS-%s.md" % sc_name))
    only = {x.strip() for x in env("ONLY", "").split(",") if x.strip()}
    started = time.time()
    load0 = loadavg()

    source = ensure_deps()
    free = shutil.disk_usage(DATA).free
    big_env = env("BIG", "auto")
    big_path = os.path.join(DATA, "big.npy")
    have_big = os.path.exists(big_path) and os.path.getsize(big_path) >= sc["big"]
    big_on = big_env == "1" or (big_env == "auto" and (have_big or free > 3 * sc["big"] + (8 << 30)))
    if only and "w6" not in only:
        big_on = False
    log("generating data in", rel(DATA))
    subprocess.run([PY, os.path.join(HERE, "gen.py"), DATA, str(sc["f64"]), str(sc["struct"]),
                    str(sc["big"] if big_on else 0)], check=True)
    st = os.path.join(DATA, "struct.npy")
    src_pq = os.path.join(DATA, "struct-src.parquet")
    if not os.path.exists(src_pq) or os.path.getmtime(src_pq) < os.path.getmtime(st):
        subprocess.run([GOBENCH, "srcparquet", st, src_pq], check=True, capture_output=True)
    pq4 = os.path.join(DATA, "pq4.parquet")
    if not os.path.exists(pq4) or os.path.getmtime(pq4) < os.path.getmtime(st):
        subprocess.run([GOBENCH, "pqsrc4", str(sc["struct"]), pq4], check=True, capture_output=True)
    for src, dst in ((st, os.path.join(DATA, "struct.arrow")), (os.path.join(DATA, "f64.npy"), os.path.join(DATA, "f64.arrow"))):
        if not os.path.exists(dst) or os.path.getmtime(dst) < os.path.getmtime(src):
            subprocess.run([CLI, "convert", "--progress=never", "--compression=none", src, dst], check=True, capture_output=True)
    npz_in = os.path.join(DATA, "struct.npz")
    if not os.path.exists(npz_in) or os.path.getmtime(npz_in) < os.path.getmtime(st):
        subprocess.run(P("savez", st, npz_in), check=True, capture_output=True)

    cli = cli_commands()
    W = workloads(sc, cli, big_on)
    for w in W:
        if only and w["id"] not in only:
            for c in w["contenders"]:
                c["res"] = dict(status="not run", reason="not in ONLY")
            continue
        log("%s: %s" % (w["id"], w["title"]))
        for c in w["contenders"]:
            measure(c, w.get("runs", runs))
    T = targets(W)
    profiles = {}
    if env("PROFILE", "auto") != "0":
        wids = {x[3] for x in T if x[3]}
        # Also where any other library beats npyflow by more than 10%.
        for w in W:
            ref = ref_of(w)
            if not ok(ref):
                continue
            for c in w["contenders"]:
                if (ok(c) and not c.get("floor") and not c["name"].startswith(("npyflow", "prototype"))
                        and c["res"]["op"] * 1.1 < ref["res"]["op"]):
                    wids.add(w["id"])
        for wid in sorted(wids):
            w = next(w for w in W if w["id"] == wid)
            log("profiling npyflow in", wid)
            top = profile(w, sc)
            if top:
                profiles[wid] = top
    duck_version = None
    for w in W:
        for c in w["contenders"]:
            if c["name"].startswith("DuckDB") and ok(c):
                duck_version = c["res"].get("version")
    report(out, sc_name, sc, runs, W, T, profiles, machine(), started, time.time(), load0, loadavg(), duck_version, source)
    with open(os.path.join(DATA, "results.json"), "w") as f:
        json.dump(W, f, indent=1, default=str)
    for label, meas, verdict, _ in T:
        log("%-50s %-35s %s" % (label, meas, verdict))


if __name__ == "__main__":
    main()
