package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The write sweep: numpy's fixtures (every dtype in both byte orders,
// structured and nested, Fortran order, 0-d, empty, and .npz archives
// mixing them) converted to every output format and read back by that
// format's own tool. `make check-writers` writes the outputs
// (NPYFLOW_SWEEP_OUT), has the tools read them (testdata/sweep/read.py:
// numpy, h5py and scipy; testdata/sweep/read.mjs: DuckDB and Arrow JS)
// into testdata/sweep/<format>.json, and runs this test, which needs no
// Python or Node: it writes every output again, compares the tool's
// reading with the values numpy wrote under the format's documented
// mapping (sweepMap), and checks that the output's bytes are the ones
// the tool read (the MAT header's creation time and Parquet's created_by
// aside: both name when and by which build the file was made, not what
// it holds). Where they are
// not (another writer changed; NPYFLOW_SWEEP_READBACK=1 forces it),
// npyflow's own reading of the new output must give the values the tool
// read, and the test logs that the readings want refreshing.
//
// A format joins the sweep with one entry in sweepFormats and a reader in
// one of the two scripts; its output must have an independent reader
// (TestWriteSweepCoversFormats fails for a registered output format that
// has neither an entry nor a reason in sweepExempt).

// sweepFormat is one output format of the sweep.
type sweepFormat struct {
	name  string            // the readings' file: testdata/sweep/<name>.json
	ext   string            // the output's extension
	flags map[string]string // convert's options
	tool  string            // who reads it back (for messages; the scripts key on name)
	// mapped is how the format stores a value of a numpy kind, when not
	// as numpy has it (see sweepMapped).
	mapped sweepMap
	// sampled formats check every third input in make test (all with
	// NPYFLOW_LONG=1); their readings cover every input.
	sampled bool
}

// sweepMap is a format's mapping of values the tools see differently
// from numpy.
type sweepMap uint8

const (
	mapNumpy   sweepMap = iota // the tool reads numpy's values
	mapTable                   // Parquet, Arrow: NaT is null, complex is {real, imag}
	mapParquet                 // mapTable, and M8[Y], M8[M], m8 and other units INT64 counts
	mapMAT                     // times as double seconds, strings as char, S as text
)

var sweepFormats = []sweepFormat{
	{name: "npy", ext: ".npy", tool: "numpy"},
	{name: "npz", ext: ".npz", tool: "numpy"},
	{name: "parquet", ext: ".parquet", tool: "DuckDB", mapped: mapParquet},
	{name: "arrow", ext: ".arrow", tool: "Arrow JS", mapped: mapTable},
	{name: "arrows", ext: ".arrows", tool: "Arrow JS", mapped: mapTable},
	{name: "feather", ext: ".feather", tool: "Arrow JS", mapped: mapTable},
	{name: "mat73", ext: ".mat", flags: map[string]string{"mat-version": "7.3"}, tool: "h5py", mapped: mapMAT},
	{name: "mat7", ext: ".mat", flags: map[string]string{"mat-version": "7"}, tool: "scipy", mapped: mapMAT},
	{name: "mat6", ext: ".mat", flags: map[string]string{"mat-version": "6"}, tool: "scipy", mapped: mapMAT},
	// Zarr v2, a .zarr directory and a .zip (zarr-python's ZipStore
	// layout), read by zarr-python 2 through its consolidated metadata;
	// v3 outputs are judged by zarrita in make check-zarr.
	{name: "zarr2", ext: ".zarr", flags: map[string]string{"zarr-format": "2"}, tool: "zarr-python 2", sampled: true},
	{name: "zarr2zip", ext: ".zip", flags: map[string]string{"zarr-format": "2"}, tool: "zarr-python 2 (ZipStore)", sampled: true},
	// .h5 is not in the sweep yet: the HDF5 writer has its own sweep
	// (hdf5/, check-hdf5) while it is being reworked; it joins here with
	// {name: "h5", ext: ".h5", tool: "h5py"} and a reader in read.py.
}

// sweepInputsOf are the inputs format f is checked on: sweepInputs,
// every third of them for a sampled format unless NPYFLOW_LONG=1.
func sweepInputsOf(t *testing.T, f sweepFormat) []string {
	in := sweepInputs(t)
	if !f.sampled || fixtures.Long() || testing.Short() {
		return in
	}
	var some []string
	for i := 1; i < len(in); i += 3 {
		some = append(some, in[i])
	}
	return some
}

// sweepInputs are the inputs, testdata/sweep/in (gen_inputs.py writes
// them with numpy), by path; with -short every third.
func sweepInputs(t *testing.T) []string {
	in, err := filepath.Glob(filepath.Join("testdata", "sweep", "in", "*.np[yz]"))
	if err != nil || len(in) < 50 {
		t.Fatalf("the sweep's inputs: %d files, %v", len(in), err)
	}
	slices.Sort(in)
	if testing.Short() {
		var some []string
		for i := 0; i < len(in); i += 3 {
			some = append(some, in[i])
		}
		return some
	}
	return in
}

func sweepStem(in string) string {
	return strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
}

// sweepReading is what a tool read from one output.
type sweepReading struct {
	SHA     string            `json:"sha"`               // of the output the tool read (sweepHash)
	Refused string            `json:"refused,omitempty"` // npyflow's error instead of an output
	Cols    map[string][]any  `json:"cols,omitempty"`    // column path -> values, flattened in C order
	Types   map[string]string `json:"types,omitempty"`   // column path -> the tool's type name
	Error   string            `json:"error,omitempty"`   // the tool could not read it
}

// sweepHash is the SHA-256 of an output, a MAT header's text (its
// creation time) left out and a Parquet footer's created_by cleared (see
// sweepClearCreatedBy); of a directory (a Zarr store), of its files'
// names and hashes, in order.
func sweepHash(f sweepFormat, path string) (string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		h := sha256.New()
		err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(path, p)
			fmt.Fprintf(h, "%s %x\n", filepath.ToSlash(rel), sha256.Sum256(b))
			return nil
		})
		return hex.EncodeToString(h.Sum(nil)), err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if f.mapped == mapMAT && len(b) >= 116 {
		b = slices.Clone(b)
		clear(b[:116])
	}
	if f.ext == ".parquet" {
		if b, err = sweepClearCreatedBy(b); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// sweepClearCreatedBy returns the Parquet file b as written with an
// empty created_by: the string internal/buildinfo stamps ("npyflow
// version devel" in a test binary, the version and commit in a release)
// changes with the build, not with the writer. The footer's created_by
// (a compact-protocol string: its length as a varint, then its bytes) is
// cut to length 0 and the footer's length adjusted; every other byte is
// kept. (A file without created_by is left as it is: npyflow always
// writes one.)
func sweepClearCreatedBy(b []byte) ([]byte, error) {
	const magic = "PAR1"
	if len(b) < 12 || string(b[len(b)-4:]) != magic {
		return nil, errors.New("not a Parquet file: no PAR1 at the end")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	if n <= 0 || start < 4 {
		return nil, fmt.Errorf("footer length %d out of range", n)
	}
	footer := b[start : len(b)-8]
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if md.CreatedBy == "" {
		return b, nil
	}
	enc := append(binary.AppendUvarint(nil, uint64(len(md.CreatedBy))), md.CreatedBy...)
	if c := bytes.Count(footer, enc); c != 1 {
		return nil, fmt.Errorf("created_by %q appears %d times in the footer", md.CreatedBy, c)
	}
	i := bytes.Index(footer, enc)
	out := slices.Concat(b[:start], footer[:i], []byte{0}, footer[i+len(enc):])
	out = binary.LittleEndian.AppendUint32(out, uint32(len(out)-start))
	return append(out, magic...), nil
}

// sweepWrite converts in to format f under dir; refused is npyflow's
// one-line error when it will not.
func sweepWrite(ctx context.Context, f sweepFormat, in, dir string) (out, refused string, err error) {
	out = filepath.Join(dir, f.name, sweepStem(in)+f.ext)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", "", err
	}
	_, cerr := Convert(ctx, in, out, &ConvertOptions{Flags: f.flags})
	if cerr != nil {
		msg := strings.ReplaceAll(cerr.Error(), dir+string(filepath.Separator), "")
		if strings.Contains(msg, "\n") || strings.Contains(msg, "internal error") {
			return "", "", fmt.Errorf("%s to %s: not a one-line refusal: %s", in, f.name, msg)
		}
		return "", strings.ReplaceAll(msg, in, filepath.Base(in)), nil
	}
	return out, "", nil
}

// TestWriteSweep: see the comment above sweepFormat.
func TestWriteSweep(t *testing.T) {
	ctx := context.Background()
	if dir := os.Getenv("NPYFLOW_SWEEP_OUT"); dir != "" {
		sweepWriteAll(t, ctx, dir)
		return
	}
	if raceEnabled {
		t.Skip("the sweep checks values, not concurrency: make test runs it without -race")
	}
	dir := t.TempDir()
	changed := 0
	defer func() {
		if changed > 0 {
			t.Logf("%d outputs differ from the bytes the tools read: run make check-writers and review the readings", changed)
		}
	}()
	for _, f := range sweepFormats {
		b, err := os.ReadFile(filepath.Join("testdata", "sweep", f.name+".json"))
		if err != nil {
			t.Fatalf("%s: %v (make check-writers writes it)", f.name, err)
		}
		var readings map[string]*sweepReading
		if err := json.Unmarshal(b, &readings); err != nil {
			t.Fatalf("%s.json: %v", f.name, err)
		}
		for _, in := range sweepInputsOf(t, f) {
			stem := sweepStem(in)
			r := readings[stem]
			if r == nil {
				t.Errorf("%s %s: no reading (make check-writers)", f.name, stem)
				continue
			}
			out, refused, err := sweepWrite(ctx, f, in, dir)
			if err != nil {
				t.Error(err)
				continue
			}
			if refused != r.Refused {
				t.Errorf("%s %s: npyflow said %q, when read it said %q", f.name, stem, refused, r.Refused)
				continue
			}
			if refused != "" {
				continue
			}
			if r.Error != "" {
				t.Errorf("%s %s: %s could not read npyflow's output: %s", f.name, stem, f.tool, r.Error)
				continue
			}
			want, err := sweepExpect(in, f.mapped)
			if err != nil {
				t.Fatal(err)
			}
			sweepCompare(t, f, stem, want, r.Cols)
			if h, err := sweepHash(f, out); err != nil {
				t.Fatal(err)
			} else if h != r.SHA || os.Getenv("NPYFLOW_SWEEP_READBACK") != "" {
				// Not the bytes the tool read (another writer's change):
				// npyflow's own reading of this output must still give
				// the values the tool read from the old one.
				changed++
				sweepReadBack(t, ctx, f, stem, out, r.Cols)
			}
		}
	}
}

// sweepReadBack compares npyflow's own reading of out (as an .npz, its
// values under the format's mapping) with what the tool read.
func sweepReadBack(t *testing.T, ctx context.Context, f sweepFormat, stem, out string, read map[string][]any) {
	t.Helper()
	back := out
	if f.name != "npy" && f.name != "npz" {
		back = out + ".back.npz"
		if _, err := Convert(ctx, out, back, nil); err != nil {
			t.Errorf("%s %s: npyflow cannot read its output back: %v", f.name, stem, err)
			return
		}
	}
	got, err := sweepExpect(back, f.mapped)
	if err != nil {
		t.Errorf("%s %s: %v", f.name, stem, err)
		return
	}
	// A MAT struct reads as members "var.field": one variable, like the
	// tools' readings, leaves its name out.
	var vars []string
	for k := range got {
		v, _, _ := strings.Cut(k, ".")
		if !slices.Contains(vars, v) {
			vars = append(vars, v)
		}
	}
	if f.mapped == mapMAT && len(vars) == 1 && vars[0] != "" {
		flat := map[string][]any{}
		for k, v := range got {
			flat[strings.TrimPrefix(k, vars[0]+".")] = v
		}
		got = flat
	}
	sweepCompare(t, sweepFormat{name: f.name, tool: "npyflow (its output changed since " + f.tool + " read it)"}, stem, read, got)
}

// sweepWriteAll writes every output under dir and the list of them,
// dir/outputs.json, for the readers.
func sweepWriteAll(t *testing.T, ctx context.Context, dir string) {
	type entry struct {
		Format  string `json:"format"`
		Stem    string `json:"stem"`
		File    string `json:"file,omitempty"`
		SHA     string `json:"sha,omitempty"`
		Refused string `json:"refused,omitempty"`
	}
	var list []entry
	for _, f := range sweepFormats {
		for _, in := range sweepInputs(t) {
			out, refused, err := sweepWrite(ctx, f, in, dir)
			if err != nil {
				t.Fatal(err)
			}
			e := entry{Format: f.name, Stem: sweepStem(in), Refused: refused}
			if out != "" {
				if e.File, err = filepath.Abs(out); err != nil {
					t.Fatal(err)
				}
				if e.SHA, err = sweepHash(f, out); err != nil {
					t.Fatal(err)
				}
			}
			list = append(list, e)
		}
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "outputs.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sweepExpect is what a tool should read from an input written to a
// format of mapping m: each leaf column's values in the sweep's canonical
// text (see read.py), flattened in logical C order. An .npz's members are
// columns named by them (a single one's name left out).
func sweepExpect(path string, m sweepMap) (map[string][]any, error) {
	cols := map[string][]any{}
	if !strings.HasSuffix(path, ".npz") {
		a, err := npyio.ReadFile(path, nil)
		if err != nil {
			return nil, err
		}
		sweepArray(cols, "", a, m)
		return cols, nil
	}
	z, err := npyio.OpenNPZ(path, nil)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	keys := z.Keys()
	for _, k := range keys {
		a, err := z.Member(k).ReadArray()
		if err != nil {
			return nil, err
		}
		prefix := k
		if len(keys) == 1 {
			prefix = ""
		}
		sweepArray(cols, prefix, a, m)
	}
	return cols, nil
}

// sweepArray adds the leaves of a, in logical C order.
func sweepArray(cols map[string][]any, prefix string, a *npyio.Array, m sweepMap) {
	shape := a.Header.Shape
	n := 1
	for _, d := range shape {
		n *= d
	}
	idx := make([]int, len(shape))
	for i := range n {
		// file index of logical C index i
		rem := i
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k] = rem % shape[k]
			rem /= shape[k]
		}
		fi := i
		if a.Header.FortranOrder {
			fi = 0
			for k := len(shape) - 1; k >= 0; k-- {
				fi = fi*shape[k] + idx[k]
			}
		}
		sweepValue(cols, prefix, a.Data[fi*a.DType.Size:], a.DType, 1, m)
	}
	if n == 0 {
		sweepEmpty(cols, prefix, a.DType, m)
	}
}

// sweepEmpty adds the (empty) columns of dt.
func sweepEmpty(cols map[string][]any, prefix string, dt *npyio.DType, m sweepMap) {
	if dt.Kind == npyio.Struct {
		for _, f := range dt.Fields {
			sweepEmpty(cols, sweepJoin(prefix, f.Name), f.Type, m)
		}
		return
	}
	if dt.Kind == npyio.Complex && m != mapNumpy && m != mapMAT {
		cols[sweepJoin(prefix, "real")] = []any{}
		cols[sweepJoin(prefix, "imag")] = []any{}
		return
	}
	cols[prefix] = []any{}
}

func sweepJoin(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// sweepValue adds count values of dt at b.
func sweepValue(cols map[string][]any, path string, b []byte, dt *npyio.DType, count int, m sweepMap) {
	for e := range count {
		v := b[e*dt.Size:]
		if dt.Kind == npyio.Struct {
			for _, f := range dt.Fields {
				sweepValue(cols, sweepJoin(path, f.Name), v[f.Offset:], f.Type, f.Count(), m)
			}
			continue
		}
		if dt.Kind == npyio.Complex && m != mapNumpy && m != mapMAT {
			h := dt.Size / 2
			fdt := &npyio.DType{Kind: npyio.Float, Order: dt.Order, Size: h}
			cols[sweepJoin(path, "real")] = append(cols[sweepJoin(path, "real")], sweepScalar(v[:h], fdt, m))
			cols[sweepJoin(path, "imag")] = append(cols[sweepJoin(path, "imag")], sweepScalar(v[h:dt.Size], fdt, m))
			continue
		}
		cols[path] = append(cols[path], sweepScalar(v[:dt.Size], dt, m))
	}
}

// sweepUint reads an unsigned integer of len(b) bytes in order o.
func sweepUint(b []byte, o byte) uint64 {
	var u uint64
	for i := range b {
		k := i
		if o != '>' {
			k = len(b) - 1 - i
		}
		u = u<<8 | uint64(b[k])
	}
	return u
}

// sweepFloat is the canonical text of a double: its bits in hex, NaN
// any NaN.
func sweepFloat(f float64) string {
	if math.IsNaN(f) {
		return "nan"
	}
	return fmt.Sprintf("%016x", math.Float64bits(f))
}

// sweepUnitAs is each fixed unit in attoseconds.
var sweepUnitAs = map[string]string{
	"W": "604800000000000000000000", "D": "86400000000000000000000", "h": "3600000000000000000000", "m": "60000000000000000000",
	"s": "1000000000000000000", "ms": "1000000000000000", "us": "1000000000000", "ns": "1000000000", "ps": "1000000", "fs": "1000", "as": "1",
}

// sweepScalar is the canonical text of one value (nil: null).
func sweepScalar(b []byte, dt *npyio.DType, m sweepMap) any {
	switch dt.Kind {
	case npyio.Bool:
		if b[0] != 0 {
			return "1"
		}
		return "0"
	case npyio.Int:
		u := sweepUint(b, dt.Order)
		sh := 64 - 8*uint(dt.Size)
		return strconv.FormatInt(int64(u<<sh)>>sh, 10)
	case npyio.Uint:
		return strconv.FormatUint(sweepUint(b, dt.Order), 10)
	case npyio.Float:
		u := sweepUint(b, dt.Order)
		switch dt.Size {
		case 2:
			return sweepFloat(float64(npyio.HalfToFloat32(uint16(u))))
		case 4:
			return sweepFloat(float64(math.Float32frombits(uint32(u))))
		}
		return sweepFloat(math.Float64frombits(u))
	case npyio.Complex:
		h := dt.Size / 2
		fdt := &npyio.DType{Kind: npyio.Float, Order: dt.Order, Size: h}
		return "c:" + sweepScalar(b[:h], fdt, m).(string) + "," + sweepScalar(b[h:], fdt, m).(string)
	case npyio.Unicode:
		var sb strings.Builder
		for i := 0; i+4 <= len(b); i += 4 {
			sb.WriteRune(rune(sweepUint(b[i:i+4], dt.Order)))
		}
		s := strings.TrimRight(sb.String(), "\x00")
		if m == mapMAT {
			s = strings.TrimRight(s, " ")
		}
		return s
	case npyio.Bytes:
		s := strings.TrimRight(string(b), "\x00")
		if m == mapMAT {
			return strings.TrimRight(s, " ")
		}
		return "b:" + hex.EncodeToString([]byte(s))
	case npyio.Void:
		return "b:" + hex.EncodeToString(b)
	case npyio.Datetime, npyio.Timedelta:
		v := int64(sweepUint(b, dt.Order))
		if v == math.MinInt64 {
			if m == mapNumpy {
				return "NaT"
			}
			if m == mapMAT {
				return "nan"
			}
			return nil
		}
		return sweepTime(v, dt, m)
	}
	return fmt.Sprintf("?%s", dt)
}

// sweepTime is the canonical text of a datetime64 or timedelta64 count:
// attoseconds since the epoch (a calendar or generic unit: the count
// and its unit), as each format's mapping stores it.
func sweepTime(v int64, dt *npyio.DType, m sweepMap) any {
	as, fixed := sweepUnitAs[dt.Unit]
	calendar := dt.Unit == "M" || dt.Unit == "Y"
	switch {
	case m == mapMAT && calendar:
		months := v * dt.UnitMult
		if dt.Unit == "Y" {
			months *= 12
		}
		y, mo := months/12, months%12
		if mo < 0 {
			mo += 12
			y--
		}
		days := sweepDays(1970+y, 1+mo)
		return sweepFloat(float64(days * 86400))
	case m == mapMAT:
		// numpy's t / np.timedelta64(1, 's'): the count in the common
		// unit of dt and seconds, divided by the seconds' count in it.
		vm := new(big.Int).Mul(big.NewInt(v), big.NewInt(dt.UnitMult))
		ratio := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(dt.UnitMult), sweepBig(as)), sweepBig(sweepUnitAs["s"]))
		if ratio.IsInt() {
			f, _ := new(big.Float).SetInt(new(big.Int).Mul(vm.Div(vm, big.NewInt(dt.UnitMult)), ratio.Num())).Float64()
			return sweepFloat(f)
		}
		p, _ := new(big.Float).SetInt(new(big.Int).Mul(big.NewInt(v), ratio.Num())).Float64()
		return sweepFloat(p / float64(ratio.Denom().Int64()))
	case m == mapParquet && (calendar || dt.Kind == npyio.Timedelta || !fixed || dt.Unit == "ps" || dt.Unit == "fs" || dt.Unit == "as"):
		return strconv.FormatInt(v, 10) // INT64 in numpy's unit
	case !fixed:
		return strconv.FormatInt(v*dt.UnitMult, 10) + "@" + dt.Unit
	}
	x := new(big.Int).Mul(big.NewInt(v), big.NewInt(dt.UnitMult))
	return x.Mul(x, sweepBig(as)).String()
}

func sweepBig(s string) *big.Int {
	b, _ := new(big.Int).SetString(s, 10)
	return b
}

// sweepDays is the day number of the first of month mo of year y
// (proleptic Gregorian, as numpy counts).
func sweepDays(y, mo int64) int64 {
	return time.Date(int(y), time.Month(mo), 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// sweepCompare compares a tool's reading with what numpy wrote.
func sweepCompare(t *testing.T, f sweepFormat, stem string, want, got map[string][]any) {
	t.Helper()
	var wk, gk []string
	for k := range want {
		wk = append(wk, k)
	}
	for k := range got {
		gk = append(gk, k)
	}
	slices.Sort(wk)
	slices.Sort(gk)
	if !slices.Equal(wk, gk) {
		t.Errorf("%s %s: %s reads columns %q, numpy wrote %q", f.name, stem, f.tool, gk, wk)
		return
	}
	for _, k := range wk {
		w, g := want[k], got[k]
		if len(w) != len(g) {
			t.Errorf("%s %s column %q: %s reads %d values, numpy wrote %d", f.name, stem, k, f.tool, len(g), len(w))
			continue
		}
		for i := range w {
			if w[i] != g[i] {
				t.Errorf("%s %s column %q value %d: %s reads %s, numpy wrote %s", f.name, stem, k, i, f.tool, sweepShow(g[i]), sweepShow(w[i]))
				break
			}
		}
	}
}

// sweepShow shows a canonical value, a float's hex as its number.
func sweepShow(v any) string {
	s, ok := v.(string)
	if !ok {
		return "null"
	}
	if len(s) == 16 && !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789abcdef", r) }) {
		if u, err := strconv.ParseUint(s, 16, 64); err == nil {
			return fmt.Sprintf("%s (%s)", s, strconv.FormatFloat(math.Float64frombits(u), 'g', -1, 64))
		}
	}
	if !utf8.ValidString(s) {
		return fmt.Sprintf("%q", s)
	}
	return strconv.Quote(s)
}

// sweepExempt are the output extensions not in the sweep, and why.
var sweepExempt = map[string]string{
	".h5": "hdf5: its own sweep of every dtype, judged by h5py and h5dump (h5all_test.go TestHDF5AllDTypes)", ".hdf5": "hdf5", ".he5": "hdf5",
	".nc": "netCDF-4: ncwrite_test.go, judged by ncdump, netCDF4-python and xarray (make check-netcdf)", ".nc4": "netCDF-4",
	".toy": "a test's own format (toy_test.go)",
}

// TestWriteSweepCoversFormats: every registered format that writes is in
// the sweep (an entry of sweepFormats per extension) or exempt by name
// with a reason, so a new output format joins it when it registers.
func TestWriteSweepCoversFormats(t *testing.T) {
	swept := map[string]bool{}
	for _, f := range sweepFormats {
		swept[f.ext] = true
	}
	for _, f := range Formats() {
		if f.Sink == nil {
			continue
		}
		for _, e := range f.Exts {
			if !swept[e] && sweepExempt[e] == "" {
				t.Errorf("format %s writes %s, which the write sweep does not read back: add it to sweepFormats with a reader in testdata/sweep (read.py or read.mjs)", f.Name, e)
			}
		}
	}
}

// TestSweepHashParquetCreatedBy: the sweep's hash of a Parquet output is
// the same whichever build stamped created_by, and still changes with
// any other byte.
func TestSweepHashParquetCreatedBy(t *testing.T) {
	f := sweepFormat{name: "parquet", ext: ".parquet"}
	dir := t.TempDir()
	out, refused, err := sweepWrite(context.Background(), f, filepath.Join("testdata", "sweep", "in", "M8_D_be.npy"), dir)
	if err != nil || refused != "" {
		t.Fatal(err, refused)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sweepHash(f, out)
	if err != nil {
		t.Fatal(err)
	}
	// withCreatedBy is b with its footer encoded again with created_by cb.
	withCreatedBy := func(cb string) []byte {
		n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		start := len(b) - 8 - n
		var md format.FileMetaData
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[start:len(b)-8], &md); err != nil {
			t.Fatal(err)
		}
		md.CreatedBy = cb
		footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
		if err != nil {
			t.Fatal(err)
		}
		c := slices.Concat(b[:start], footer)
		c = binary.LittleEndian.AppendUint32(c, uint32(len(footer)))
		return append(c, "PAR1"...)
	}
	hashOf := func(c []byte) string {
		p := filepath.Join(dir, "variant.parquet")
		if err := os.WriteFile(p, c, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := sweepHash(f, p)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	var md format.FileMetaData
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(withCreatedBy(md.CreatedBy), b) {
		t.Fatal("the footer encoded again differs from the writer's: the variants below would test nothing")
	}
	for _, cb := range []string{"npyflow version (build )", "n", "npyflow version 1.2.0 (build 0123456789ab)"} {
		if h := hashOf(withCreatedBy(cb)); h != want {
			t.Errorf("created_by %q: hash %s, want %s (as with %q)", cb, h, want, md.CreatedBy)
		}
	}
	// Any other change still shows: a byte of the first page, a
	// key-value pair of the footer.
	c := slices.Clone(b)
	c[len(b)-8-n-1] ^= 1
	if hashOf(c) == want {
		t.Error("a changed data byte hashes alike")
	}
	md.KeyValueMetadata = append(md.KeyValueMetadata, format.KeyValue{Key: "x", Value: "y"})
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	c = binary.LittleEndian.AppendUint32(slices.Concat(b[:len(b)-8-n], footer), uint32(len(footer)))
	if hashOf(append(c, "PAR1"...)) == want {
		t.Error("an added footer key hashes alike")
	}
	if _, err := sweepClearCreatedBy(b[:len(b)-1]); err == nil {
		t.Error("a truncated file: no error")
	}
}
