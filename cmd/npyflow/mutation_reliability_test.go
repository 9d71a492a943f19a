//go:build linux

package main

// The mutation test: valid files of every format, written by other
// producers (numpy, DuckDB, arrow-go, apache-arrow JS, parquet-go,
// parquet-mr, Impala, Spark, h5py, MATLAB, Octave, scipy, hdf5storage,
// zarr-python, zarrita; a Zarr store's files one at a time, see
// mutation_zarr_reliability_test.go),
// damaged in thousands of deterministic ways (bit flips, huge 4- and
// 8-byte fields, huge varints, truncation, aimed at the headers, the
// footers, the checksummed and the compressed parts of each format), each
// run through `npyflow convert` (to .npy, .npz or .parquet) or `npyflow
// inspect` in a child process under a 2 GiB address-space limit
// (RLIMIT_AS) and a 20 s timeout. Each must exit 0, or exit 1 with exactly
// one error line on stderr ("npyflow CMD: ...", after the warnings of
// what was skipped, if any, one line each); nothing may show a crash (a
// panic, fatal error, goroutine dump or runtime error); no signal; a
// failed conversion leaves nothing in the output folder, a successful one
// its output alone.
//
// `go test` runs a fixed subset (mutationsShort per file, well under a
// minute on 2 cores); NPYFLOW_MUTANTS=all (make fuzz) runs them all, or
// NPYFLOW_MUTANTS=N N per file; NPYFLOW_MUTANTS or NPYFLOW_LONG=1 adds
// mutationCorpusLong; NPYFLOW_MUTANTS_ONLY=a,b mutates only the corpus
// files whose paths contain a or b.

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/fixtures"
)

const (
	mutationChildEnv = "NPYFLOW_MUTATION_CHILD"
	// mutationAS is the address-space limit of a child.
	mutationAS = 2 << 30
	// mutationsShort and mutationsLong are the mutants per corpus file
	// of the short run (go test) and of NPYFLOW_MUTANTS=all.
	mutationsShort = 5
	mutationsLong  = 80
)

// mutationCorpus are the files mutated, relative to the repository root:
// a few of every format, each written by another producer.
var mutationCorpus = []string{
	// numpy
	"testdata/npy/f8_le_2d_c.npy", "testdata/npy/M8_ns_le_1d.npy", "testdata/npy/U4_le_1d.npy",
	"testdata/npy/rec_nested.npy", "testdata/npy/rec_strings_dates.npy", "testdata/npy/c16_be_2d_f.npy", "testdata/npy/f8_le_v2.npy",
	"testdata/npz/table.npz", "testdata/npz/savez_compressed_mixed.npz", "testdata/npz/savez_mixed.npz",
	// Parquet: DuckDB, arrow-go, parquet-go, parquet-mr (Spark), Impala, parquet-rs
	"parquetio/testdata/foreign/duck_codec_snappy.parquet", "parquetio/testdata/foreign/duck_codec_zstd.parquet",
	"parquetio/testdata/foreign/duck_codec_gzip.parquet", "parquetio/testdata/foreign/duck_struct_nulls.parquet",
	"parquetio/testdata/foreign/duck_v2.parquet", "parquetio/testdata/foreign/duck_list.parquet",
	"parquetio/testdata/foreign/pqa_v2_delta_bss.parquet", "parquetio/testdata/foreign/pqa_nested_nulls.parquet",
	"parquetio/testdata/foreign/pqlow_legacy_types.parquet", "parquetio/testdata/foreign/pgo_crc.parquet",
	"parquetio/testdata/foreign/pt_int96_from_spark.parquet", "parquetio/testdata/foreign/pt_unknown_logical_type.parquet",
	"parquetio/testdata/foreign/pt_ARROW_GH_43605.parquet", "parquetio/testdata/foreign/pt_page_v2_empty_compressed.parquet",
	// Arrow IPC: arrow-go, apache-arrow (JS)
	"arrowconv/testdata/foreign/every_type.arrow", "arrowconv/testdata/foreign/every_type_lz4.arrows",
	"arrowconv/testdata/foreign/every_type_zstd.arrow", "arrowconv/testdata/foreign/arrowjs_every_type.arrow",
	"arrowconv/testdata/foreign/arrowjs_nested_nulls.arrows", "arrowconv/testdata/foreign/dict_delta.arrows",
	"arrowconv/testdata/foreign/big_endian.arrow", "arrowconv/testdata/foreign/union.arrow",
	// HDF5: h5py
	"hdf5/testdata/small_earliest.h5", "hdf5/testdata/small_latest.h5", "hdf5/testdata/lzf.h5", "hdf5/testdata/userblock.h5",
	// HDF5 filters: h5py with hdf5plugin, Debian's plugins and libaec
	// (testdata/h5mutants/gen_h5mutants.py); netCDF-4: netCDF4-python
	"testdata/h5mutants/filter_lz4.h5", "testdata/h5mutants/filter_zstd.h5", "testdata/h5mutants/filter_blosc.h5",
	"testdata/h5mutants/filter_bitshuffle.h5", "testdata/h5mutants/filter_szip.h5", "testdata/h5mutants/filter_lzf.h5",
	"testdata/h5mutants/netcdf4.nc",
	// MAT-files: MATLAB (v7, v7.3), Octave, scipy (v6, v7, big-endian), h5py and hdf5storage (v7.3)
	"matfile/testdata/matlab/v7/cell.mat", "matfile/testdata/matlab/v7/struct.mat",
	"matfile/testdata/matlab/v7.3/cell.mat", "matfile/testdata/matlab/v7.3/struct.mat",
	"matfile/testdata/octave_v7.mat", "matfile/testdata/octave_v6.mat", "matfile/testdata/scipy_v6.mat",
	"matfile/testdata/scipy_be_v7.mat", "matfile/testdata/h5py_matlab_v73.mat", "matfile/testdata/h5s_v73.mat",
	// Zarr: a zarr-python 2 ZipStore; files of stores written by
	// zarr-python 2 (v2) and zarrita (v3), see mutationStore: array
	// metadata, compressed chunks, shard indexes at the end and start
	"zarr/testdata/v2.zip", "zarr/testdata/v2_deflate.zip",
	"zarr/testdata/v2.zarr/i4_delta/.zarray", "zarr/testdata/v2.zarr/image/blosc_lz4/0.0.0",
	"zarr/testdata/v3.zarr/float64_be_t/zarr.json", "zarr/testdata/v3.zarr/sharded_end/c/0/0",
	"zarr/testdata/v3.zarr/sharded_start_gzip/c/1/1",
}

// mutationCorpusLong are corpus files mutated only when NPYFLOW_MUTANTS
// is set (make fuzz), so that go test runs as many mutants as before:
// Parquet nested lists, intervals and Null-typed columns from polars,
// arrow-rs (parquet-wasm), hyparquet-writer and parquet-testing
// (parquetio/testdata/foreign/gen_nested.mjs).
var mutationCorpusLong = []string{
	"parquetio/testdata/foreign/pl_struct_pair.parquet", "parquetio/testdata/foreign/pl_list_list_nullrow.parquet",
	"parquetio/testdata/foreign/rs_fsl_fsl.parquet", "parquetio/testdata/foreign/rs_interval_dt.parquet",
	"parquetio/testdata/foreign/hyp_list_struct_list.parquet", "parquetio/testdata/foreign/ptlist_old_list_structure.parquet",
	// More Zarr store files: consolidated metadata, every compressor's
	// chunks, F order, structured and string types, v3 codecs.
	"zarr/testdata/v2.zarr/.zmetadata", "zarr/testdata/v2.zarr/image/zstd/1.1.1", "zarr/testdata/v2.zarr/image/lz4/0.0.0",
	"zarr/testdata/v2.zarr/image/bz2/0.0.0", "zarr/testdata/v2.zarr/image/zlib/0.0.0", "zarr/testdata/v2.zarr/image/gzip/0.0.0",
	"zarr/testdata/v2.zarr/image/blosc_zstd/0.0.0", "zarr/testdata/v2.zarr/image/blosc_lz4hc/0.0.0",
	"zarr/testdata/v2.zarr/f8_be_F/0.0", "zarr/testdata/v2.zarr/structured/.zarray", "zarr/testdata/v2.zarr/structured/0",
	"zarr/testdata/v2.zarr/U4/0", "zarr/testdata/v2.zarr/sparse_i8/.zarray", "zarr/testdata/v2.zarr/nested/deeper/u1/0",
	"zarr/testdata/v3.zarr/zarr.json", "zarr/testdata/v3.zarr/image/blosc_lz4/c/0/0/0", "zarr/testdata/v3.zarr/image/blosc_lz4/zarr.json",
	"zarr/testdata/v3.zarr/sharded_end_gzip/c/0/0", "zarr/testdata/v3.zarr/sharded_end/zarr.json",
	"zarr/testdata/v3.zarr/dotsep_i8/c.0.0", "zarr/testdata/v3.zarr/float64_be_t/c/0/0", "zarr/testdata/v3.zarr/sparse_f32/zarr.json",
}

// mutationGated are corpus files whose mutants are not run, and why;
// each is a known failure to fix (see the report of issue 22).
var mutationGated = map[string]string{}

// TestMutationChild is not a test: it is the npyflow process of
// TestMutants, run under the address-space limit.
func TestMutationChild(t *testing.T) {
	if os.Getenv(mutationChildEnv) != "1" {
		return
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: mutationAS, Max: mutationAS}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		os.Exit(99)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, flag.Args(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// mutant is one damaged copy of a corpus file and what is run on it.
type mutant struct {
	file   string // corpus path
	store  *zarrTarget
	region string
	off    int
	kind   string
	op     string // "inspect" or the output extension of convert
	data   []byte
}

func (m *mutant) String() string {
	return fmt.Sprintf("%s: %s at byte %d (%s), %s", m.file, m.kind, m.off, m.region, m.op)
}

// region is a labeled byte range of a file: where a format keeps its
// headers, footers, checksummed and compressed parts.
type region struct {
	name       string
	start, end int
}

// regions finds the parts of a corpus file worth aiming at, by format;
// "any" covers the whole file.
func regions(name string, b []byte) []region {
	n := len(b)
	rs := []region{{"head", 0, min(n, 256)}, {"tail", max(0, n-256), n}, {"any", 0, n}}
	add := func(name string, s, e int) {
		if s >= 0 && e <= n && s < e {
			rs = append(rs, region{name, s, e})
		}
	}
	switch ext := filepath.Ext(name); {
	case ext == ".parquet" && n > 12:
		flen := int(binary.LittleEndian.Uint32(b[n-8:]))
		add("footer", n-8-flen, n-8)
		add("pages", 4, n-8-flen) // compressed, some with CRCs
	case ext == ".npz" || ext == ".zip":
		if zr, err := zip.NewReader(bytes.NewReader(b), int64(n)); err == nil {
			for _, f := range zr.File {
				if off, err := f.DataOffset(); err == nil {
					add("member data", int(off), int(off)+int(f.CompressedSize64)) // deflated, CRC-32 checked
				}
			}
		}
	case ext == ".npy":
		if n > 10 {
			add("header", 0, min(n, 10+int(binary.LittleEndian.Uint16(b[8:]))))
			add("data", min(n, 10+int(binary.LittleEndian.Uint16(b[8:]))), n)
		}
	case ext == ".arrow" || ext == ".arrows":
		pos := 0
		if bytes.HasPrefix(b, []byte("ARROW1")) {
			pos = 8
		}
		for pos+8 <= n && binary.LittleEndian.Uint32(b[pos:]) == 0xffffffff {
			mlen := int(binary.LittleEndian.Uint32(b[pos+4:]))
			if mlen == 0 || pos+8+mlen > n {
				break
			}
			add("message metadata", pos+8, pos+8+mlen)
			// bodyLength: field 3 of the Message table; found by
			// scanning would need flatbuffers; take the bytes up to
			// the next continuation marker as the body.
			next := bytes.Index(b[pos+8+mlen:], []byte{0xff, 0xff, 0xff, 0xff})
			if next < 0 {
				break
			}
			add("message body", pos+8+mlen, pos+8+mlen+next) // compressed buffers in lz4/zstd files
			pos += 8 + mlen + next
		}
	case strings.Contains(name, ".zarr/"):
		rs = append(rs, zarrRegions(name, b)...)
	case ext == ".h5" || ext == ".nc" || ext == ".mat":
		if bytes.HasPrefix(b, []byte("MATLAB")) && !bytes.Contains(b[:min(n, 1024)], []byte("\x89HDF")) {
			add("mat header", 0, min(n, 128))
			add("mat elements", 128, n) // miCOMPRESSED (zlib, Adler-32) in v7
			break
		}
		// HDF5 structures: v2 object headers, B-trees, heaps (with
		// Jenkins checksums in the latest format), symbol tables.
		for _, sig := range []string{"\x89HDF", "OHDR", "OCHK", "BTHD", "BTLF", "BTIN", "FRHP", "FHDB", "FHIB", "FSHD", "TREE", "HEAP", "SNOD", "GCOL"} {
			for i := 0; ; {
				k := bytes.Index(b[i:], []byte(sig))
				if k < 0 {
					break
				}
				add(strings.TrimPrefix(sig, "\x89")+" structure", i+k, min(n, i+k+96))
				i += k + 4
			}
		}
		// Compressed chunks, where the generator listed them (h5py's
		// get_chunk_info: offset and size of each).
		if j, err := os.ReadFile(filepath.Join(filepath.Dir(fixtures.Root()), strings.TrimSuffix(name, ext)+".chunks.json")); err == nil {
			var chunks [][2]int
			if json.Unmarshal(j, &chunks) == nil {
				for _, c := range chunks {
					add("chunk", c[0], c[0]+c[1])
				}
			}
		}
	}
	return rs
}

// mutate returns mutant number k of file b (deterministic: the file's
// own random stream).
func mutate(name string, b []byte, k int, rng *rand.Rand, rs []region) *mutant {
	r := rs[k%len(rs)]
	if r.end <= r.start {
		r = rs[2]
	}
	off := r.start + rng.IntN(max(1, r.end-r.start))
	off = min(off, max(0, len(b)-1))
	ops := []string{".npy", "inspect", ".npz", ".parquet"}
	m := &mutant{file: name, region: r.name, off: off, op: ops[(k/len(rs))%len(ops)]}
	d := bytes.Clone(b)
	switch kind := (k / 3) % 7; kind {
	case 0:
		bit := rng.IntN(8)
		d[off] ^= 1 << bit
		m.kind = fmt.Sprintf("bit %d flipped", bit)
	case 1:
		v := []byte{0x00, 0xff, 0x80, 0x7f}[rng.IntN(4)]
		d[off] = v
		m.kind = fmt.Sprintf("byte set to %#x", v)
	case 2:
		v := []uint32{0xffffffff, 0x7fffffff, 0x80000000, 0x10000000, 0x0fffffff}[rng.IntN(5)]
		if off+4 <= len(d) {
			binary.LittleEndian.PutUint32(d[off:], v)
		}
		m.kind = fmt.Sprintf("4 bytes set to %#x (little-endian)", v)
	case 3:
		v := []uint64{1 << 62, 0x7fffffffffffffff, 0xffffffffffffffff, 1 << 40, 0x10000000}[rng.IntN(5)]
		if off+8 <= len(d) {
			binary.LittleEndian.PutUint64(d[off:], v)
		}
		m.kind = fmt.Sprintf("8 bytes set to %#x (little-endian)", v)
	case 4:
		v := []uint32{0xffffffff, 0x7fffffff, 0x10000000}[rng.IntN(3)]
		if off+4 <= len(d) {
			binary.BigEndian.PutUint32(d[off:], v)
		}
		m.kind = fmt.Sprintf("4 bytes set to %#x (big-endian)", v)
	case 5:
		// A varint of 2**31-1 (Thrift, protobuf-like lengths), over
		// the bytes there.
		v := []byte{0xff, 0xff, 0xff, 0xff, 0x07}
		copy(d[off:], v)
		m.kind = "varint 0x7fffffff written"
	case 6:
		d = d[:off]
		m.kind = "truncated"
	}
	m.data = d
	return m
}

// mutantsPerFile is how many mutants each corpus file gets.
func mutantsPerFile(t *testing.T) int {
	switch v := os.Getenv("NPYFLOW_MUTANTS"); v {
	case "":
		return mutationsShort
	case "all":
		return mutationsLong
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("NPYFLOW_MUTANTS=%q: want all or a count", v)
		}
		return n
	}
}

// TestMutants runs the mutants of the corpus through the CLI (see the top
// of this file).
func TestMutants(t *testing.T) {
	if raceRSS != 1 {
		t.Skip("the race detector reserves more address space than the 2 GiB limit")
	}
	root := filepath.Dir(fixtures.Root())
	per := mutantsPerFile(t)
	var all []*mutant
	only := os.Getenv("NPYFLOW_MUTANTS_ONLY") // comma-separated parts of corpus paths
	corpus := mutationCorpus
	if os.Getenv("NPYFLOW_MUTANTS") != "" || fixtures.Long() {
		corpus = append(slices.Clone(corpus), mutationCorpusLong...)
	}
	for _, name := range corpus {
		if only != "" && !slices.ContainsFunc(strings.Split(only, ","), func(p string) bool { return strings.Contains(name, p) }) {
			continue
		}
		if why, ok := mutationGated[name]; ok {
			t.Logf("%s: not run: %s", name, why)
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		h.Write([]byte(name))
		rng := rand.New(rand.NewPCG(h.Sum64(), 22))
		rs := regions(name, b)
		var store *zarrTarget
		if strings.Contains(name, ".zarr/") {
			if store, err = mutationStore(root, name); err != nil {
				t.Fatal(err)
			}
		}
		for k := range per {
			m := mutate(name, b, k, rng, rs)
			m.store = store
			all = append(all, m)
		}
	}
	dir := tempDir(t)
	workers := max(2, runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	var failures []string
	exits := map[int]int{}
	jobs := make(chan int)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				msg, code := runMutant(dir, w, i, all[i])
				mu.Lock()
				exits[code]++
				if msg != "" {
					failures = append(failures, fmt.Sprintf("%s: %s", all[i], msg))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range all {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d mutants of %d files in %v: exits %v", len(all), len(corpus)-len(mutationGated), time.Since(began).Round(time.Second), exits)
	for _, f := range failures {
		t.Error(f)
	}
}

// runMutant writes the mutant, runs its command in a child and checks
// the contract; it returns what is wrong ("" if nothing) and the exit
// code.
func runMutant(dir string, worker, i int, m *mutant) (string, int) {
	in := filepath.Join(dir, fmt.Sprintf("in%d", worker), "input"+filepath.Ext(m.file))
	outDir := filepath.Join(dir, fmt.Sprintf("out%d", worker))
	os.RemoveAll(filepath.Dir(in))
	os.RemoveAll(outDir)
	if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
		return err.Error(), -1
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err.Error(), -1
	}
	var flags []string
	if m.store != nil {
		in = filepath.Join(filepath.Dir(in), "input.zarr")
		if err := m.store.write(in, m.data); err != nil {
			return err.Error(), -1
		}
		flags = []string{"--array", m.store.array}
	} else if err := os.WriteFile(in, m.data, 0o644); err != nil {
		return err.Error(), -1
	}
	out := filepath.Join(outDir, "result"+m.op)
	args := append([]string{"convert", in, out}, flags...)
	if m.op == "inspect" {
		args = []string{"inspect", in}
	}
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestMutationChild$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), mutationChildEnv+"=1")
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	cmd.Run()
	elapsed := time.Since(began)
	code := -1
	if ps := cmd.ProcessState; ps != nil {
		code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("killed by signal %v after %v: %s", ws.Signal(), elapsed.Round(time.Millisecond), firstLines(stderr.String())), code
		}
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Sprintf("still running after %v", caseTimeout), code
	}
	for _, mk := range crashMarkers {
		if strings.Contains(stderr.String(), mk) || strings.Contains(stdout.String(), mk) {
			return fmt.Sprintf("exit %d with %q (a crash): %s", code, mk, firstLines(stderr.String())), code
		}
	}
	left, _ := os.ReadDir(outDir)
	switch code {
	case exitOK:
		for _, e := range left {
			if m.op == "inspect" || e.Name() != filepath.Base(out) {
				return fmt.Sprintf("exit 0 left %s in the output folder", e.Name()), code
			}
		}
	case exitFailure:
		// One line says why; the warnings of what was skipped before
		// (a dataset of an unsupported type, a MATLAB object) may
		// precede it, each on its own line.
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		for len(lines) > 1 && strings.HasPrefix(lines[0], "npyflow: warning: ") {
			lines = lines[1:]
		}
		msg := lines[0]
		if len(lines) != 1 || !strings.HasPrefix(msg, "npyflow ") {
			return fmt.Sprintf("exit 1 without exactly one error line: %q", firstLines(stderr.String())), code
		}
		if len(left) > 0 {
			return fmt.Sprintf("exit 1 left %s in the output folder (%s)", left[0].Name(), msg), code
		}
	default:
		return fmt.Sprintf("exit %d: %s", code, firstLines(stderr.String())), code
	}
	return "", code
}

func firstLines(s string) string {
	lines := strings.SplitN(s, "\n", 4)
	if len(lines) > 3 {
		lines = lines[:3]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 600 {
		out = out[:600] + "..."
	}
	return out
}
