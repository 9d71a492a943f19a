package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

// TestInspectOptions: inspect under --columns, --decimal, --fill and
// --validity shows the numpy fields convert writes under the same
// options (the same mapping code): for files DuckDB, pqarrow and Arrow JS
// wrote, the field names inspect lists (validity fields included, struct
// fields dotted for Parquet) are those of the .npy convert writes, in
// order, and a column inspect shows refused is refused by convert; a job
// whose source has the same options writes the same bytes as convert.
// Options for no column, or for another format, are refused as by convert.
func TestInspectOptions(t *testing.T) {
	const pq, ar = "../parquetio/testdata/foreign/", "../arrowconv/testdata/foreign/"
	dir := t.TempDir()
	// The IPC stream Arrow JS wrote, named .arrow (convert knows the
	// format by the name; the reader finds a stream by its bytes).
	stream := filepath.Join(dir, "arrowjs_nested_nulls_stream.arrow")
	b, err := os.ReadFile(ar + "arrowjs_nested_nulls.arrows")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stream, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file    string
		opts    ConvertOptions
		refused string // a column inspect and convert refuse
	}{
		{pq + "duck_struct_nulls.parquet", ConvertOptions{Flags: map[string]string{"validity": "st"}}, ""},
		{pq + "duck_struct_nulls.parquet", ConvertOptions{}, "st.a"},
		{pq + "duck_list_nulls.parquet", ConvertOptions{Flags: map[string]string{"validity": "*"}}, ""},
		{pq + "duck_list_nulls.parquet", ConvertOptions{Flags: map[string]string{"columns": "a2,l2f", "fill": "a2=-1"}}, ""},
		{pq + "duck_nulls.parquet", ConvertOptions{Flags: map[string]string{"decimal": "scaled", "columns": "decn,f8n,e_dict", "validity": "decn"}}, ""},
		{pq + "duck_int_nulls.parquet", ConvertOptions{Flags: map[string]string{"fill": "i4n=3,bn=true,sn=x,u1n=1", "validity": "en"}}, ""},
		{pq + "duck_int_nulls.parquet", ConvertOptions{Flags: map[string]string{"fill": "i4n=3"}}, "bn"},
		{pq + "pqa_nested_nulls.parquet", ConvertOptions{Flags: map[string]string{"validity": "*"}}, ""},
		{pq + "duck_types.parquet", ConvertOptions{Flags: map[string]string{"decimal": "scaled", "columns": "dec10_2,dec4_1,i1"}}, ""},
		{ar + "arrowjs_nested_nulls.arrow", ConvertOptions{Flags: map[string]string{"validity": "st,fsl"}}, ""},
		{stream, ConvertOptions{Flags: map[string]string{"validity": "*", "columns": "l2,st"}}, ""},
		{ar + "arrowjs_every_type.arrow", ConvertOptions{Flags: map[string]string{"decimal": "scaled", "columns": "dec,i8", "fill": "dec=0"}}, ""},
		{ar + "nulls.arrow", ConvertOptions{Flags: map[string]string{"validity": "*"}}, ""},
	} {
		name := filepath.Base(tc.file)
		ins, err := Inspect(context.Background(), tc.file, &tc.opts)
		if err != nil {
			t.Fatalf("%s %+v: %v", name, tc.opts, err)
		}
		var fields []string
		refused := ""
		for _, c := range asTable(ins).Columns {
			if c.Refused != "" && refused == "" {
				refused = c.Name
			}
			f := c.Field
			if f == "" {
				f = c.Name
			}
			fields = append(fields, f)
		}
		if refused != tc.refused {
			t.Fatalf("%s %+v: inspect refuses %q, want %q", name, tc.opts, refused, tc.refused)
		}
		out := filepath.Join(dir, strings.ReplaceAll(name, ".", "_")+".npy")
		_, err = Convert(context.Background(), tc.file, out, &tc.opts)
		if tc.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("%s %+v: convert: %v, want %s refused", name, tc.opts, err, tc.refused)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %+v: convert: %v", name, tc.opts, err)
		}
		a, err := npyio.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		var flat func(prefix string, dt *npyio.DType)
		flat = func(prefix string, dt *npyio.DType) {
			for _, f := range dt.Fields {
				if f.Type.Kind == npyio.Struct && strings.HasSuffix(name, ".parquet") && f.Type.Fields[0].Name != "months" {
					flat(prefix+f.Name+".", f.Type)
					continue
				}
				want = append(want, prefix+f.Name)
			}
		}
		dt := a.Header.DType
		if dt.Kind != npyio.Struct {
			dt, _ = npyio.NewStruct([]npyio.Field{{Name: fields[0], Type: dt}})
		}
		flat("", dt)
		if strings.Join(fields, " ") != strings.Join(want, " ") {
			t.Errorf("%s %+v:\ninspect %v\nconvert %v (%s)", name, tc.opts, fields, want, a.Header.DType)
		}
		// A job's source with the same options writes the same bytes.
		typ := "arrow"
		if strings.HasSuffix(name, ".parquet") {
			typ = "parquet"
		}
		src := fmt.Sprintf("{type: %s, paths: %q", typ, abs(t, tc.file))
		quote := func(xs []string) string {
			var q []string
			for _, x := range xs {
				q = append(q, fmt.Sprintf("%q", x))
			}
			return "[" + strings.Join(q, ", ") + "]"
		}
		if v, ok := tc.opts.Flags["validity"]; ok {
			src += ", validity: " + quote(strings.Split(v, ","))
		}
		if v, ok := tc.opts.Flags["columns"]; ok {
			src += ", columns: " + quote(strings.Split(v, ","))
		}
		if v, ok := tc.opts.Flags["decimal"]; ok {
			src += ", decimal: " + v
		}
		if v, ok := tc.opts.Flags["fill"]; ok {
			var kv []string
			for _, f := range strings.Split(v, ",") {
				k, v, _ := strings.Cut(f, "=")
				kv = append(kv, fmt.Sprintf("%s: %q", k, v))
			}
			src += ", fill: {" + strings.Join(kv, ", ") + "}"
		}
		jobMatchesConvert(t, dir, src+"}", out)
	}
	for _, o := range []ConvertOptions{{Flags: map[string]string{"fill": "nope=1"}}, {Flags: map[string]string{"validity": "nope"}}, {Flags: map[string]string{"columns": "nope"}}} {
		for _, f := range []string{pq + "duck_int_nulls.parquet", ar + "nulls.arrow"} {
			_, ierr := Inspect(context.Background(), f, &o)
			_, cerr := Convert(context.Background(), f, filepath.Join(dir, "x.npy"), &o)
			if ierr == nil || cerr == nil || !strings.Contains(ierr.Error(), `"nope"`) {
				t.Errorf("%s %+v: inspect %v, convert %v", f, o, ierr, cerr)
			}
		}
	}
	if _, err := Inspect(context.Background(), "../parquetio/testdata/foreign/duck_types.parquet", &ConvertOptions{Flags: map[string]string{"decimal": "exact"}}); err == nil {
		t.Error("--decimal exact accepted")
	}
}

// The inspections of each kind, nil for another.
func asTable(i inspect.Info) *inspect.TableInfo { t, _ := i.(*inspect.TableInfo); return t }
func asHDF5(i inspect.Info) *inspect.HDF5Info   { t, _ := i.(*inspect.HDF5Info); return t }
func asMAT(i inspect.Info) *inspect.MATInfo     { t, _ := i.(*inspect.MATInfo); return t }
