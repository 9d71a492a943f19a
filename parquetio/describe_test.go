package parquetio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// TestDescribe: the footer alone gives each column's Parquet type, numpy
// dtype and refusal, without reading data.
func TestDescribe(t *testing.T) {
	type want struct{ typ, dtype, refused string }
	cases := map[string]map[string]want{
		"duck_types.parquet": {
			"dec10_2": {"DECIMAL(10,2)", "<f8", ""},
			"dec21_1": {"DECIMAL(21,1)", "<f8", ""},
			"dec4_1":  {"DECIMAL(4,1)", "<f8", ""},
			"tstz":    {"TIMESTAMP(us, UTC)", "<M8[us]", ""},
			"ts_ns":   {"TIMESTAMP(ns)", "<M8[ns]", ""},
			"t":       {"TIME(us)", "<m8[us]", ""},
			"d":       {"DATE", "<M8[D]", ""},
			"u1":      {"UINT(8)", "|u1", ""},
			"i2":      {"INT(16)", "<i2", ""},
			"s":       {"STRING", "<U", ""},
			"bl":      {"BYTE_ARRAY", "|S", ""},
			"f4":      {"FLOAT", "<f4", ""},
			"b":       {"BOOLEAN", "|b1", ""},
		},
		"duck_uuid.parquet":      {"id": {"UUID", "|V16", ""}},
		"duck_rowgroups.parquet": {"i8": {"INT(64)", "<i8", ""}},
		"duck_interval.parquet":  {"iv": {"INTERVAL", "[('months', '<u4'), ('days', '<u4'), ('milliseconds', '<u4')]", ""}},
		"duck_int_nulls.parquet": {"i4n": {"INT(32)", "<i4", "holds 30 nulls"}, "sn": {"STRING", "<U", "holds 60 nulls"}},
		"duck_nulls.parquet":     {"f8n": {"DOUBLE", "<f8", ""}, "tsn": {"TIMESTAMP(us)", "<M8[us]", ""}, "i4_optional_no_nulls": {"INT(32)", "<i4", ""}},
		"duck_list.parquet":      {"l.list.element": {"INT(64)", "<i8", ""}},
		"duck_map.parquet":       {"m.key_value.key": {"STRING", "", "inside the MAP m"}},
	}
	for file, cols := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", "foreign", file))
		if err != nil {
			t.Fatal(err)
		}
		info, err := Describe(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if info.Npyflow || info.Rows == 0 {
			t.Errorf("%s: %+v", file, info)
		}
		found := 0
		for _, c := range info.Columns {
			w, ok := cols[c.Path]
			if !ok {
				continue
			}
			found++
			if c.Path == "l.list.element" && !c.List {
				t.Errorf("%s: %s is a list: %+v", file, c.Path, c)
			}
			if c.Type != w.typ || c.DType != w.dtype || (w.refused == "") != (c.Refused == "") || !strings.Contains(strings.ToLower(c.Refused), strings.ToLower(w.refused)) {
				t.Errorf("%s: %s: %+v, want %+v", file, c.Path, c, w)
			}
		}
		if found != len(cols) {
			t.Errorf("%s: %d of %d columns found: %+v", file, found, len(cols), info.Columns)
		}
	}
}

// TestDescribeNpyflow: files written by npyflow describe their exact numpy
// dtypes, and dictionary-encoded columns are flagged.
func TestDescribeNpyflow(t *testing.T) {
	dt, err := npyio.ParseDescr("[('a', '>i4'), ('t', '<M8[s]'), ('s', '<U3')]")
	if err != nil {
		t.Fatal(err)
	}
	b, err := writeMem(t, &npyio.Header{DType: dt, Shape: []int{2}}, make([]byte, 2*dt.Size), &Options{Dictionary: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := Describe(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !info.Npyflow || info.Rows != 2 || len(info.Columns) != 3 {
		t.Fatalf("%+v", info)
	}
	want := []string{">i4", "<M8[s]", "<U3"}
	for i, c := range info.Columns {
		if c.DType != want[i] || c.Refused != "" {
			t.Errorf("%s: %+v, want %s", c.Path, c, want[i])
		}
	}
	if !info.Columns[0].Dictionary || info.Columns[1].Dictionary {
		t.Errorf("dictionary flags %v %v", info.Columns[0].Dictionary, info.Columns[1].Dictionary)
	}
}

// TestDescribeOptions: under read options the footer gives the numpy
// fields a Reader with the same options gives (the same mapping code):
// validity fields after the columns and struct fields they record (whose
// nulls then are no refusal), scaled decimals renamed, the columns
// selected in their order, fill values covering nulls; options naming no
// column are errors as for a Reader.
func TestDescribeOptions(t *testing.T) {
	describe := func(file string, o *ReadOptions) (*FileInfo, error) {
		b := readFile(t, file)
		return DescribeOptions(bytes.NewReader(b), int64(len(b)), o)
	}
	names := func(info *FileInfo) string {
		var s []string
		for _, f := range info.Fields {
			s = append(s, f.Name+" "+f.DType)
		}
		return strings.Join(s, ", ")
	}
	for _, tc := range []struct {
		file   string
		o      *ReadOptions
		fields string
		refuse []string // leaves refused
	}{
		{"duck_struct_nulls.parquet", nil, "k <i8, st.a <i8, st.b.x <f8, st.b.y |b1, st.s <U", []string{"st.a", "st.b.y", "st.s"}},
		{"duck_struct_nulls.parquet", &ReadOptions{Validity: []string{"st"}}, "k <i8, st.a <i8, st.a_valid |b1, st.b.x <f8, st.b.x_valid |b1, st.b.y |b1, st.b.y_valid |b1, st.b_valid |b1, st.s <U, st.s_valid |b1, st_valid |b1", nil},
		{"duck_list_nulls.parquet", &ReadOptions{Validity: []string{"l3"}, Columns: []string{"a2", "l3"}, Fill: map[string]any{"a2": 0}}, "a2 <i4, l3 <i8, l3_valid |b1, l3_items_valid |b1", nil},
		{"duck_nulls.parquet", &ReadOptions{Decimal: arrowconv.DecimalScaledInt64, Validity: []string{"decn"}, Columns: []string{"decn", "f8n"}}, "decn_x1e2 <i8, decn_valid |b1, f8n <f8", nil},
		{"duck_int_nulls.parquet", &ReadOptions{Fill: map[string]any{"i4n": 3, "sn": "abc"}, Validity: []string{"en"}}, "i4n <i4, bn |b1, sn <U, u1n |u1, en <U, en_valid |b1", []string{"bn", "u1n"}},
		{"pqa_lz4raw_int96_decimal_time.parquet", &ReadOptions{Decimal: arrowconv.DecimalScaledInt64, Columns: []string{"dec30_5", "dec9_2"}}, "dec30_5 , dec9_2_x1e2 <i8", []string{"dec30_5"}},
	} {
		info, err := describe(tc.file, tc.o)
		if err != nil {
			t.Fatalf("%s %+v: %v", tc.file, tc.o, err)
		}
		if got := names(info); got != tc.fields {
			t.Errorf("%s %+v: fields %s, want %s", tc.file, tc.o, got, tc.fields)
		}
		var refused []string
		for _, c := range info.Columns {
			if c.Refused != "" {
				refused = append(refused, c.Path)
			}
		}
		if strings.Join(refused, " ") != strings.Join(tc.refuse, " ") {
			t.Errorf("%s %+v: refused %v, want %v", tc.file, tc.o, refused, tc.refuse)
		}
	}
	for _, o := range []*ReadOptions{{Fill: map[string]any{"nope": 1}}, {Validity: []string{"nope"}}, {Columns: []string{"nope"}}} {
		if _, err := describe("duck_int_nulls.parquet", o); err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestDescribeItemsValidity: the element validity field of a list
// column named for validity follows l3_valid, marked as recording the
// nulls of l3's elements (ValidityOf "l3[]"), and the list's leaf names
// it; '*' gives it to every list of OPTIONAL elements (DuckDB's lists).
func TestDescribeItemsValidity(t *testing.T) {
	for _, tc := range []struct {
		o      *ReadOptions
		fields string
	}{
		{&ReadOptions{Validity: []string{"l3"}, Columns: []string{"l3", "k"}}, "l3 #0;l3_valid l3;l3_items_valid l3[];k #1"},
		{&ReadOptions{Validity: []string{"*"}, Columns: []string{"l2f"}}, "l2f #0;l2f_valid l2f;l2f_items_valid l2f[]"},
	} {
		b := readFile(t, "duck_list_nulls.parquet")
		info, err := DescribeOptions(bytes.NewReader(b), int64(len(b)), tc.o)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range info.Fields {
			s := f.Name + " " + f.ValidityOf
			if f.Column >= 0 {
				s = fmt.Sprintf("%s #%d", f.Name, f.Column)
			}
			got = append(got, s)
			if f.Name == "l3_items_valid" && (f.DType != "|b1" || len(f.Shape) != 1) {
				t.Errorf("%s: %s %v", f.Name, f.DType, f.Shape)
			}
		}
		if s := strings.Join(got, ";"); s != tc.fields {
			t.Errorf("%+v: fields %s, want %s", tc.o, s, tc.fields)
		}
		c := info.Columns[0]
		if want := strings.Fields(tc.fields)[0] + "_items_valid"; c.ItemsValidity != want || c.Refused != "" {
			t.Errorf("%+v: column %s: items validity %q, refused %q", tc.o, c.Path, c.ItemsValidity, c.Refused)
		}
	}
}
