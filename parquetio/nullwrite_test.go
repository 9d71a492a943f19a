package parquetio

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/npyio"
)

// nullsRows is a structured array of 3 rows whose string, list and
// struct columns each have a validity field (see Options.Nulls).
func nullsRows(t *testing.T) (*npyio.Header, []byte) {
	t.Helper()
	dt, err := npyio.ParseDescr("[('s', '<U2'), ('s_valid', '|b1'), ('l', '<i4', (2,)), ('l_valid', '|b1'), ('n', '<i4'), ('cd', [('m', '<i4'), ('d', '<i4')]), ('cd_valid', '|b1'), ('t', '<M8[ms]'), ('t_valid', '|b1')]")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	put := func(v any) { binary.Write(&buf, binary.LittleEndian, v) }
	u2 := func(s string) {
		var r [2]uint32
		for i, c := range s {
			r[i] = uint32(c)
		}
		put(r)
	}
	rows := []struct {
		s      string
		sv, lv bool
		l      [2]int32
		n      int32
		cd     [2]int32
		cdv    bool
		tms    int64
		tv     bool
	}{
		{"ab", true, true, [2]int32{1, 2}, 7, [2]int32{0, 0}, false, 1000, true},
		{"", false, true, [2]int32{3, 4}, 8, [2]int32{2, 5}, true, -1 << 63, false},
		{"c", true, false, [2]int32{0, 0}, 9, [2]int32{1, 0}, true, 3000, true},
	}
	for _, r := range rows {
		u2(r.s)
		put(r.sv)
		put(r.l)
		put(r.lv)
		put(r.n)
		put(r.cd)
		put(r.cdv)
		put(r.tms)
		put(r.tv)
	}
	if buf.Len() != 3*dt.Size {
		t.Fatalf("%d bytes for 3 rows of %d", buf.Len(), dt.Size)
	}
	return &npyio.Header{DType: dt, Shape: []int{3}}, buf.Bytes()
}

func TestWriteNulls(t *testing.T) {
	h, data := nullsRows(t)
	s, err := NewArraySchema(h, "x")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, s, &Options{Nulls: map[string]string{"s": "s_valid", "l": "l_valid", "cd": "cd_valid", "t": "t_valid"}, Dictionary: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// arrow-go reads nulls where the validity fields were false, and no
	// validity columns.
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	pf, err := file.NewParquetReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if v := pf.MetaData().KeyValueMetadata().FindValue(MetaTable); v != nil {
		t.Errorf("footer has %s: %s", MetaTable, *v)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "s,l,n,cd,t" {
		t.Fatalf("columns %s, want s,l,n,cd,t", got)
	}
	nulls := map[string]string{"s": "-x-", "l": "--x", "n": "---", "cd": "x--", "t": "-x-"}
	for i, f := range tbl.Schema().Fields() {
		c := tbl.Column(i).Data().Chunk(0)
		got := ""
		for r := 0; r < c.Len(); r++ {
			got += map[bool]string{true: "x", false: "-"}[c.IsNull(r)]
		}
		if got != nulls[f.Name] {
			t.Errorf("column %s (%s): nulls %s, want %s", f.Name, f.Type, got, nulls[f.Name])
		}
	}
	s0 := tbl.Column(0).Data().Chunk(0).(*array.String)
	if s0.Value(0) != "ab" || s0.Value(2) != "c" {
		t.Errorf("s = %v", s0)
	}
	l := tbl.Column(1).Data().Chunk(0)
	if l.DataType().ID() != arrow.FIXED_SIZE_LIST {
		t.Fatalf("l is %s", l.DataType())
	}
	if v := l.(*array.FixedSizeList).ListValues().(*array.Int32).Int32Values(); v[2] != 3 || v[3] != 4 {
		t.Errorf("l values %v", v)
	}
	cd := tbl.Column(3).Data().Chunk(0).(*array.Struct)
	if m := cd.Field(0).(*array.Int32); m.Value(1) != 2 || m.Value(2) != 1 {
		t.Errorf("cd.m = %v", m)
	}

	// npyflow reads it as a foreign file: validity fields on request.
	r, err := NewReaderOptions(bytes.NewReader(out.Bytes()), int64(out.Len()), &ReadOptions{Validity: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Header().DType.String(); !strings.Contains(got, "'s_valid'") || strings.Contains(got, "'l_valid'") {
		t.Errorf("read back as %s", got)
	}
}

func TestWriteNullsRefused(t *testing.T) {
	h, _ := nullsRows(t)
	for _, tc := range []struct {
		nulls map[string]string
		want  string
	}{
		{map[string]string{"nope": "s_valid"}, `no top-level column "nope"`},
		{map[string]string{"s": "nope"}, `no top-level column "nope" for its validity`},
		{map[string]string{"s": "n"}, `validity column "n" is <i4, not a scalar bool`},
		{map[string]string{"s": "s"}, `its own validity`},
		{map[string]string{"s": "s_valid", "s_valid": "l_valid"}, `has a validity column itself`},
	} {
		s, err := NewArraySchema(h, "x")
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewWriter(&bytes.Buffer{}, s, &Options{Nulls: tc.nulls})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.nulls, err, tc.want)
		}
	}
}
