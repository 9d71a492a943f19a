package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// The HDF5 sink against h5py: every .npy of testdata/ (both byte orders
// of every numeric type, strings, times, records) converted to .h5 and
// read back three ways. testdata/h5all/check_h5all.py reads the files
// with h5py and runs h5dump on them (make check-hdf5); what h5py read is
// committed in testdata/h5all/h5py.json, which this test compares with
// npyflow's own reading of the files it writes now, and with numpy's
// values of the fixture. To regenerate after a deliberate change:
//
//	rm -rf /tmp/h5all && mkdir /tmp/h5all
//	NPYFLOW_H5ALL_DIR=/tmp/h5all go test -count=1 -run 'TestHDF5AllDTypes' ./pipeline/
//	/usr/bin/python3 pipeline/testdata/h5all/check_h5all.py /tmp/h5all --update

// h5pyRead is h5py's reading of one written file (check_h5all.py).
type h5pyRead struct {
	Descr   string            `json:"descr"`   // numpy's descr of what h5py gives (after decoding strings)
	H5py    string            `json:"h5py"`    // h5py's own dtype.str (S<n> or |O for UTF-8 strings)
	Strings string            `json:"strings"` // "fixed-utf-8", "vlen-utf-8", "fixed-ascii" or ""
	Shape   []int             `json:"shape"`
	Values  []json.RawMessage `json:"values"`  // small arrays
	SHA256  string            `json:"sha256"`  // else: of the little-endian C-order bytes
	Opaque  string            `json:"opaque"`  // an opaque type's tag
	Units   map[string]string `json:"units"`   // the units attributes
	Refused string            `json:"refused"` // npyflow's error (the file was not written)
}

func loadH5pyReads(t *testing.T) map[string]h5pyRead {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "h5all", "h5py.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]h5pyRead
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// h5AllCase is one conversion of the test.
type h5AllCase struct {
	name  string            // the output's stem and dataset name
	in    string            // the .npy converted
	flags map[string]string // convert flags
	fix   *fixtures.NPY     // numpy's values, for a fixture
}

// h5AllTiled writes, for the big-endian numeric fixtures and a record of
// mixed byte orders, an array of over 4 KiB (so not compact) from the
// fixture's values repeated: chunked with deflate, chunked with lz4 and
// contiguous (compression none).
func h5AllTiled(t *testing.T, dir string) []h5AllCase {
	t.Helper()
	var out []h5AllCase
	names := []string{"i4_be_1d", "c16_be_1d", "rec_mixed_endian"}
	if h5AllFull() {
		names = append(names, "f8_be_1d", "M8_ms_be_1d", "U4_be_1d", "i2_be_1d", "i8_be_1d", "u2_be_1d", "u4_be_1d", "u8_be_1d",
			"f2_be_1d", "f4_be_1d", "c8_be_1d", "m8_us_be_1d")
	}
	for _, name := range names {
		fx := fixtures.NPYByName(t, name)
		a, err := npyio.ReadFile(fx.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		reps := 5000/max(len(a.Data), 1) + 1
		data := bytes.Repeat(a.Data, reps)
		rows := len(data) / a.Header.DType.Size
		var buf bytes.Buffer
		w, err := npyio.NewWriter(&buf, &npyio.Header{DType: a.Header.DType, Shape: []int{rows}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for _, comp := range []string{"deflate", "lz4", "none"} {
			stem := "tiled_" + name + "_" + comp
			in := filepath.Join(dir, stem+".npy")
			if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out = append(out, h5AllCase{name: stem, in: in, flags: map[string]string{"compression": comp}})
		}
	}
	return out
}

// h5AllFull: every fixture of testdata/npy (the make check-hdf5 run, or
// NPYFLOW_H5ALL_FULL=1); else, to stay fast, the 1-D ones of each dtype in
// big-endian order, the records and a few shapes.
func h5AllFull() bool {
	return os.Getenv("NPYFLOW_H5ALL_DIR") != "" || os.Getenv("NPYFLOW_H5ALL_FULL") != ""
}

// h5AllPicked is the fast run's choice of fixtures.
func h5AllPicked(name string) bool {
	switch name {
	case "f8_le_0d", "f8_le_empty", "i2_le_3d_c", "U4_le_0d", "U4_le_unicode", "b1_1d", "i1_1d", "u1_1d", "S5_1d",
		"S0_1d", "U0_le_1d", "rec_500_long_names", "rec_empty_name", "rec_mixed_endian", "rec_nested", "rec_subarray",
		"rec_struct_subarray", "rec_offsets", "rec_aligned", "rec_simple_0d", "rec_2d_f":
		return true
	}
	if strings.HasPrefix(name, "M8_") || strings.HasPrefix(name, "m8_") {
		// times: a few units (each is the same opaque type with its tag)
		switch name {
		case "M8_ms_be_1d", "M8_10ms_be_1d", "m8_25s_be_1d":
			return true
		}
		return false
	}
	return strings.HasSuffix(name, "_be_1d")
}

// h5AllRefusals are the fixtures refused, with a piece of the one-line
// error: HDF5 has no zero-length strings (numpy makes S0 and U0 only in
// hand-written headers) and no nameless compound member; a compound whose
// datatype message exceeds 64 KiB (500 long field names) is refused.
var h5AllRefusals = map[string]string{
	"S0_1d":                  "zero-length strings",
	"U0_le_1d":               "zero-length strings",
	"U0_be_1d":               "zero-length strings",
	"rec_empty_name":         "has no name",
	"rec_500_long_names":     "header message of 94008 bytes (at most 65528)",
	"int64_M8_M_le_1d":       "M8[M], whose unit has no fixed length",
	"vlen_U4_le_1d":          "value 2 holds a NUL character, which variable-length strings cannot hold",
	"int64_M8_generic_le_1d": "M8, whose unit has no fixed length",
}

// h5AllOptions are conversions with the options strings vlen and times
// int64: fixtures copied under a new stem, and a record of times and text
// written here.
func h5AllOptions(t *testing.T, dir string) []h5AllCase {
	t.Helper()
	var out []h5AllCase
	add := func(stem, src string, flags map[string]string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(dir, stem+".npy")
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var fx *fixtures.NPY
		if name := strings.TrimSuffix(filepath.Base(src), ".npy"); strings.HasPrefix(src, fixtures.Root()) {
			f := fixtures.NPYByName(t, name)
			fx = &f
		}
		out = append(out, h5AllCase{name: stem, in: in, flags: flags, fix: fx})
	}
	vlen := map[string]string{"strings": "vlen"}
	i64 := map[string]string{"times": "int64"}
	for _, n := range []string{"U4_le_1d", "U4_le_0d", "U4_le_empty"} {
		add("vlen_"+n, filepath.Join(fixtures.Root(), "npy", n+".npy"), vlen)
	}
	// Text without NULs (variable-length strings hold none), 2-D, big-endian.
	text := []string{"", "é", "日本", "😀x", "abc", "\U0010ffff", "t\tb", "a c"}
	u3, err := npyio.ParseTypeStr(">U3")
	if err != nil {
		t.Fatal(err)
	}
	ub := make([]byte, 12*len(text))
	for i, s := range text {
		for k, r := range []rune(s) {
			binary.NativeEndian.PutUint32(ub[12*i+4*k:], uint32(r))
		}
	}
	var tb bytes.Buffer
	tw, err := npyio.NewWriter(&tb, &npyio.Header{DType: u3, Shape: []int{2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(ub); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	textIn := filepath.Join(dir, "text_src.npy")
	if err := os.WriteFile(textIn, tb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	add("vlen_text_be_2d", textIn, vlen)
	add("fixed_text_be_2d", textIn, nil)
	// 70000 strings, over the 65535 objects of a global heap collection and
	// over several batches; chunked and compressed.
	big := make([]uint32, 70000*6)
	for i := range 70000 {
		for k := range i % 7 {
			big[6*i+k] = uint32([]rune("aé日😀bc")[(i+k)%6])
		}
	}
	u6, err := npyio.ParseTypeStr("<U6")
	if err != nil {
		t.Fatal(err)
	}
	bigIn := filepath.Join(dir, "bigtext_src.npy")
	writeNPYFile(t, bigIn, u6.String()[1:len(u6.String())-1], []int{70000}, npyio.AsBytes(big))
	add("vlen_bigtext", bigIn, vlen)
	add("fixed_bigtext", bigIn, nil)
	for _, n := range []string{"M8_ms_be_1d", "M8_ns_le_2d_f", "M8_D_le_1d", "M8_10ms_le_1d", "m8_us_be_1d", "m8_D_le_0d", "M8_M_le_1d", "M8_generic_le_1d"} {
		add("int64_"+n, filepath.Join(fixtures.Root(), "npy", n+".npy"), i64)
	}
	// A record of times and text, both options.
	dt, err := npyio.ParseDescr("[('t', '>M8[s]'), ('d', '<m8[ms]'), ('x', '<f4'), ('u', '>U3'), ('s', '|S2')]")
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec_src.npy")
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: dt, Shape: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, dt.Size)
	for i := range 3 {
		clear(row)
		binary.NativeEndian.PutUint64(row[0:], uint64(int64(i*86400-1)))
		binary.NativeEndian.PutUint64(row[8:], uint64(int64(-i*1500)))
		binary.NativeEndian.PutUint32(row[16:], math.Float32bits(float32(i)+0.5))
		for k, r := range []rune{'é', '日', rune('a' + i)}[:3-i] {
			binary.NativeEndian.PutUint32(row[20+4*k:], uint32(r))
		}
		copy(row[32:], []byte{'s', byte('0' + i)})
		if _, err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	add("int64_vlen_rec", rec, map[string]string{"times": "int64", "strings": "vlen"})
	add("opaque_rec", rec, nil)
	return out
}

// h5AllUnits are the units attributes the times int64 cases must have.
var h5AllUnits = map[string]map[string]string{
	"int64_M8_ms_be_1d":   {"units": "ms since 1970-01-01"},
	"int64_M8_ns_le_2d_f": {"units": "ns since 1970-01-01"},
	"int64_M8_D_le_1d":    {"units": "days since 1970-01-01"},
	"int64_M8_10ms_le_1d": {"units": "10 ms since 1970-01-01"},
	"int64_m8_us_be_1d":   {"units": "us"},
	"int64_m8_D_le_0d":    {"units": "days"},
	"int64_vlen_rec":      {"t.units": "s since 1970-01-01", "d.units": "ms"},
}

// h5AllInt64Times is dt with its times as int64, as times: int64 writes
// them.
func h5AllInt64Times(dt *npyio.DType) *npyio.DType {
	switch dt.Kind {
	case npyio.Datetime, npyio.Timedelta:
		return &npyio.DType{Kind: npyio.Int, Order: dt.Order, Size: 8}
	case npyio.Struct:
		c := *dt
		c.Fields = append([]npyio.Field(nil), dt.Fields...)
		for i := range c.Fields {
			c.Fields[i].Type = h5AllInt64Times(c.Fields[i].Type)
		}
		return &c
	}
	return dt
}

// h5AllRefused says why a fixture cannot go to HDF5: a void dtype (also
// as a field) has no form h5py writes that reads back as it.
func h5AllRefused(dt *npyio.DType) bool {
	if dt.Kind == npyio.Struct {
		for _, f := range dt.Fields {
			if h5AllRefused(f.Type) {
				return true
			}
		}
		return false
	}
	return dt.Kind == npyio.Void
}

func TestHDF5AllDTypes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	keep := os.Getenv("NPYFLOW_H5ALL_DIR")
	h5py := map[string]h5pyRead{}
	if keep == "" {
		h5py = loadH5pyReads(t)
	}
	var cases []h5AllCase
	paths, err := filepath.Glob(filepath.Join(fixtures.Root(), "npy", "*.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".npy")
		if strings.HasPrefix(name, "rec_4000") || name == "trailing_bytes" || !h5AllFull() && !h5AllPicked(name) {
			continue // 4000 fields: slow; trailing bytes are refused as input
		}
		fx := fixtures.NPYByName(t, name)
		cases = append(cases, h5AllCase{name: name, in: fx.Path, fix: &fx})
	}
	cases = append(cases, h5AllTiled(t, dir)...)
	cases = append(cases, h5AllOptions(t, dir)...)
	written := 0
	for _, c := range cases {
		out := filepath.Join(dir, c.name+".h5")
		if keep != "" {
			out = filepath.Join(keep, c.name+".h5")
		}
		h, err := npyio.ReadFile(c.in, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, cerr := Convert(ctx, c.in, out, &ConvertOptions{Flags: c.flags})
		if why, ok := h5AllRefusals[c.name]; ok {
			if cerr == nil || !strings.Contains(cerr.Error(), why) || strings.Contains(cerr.Error(), "\n") {
				t.Errorf("%s: want one line refusing it (%s), got %v", c.name, why, cerr)
			} else if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: refused but %s exists", c.name, out)
			}
			continue
		}
		if h5AllRefused(h.Header.DType) {
			if cerr == nil || strings.Contains(cerr.Error(), "\n") {
				t.Errorf("%s: %s converted, want one line refusing the void type: %v", c.name, h.Header.DType, cerr)
			} else if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: refused but %s exists", c.name, out)
			}
			continue
		}
		if cerr != nil {
			t.Errorf("%s: %v", c.name, cerr)
			continue
		}
		written++
		if keep != "" {
			// the source next to the output, for check_h5all.py
			b, err := os.ReadFile(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(keep, c.name+".npy"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := readH5Native(out, "/"+c.name)
		if err != nil {
			t.Errorf("%s: npyflow reads back: %v", c.name, err)
			continue
		}
		if c.flags["times"] == "int64" {
			h.DType = h5AllInt64Times(h.DType)
			checkH5Units(t, out, c.name)
		}
		checkH5AllValues(t, c, h, got, h5py, keep != "")
	}
	if want := 50; h5AllFull() && written < 300 || written < want {
		t.Errorf("only %d files written", written)
	}
}

// checkH5Units checks the units attributes of a times int64 case.
func checkH5Units(t *testing.T, path, name string) {
	t.Helper()
	f, err := hdf5.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := f.OpenPath("/" + name)
	if err != nil {
		t.Fatal(err)
	}
	for attr, want := range h5AllUnits[name] {
		a, err := o.Attr(attr)
		if err != nil {
			t.Errorf("%s: attribute %s: %v", name, attr, err)
			continue
		}
		if got, err := a.String(); err != nil || got != want {
			t.Errorf("%s: %s = %q (%v), want %q", name, attr, got, err, want)
		}
	}
	if len(h5AllUnits[name]) == 0 {
		t.Errorf("%s: no units expected: add them to h5AllUnits", name)
	}
}

// readH5Native reads a dataset with package hdf5 as native-order bytes.
func readH5Native(path, name string) (*npyio.Array, error) {
	f, err := hdf5.OpenFile(path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o, err := f.OpenPath(name)
	if err != nil {
		return nil, err
	}
	ds := o.(*hdf5.Dataset)
	dt, err := ds.DType()
	if err != nil {
		return nil, err
	}
	shape, err := ds.NumpyShape()
	if err != nil {
		return nil, err
	}
	data, err := ds.ReadAll()
	if err != nil {
		return nil, err
	}
	hb, err := npyio.EncodeHeader(&npyio.Header{DType: dt, Shape: shape})
	if err != nil {
		return nil, err
	}
	return npyio.ReadArray(io.MultiReader(bytes.NewReader(hb), bytes.NewReader(data)), nil)
}

// checkH5AllValues compares npyflow's reading of c's output (got) with
// the input (in, native), numpy's values of a fixture and h5py's reading.
func checkH5AllValues(t *testing.T, c h5AllCase, in, got *npyio.Array, h5py map[string]h5pyRead, generating bool) {
	t.Helper()
	if npyio.FormatShape(got.Header.Shape) != npyio.FormatShape(in.Header.Shape) {
		t.Errorf("%s: shape %v, want %v", c.name, got.Header.Shape, in.Header.Shape)
		return
	}
	// npyflow reads back the kind it wrote (U as U, also a record's U
	// fields, M8 as M8), in native order; strings may differ in width (a
	// U dataset: the longest value's; a U field: its UTF-8 byte width).
	if want := in.DType; !sameKinds(got.DType, want) {
		t.Errorf("%s: read back as %s, want %s", c.name, got.DType, want)
		return
	}
	n := int(got.Header.Count())
	if c.fix != nil {
		if len(c.fix.Values) != n {
			t.Fatalf("%s: %d values for %d elements", c.name, len(c.fix.Values), n)
		}
		for i := 0; i < n; i++ {
			el := got.Data[i*got.DType.Size : (i+1)*got.DType.Size]
			if err := fixtures.CheckElement(got.DType, el, c.fix.Values[i]); err != nil {
				t.Errorf("%s: element %d: %v (numpy's value)", c.name, i, err)
				return
			}
		}
	} else if got.DType.Equal(in.DType) && !bytes.Equal(got.Data, in.Data) {
		t.Errorf("%s: values differ from the input's", c.name)
	}
	if generating {
		return
	}
	hp, ok := h5py[c.name]
	if !ok {
		t.Errorf("%s: not in testdata/h5all/h5py.json (regenerate it)", c.name)
		return
	}
	if fmt.Sprint(hp.Units) != fmt.Sprint(h5AllUnits[c.name]) && (len(hp.Units) > 0 || len(h5AllUnits[c.name]) > 0) {
		t.Errorf("%s: h5py read units %v, want %v", c.name, hp.Units, h5AllUnits[c.name])
	}
	if npyio.FormatShape(hp.Shape) != npyio.FormatShape(got.Header.Shape) {
		t.Errorf("%s: h5py read shape %v, npyflow %v", c.name, hp.Shape, got.Header.Shape)
	}
	hdt, err := npyio.ParseDescr(hp.Descr)
	if err != nil {
		t.Errorf("%s: h5py's descr %s: %v", c.name, hp.Descr, err)
		return
	}
	if !sameKinds(hdt.Native(), got.DType) {
		t.Errorf("%s: h5py read %s, npyflow %s", c.name, hdt, got.DType)
	}
	if hp.Values != nil {
		if len(hp.Values) != n {
			t.Errorf("%s: h5py read %d values, npyflow %d", c.name, len(hp.Values), n)
			return
		}
		for i := 0; i < n; i++ {
			el := got.Data[i*got.DType.Size : (i+1)*got.DType.Size]
			if err := fixtures.CheckElement(got.DType, el, hp.Values[i]); err != nil {
				t.Errorf("%s: element %d: %v (h5py's value)", c.name, i, err)
				return
			}
		}
		return
	}
	if hp.SHA256 == "" {
		t.Errorf("%s: h5py.json has neither values nor a hash", c.name)
		return
	}
	sum := sha256.Sum256(got.Data)
	if hex.EncodeToString(sum[:]) != hp.SHA256 {
		t.Errorf("%s: npyflow's values differ from h5py's (sha256)", c.name)
	}
}

// sameKinds reports whether two dtypes have the same structure, kinds,
// byte orders and numeric sizes, strings of any width.
func sameKinds(a, b *npyio.DType) bool {
	if a.Kind != b.Kind || len(a.Fields) != len(b.Fields) {
		return false
	}
	switch a.Kind {
	case npyio.Bytes, npyio.Unicode:
		return true
	case npyio.Struct:
		for i := range a.Fields {
			fa, fb := &a.Fields[i], &b.Fields[i]
			if fa.Name != fb.Name || npyio.FormatShape(fa.Shape) != npyio.FormatShape(fb.Shape) || !sameKinds(fa.Type, fb.Type) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

// TestHDF5SinkStringsTimesErrors: bad values of the strings and times
// options, and a U value UTF-8 cannot encode, are one-line errors that
// leave no output and no scratch file behind.
func TestHDF5SinkStringsTimesErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	u1, err := npyio.ParseTypeStr("<U1")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "surrogate.npy")
	writeNPYFile(t, bad, u1.String()[1:len(u1.String())-1], []int{2}, npyio.AsBytes([]uint32{'a', 0xDC00}))
	in := filepath.Join(fixtures.Root(), "npy", "U4_le_1d.npy")
	for _, c := range []struct {
		in    string
		flags map[string]string
		want  string
	}{
		{in, map[string]string{"strings": "utf16"}, "utf16"},
		{in, map[string]string{"times": "float"}, "float"},
		{bad, nil, "U+DC00, which UTF-8 cannot encode"},
		{bad, map[string]string{"strings": "vlen"}, "U+DC00, which UTF-8 cannot encode"},
	} {
		out := filepath.Join(dir, "out.h5")
		_, err := Convert(ctx, c.in, out, &ConvertOptions{Flags: c.flags})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", c.flags, err, c.want)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*.h5"))
		scratch, _ := filepath.Glob(filepath.Join(dir, ".npyflow-*"))
		if len(left)+len(scratch) > 0 {
			t.Errorf("%v: left %v %v", c.flags, left, scratch)
		}
	}
}

// TestMATv73BigEndian: the MAT v7.3 writer, which stores through package
// hdf5 too, writes big-endian input with the values numpy has (1-D
// arrays: the HDF5 dataset holds them in order).
func TestMATv73BigEndian(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"i2_be_1d", "i4_be_1d", "u8_be_1d", "f4_be_1d", "f8_be_1d"} {
		fx := fixtures.NPYByName(t, name)
		out := filepath.Join(dir, name+".mat")
		if _, err := Convert(ctx, fx.Path, out, nil); err != nil {
			t.Fatal(err)
		}
		got, err := readH5Native(out, "/"+name)
		if err != nil {
			t.Fatal(err)
		}
		n := int(got.Header.Count())
		if n != len(fx.Values) || got.DType.Size != fx.ItemSize {
			t.Fatalf("%s: %d elements of %s, want %d of %d bytes", name, n, got.DType, len(fx.Values), fx.ItemSize)
		}
		for i := range n {
			if err := fixtures.CheckElement(got.DType, got.Data[i*got.DType.Size:(i+1)*got.DType.Size], fx.Values[i]); err != nil {
				t.Errorf("%s: element %d: %v", name, i, err)
				break
			}
		}
	}
}
