package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// writeNPYFile writes an .npy of descr and shape holding data.
func writeNPYFile(t *testing.T, path, descr string, shape []int, data []byte) {
	t.Helper()
	dt, err := npyio.ParseTypeStr(descr)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := npyio.NewWriter(&b, &npyio.Header{DType: dt, Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hdf5SinkArrays are the arrays the compression tests write, a 1-D f8
// and a 2-D i4, both over the 4 KiB that are stored compact.
func hdf5SinkArrays(t *testing.T, dir string) []string {
	t.Helper()
	f8 := make([]byte, 3000*8)
	for i := 0; i < 3000; i++ {
		binary.LittleEndian.PutUint64(f8[i*8:], math.Float64bits(float64(i%97)*0.5))
	}
	i4 := make([]byte, 40*50*4)
	for i := 0; i < 40*50; i++ {
		binary.LittleEndian.PutUint32(i4[i*4:], uint32(int32(i*7)-3000))
	}
	a, b := filepath.Join(dir, "f8.npy"), filepath.Join(dir, "i4.npy")
	writeNPYFile(t, a, "<f8", []int{3000}, f8)
	writeNPYFile(t, b, "<i4", []int{40, 50}, i4)
	return []string{a, b}
}

// TestHDF5SinkCompression writes .h5 files with each compression and
// reads them back: the filters stored are the compression's (with the
// level asked for), the values the input's. With NPYFLOW_H5SINK_DIR set
// the files are kept there for testdata/h5sink/check_h5sink.py, which
// reads them with h5py and hdf5plugin (make check-hdf5).
func TestHDF5SinkCompression(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	keep := os.Getenv("NPYFLOW_H5SINK_DIR")
	cases := []struct {
		flags   map[string]string
		filters []int
		level   int // the last filter's first parameter, when > 0
	}{
		{nil, []int{hdf5.FilterShuffle, hdf5.FilterDeflate}, 4},
		{map[string]string{"compression": "deflate", "compression-level": "9"}, []int{hdf5.FilterShuffle, hdf5.FilterDeflate}, 9},
		{map[string]string{"compression": "lz4"}, []int{hdf5.FilterShuffle, 32004}, 0},
		{map[string]string{"compression": "zstd"}, []int{hdf5.FilterShuffle, 32015}, 3},
		{map[string]string{"compression": "zstd", "compression-level": "12"}, []int{hdf5.FilterShuffle, 32015}, 12},
		{map[string]string{"compression": "none"}, nil, 0},
	}
	for _, in := range hdf5SinkArrays(t, dir) {
		want, err := npyio.ReadFile(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			name := fmt.Sprintf("%s_%s%s.h5", strings.TrimSuffix(filepath.Base(in), ".npy"), c.flags["compression"], c.flags["compression-level"])
			t.Run(name, func(t *testing.T) {
				out := filepath.Join(dir, name)
				if keep != "" {
					out = filepath.Join(keep, name)
				}
				if _, err := Convert(ctx, in, out, &ConvertOptions{Flags: c.flags}); err != nil {
					t.Fatal(err)
				}
				f, err := hdf5.OpenFile(out, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				o, err := f.OpenPath("/" + strings.TrimSuffix(filepath.Base(in), ".npy"))
				if err != nil {
					t.Fatal(err)
				}
				ds := o.(*hdf5.Dataset)
				var ids []int
				fp := ds.FilterPipeline()
				for _, fi := range fp {
					ids = append(ids, fi.ID)
				}
				if fmt.Sprint(ids) != fmt.Sprint(c.filters) {
					t.Errorf("filters %v, want %v", ids, c.filters)
				}
				if c.level > 0 && (len(fp) == 0 || len(fp[len(fp)-1].Params) == 0 || int(fp[len(fp)-1].Params[0]) != c.level) {
					t.Errorf("pipeline %v, want level %d", fp, c.level)
				}
				got, err := ds.ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want.Data) {
					t.Errorf("values differ from the input's")
				}
				if keep != "" {
					writeNPYFile(t, strings.TrimSuffix(out, ".h5")+".expect.npy", strings.Trim(want.DType.String(), "'"), want.Header.Shape, want.Data)
				}
			})
		}
	}
}

func TestHDF5SinkCompressionErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := hdf5SinkArrays(t, dir)[0]
	for _, c := range []struct {
		flags map[string]string
		msg   string
	}{
		{map[string]string{"compression": "bogus"}, `--compression "bogus": want deflate, lz4, zstd or none`},
		{map[string]string{"compression": "lz4", "compression-level": "3"}, "compression lz4 has no level"},
		{map[string]string{"compression": "deflate", "compression-level": "12"}, "deflate levels are 1 to 9, not 12"},
	} {
		out := filepath.Join(dir, "o.h5")
		_, err := Convert(ctx, in, out, &ConvertOptions{Flags: c.flags})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v, want %q", c.flags, err, c.msg)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: output written", c.flags)
		}
	}
	// compressed: false, the older option, is compression: none; with
	// another compression it is a contradiction.
	abs, _ := filepath.Abs(in)
	for _, c := range []struct{ opts, msg string }{
		{"compressed: false", ""},
		{"compressed: false, compression: none", ""},
		{"compressed: false, compression: zstd", "compressed: false is compression: none, but compression is zstd"},
	} {
		jf := filepath.Join(dir, "job.yaml")
		os.WriteFile(jf, []byte(fmt.Sprintf("version: 1\nsources:\n  in: {type: npy, paths: [%q]}\nsinks:\n  out: {type: hdf5, input: in, path: c.h5, %s}\n", abs, c.opts)), 0o644)
		jb, err := job.LoadFile(jf, nil)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(ctx, jb, nil)
		if err == nil {
			_, err = plan.Run(ctx, nil)
		}
		if c.msg != "" {
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: %v, want %q", c.opts, err, c.msg)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		f, err := hdf5.OpenFile(filepath.Join(dir, "c.h5"), nil)
		if err != nil {
			t.Fatal(err)
		}
		o, err := f.OpenPath("/f8")
		if err != nil {
			t.Fatal(err)
		}
		if fp := o.(*hdf5.Dataset).FilterPipeline(); len(fp) != 0 {
			t.Errorf("%s: filters %v", c.opts, fp)
		}
		f.Close()
	}
}
