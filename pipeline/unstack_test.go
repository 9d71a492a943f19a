package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// aliasCheck records whether every batch it gets aliases the input.
type aliasCheck struct {
	collect
	in      []byte
	aliased bool
}

func (a *aliasCheck) Push(b Batch) error {
	a.aliased = len(b.Data) > 0 && &b.Data[0] == &a.in[0]
	return a.collect.Push(b)
}

func TestUnstackIndex(t *testing.T) {
	// numpy: x = np.arange(18.0).reshape(3, 2, 3)
	v := make([]float64, 18)
	for i := range v {
		v[i] = float64(i)
	}
	x := npyio.AsBytes(v)
	in := &Schema{DType: npyio.Float64Type, Shape: []int{2, 3}}

	// Without index the rows are reinterpreted, not copied.
	c := component(t, "unstack", "")
	n, err := build(c, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	ac := &aliasCheck{collect: collect{schema: n.Schema()}, in: x}
	n.(producer).connect(ac)
	if err := n.Push(Batch{Rows: 3, Data: x}); err != nil || !ac.aliased || ac.rows != 6 {
		t.Fatalf("zero-copy unstack: err %v, aliased %v, rows %d", err, ac.aliased, ac.rows)
	}

	cases := []struct {
		name, opts, dtype string
		rows              int
		// want gives row r's int64 columns and its first value.
		want func(r int) ([]int64, float64)
	}{
		{"flat index, 1 axis", "    index: step\n", "[('step', '<i8'), ('value', '<f8', (3,))]", 6,
			// x.reshape(6, 3): row r is x[r//2, r%2]
			func(r int) ([]int64, float64) { return []int64{int64(r % 2)}, float64(3 * r) }},
		{"per-axis index and row number", "    axes: 2\n    index: [i, j]\n    row_number: src\n    column: px\n", "[('src', '<i8'), ('i', '<i8'), ('j', '<i8'), ('px', '<f8')]", 18,
			// np.unravel_index(r % 6, (2, 3)); the source row is r // 6
			func(r int) ([]int64, float64) {
				return []int64{int64(r / 6), int64(r % 6 / 3), int64(r % 3)}, float64(r)
			}},
		{"flat index, 2 axes", "    axes: 2\n    index: k\n", "[('k', '<i8'), ('value', '<f8')]", 18,
			func(r int) ([]int64, float64) { return []int64{int64(r % 6)}, float64(r) }},
		{"row number only", "    row_number: frame\n", "[('frame', '<i8'), ('value', '<f8', (3,))]", 6,
			func(r int) ([]int64, float64) { return []int64{int64(r / 2)}, float64(3 * r) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := apply(t, component(t, "unstack", tc.opts), in, x)
			if err != nil {
				t.Fatal(err)
			}
			dt := out.schema.DType
			if dt.String() != tc.dtype || out.rows != tc.rows {
				t.Fatalf("%d rows of %s, want %d of %s", out.rows, dt, tc.rows, tc.dtype)
			}
			last := dt.Fields[len(dt.Fields)-1]
			for r := 0; r < out.rows; r++ {
				row := out.data[r*dt.Size : (r+1)*dt.Size]
				ints, first := tc.want(r)
				for k, w := range ints {
					if got := rowbytes.Load[int64](row, 8*k); got != w {
						t.Errorf("row %d column %s = %d, want %d", r, dt.Fields[k].Name, got, w)
					}
				}
				if got := rowbytes.Load[float64](row, last.Offset); got != first {
					t.Errorf("row %d value = %v, want %v", r, got, first)
				}
			}
		})
	}

	// Records with a row shape: the record's fields follow the index.
	rin, rdata := records(t) // a int32, b float64, s U3; 5 rows
	rs := &Schema{DType: rin.DType, Shape: []int{5}}
	out, err := apply(t, component(t, "unstack", "    index: pos\n"), rs, append(rdata, rdata...))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.schema.DType.String(); got != "[('pos', '<i8'), ('a', '<i4'), ('b', '<f8'), ('s', '<U3')]" || out.rows != 10 {
		t.Fatalf("records: %d rows of %s", out.rows, got)
	}
	for r := 0; r < 10; r++ {
		row := out.data[r*out.schema.DType.Size:]
		if pos, a := rowbytes.Load[int64](row, 0), rowbytes.Load[int32](row, 8); pos != int64(r%5) || a != int32(r%5+1) || rowbytes.UCS4String(row[20:32]) != rowbytes.UCS4String(rdata[(r%5)*24+12:(r%5)*24+24]) {
			t.Errorf("record row %d: pos %d a %d s %q", r, pos, a, rowbytes.UCS4String(row[20:32]))
		}
	}

	bad := []struct {
		opts string
		in   *Schema
		msg  string
	}{
		{"    axes: 2\n    index: [i, j, k]\n", in, `job.yaml:9:12: transforms.t.index: give one name (the flat position along the 2 unstacked axes) or 2 (one per axis), not 3`},
		{"    index: value\n", in, `job.yaml:8:12: transforms.t.index: column "value" is already a column of the output; choose another name`},
		{"    index: n\n    row_number: n\n", in, `job.yaml:8:12: transforms.t.index: column "n" is already a column of the output; choose another name`},
		{"    row_number: s\n", rs, `job.yaml:8:17: transforms.t.row_number: column "s" is already a column of the output; choose another name`},
		{"    axes: 2\n    index: [i, '']\n", in, `job.yaml:9:16: transforms.t.index[1]: the column name is empty`},
		{"    axes: 3\n    index: i\n", in, `job.yaml:8:11: transforms.t.axes: the rows have 2 axes (row shape (2, 3)); cannot unstack 3`},
	}
	for _, tc := range bad {
		_, err := apply(t, component(t, "unstack", tc.opts), tc.in, x)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%q: err = %v\nwant %s", tc.opts, err, tc.msg)
		}
	}
}

// TestUnstackRowNumberParts: row_number restarts in each input file, and
// the output is the same with any number of workers.
func TestUnstackRowNumberParts(t *testing.T) {
	dir := t.TempDir()
	for i, rows := range []int{3, 2} {
		v := make([]int16, rows*4)
		for k := range v {
			v[k] = int16(100*i + k)
		}
		var buf bytes.Buffer
		h := &npyio.Header{DType: npyio.Int16Type, Shape: []int{rows, 4}}
		if err := npyio.WriteArray(&buf, &npyio.Array{Header: h, DType: npyio.Int16Type, Data: npyio.AsBytes(v)}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"+string(rune('0'+i))+".npy"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job := `version: 1
sources:
  s: {type: npy, paths: "f*.npy"}
transforms:
  u: {type: unstack, input: s, index: col, row_number: row}
sinks:
  o: {type: npy, input: u, path: "${OUT}/out.npy"}
`
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, w := range []int{1, 3} {
		out, _, err := runJob(t, filepath.Join(dir, "job.yaml"), &RunOptions{Workers: w, BatchBytes: 8})
		if err != nil {
			t.Fatal(err)
		}
		a, err := npyio.ReadFile(filepath.Join(out, "out.npy"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.DType.String(); got != "[('row', '<i8'), ('col', '<i8'), ('value', '<i2')]" || a.Header.Shape[0] != 20 {
			t.Fatalf("%v rows of %s", a.Header.Shape, got)
		}
		var got []string
		for r := 0; r < 20; r++ {
			row := a.Data[r*18:]
			got = append(got, strings.Join([]string{itoa(rowbytes.Load[int64](row, 0)), itoa(rowbytes.Load[int64](row, 8)), itoa(int64(rowbytes.Load[int16](row, 16)))}, ":"))
		}
		// row:col:value; the second file (values from 100) restarts row at 0.
		want := "0:0:0 0:1:1 0:2:2 0:3:3 1:0:4 1:1:5 1:2:6 1:3:7 2:0:8 2:1:9 2:2:10 2:3:11 " +
			"0:0:100 0:1:101 0:2:102 0:3:103 1:0:104 1:1:105 1:2:106 1:3:107"
		if strings.Join(got, " ") != want {
			t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, " "), want)
		}
		if first == nil {
			first = a.Data
		} else if !bytes.Equal(first, a.Data) {
			t.Error("output differs with 3 workers")
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
