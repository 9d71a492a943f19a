package arrowconv_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestArrowJS writes fixtures as IPC files and streams (plain, zstd, lz4)
// and reads them back with Apache Arrow JS, an independent implementation,
// through testdata/read_arrow.mjs. It is skipped unless node and the npm
// packages (in $ARROWJS_DIR, default /tmp/arrowjs) are installed.
func TestArrowJS(t *testing.T) {
	dir := os.Getenv("ARROWJS_DIR")
	if dir == "" {
		dir = "/tmp/arrowjs"
	}
	if testing.Short() {
		t.Skip("starts node once per file")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	for _, pkg := range []string{"apache-arrow", "fzstd", "lz4js"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
			t.Skipf("%s not installed in %s (see testdata/read_arrow.mjs)", pkg, dir)
		}
	}
	script, _ := filepath.Abs("testdata/read_arrow.mjs")
	names := []string{"i1_1d", "i8_le_1d", "u8_be_1d", "f2_le_1d", "f4_be_1d", "f8_le_specials", "b1_1d",
		"S5_1d", "U4_le_unicode", "V3_1d", "c8_le_1d", "c16_be_1d", "M8_ns_le_nat", "m8_us_le_1d",
		"rec_strings_dates", "rec_subarray", "rec_nested", "f8_le_3d_f", "i2_be_2d_f"}
	tmp := t.TempDir()
	for i, name := range names {
		opts := ipcVariants[i%len(ipcVariants)]
		t.Run(fmt.Sprintf("%s/format%d-compression%d", name, opts.Format, opts.Compression), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fx := fixtures.NPYByName(t, name)
			a, err := npyio.ReadFile(fx.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := arrowconv.NewArrayRecordReader(a, name, 3, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			path := filepath.Join(tmp, name+".arrow")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := arrowconv.WriteIPC(f, rr, opts, mem); err != nil {
				t.Fatal(err)
			}
			f.Close()
			cmd := exec.Command(node, script, path)
			cmd.Env = append(os.Environ(), "ARROWJS_DIR="+dir)
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("arrow js: %v\n%s%s", err, out, stderr)
			}
			var got struct {
				NumRows int
				Columns []struct {
					Name     string
					Type     string
					Metadata map[string]string
					Values   []any
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			h := a.Header
			if int64(got.NumRows) != h.Rows() {
				t.Fatalf("arrow js reads %d rows, want %d", got.NumRows, h.Rows())
			}
			per := len(fx.Values) / int(h.Rows())
			for r := 0; r < got.NumRows; r++ {
				elems := fx.Values[r*per : (r+1)*per]
				if h.DType.Kind != npyio.Struct {
					c := got.Columns[0]
					var err error
					if per > 1 || len(h.Shape) > 1 {
						err = jsList(h.DType, c.Values[r], elems)
					} else {
						err = jsEqual(h.DType, c.Values[r], elems[0])
					}
					if err != nil {
						t.Fatalf("row %d: %v", r, err)
					}
					continue
				}
				vals := fixtures.List(elems[0])
				for k, f := range h.DType.Fields {
					c := got.Columns[k]
					var err error
					if f.Shape != nil {
						err = jsList(f.Type, c.Values[r], fixtures.List(vals[k]))
					} else {
						err = jsEqual(f.Type, c.Values[r], vals[k])
					}
					if err != nil {
						t.Fatalf("row %d, column %q (%s): %v", r, c.Name, c.Type, err)
					}
				}
			}
		})
	}
}

func jsList(dt *npyio.DType, v any, want []json.RawMessage) error {
	l, ok := v.([]any)
	if !ok || len(l) != len(want) {
		return fmt.Errorf("arrow js list %v, want %d values", v, len(want))
	}
	for i := range want {
		if err := jsEqual(dt, l[i], want[i]); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// jsEqual compares a value as read_arrow.mjs prints it with numpy's.
func jsEqual(dt *npyio.DType, v any, raw json.RawMessage) error {
	s, _ := v.(string)
	jsFloat := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	switch dt.Kind {
	case npyio.Bool:
		if v != fixtures.Bool(raw) {
			return fmt.Errorf("%v, want %s", v, raw)
		}
	case npyio.Int, npyio.Uint:
		if s != fixtures.Str(raw) {
			return fmt.Errorf("%v, want %s", v, raw)
		}
	case npyio.Float:
		if !fixtures.SameFloat(jsFloat(s), fixtures.Float(raw)) {
			return fmt.Errorf("%v, want %s", v, raw)
		}
	case npyio.Complex:
		m, _ := v.(map[string]any)
		p := fixtures.List(raw)
		re, _ := m["real"].(string)
		im, _ := m["imag"].(string)
		if !fixtures.SameFloat(jsFloat(re), fixtures.Float(p[0])) || !fixtures.SameFloat(jsFloat(im), fixtures.Float(p[1])) {
			return fmt.Errorf("%v, want %s", v, raw)
		}
	case npyio.Bytes, npyio.Void, npyio.Unicode:
		if s != fixtures.Str(raw) {
			return fmt.Errorf("%q, want %s", s, raw)
		}
	case npyio.Datetime, npyio.Timedelta:
		want := fixtures.Int(raw)
		if want == math.MinInt64 {
			if v != nil {
				return fmt.Errorf("NaT read as %v", v)
			}
			return nil
		}
		if dt.Kind == npyio.Timedelta {
			if s != fixtures.Str(raw) {
				return fmt.Errorf("%v, want %s", v, raw)
			}
			return nil
		}
		// Arrow JS gives timestamps as float milliseconds.
		perMs := map[string]float64{"s": 1e-3, "ms": 1, "us": 1e3, "ns": 1e6}[dt.Unit]
		if got, w := jsFloat(s), float64(want)/perMs; math.Abs(got-w) > 1e-12*math.Abs(w)+1e-9 {
			return fmt.Errorf("%v ms, want %v", got, w)
		}
	case npyio.Struct:
		m, _ := v.(map[string]any)
		vals := fixtures.List(raw)
		for k, f := range dt.Fields {
			var err error
			if f.Shape != nil {
				err = jsList(f.Type, m[f.Name], fixtures.List(vals[k]))
			} else {
				err = jsEqual(f.Type, m[f.Name], vals[k])
			}
			if err != nil {
				return fmt.Errorf(".%s: %w", f.Name, err)
			}
		}
	}
	return nil
}
