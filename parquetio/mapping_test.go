package parquetio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// TestMappingAgreesWithArrowconv: for every column of the foreign corpus,
// the numpy dtype parquetio maps the Parquet type to is the one
// arrowconv.MapSchema gives the Arrow type pqarrow reads it as (one
// mapping, whichever the format), but for the documented differences:
// Parquet JSON, which pqarrow reads as binary (numpy U here, as for
// STRING), and INTERVAL, which pqarrow reads as fixed_size_binary(12) and
// parquetio refuses (months, days and milliseconds are no one duration).
func TestMappingAgreesWithArrowconv(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "foreign", "*.parquet"))
	compared := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "pt_unknown_logical_type.parquet") {
			continue // arrow-go's own reader panics on its logical type (parquetio ignores it)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		info, err := Describe(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		as, err := fr.Schema()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range info.Columns {
			if strings.Contains(c.Path, ".") || c.List || c.Type == "JSON" || c.Type == "INTERVAL" {
				continue // nested (a bare repeated primitive too): compared through its top-level column elsewhere
			}
			idx := as.FieldIndices(c.Path)
			if len(idx) != 1 {
				t.Fatalf("%s: no Arrow field %s", p, c.Path)
			}
			f := as.Field(idx[0])
			m, err := arrowconv.MapSchema(arrow.NewSchema([]arrow.Field{f}, nil), &arrowconv.MapOptions{StringWidths: map[string]int{f.Name: 1}})
			if c.Refused != "" && c.DType == "" {
				// Refused for its type (the Null type): arrowconv too.
				if err == nil {
					t.Errorf("%s: %s: parquetio refuses (%s), arrowconv maps %s", filepath.Base(p), c.Path, c.Refused, f.Type)
				}
				compared++
				continue
			}
			if err != nil {
				t.Errorf("%s: %s: arrowconv refuses %s: %v", filepath.Base(p), c.Path, f.Type, err)
				continue
			}
			dt, err := m.DType()
			if err != nil {
				t.Fatal(err)
			}
			got := dt.TypeStr()
			if c.WidthFromData {
				got = strings.TrimSuffix(got, "1")
				if c.Type == "INT96" {
					got = "<M8" // the unit comes from the data (int96.go)
				}
			}
			if got != c.DType {
				t.Errorf("%s: %s (%s): parquetio %s, arrowconv %s (from %s)", filepath.Base(p), c.Path, c.Type, c.DType, got, f.Type)
			}
			compared++
		}
	}
	if compared < 50 {
		t.Fatalf("only %d columns compared", compared)
	}
	t.Logf("%d columns agree", compared)
}

// TestLoneRecordAgreesWithArrowconv: a top-level column of the foreign
// corpus whose type maps to a numpy record (a group, a list of groups),
// read alone, gives parquetio the dtype arrowconv.MapSchema gives the
// same column alone as pqarrow reads it (string widths and list lengths
// from a scan of its values): a record of one field named for the
// column, in both (issue 30).
func TestLoneRecordAgreesWithArrowconv(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "foreign", "*.parquet"))
	compared := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "pt_unknown_logical_type.parquet") {
			continue // arrow-go's own reader panics on its logical type
		}
		if strings.HasSuffix(p, "ptlist_old_list_structure.parquet") {
			// pqarrow reads parquet-mr's legacy 2-level list of lists as
			// a list of structs; parquetio as the list of lists the
			// format's backward-compatibility rules make it.
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			continue // a file arrow-go cannot read whole (compared elsewhere)
		}
		for i, f := range tbl.Schema().Fields() {
			if !maybeRecord(f.Type) {
				continue
			}
			sch := arrow.NewSchema([]arrow.Field{f}, nil)
			m, err := arrowconv.MapSchema(sch, nil)
			if err != nil {
				continue // refused by arrowconv (refusals compared by TestMappingAgreesWithArrowconv)
			}
			if m.NeedsScan() {
				one := array.NewTable(sch, []arrow.Column{*tbl.Column(i)}, tbl.NumRows())
				tr := array.NewTableReader(one, 1024)
				err = arrowconv.ScanRecords(m, tr)
				tr.Release()
				one.Release()
				if err != nil {
					continue // lists of varying lengths: refused
				}
			}
			adt, err := m.DType()
			if err != nil || adt.Kind != npyio.Struct {
				continue
			}
			if len(adt.Fields) != 1 || adt.Fields[0].Name != f.Name {
				t.Errorf("%s: %s alone: arrowconv %s, not one field %s", filepath.Base(p), f.Name, adt, f.Name)
			}
			r, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Columns: []string{f.Name}})
			if err != nil {
				// Refused for its values (a null numpy cannot hold):
				// arrowconv refuses them too, when it encodes them.
				if encodes(m, sch, tbl.Column(i)) {
					t.Errorf("%s: %s alone: parquetio refuses what arrowconv converts to %s: %v", filepath.Base(p), f.Name, adt, err)
				}
				compared++
				continue
			}
			if got := r.Header().DType.String(); got != adt.String() {
				t.Errorf("%s: %s alone: parquetio %s, arrowconv %s (from %s)", filepath.Base(p), f.Name, got, adt, f.Type)
			}
			compared++
		}
		tbl.Release()
	}
	if compared < 5 {
		t.Fatalf("only %d lone record columns compared", compared)
	}
	t.Logf("%d lone record columns agree", compared)
}

// encodes reports whether m converts every row of column c (schema sch)
// without an error.
func encodes(m *arrowconv.Mapping, sch *arrow.Schema, c *arrow.Column) bool {
	one := array.NewTable(sch, []arrow.Column{*c}, int64(c.Len()))
	defer one.Release()
	tr := array.NewTableReader(one, 1024)
	defer tr.Release()
	for tr.Next() {
		if _, err := m.Encode(tr.RecordBatch(), nil); err != nil {
			return false
		}
	}
	return true
}

// maybeRecord reports whether an Arrow type can map to a numpy record: a
// struct or interval, or a list of one.
func maybeRecord(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.StructType, *arrow.MonthIntervalType, *arrow.DayTimeIntervalType, *arrow.MonthDayNanoIntervalType:
		return true
	case arrow.ListLikeType:
		return maybeRecord(t.Elem())
	}
	return false
}
