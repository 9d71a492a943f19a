package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// convertCounting runs Convert and reports whether the Arrow -> .npy copy
// as stored (copyArrowAsStored) was taken.
func convertCounting(t *testing.T, in, out string, opts *ConvertOptions) bool {
	t.Helper()
	before := arrowCopies.Load()
	if _, err := Convert(context.Background(), in, out, opts); err != nil {
		t.Fatalf("%s -> %s: %v", in, out, err)
	}
	return arrowCopies.Load() != before
}

// A one-column uncompressed .arrow of numbers or timestamps converts to
// .npy by copying its buffers: the .npy is numpy's file byte for byte, and
// the copy path was taken; --sync changes nothing but durability. A
// compressed file, or any option that changes the values or columns, goes
// the general path with the same result.
func TestConvertArrowCopiedAsStored(t *testing.T) {
	dir := t.TempDir()
	// M8_ms_le_1d has NaT, a null in Arrow: not copied as stored.
	// M8_ms_nonat is numpy's M8_ms_le_1d without it, written here.
	m8 := fixtures.NPYByName(t, "M8_ms_le_1d")
	m8a, err := npyio.ReadFile(m8.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var vals []byte
	for i := 0; i < len(m8a.CData()); i += 8 {
		if v := binary.LittleEndian.Uint64(m8a.CData()[i:]); v != 1<<63 {
			vals = binary.LittleEndian.AppendUint64(vals, v)
		}
	}
	nonat := filepath.Join(dir, "M8_ms_nonat.npy")
	h := *m8a.Header
	h.Shape = []int{len(vals) / 8}
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &h)
	if err == nil {
		_, err = w.Write(vals)
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = os.WriteFile(nonat, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"f8_le_1d", "i4_le_1d", "M8_ms_le_1d", "M8_ms_nonat", "f8_le_specials"} {
		t.Run(name, func(t *testing.T) {
			path := nonat
			if name != "M8_ms_nonat" {
				path = fixtures.NPYByName(t, name).Path
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copied := name != "M8_ms_le_1d"
			for _, c := range []struct {
				comp   string
				opts   ConvertOptions
				copied bool
			}{
				{"none", ConvertOptions{}, copied},
				{"none", ConvertOptions{Sync: true}, copied},
				{"zstd", ConvertOptions{}, false},
				{"none", ConvertOptions{Flags: map[string]string{"columns": strings.Join([]string{name}, ",")}}, false},
			} {
				ipc := filepath.Join(dir, name+"-"+c.comp+".arrow")
				if convertCounting(t, path, ipc, &ConvertOptions{Flags: map[string]string{"compression": c.comp}}) {
					t.Fatal("npy -> arrow counted as an Arrow copy")
				}
				out := filepath.Join(dir, name+".npy")
				opts := c.opts
				if got := convertCounting(t, ipc, out, &opts); got != c.copied {
					t.Errorf("compression %s, options %+v: copied as stored %v, want %v", c.comp, c.opts, got, c.copied)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("compression %s, options %+v: the .npy (%d bytes) is not numpy's file (%d bytes)", c.comp, c.opts, len(got), len(want))
				}
				ents, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range ents {
					if e.Name()[0] == '.' {
						t.Errorf("left beside the output: %s", e.Name())
					}
				}
			}
		})
	}
}

// With --fill the conversion is not the plain one: it goes the general
// path, which leaves a column without nulls as it is (NaN included).
func TestConvertArrowFillNotCopied(t *testing.T) {
	dir := t.TempDir()
	fx := fixtures.NPYByName(t, "f8_le_specials")
	want, err := os.ReadFile(fx.Path)
	if err != nil {
		t.Fatal(err)
	}
	ipc := filepath.Join(dir, "s.arrow")
	convertCounting(t, fx.Path, ipc, &ConvertOptions{Flags: map[string]string{"compression": "none"}})
	out := filepath.Join(dir, "s.npy")
	if convertCounting(t, ipc, out, &ConvertOptions{Flags: map[string]string{"fill": "f8_le_specials=7"}}) {
		t.Error("a conversion with --fill was copied as stored")
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the .npy is not numpy's file")
	}
}

// A column with nulls, and a file of two columns, go the general path and
// give the right values.
func TestConvertArrowGeneralPath(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator

	b := array.NewFloat64Builder(mem)
	b.AppendValues([]float64{1.5, 2, 0, 4}, []bool{true, true, false, true})
	x := b.NewArray()
	b.Release()
	defer x.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{10, -20, 30, 40}, nil)
	y := ib.NewArray()
	ib.Release()
	defer y.Release()

	fx := arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	fy := arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int32}
	write := func(name string, fields []arrow.Field, cols []arrow.Array) string {
		sch := arrow.NewSchema(fields, nil)
		rec := array.NewRecordBatch(sch, cols, 4)
		defer rec.Release()
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w, err := arrowconv.NewIPCWriter(f, sch, arrowconv.IPCOptions{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}

	nulls := write("nulls.arrow", []arrow.Field{fx}, []arrow.Array{x})
	out := filepath.Join(dir, "nulls.npy")
	if convertCounting(t, nulls, out, nil) {
		t.Error("a column with nulls was copied as stored")
	}
	a, err := npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Header.DType.TypeStr() != "<f8" || len(a.Header.Shape) != 1 || a.Header.Shape[0] != 4 {
		t.Fatalf("got %s %v, want <f8 [4]", a.Header.DType, a.Header.Shape)
	}
	d := a.CData()
	for i, want := range []float64{1.5, 2, math.NaN(), 4} {
		v := math.Float64frombits(binary.LittleEndian.Uint64(d[8*i:]))
		if v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
			t.Errorf("nulls row %d = %v, want %v", i, v, want)
		}
	}

	x2 := write("two.arrow", []arrow.Field{fx, fy}, []arrow.Array{x, y})
	out = filepath.Join(dir, "two.npy")
	if convertCounting(t, x2, out, nil) {
		t.Error("a file of two columns was copied as stored")
	}
	a, err = npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Header.DType.Kind != npyio.Struct || a.Header.DType.Size != 12 {
		t.Fatalf("got %s, want a struct of <f8 and <i4", a.Header.DType)
	}
	d = a.CData()
	for i, want := range []int32{10, -20, 30, 40} {
		if v := int32(binary.LittleEndian.Uint32(d[12*i+8:])); v != want {
			t.Errorf("two row %d: y = %d, want %d", i, v, want)
		}
	}
	if v := math.Float64frombits(binary.LittleEndian.Uint64(d[12:])); v != 2 {
		t.Errorf("two row 1: x = %v, want 2", v)
	}
}
