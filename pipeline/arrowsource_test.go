package pipeline

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// runYAML loads, plans and runs a job given as text, relative to dir.
func runYAML(t *testing.T, dir, text string, opts *RunOptions) (*Plan, error) {
	t.Helper()
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte("version: 1\n"+text), &job.LoadOptions{Dir: dir})
	if err != nil {
		t.Fatalf("load: %v\n%s", err, text)
	}
	plan, err := NewPlan(context.Background(), jb, nil)
	if err != nil {
		return nil, err
	}
	_, err = plan.Run(context.Background(), opts)
	return plan, err
}

// refusedByArrow reports an error that arrowconv documents for values or
// types with no exact Arrow form (checked in arrowconv's own tests).
func refusedByArrow(err error) bool {
	var u *arrowconv.UnsupportedError
	return errors.As(err, &u) || errors.Is(err, arrowconv.ErrRange) ||
		strings.Contains(err.Error(), "arrowconv: unsupported type") || strings.Contains(err.Error(), "arrowconv: value out of range")
}

// TestArrowSourceRoundTrip runs every numpy fixture through
// npy -> arrow sink -> arrow source -> npy sink and checks the result has
// numpy's dtype, shape and values, that planning the arrow source gives
// the schema and row count from the IPC metadata, and that batches split
// record batches (small batch_rows and BatchBytes).
func TestArrowSourceRoundTrip(t *testing.T) {
	dir := t.TempDir()
	done := 0
	variants := []string{"format: file", "format: stream, compression: zstd", "format: file, compression: lz4"}
	for i, fx := range fixtures.NPYs(t) {
		if testing.Short() && i%3 != 0 {
			continue
		}
		want, err := npyio.ReadFile(fx.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		ipcPath := filepath.Join(dir, fmt.Sprintf("%d.arrow", i))
		_, err = runYAML(t, dir, fmt.Sprintf(`
sources: {in: {type: npy, paths: [%q]}}
sinks: {out: {type: arrow, input: in, path: %q, batch_rows: 2, %s}}
`, fx.Path, ipcPath, variants[i%len(variants)]), nil)
		if err != nil {
			if !refusedByArrow(err) {
				t.Errorf("%s: npy -> arrow: %v", fx.Name, err)
			}
			continue
		}
		back := filepath.Join(dir, fmt.Sprintf("%d.npy", i))
		plan, err := runYAML(t, dir, fmt.Sprintf(`
sources: {a: {type: arrow, paths: [%q]}}
sinks: {back: {type: npy, input: a, path: %q}}
`, ipcPath, back), &RunOptions{Workers: 1 + i%2, BatchBytes: 1 + i%5*40})
		if err != nil {
			t.Errorf("%s: arrow -> npy: %v", fx.Name, err)
			continue
		}
		sp := plan.Sources[0]
		if sp.Rows != want.Header.Rows() || !sp.Schema.DType.Equal(want.DType) {
			t.Errorf("%s: plan says %d rows of %s, want %d of %s", fx.Name, sp.Rows, sp.Schema.DType, want.Header.Rows(), want.DType)
		}
		got, err := npyio.ReadFile(back, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A 0-d array stays 0-d, as convert keeps it (the npy -> arrow ->
		// npy jobs are conversions: the Arrow schema records shape ()).
		wantShape := want.Header.Shape
		if !got.DType.Equal(want.DType) || !slices.Equal(got.Header.Shape, wantShape) {
			t.Errorf("%s: got %s %v, want %s %v", fx.Name, got.DType, got.Header.Shape, want.DType, want.Header.Shape)
			continue
		}
		data, size := got.CData(), got.DType.Size
		for k, raw := range fx.Values {
			if err := fixtures.CheckElement(got.DType, data[k*size:(k+1)*size], raw); err != nil {
				t.Errorf("%s: element %d: %v", fx.Name, k, err)
				break
			}
		}
		done++
	}
	if floor := 250; !testing.Short() && done < floor || done < floor/3 {
		t.Errorf("only %d fixtures made the round trip", done)
	}
}

// TestArrowSourceForeign reads IPC files written by arrow-go without numpy
// metadata (as pyarrow or DuckDB would write them): several files with a
// capture, many record batches, strings sized by string_chars, nulls as
// NaN/NaT; and checks the failures: strings without string_chars, a string
// too long, a corrupt file.
func TestArrowSourceForeign(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	write := func(path string, format arrowconv.IPCFormat, batches, rows int, longName bool) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w, err := arrowconv.NewIPCWriter(f, schema, arrowconv.IPCOptions{Format: format}, mem)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		for k := 0; k < batches; k++ {
			for r := 0; r < rows; r++ {
				id := int64(k*rows + r)
				b.Field(0).(*array.Int64Builder).Append(id)
				if id%5 == 4 {
					b.Field(1).AppendNull()
					b.Field(2).AppendNull()
				} else {
					b.Field(1).(*array.Float32Builder).Append(float32(id) / 4)
					b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(id * 1000))
				}
				name := strings.Repeat("é", int(id%4))
				if longName && id == 7 {
					name = "toolong"
				}
				b.Field(3).(*array.StringBuilder).Append(name)
				b.Field(4).(*array.BooleanBuilder).Append(id%3 == 0)
			}
			rec := b.NewRecordBatch()
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "in"), 0o755)
	write(filepath.Join(dir, "in", "part_1.arrow"), arrowconv.IPCFile, 3, 5, false)
	write(filepath.Join(dir, "in", "part_2.arrow"), arrowconv.IPCStream, 4, 3, false)
	jb := func(extra string) string {
		return `
sources: {a: {type: arrow, paths: ["in/part_{n:int}.arrow"]` + extra + `}}
sinks: {out: {type: npy, input: a, path: out.npy}}
`
	}
	plan, err := runYAML(t, dir, jb(", string_chars: 3"), &RunOptions{BatchBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if sp := plan.Sources[0]; sp.Rows != 27 || len(sp.Parts) != 2 || sp.Parts[0].Rows != 15 || sp.Parts[1].Rows != 12 {
		t.Errorf("plan: %d rows in %d parts, want 27 = 15 + 12", sp.Rows, len(sp.Parts))
	}
	got, err := npyio.ReadFile(filepath.Join(dir, "out.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.DType.String(); s != "[('id', '<i8'), ('x', '<f4'), ('t', '<M8[ms]'), ('name', '<U3'), ('ok', '|b1'), ('n', '<i8')]" {
		t.Errorf("dtype %s", s)
	}
	if got.Header.Rows() != 27 {
		t.Fatalf("%d rows, want 27", got.Header.Rows())
	}
	data, rs := got.Data, got.DType.Size
	for r := 0; r < 27; r++ {
		row := data[r*rs : (r+1)*rs]
		part, id := int64(1), int64(r)
		if r >= 15 {
			part, id = 2, int64(r-15)
		}
		f := &got.DType.Fields
		val := func(k int) []byte { return row[(*f)[k].Offset : (*f)[k].Offset+(*f)[k].Size()] }
		// numpy's JSON forms (testdata/README.md): numbers as strings.
		x, tm := "nan", "-9223372036854775808"
		if id%5 != 4 {
			x, tm = fmt.Sprint(float32(id)/4), fmt.Sprint(id*1000)
		}
		name, _ := json.Marshal(strings.Repeat("é", int(id%4)))
		want := []string{
			fmt.Sprintf("%q", fmt.Sprint(id)), fmt.Sprintf("%q", x), fmt.Sprintf("%q", tm),
			string(name), fmt.Sprint(id%3 == 0), fmt.Sprintf("%q", fmt.Sprint(part)),
		}
		for k, raw := range want {
			if err := fixtures.CheckElement((*f)[k].Type, val(k), []byte(raw)); err != nil {
				t.Fatalf("row %d field %s: %v", r, (*f)[k].Name, err)
			}
		}
	}

	// Failures name the file and the problem; no output is left.
	write(filepath.Join(dir, "in", "part_3.arrow"), arrowconv.IPCFile, 2, 5, true)
	os.Remove(filepath.Join(dir, "out.npy"))
	// Without string_chars each file's strings are as wide as its longest
	// (a pass over the data), and the source reads every file at the
	// widest: "toolong" in part 3, the shorter names of parts 1 and 2
	// padded.
	if _, err := runYAML(t, dir, jb(""), nil); err != nil {
		t.Fatalf("strings of other widths without string_chars: %v", err)
	}
	wide, err := npyio.ReadFile(filepath.Join(dir, "out.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for r := 0; r < int(wide.Header.Shape[0]); r++ {
		f := wide.Header.DType.Fields[3]
		if f.Name != "name" || f.Type.TypeStr() != "<U7" {
			t.Fatalf("field %s %s, want name <U7", f.Name, f.Type.TypeStr())
		}
		b := wide.CData()[r*wide.Header.DType.Size+f.Offset:][:f.Type.Size]
		var sb strings.Builder
		for k := 0; k < len(b); k += 4 {
			if c := rune(binary.LittleEndian.Uint32(b[k:])); c != 0 {
				sb.WriteRune(c)
			}
		}
		names[sb.String()]++
	}
	if names["toolong"] != 1 || names["ééé"] == 0 || names[""] == 0 {
		t.Errorf("names %v", names)
	}
	os.Remove(filepath.Join(dir, "out.npy"))
	if _, err := runYAML(t, dir, jb(", string_chars: 3"), nil); err == nil || !strings.Contains(err.Error(), "part_3.arrow") ||
		!strings.Contains(err.Error(), `"name", row 7`) {
		t.Errorf("a string too long: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "in", "part_1.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "in", "part_3.arrow"), raw[:len(raw)-30], 0o644)
	if _, err := runYAML(t, dir, jb(", string_chars: 3"), nil); err == nil || !strings.Contains(err.Error(), "part_3.arrow") {
		t.Errorf("a truncated file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.npy")); !os.IsNotExist(err) {
		t.Errorf("a failed run left out.npy (%v)", err)
	}
}
