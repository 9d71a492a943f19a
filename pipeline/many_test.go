package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// manyFixtures are the files of 200 arrays of 4 float64 each that
// benchmarks/manyarrays.py wrote with numpy, h5py (also in dense link
// storage: a fractal heap and a v2 B-tree of link names), scipy and
// hdf5storage, with the values the producers read back (KIND_200.json).
var manyFixtures = []struct{ file, prefix string }{
	{"npz_200.npz", ""},
	{"h5_200.h5", ""},
	{"h5dense_200.h5", ""},
	{"matvars_200.mat", ""},
	{"matstruct_200.mat", "s."},
	{"mat73vars_200.mat", ""},
	{"mat73struct_200.mat", "s."},
}

// TestArchiveOpenedOnce converts archives of 200 arrays to .npz: each
// input is opened and its directory read once for the whole run (not
// once per member, which made the cost quadratic in the number of
// arrays), and every array arrives with the producer's values.
func TestArchiveOpenedOnce(t *testing.T) {
	for _, fx := range manyFixtures {
		t.Run(fx.file, func(t *testing.T) {
			in := filepath.Join("testdata", "many", fx.file)
			var want struct {
				Count  int
				Values map[string][]float64
			}
			b, err := os.ReadFile(in[:len(in)-len(filepath.Ext(in))] + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.npz")
			before := archivesOpened.Load()
			if _, err := Convert(context.Background(), in, out, nil); err != nil {
				t.Fatal(err)
			}
			if n := archivesOpened.Load() - before; n != 1 {
				t.Errorf("the input was opened %d times, want once", n)
			}
			z, err := npyio.OpenNPZ(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			if len(z.Members) != want.Count {
				t.Fatalf("%d members, want %d", len(z.Members), want.Count)
			}
			var keys, wantKeys []string
			for i, m := range z.Members {
				keys = append(keys, m.Key)
				wantKeys = append(wantKeys, fx.prefix+"a"+itoa(int64(i)))
			}
			slices.Sort(keys) // HDF5 lists links by name, as h5py does
			slices.Sort(wantKeys)
			if !slices.Equal(keys, wantKeys) {
				t.Errorf("members %v..., want %v...", keys[:3], wantKeys[:3])
			}
			for name, vals := range want.Values {
				m := z.Member(fx.prefix + name)
				if m == nil {
					t.Fatalf("no member %s%s", fx.prefix, name)
				}
				r, err := m.Open()
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, r.Rows()*r.RowSize())
				for n := 0; n < int(r.Rows()); {
					k, err := r.ReadRows(buf[n*int(r.RowSize()):])
					if err != nil {
						t.Fatal(err)
					}
					n += k
				}
				got, err := npyio.View[float64](buf)
				if err != nil || r.DType().Kind != npyio.Float {
					t.Fatalf("%s: %v, %v", name, r.DType(), err)
				}
				if !slices.Equal(got, vals) {
					t.Errorf("%s: %v, want %v", name, got, vals)
				}
			}
		})
	}
}

// BenchmarkManyArrays converts files of 1,000 and 8,000 small arrays to
// .npz: the cost must grow linearly with the number of arrays. The
// files are made by benchmarks/manyarrays.py (numpy, h5py, scipy,
// hdf5storage) into $NPYFLOW_MANY_DIR, which `make -C benchmarks many`
// sets; without it the benchmark is skipped.
//
//	/usr/bin/python3 benchmarks/manyarrays.py /tmp/many 1000
//	/usr/bin/python3 benchmarks/manyarrays.py /tmp/many 8000
//	NPYFLOW_MANY_DIR=/tmp/many go test ./pipeline/ -run '^$' -bench ManyArrays -benchtime 1x
func BenchmarkManyArrays(b *testing.B) {
	dir := os.Getenv("NPYFLOW_MANY_DIR")
	if dir == "" {
		b.Skip("NPYFLOW_MANY_DIR is not set (see benchmarks/manyarrays.py)")
	}
	for _, kind := range []string{"npz", "h5", "h5dense", "matvars", "matstruct", "mat73vars", "mat73struct"} {
		for _, n := range []int{1000, 4000, 8000} {
			ins, _ := filepath.Glob(filepath.Join(dir, kind+"_"+itoa(int64(n))+".*[5tz]"))
			if len(ins) != 1 {
				continue
			}
			b.Run(kind+"/"+itoa(int64(n)), func(b *testing.B) {
				out := filepath.Join(b.TempDir(), "out.npz")
				for i := 0; i < b.N; i++ {
					if _, err := Convert(context.Background(), ins[0], out, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/array")
			})
		}
	}
}

// TestArchivesOfManyFiles reads four archives through one source: the
// files evicted from the handles cache after planning are opened again
// for the run, each at most twice, and every part is read from the
// right file.
func TestArchivesOfManyFiles(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "many", "h5dense_200.h5"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(dir, "f"+itoa(int64(i))+".h5"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jb := []byte(`version: 1
sources:
  s: {type: hdf5, paths: "f*.h5", datasets: [a0, a7]}
sinks:
  o: {type: npz, input: s, path: out.npz, member: "{stem}_{member}"}
`)
	j, err := job.Load(filepath.Join(dir, "job.yaml"), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := archivesOpened.Load()
	fds := openFDs()
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := archivesOpened.Load() - before; n < 4 || n > 8 {
		t.Errorf("4 files opened %d times, want 4 to 8", n)
	}
	if n := openFDs(); n > fds {
		t.Errorf("%d files left open after the run (%d before)", n, fds)
	}
	z, err := npyio.OpenNPZ(filepath.Join(dir, "out.npz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if len(z.Members) != 8 {
		t.Fatalf("%d members, want 8: %v", len(z.Members), z.Keys())
	}
	for _, m := range z.Members {
		r, err := m.Open()
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, r.Rows()*r.RowSize())
		if _, err := r.ReadRows(buf); err != nil {
			t.Fatal(err)
		}
		got, _ := npyio.View[float64](buf)
		first := 0.0
		if m.Key[len(m.Key)-2:] == "a7" {
			first = 28
		}
		if len(got) != 4 || got[0] != first || got[3] != first+3 {
			t.Errorf("%s: %v", m.Key, got)
		}
	}
}

// openFDs counts the process's open file descriptors (0 where /proc
// does not tell).
func openFDs() int {
	es, _ := os.ReadDir("/proc/self/fd")
	return len(es)
}
