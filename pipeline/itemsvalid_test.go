package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

// writeArrowAndParquet writes tbl as an arrow-go IPC file (batches of
// batch rows) and as a Parquet file by arrow-go's pqarrow, both in dir.
func writeArrowAndParquet(t *testing.T, dir, name string, tbl arrow.Table, batch int64) (ar, pq string) {
	t.Helper()
	ar = filepath.Join(dir, name+".arrow")
	writeIPCFile(t, ar, tbl, batch)
	pq = filepath.Join(dir, name+".parquet")
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.DefaultAllocator
	if err := pqarrow.WriteTable(tbl, f, batch, parquet.NewWriterProperties(parquet.WithAllocator(mem)), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return ar, pq
}

// readPQArrow reads the Parquet file path with arrow-go's pqarrow.
func readPQArrow(t *testing.T, path string) arrow.Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem := memory.DefaultAllocator
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(mem), pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// writeIPCFile writes tbl to path as an arrow-go IPC file of batches of
// batch rows.
func writeIPCFile(t *testing.T, path string, tbl arrow.Table, batch int64) {
	t.Helper()
	mem := memory.DefaultAllocator
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(tbl.Schema()), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	tr := array.NewTableReader(tbl, batch)
	for tr.Next() {
		if err := w.Write(tr.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	tr.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// convertBoth converts the Parquet and the Arrow file with opts and
// returns the two .npy files' bytes, failing unless they are equal.
func convertBoth(t *testing.T, dir string, opts ConvertOptions, ins ...string) *npyio.Array {
	t.Helper()
	var outs [][]byte
	var arr *npyio.Array
	for _, in := range ins {
		out := filepath.Join(dir, filepath.Base(in)+".npy")
		o := opts
		if _, err := Convert(context.Background(), in, out, &o); err != nil {
			t.Fatalf("%s %+v: %v", in, opts, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
		if arr == nil {
			if arr, err = npyio.ReadFile(out, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k := 1; k < len(outs); k++ {
		if !bytes.Equal(outs[0], outs[k]) {
			b, _ := npyio.ReadFile(filepath.Join(dir, filepath.Base(ins[k])+".npy"), nil)
			t.Fatalf("%+v: %s and %s differ:\n%s %v\n%s %v", opts, ins[0], ins[k], arr.Header.DType, arr.Header.Shape, b.Header.DType, b.Header.Shape)
		}
	}
	return arr
}

// field returns the bytes of field name in row r, and the field.
func field(t *testing.T, a *npyio.Array, name string, r int) ([]byte, npyio.Field) {
	t.Helper()
	for _, f := range a.Header.DType.Fields {
		if f.Name == name {
			n := f.Type.Size
			for _, d := range f.Shape {
				n *= d
			}
			off := r*a.Header.DType.Size + f.Offset
			return a.CData()[off : off+n], f
		}
	}
	t.Fatalf("no field %s in %s", name, a.Header.DType)
	return nil, npyio.Field{}
}

// TestItemsValidityFSL: the fixed_size_list<float32>[3] column fsl of
// arrow-go's every_type.arrow ([4, null, 6] in row 1) and the same table
// written to Parquet by pqarrow convert with --validity fsl to the same
// bytes: fsl_items_valid false exactly where the producer's JSON has a
// null, fsl NaN there; without the option fsl is as before (NaN, no
// items field).
func TestItemsValidityFSL(t *testing.T) {
	dir := t.TempDir()
	src := "../arrowconv/testdata/foreign/every_type.arrow"
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []arrow.RecordBatch
	var cols []int
	for i, fd := range rd.Schema().Fields() {
		if fd.Name == "fsl" || fd.Name == "list" || fd.Name == "i32" {
			cols = append(cols, i)
		}
	}
	for k := 0; k < rd.NumRecords(); k++ {
		rec, err := rd.RecordBatchAt(k)
		if err != nil {
			t.Fatal(err)
		}
		var arrs []arrow.Array
		var fs []arrow.Field
		for _, i := range cols {
			arrs = append(arrs, rec.Column(i))
			fs = append(fs, rec.Schema().Field(i))
		}
		recs = append(recs, array.NewRecordBatch(arrow.NewSchema(fs, nil), arrs, rec.NumRows()))
		rec.Release()
	}
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	defer tbl.Release()
	ar, pq := writeArrowAndParquet(t, dir, "fsl", tbl, 3)
	want := producerColumns(t, src+".json")

	three := []string{"i32", "fsl", "list"}
	a := convertBoth(t, dir, ConvertOptions{Flags: map[string]string{"validity": "fsl", "columns": strings.Join(three, ",")}}, pq, ar, src)
	if got := a.Header.DType.String(); got != "[('i32', '<i4'), ('fsl', '<f4', (3,)), ('fsl_valid', '|b1'), ('fsl_items_valid', '|b1', (3,)), ('list', '<i8', (2,))]" {
		t.Fatalf("dtype %s", got)
	}
	nulls := 0
	for r, v := range want["fsl"] {
		vals, _ := field(t, a, "fsl", r)
		items, _ := field(t, a, "fsl_items_valid", r)
		valid, _ := field(t, a, "fsl_valid", r)
		if valid[0] != 1 {
			t.Errorf("row %d: fsl_valid %d", r, valid[0])
		}
		for j, e := range v.([]any) {
			g := math.Float32frombits(binary.LittleEndian.Uint32(vals[4*j:]))
			if e == nil {
				nulls++
				if items[j] != 0 || !math.IsNaN(float64(g)) {
					t.Errorf("row %d element %d: valid %d value %v, want 0 NaN", r, j, items[j], g)
				}
				continue
			}
			w, _ := strconv.ParseFloat(e.(string), 32)
			if items[j] != 1 || g != float32(w) {
				t.Errorf("row %d element %d: valid %d value %v, want 1 %v", r, j, items[j], g, w)
			}
		}
	}
	if nulls != 1 {
		t.Errorf("%d null elements, want 1", nulls)
	}

	// '*': fsl and list have nullable elements: both get items fields.
	a = convertBoth(t, dir, ConvertOptions{Flags: map[string]string{"validity": "*", "columns": "fsl,list"}}, pq, ar)
	if got := a.Header.DType.String(); got != "[('fsl', '<f4', (3,)), ('fsl_valid', '|b1'), ('fsl_items_valid', '|b1', (3,)), ('list', '<i8', (2,)), ('list_valid', '|b1'), ('list_items_valid', '|b1', (2,))]" {
		t.Fatalf("dtype %s", got)
	}
	for r := range want["list"] {
		if items, _ := field(t, a, "list_items_valid", r); items[0] != 1 || items[1] != 1 {
			t.Errorf("row %d: list_items_valid %v", r, items)
		}
	}

	// Without the option: NaN where the element is null, no items field
	// (a single list column is a one-field struct from Parquet, a 2-d
	// array from Arrow, as before: the same bytes).
	for _, in := range []string{pq, ar, src} {
		a := convertOne(t, dir, in, ConvertOptions{Flags: map[string]string{"columns": "fsl"}})
		if len(a.CData()) != 4*12 || strings.Contains(a.Header.DType.String(), "valid") {
			t.Fatalf("%s: %s %v", in, a.Header.DType, a.Header.Shape)
		}
		if g := math.Float32frombits(binary.LittleEndian.Uint32(a.CData()[4*4:])); !math.IsNaN(float64(g)) {
			t.Errorf("%s: fsl[1][1] %v, want NaN", in, g)
		}
	}
}

// convertOne converts in with opts and reads the result.
func convertOne(t *testing.T, dir, in string, opts ConvertOptions) *npyio.Array {
	t.Helper()
	out := filepath.Join(dir, "one.npy")
	if _, err := Convert(context.Background(), in, out, &opts); err != nil {
		t.Fatalf("%s %+v: %v", in, opts, err)
	}
	a, err := npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// itemsJSON are the columns of TestItemsValidityInts, as arrow-go reads
// them from JSON: lists of one length whose elements hold nulls, null
// lists, and int, string and bool elements. (pqarrow refuses to write a
// null fixed_size_list: "lists with non-zero length null components".)
var itemsJSON = map[string]string{
	"k":  `[0, 1, 2, 3, 4, 5]`,
	"fi": `[[1, null, 3], [4, 5, 6], [null, null, null], [7, 8, -9], [null, 10, 11], [0, 0, 0]]`,
	"li": `[[1, null], null, [-3, 4], [null, null], [9007199254740993, 6], [7, null]]`,
	"ls": `[["a", null], ["bc", "d"], null, [null, "e"], ["f", "g"], ["h", "ij"]]`,
	"lb": `[[true, null], [false, true], [null, null], null, [true, false], [false, null]]`,
}

// TestItemsValidityInts: int, string and bool lists with null elements
// (and null lists), built by arrow-go and written as an IPC file and by
// pqarrow as Parquet: refused without an option (naming the column), and
// with --validity the same bytes from both, each value the producer's or
// zeros where <col>_items_valid is false.
func TestItemsValidityInts(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	types := map[string]arrow.DataType{
		"k":  arrow.PrimitiveTypes.Int64,
		"fi": arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int32),
		"li": arrow.ListOf(arrow.PrimitiveTypes.Int64),
		"ls": arrow.ListOf(arrow.BinaryTypes.String),
		"lb": arrow.ListOf(arrow.FixedWidthTypes.Boolean),
	}
	names := []string{"k", "fi", "li", "ls", "lb"}
	var fs []arrow.Field
	for _, n := range names {
		fs = append(fs, arrow.Field{Name: n, Type: types[n], Nullable: n != "k"})
	}
	schema := arrow.NewSchema(fs, nil)
	// Two record batches (rows 0-3, 4-5), each a row group of pqarrow's
	// file: pqarrow (v18.8.0) writes a fixed_size_list sliced at an
	// offset from the slice's start (rows 4-5 came out as rows 0-1), so
	// the table is built from batches it need not slice.
	var recs []arrow.RecordBatch
	for _, part := range [][2]int{{0, 4}, {4, 6}} {
		var arrs []arrow.Array
		for _, n := range names {
			var rows []json.RawMessage
			if err := json.Unmarshal([]byte(itemsJSON[n]), &rows); err != nil {
				t.Fatal(err)
			}
			var txt []string
			for _, r := range rows[part[0]:part[1]] {
				txt = append(txt, string(r))
			}
			a, _, err := array.FromJSON(mem, types[n], strings.NewReader("["+strings.Join(txt, ",")+"]"))
			if err != nil {
				t.Fatal(n, err)
			}
			defer a.Release()
			arrs = append(arrs, a)
		}
		rec := array.NewRecordBatch(schema, arrs, int64(part[1]-part[0]))
		defer rec.Release()
		recs = append(recs, rec)
	}
	tbl := array.NewTableFromRecords(schema, recs)
	defer tbl.Release()
	ar, pq := writeArrowAndParquet(t, dir, "items", tbl, 4)

	// Without an option: refused, naming the column.
	for _, c := range names[1:] {
		for _, in := range []string{pq, ar} {
			_, err := Convert(context.Background(), in, filepath.Join(dir, "x.npy"), &ConvertOptions{Flags: map[string]string{"columns": strings.Join([]string{c}, ",")}})
			var pe *parquetio.NullError
			var ae *arrowconv.NullError
			switch {
			case errors.As(err, &pe):
				if pe.Column != c {
					t.Errorf("%s %s: refusal names %q", in, c, pe.Column)
				}
			case errors.As(err, &ae):
				if strings.TrimSuffix(ae.Column, "[]") != c || !strings.Contains(ae.Error(), c+"_items_valid") {
					t.Errorf("%s %s: refusal names %q: %v", in, c, ae.Column, ae)
				}
			default:
				t.Errorf("%s %s: %v, want a NullError", in, c, err)
			}
		}
	}

	// A fill still works as before, and gives no items field.
	for _, in := range []string{pq, ar} {
		a := convertOne(t, dir, in, ConvertOptions{Flags: map[string]string{"columns": "fi", "fill": "fi=-1"}})
		want := []int32{1, -1, 3, 4, 5, 6, -1, -1, -1, 7, 8, -9, -1, 10, 11, 0, 0, 0}
		if len(a.CData()) != 4*len(want) || strings.Contains(a.Header.DType.String(), "valid") {
			t.Fatalf("%s fill: %s %v", in, a.Header.DType, a.Header.Shape)
		}
		for j, w := range want {
			if g := int32(binary.LittleEndian.Uint32(a.CData()[4*j:])); g != w {
				t.Errorf("%s fill: value %d is %d, want %d", in, j, g, w)
			}
		}
	}

	for _, opts := range []ConvertOptions{{Flags: map[string]string{"validity": strings.Join(names[1:], ",")}}, {Flags: map[string]string{"validity": "*"}}} {
		a := convertBoth(t, dir, opts, pq, ar)
		if got := a.Header.DType.String(); got != "[('k', '<i8'), ('fi', '<i4', (3,)), ('fi_valid', '|b1'), ('fi_items_valid', '|b1', (3,)), ('li', '<i8', (2,)), ('li_valid', '|b1'), ('li_items_valid', '|b1', (2,)), ('ls', '<U2', (2,)), ('ls_valid', '|b1'), ('ls_items_valid', '|b1', (2,)), ('lb', '|b1', (2,)), ('lb_valid', '|b1'), ('lb_items_valid', '|b1', (2,))]" {
			t.Fatalf("%+v: dtype %s", opts, got)
		}
		for _, c := range names[1:] {
			var rows []any
			dec := json.NewDecoder(strings.NewReader(itemsJSON[c]))
			dec.UseNumber()
			if err := dec.Decode(&rows); err != nil {
				t.Fatal(err)
			}
			for r, row := range rows {
				vals, f := field(t, a, c, r)
				valid, _ := field(t, a, c+"_valid", r)
				items, _ := field(t, a, c+"_items_valid", r)
				if (valid[0] == 1) != (row != nil) {
					t.Errorf("%s row %d: %s_valid %d for %v", c, r, c, valid[0], row)
				}
				n := f.Shape[0]
				for j := 0; j < n; j++ {
					var e any
					if row != nil {
						e = row.([]any)[j]
					}
					el := vals[j*f.Type.Size : (j+1)*f.Type.Size]
					if e == nil {
						if items[j] != 0 || !bytes.Equal(el, make([]byte, len(el))) {
							t.Errorf("%s row %d element %d: valid %d bytes %v, want 0 and zeros", c, r, j, items[j], el)
						}
						continue
					}
					if items[j] != 1 {
						t.Errorf("%s row %d element %d: valid %d for %v", c, r, j, items[j], e)
					}
					var got any
					switch c {
					case "fi":
						got = json.Number(strconv.Itoa(int(int32(binary.LittleEndian.Uint32(el)))))
					case "li":
						got = json.Number(strconv.FormatInt(int64(binary.LittleEndian.Uint64(el)), 10))
					case "lb":
						got = el[0] == 1
					case "ls":
						var s []rune
						for q := 0; q < len(el); q += 4 {
							if u := binary.LittleEndian.Uint32(el[q:]); u != 0 {
								s = append(s, rune(u))
							}
						}
						got = string(s)
					}
					if got != e {
						t.Errorf("%s row %d element %d: %v, want %v", c, r, j, got, e)
					}
				}
			}
		}
	}

	// inspect shows the fields, for both.
	for _, in := range []string{pq, ar} {
		ins, err := Inspect(context.Background(), in, &ConvertOptions{Flags: map[string]string{"validity": "fi", "columns": "fi"}})
		if err != nil {
			t.Fatal(err)
		}
		var found *inspect.ColumnInfo
		for i, c := range asTable(ins).Columns {
			if c.Name == "fi_items_valid" {
				found = &asTable(ins).Columns[i]
				if i == 0 || asTable(ins).Columns[i-1].Name != "fi_valid" {
					t.Errorf("%s: fi_items_valid not after fi_valid", in)
				}
			}
		}
		if found == nil || found.Type != "validity" || found.ValidityOf != "fi[]" || !strings.HasPrefix(found.Descr, "|b1") {
			t.Fatalf("%s: inspect %+v", in, asTable(ins).Columns)
		}
		var b bytes.Buffer
		ins.WriteText(&b)
		if !strings.Contains(b.String(), "false where an element of fi is null") {
			t.Errorf("%s: inspect text:\n%s", in, b.String())
		}
		for _, c := range asTable(ins).Columns {
			if c.Name == "fi" && c.Refused != "" {
				t.Errorf("%s: fi refused with its items field: %s", in, c.Refused)
			}
		}
	}
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// TestItemsValidityDuckDB: DuckDB's lists of one length with null
// elements and null rows (duck_list_item_nulls: BIGINT[], DOUBLE[],
// BOOLEAN[]) and the same table as an arrow-go IPC file (read by
// pqarrow, in batches of 16 rows): the same bytes with --validity, named or '*' (the values
// are checked against DuckDB's JSON in parquetio's TestValidityNested);
// without it l3 is refused naming it in both, and l2f's null elements
// are NaN in both.
func TestItemsValidityDuckDB(t *testing.T) {
	dir := t.TempDir()
	pq := "../parquetio/testdata/foreign/duck_list_item_nulls.parquet"
	tbl := readPQArrow(t, pq)
	defer tbl.Release()
	// pqarrow (v18.8.0) reads a2s, DuckDB's VARCHAR[2] whose null rows
	// are two null slots each, as a list array whose offsets run past its
	// values (72 for 64), which arrow-go's IPC writer cannot write: the
	// IPC file leaves a2s out (parquetio's test checks it against
	// DuckDB's values).
	var fs []arrow.Field
	var cols []arrow.Column
	for i := 0; i < int(tbl.NumCols()); i++ {
		if tbl.Schema().Field(i).Name != "a2s" {
			fs = append(fs, tbl.Schema().Field(i))
			cols = append(cols, *tbl.Column(i))
		}
	}
	sub := array.NewTable(arrow.NewSchema(fs, nil), cols, tbl.NumRows())
	defer sub.Release()
	ar, _ := writeArrowAndParquet(t, dir, "duck", sub, 16)
	for _, opts := range []ConvertOptions{{Flags: map[string]string{"validity": "l3,lb", "columns": "k,l3,l2f,lb"}}, {Flags: map[string]string{"validity": "*", "columns": "k,l3,l2f,lb"}}, {Flags: map[string]string{"validity": "l3,l2f", "columns": "l2f,l3"}}} {
		a := convertBoth(t, dir, opts, pq, ar)
		if !strings.Contains(a.Header.DType.String(), "('l3_items_valid', '|b1', (3,))") {
			t.Errorf("%+v: %s", opts, a.Header.DType)
		}
	}
	want := producerColumns(t, strings.TrimSuffix(pq, ".parquet")+".json")
	for _, in := range []string{pq, ar} {
		_, err := Convert(context.Background(), in, filepath.Join(dir, "x.npy"), &ConvertOptions{Flags: map[string]string{"columns": "k,l3"}})
		if err == nil || !strings.Contains(err.Error(), "l3") {
			t.Errorf("%s: l3 without options: %v", in, err)
		}
		a := convertOne(t, dir, in, ConvertOptions{Flags: map[string]string{"columns": "l2f"}})
		nans := 0
		for r, v := range want["l2f"] {
			var items []*float64
			if err := json.Unmarshal([]byte(v.(string)), &items); err != nil {
				t.Fatal(err)
			}
			for j, e := range items {
				g := math.Float64frombits(binary.LittleEndian.Uint64(a.CData()[16*r+8*j:]))
				if e == nil {
					nans++
					if !math.IsNaN(g) {
						t.Errorf("%s l2f row %d item %d: %v, want NaN", in, r, j, g)
					}
				} else if g != *e {
					t.Errorf("%s l2f row %d item %d: %v, want %v", in, r, j, g, *e)
				}
			}
		}
		if nans == 0 || strings.Contains(a.Header.DType.String(), "valid") {
			t.Errorf("%s: %d NaN, dtype %s", in, nans, a.Header.DType)
		}
		// One list column alone reads as its elements, one subarray per
		// row, from Parquet as from Arrow (the same .npy header).
		if a.Header.DType.String() != "'<f8'" || !slices.Equal(a.Header.Shape, []int{len(want["l2f"]), 2}) {
			t.Errorf("%s l2f alone: %s %v, want <f8 (%d, 2)", in, a.Header.DType, a.Header.Shape, len(want["l2f"]))
		}
	}
}
