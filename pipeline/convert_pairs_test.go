package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/zarr"
)

// TestConvertMatchesJob runs every readable x writable format pair
// through Convert and through a job with one source and one sink of the
// same formats and options, and requires byte-identical outputs (the
// same arrays for .mat and .h5, whose headers hold a time): convert is
// that job. The job spells out the options convert gives the source and
// sink: the array named after the one read ({array}), an archive read as
// one table into a format that is not one (table: true), a Parquet or
// Arrow table's columns written as .npz members (split_fields). Inputs
// are a plain 2-d array, a record array and an archive of three arrays
// of one length (first written as .npy or .npz, then converted to each
// input format).
func TestConvertMatchesJob(t *testing.T) {
	dir := t.TempDir()
	rec, err := npyio.NewStruct([]npyio.Field{{Name: "id", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float32Type}})
	if err != nil {
		t.Fatal(err)
	}
	fill := func(a *npyio.Array) *npyio.Array {
		a.DType = a.Header.DType
		a.Data = make([]byte, a.Header.DataSize())
		for i := range a.Data {
			a.Data[i] = byte(i*7 + i/8)
		}
		return a
	}
	arrays := map[string]*npyio.Array{
		"plain":  fill(&npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{50, 3}}}),
		"record": fill(&npyio.Array{Header: &npyio.Header{DType: rec, Shape: []int{40}}}),
	}
	for name, a := range arrays {
		f, err := os.Create(filepath.Join(dir, name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		if err := npyio.WriteArray(f, a); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	// An archive of arrays of one length: one table's columns (2-d: a
	// MAT-file holds a 1-d array as a 1 x n row).
	f, err := os.Create(filepath.Join(dir, "members.npz"))
	if err != nil {
		t.Fatal(err)
	}
	err = npyio.SaveNPZ(f, false, nil,
		npyio.NamedArray{Key: "a", Array: fill(&npyio.Array{Header: &npyio.Header{DType: npyio.Int32Type, Shape: []int{30, 1}}})},
		npyio.NamedArray{Key: "b", Array: fill(&npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{30, 2}}})},
		npyio.NamedArray{Key: "c", Array: fill(&npyio.Array{Header: &npyio.Header{DType: npyio.Uint8Type, Shape: []int{30, 1}}})})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"npy", "npz", "parquet", "arrow", "hdf5", "mat", "zarr"}
	pairs, tables, mixed := 0, 0, 0
	for _, name := range []string{"plain", "record", "members"} {
		srcExt := "npy"
		if name == "members" {
			srcExt = "npz"
		}
		src := filepath.Join(dir, name+"."+srcExt)
		for _, from := range kinds {
			in := filepath.Join(dir, name+"."+from)
			if from != srcExt {
				// The input in each format, named like the column.
				flags := map[string]string{"name": "col"}
				if from == "zarr" && name == "record" {
					flags["zarr-format"] = "2" // v3 has no structured types
				}
				if _, err := Convert(context.Background(), src, in, &ConvertOptions{Flags: flags}); err != nil {
					t.Fatal(err)
				}
			}
			for _, to := range kinds {
				t.Run(fmt.Sprintf("%s/%s-to-%s", name, from, to), func(t *testing.T) {
					pairs++
					sub := t.TempDir()
					conv := filepath.Join(sub, "convert."+to)
					// A struct's fields (col.id) are no MATLAB names.
					opts := &ConvertOptions{Flags: map[string]string{"compression": compressionFor(to), "rename-invalid": strconv.FormatBool(from == "mat" && to == "mat")}}
					if to == "zarr" && (name == "record" || name == "members" && from == "npy") {
						opts.Flags["zarr-format"] = "2" // v3 has no structured types
					}
					if _, err := Convert(context.Background(), in, conv, opts); err != nil {
						t.Fatalf("convert: %v", err)
					}
					// The job as it is, and with an identity transform
					// between source and sink (rows pushed, not copied).
					for _, identity := range []bool{false, true} {
						out := filepath.Join(sub, fmt.Sprintf("job%v.%s", identity, to))
						err := runOneToOne(sub, in, from, out, to, opts, identity)
						if identity && mixedSource(t, sub, in, from, to, opts) {
							// Its parts differ: each is written as it is,
							// and no transform takes them (one schema).
							if err == nil {
								t.Error("an identity transform took a source of mixed parts")
							}
							mixed++
							continue
						}
						if err != nil {
							t.Fatal(err)
						}
						if !identity && tableFor(from, to) {
							tables++
						}
						want, _ := os.ReadFile(conv)
						got, err := os.ReadFile(out)
						if err != nil && to != "zarr" {
							t.Fatal(err)
						}
						if to == "mat" || to == "hdf5" || to == "zarr" {
							// The MAT-file header holds its creation time:
							// compare what the files hold.
							want, got = []byte(containerSummary(t, conv)), []byte(containerSummary(t, out))
						}
						if len(want) == 0 || !bytes.Equal(got, want) {
							t.Errorf("job output (identity transform %v, %d bytes) differs from convert's (%d bytes)", identity, len(got), len(want))
						}
					}
				})
			}
		}
	}
	if pairs != 3*len(kinds)*len(kinds) || tables < 9 || mixed > 30 {
		t.Errorf("%d pairs ran, %d of them reading an archive as one table, %d without the identity transform (a source of mixed parts)", pairs, tables, mixed)
	}
}

// TestConvertMatchesJobFixtures converts the committed fixtures written
// by numpy, h5py, scipy, MATLAB, pyarrow and others (testdata/npy and
// testdata/npz, and the .h5, .mat, .parquet and .arrow files of the
// format packages) to .npy, .npz, .parquet and .arrow, once with Convert
// and once with the job Convert is, with an identity transform between
// source and sink (the sink pushed rows, not copied a part): the outputs
// must be byte-identical, or both must fail. make test runs a fixed
// sample; NPYFLOW_LONG=1 every file.
func TestConvertMatchesJobFixtures(t *testing.T) {
	var inputs []string
	for _, pattern := range []string{
		"../testdata/npy/*.npy", "../testdata/npz/*.npz",
		"../hdf5/testdata/*.h5", "../hdf5/testdata/*/*.h5",
		"../matfile/testdata/*.mat", "../matfile/testdata/*/*.mat", "../matfile/testdata/*/*/*.mat",
		"../parquetio/testdata/foreign/*.parquet", "../arrowconv/testdata/foreign/*.arrow",
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			abs, err := filepath.Abs(f) // the job's paths are relative to it
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, abs)
		}
	}
	if len(inputs) < 400 {
		t.Fatalf("%d fixtures found", len(inputs))
	}
	// The sample: every 25th file, and the files that once differed (a
	// datetime64 holding int64's extremes, a record of them).
	sample := map[string]bool{"M8_10ms_be_1d.npy": true, "M8_D_le_1d.npy": true, "m8_us_le_2d_f.npy": true}
	pairs, refused, differ, mixed := 0, 0, 0, 0
	for i, in := range inputs {
		if !fixtures.Long() && i%25 != 0 && !sample[filepath.Base(in)] {
			continue
		}
		from := FormatOf(in).Name
		for _, to := range []string{"npy", "npz", "parquet", "arrow"} {
			rel, _ := filepath.Rel(filepath.Dir(filepath.Dir(in)), in)
			name := rel + "-to-" + to
			t.Run(name, func(t *testing.T) {
				pairs++
				sub := t.TempDir()
				conv := filepath.Join(sub, "convert."+to)
				opts := &ConvertOptions{Flags: map[string]string{"compression": compressionFor(to)}, Warn: func(string) {}}
				_, cerr := Convert(context.Background(), in, conv, opts)
				out := filepath.Join(sub, "job."+to)
				identity := !mixedSource(t, sub, in, from, to, opts)
				if !identity {
					mixed++ // compared with the job without a transform
				}
				jerr := runOneToOne(sub, in, from, out, to, opts, identity)
				switch {
				case cerr != nil && jerr != nil:
					refused++
					return
				case cerr != nil || jerr != nil:
					differ++
					t.Errorf("convert: %v\njob: %v", cerr, jerr)
					return
				}
				want, got := readOutput(t, conv), readOutput(t, out)
				if !bytes.Equal(got, want) {
					differ++
					t.Errorf("job output (%d bytes) differs from convert's (%d bytes)", len(got), len(want))
				}
			})
		}
	}
	t.Logf("%d inputs, %d pairs (%d of them of a source of mixed parts, without the transform): %d refused by both, %d differ", len(inputs), pairs, mixed, refused, differ)
}

// readOutput returns the bytes of the file at path, or of the files of
// the directory at path, each after its name.
func readOutput(t *testing.T, path string) []byte {
	t.Helper()
	var out []byte
	err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		out = append(append(append(out, rel...), 0), b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// containerSummary lists what a .mat or .h5 file holds: each array's
// name, dtype, shape and data (hex).
func containerSummary(t *testing.T, path string) string {
	t.Helper()
	var sb strings.Builder
	if strings.HasSuffix(path, ".zarr") {
		ctx := context.Background()
		s := zarr.NewFSStore(path)
		defer s.Close()
		g, err := zarr.OpenGroup(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range g.Arrays {
			a, err := g.OpenArray(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, a.NumElements()*int64(a.DType.ItemSize()))
			if err := a.Read(ctx, make([]int64, len(a.Shape)), a.Shape, buf); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%s %s %v %x\n", name, a.DType.Descr, a.Shape, buf)
		}
		return sb.String()
	}
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

// tableFor reports whether convert reads an archive of format from as
// one table when it writes format to (one that holds no arrays by name).
func tableFor(from, to string) bool {
	archive := map[string]bool{"npz": true, "hdf5": true, "mat": true, "zarr": true}
	return archive[from] && !archive[to]
}

// runOneToOne runs the job "source of type from reading in, sink of type
// to writing out" with the options Convert gives them (Convert's flags o,
// and its defaults); with identity, a transform that passes every row
// (slice from 0) sits between them, so that the sink is pushed rows.
func runOneToOne(dir, in, from, out, to string, o *ConvertOptions, identity bool) error {
	return runJobErr(dir, oneToOneText(in, from, out, to, o, identity))
}

// mixedSource reports whether the source of the job runOneToOne runs
// gives parts of different schemas (an archive's arrays, each written as
// it is), which no transform takes: a transform has one schema.
func mixedSource(t *testing.T, dir, in, from, to string, o *ConvertOptions) bool {
	t.Helper()
	text := oneToOneText(in, from, filepath.Join(dir, "mixed."+to), to, o, false)
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(context.Background(), jb, &PlanOptions{Warn: func(string) {}})
	if err != nil {
		return false // refused as it is: by both, or told by the caller
	}
	return plan.nodes["s"].(*fileSource).mixed != nil
}

// oneToOneText is the text of the job runOneToOne runs.
func oneToOneText(in, from, out, to string, o *ConvertOptions, identity bool) string {
	source := fmt.Sprintf("{type: %s, paths: %q", from, in)
	if tableFor(from, to) {
		source += ", table: true"
	}
	input, transforms := "s", ""
	if identity {
		input, transforms = "t", "transforms:\n  t: {type: slice, input: s, start: 0}\n"
	}
	sink := fmt.Sprintf("{type: %s, input: %s, path: %q", to, input, out)
	switch to {
	case "npz":
		sink += ", member: \"{array}\""
		if from == "parquet" || from == "arrow" {
			sink += ", split_fields: true"
		}
	case "parquet", "arrow":
		sink += fmt.Sprintf(", column: \"{array}\", compression: %s", o.Flags["compression"])
	case "mat":
		sink += fmt.Sprintf(", variable: \"{array}\", rename_invalid: %v", o.Flags["rename-invalid"] == "true")
	case "hdf5":
		sink += ", dataset: \"{array}\""
	case "zarr":
		sink += ", array: \"{array}\""
		if from == "parquet" || from == "arrow" {
			sink += ", split_fields: true"
		}
		if v := o.Flags["zarr-format"]; v != "" {
			sink += ", zarr_format: " + v
		}
	}
	return fmt.Sprintf("version: 1\nsources:\n  s: %s}\n%ssinks:\n  o: %s}\n", source, transforms, sink)
}

// runJobErr loads job text (as dir/job.yaml) and runs it, its warnings
// dropped.
func runJobErr(dir, text string) error {
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		return fmt.Errorf("%s\n%w", text, err)
	}
	plan, err := NewPlan(context.Background(), jb, &PlanOptions{Warn: func(string) {}})
	if err != nil {
		return err
	}
	_, err = plan.Run(context.Background(), &RunOptions{})
	return err
}

// runJobText loads job text (as dir/job.yaml) and runs it, failing the
// test on any error.
func runJobText(t *testing.T, dir, text string) {
	t.Helper()
	if err := runJobErr(dir, text); err != nil {
		t.Fatal(err)
	}
}
