package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// TestConvertMatchesJob runs every format pair through Convert and
// through a job with one source and one sink of the same formats and
// options, and requires byte-identical outputs: the two paths are one
// conversion. Inputs are a plain 2-d array and a record array (first
// written as .npy, then converted to each input format); a record array
// is not written to .npz, where convert makes one member per column and
// the npz sink one structured member: that pair is defined differently.
func TestConvertMatchesJob(t *testing.T) {
	dir := t.TempDir()
	rec, err := npyio.NewStruct([]npyio.Field{{Name: "id", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float32Type}})
	if err != nil {
		t.Fatal(err)
	}
	arrays := map[string]*npyio.Array{
		"plain":  {Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{50, 3}}, DType: npyio.Float64Type, Data: make([]byte, 50*3*8)},
		"record": {Header: &npyio.Header{DType: rec, Shape: []int{40}}, DType: rec, Data: make([]byte, 40*rec.Size)},
	}
	for _, a := range arrays {
		for i := range a.Data {
			a.Data[i] = byte(i*7 + i/8)
		}
	}
	kinds := []string{"npy", "npz", "parquet", "arrow", "hdf5", "mat"}
	pairs := 0
	for name, a := range arrays {
		src := filepath.Join(dir, name+".npy")
		f, err := os.Create(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := npyio.WriteArray(f, a); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for _, from := range kinds {
			in := filepath.Join(dir, name+"."+from)
			if from != "npy" {
				// The input in each format, named like the column.
				if _, err := Convert(context.Background(), src, in, &ConvertOptions{Name: "col"}); err != nil {
					t.Fatal(err)
				}
			}
			for _, to := range kinds {
				if to == "npz" && name == "record" || from == "npz" && to == "npz" {
					continue // defined differently (see above), or an archive copy
				}
				if from == "mat" && name == "record" {
					continue // a 1x1 struct: one array per field (col.id, col.x), which a job source cannot read as one table
				}
				t.Run(fmt.Sprintf("%s/%s-to-%s", name, from, to), func(t *testing.T) {
					pairs++
					sub := t.TempDir()
					conv := filepath.Join(sub, "convert."+to)
					opts := &ConvertOptions{Name: "col", Compression: compressionFor(to)}
					if _, err := Convert(context.Background(), in, conv, opts); err != nil {
						t.Fatalf("convert: %v", err)
					}
					jb := filepath.Join(sub, "job."+to)
					runOneToOne(t, sub, in, from, jb, to, opts)
					want, _ := os.ReadFile(conv)
					got, err := os.ReadFile(jb)
					if err != nil {
						t.Fatal(err)
					}
					if to == "mat" || to == "hdf5" {
						// The MAT-file header holds its creation time:
						// compare what the files hold.
						want, got = []byte(containerSummary(t, conv)), []byte(containerSummary(t, jb))
					}
					if len(want) == 0 || !bytes.Equal(got, want) {
						t.Errorf("job output (%d bytes) differs from convert's (%d bytes)", len(got), len(want))
					}
				})
			}
		}
	}
	if pairs < 20 {
		t.Errorf("only %d pairs ran", pairs)
	}
}

// containerSummary lists what a .mat or .h5 file holds: each array's
// name, dtype, shape and data (hex).
func containerSummary(t *testing.T, path string) string {
	t.Helper()
	var sb strings.Builder
	if strings.HasSuffix(path, ".mat") {
		arrs, _, err := matfile.ReadArrays(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arrs {
			fmt.Fprintf(&sb, "%s %s %v %x\n", a.Key, a.Array.DType, a.Array.Header.Shape, a.Array.CData())
		}
		return sb.String()
	}
	f, err := hdf5.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = f.Walk(func(p string, o hdf5.Object) error {
		ds, ok := o.(*hdf5.Dataset)
		if !ok {
			return nil
		}
		dt, err := ds.DType()
		if err != nil {
			return err
		}
		data, err := ds.ReadAll()
		fmt.Fprintf(&sb, "%s %s %v %x\n", p, dt, ds.Shape(), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

func compressionFor(format string) string {
	switch format {
	case "parquet", "arrow":
		return "zstd"
	}
	return ""
}

// runOneToOne runs the job "source of type from reading in, sink of type
// to writing out", with the options Convert was given.
func runOneToOne(t *testing.T, dir, in, from, out, to string, o *ConvertOptions) {
	t.Helper()
	sink := fmt.Sprintf("{type: %s, input: s, path: %q", to, out)
	switch to {
	case "npz":
		sink += ", member: col"
	case "parquet", "arrow":
		sink += fmt.Sprintf(", column: %s, compression: %s", o.Name, o.Compression)
	case "mat":
		sink += ", variable: col"
	case "hdf5":
		sink += ", dataset: col"
	}
	runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  s: {type: %s, paths: %q}\nsinks:\n  o: %s}\n", from, in, sink))
}

// runJobText loads job text (as dir/job.yaml) and runs it, failing the
// test on any error.
func runJobText(t *testing.T, dir, text string) {
	t.Helper()
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatalf("%s\n%v", text, err)
	}
	plan, err := NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Run(context.Background(), &RunOptions{}); err != nil {
		t.Fatal(err)
	}
}
