package pipeline

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

func TestHiveEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain-value_1.5", "plain-value_1.5"},
		{"a/b", "a%2Fb"},
		{"k=v", "k%3Dv"},
		{"100%", "100%25"},
		{"x:y", "x%3Ay"},
		{"new\nline\t", "new%0Aline%09"},
		{`q"#'*?\`, "q%22%23%27%2A%3F%5C"},
		{"{[]}^", "%7B%5B%5D}%5E"},
		{"\x7f\x00", "%7F%00"},
		{"é 東京 <>|", "é 東京 <>|"},
	}
	for _, tc := range cases {
		if got := hiveEscape(tc.in); got != tc.want {
			t.Errorf("hiveEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := hiveUnescape(hiveEscape(tc.in)); back != tc.in {
			t.Errorf("hiveUnescape(hiveEscape(%q)) = %q", tc.in, back)
		}
	}
}

func TestPartitionValues(t *testing.T) {
	day, _ := npyio.NewDatetime("D", 1, false)
	u4, _ := npyio.NewString(npyio.Unicode, 4)
	s3, _ := npyio.NewString(npyio.Bytes, 3)
	cases := []struct {
		dt   *npyio.DType
		data []byte
		want string
	}{
		{npyio.Int8Type, []byte{0xff}, "-1"},
		{npyio.Int64Type, rowbytes.AppendNative(nil, uint64(1)<<40), "1099511627776"},
		{npyio.Uint16Type, binary.NativeEndian.AppendUint16(nil, 0x1234), "4660"},
		{npyio.BoolType, []byte{1}, "true"},
		{s3, []byte("ab\x00"), "ab"},
		{u4, func() []byte { b := make([]byte, 16); rowbytes.PutUCS4(b, "né"); return b }(), "né"},
		{day, rowbytes.AppendNative(nil, 19723), "2024-01-01"},
		{day, rowbytes.AppendNative(nil, 1<<63), ""}, // NaT
	}
	for _, tc := range cases {
		k := &partKey{name: "k", dt: tc.dt}
		if got := k.value(tc.data); got != tc.want {
			t.Errorf("%s value of %x = %q, want %q", tc.dt, tc.data, got, tc.want)
		}
	}
}

// writeRecords writes a .npy of n records (g int32 group, v float64).
func writeRecords(t *testing.T, path string, n, groups int, first int) {
	t.Helper()
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "g", Type: npyio.Int32Type}, {Name: "v", Type: npyio.Float64Type}})
	data := make([]byte, 0, n*dt.Size)
	for i := 0; i < n; i++ {
		data = binary.NativeEndian.AppendUint32(data, uint32((first+i)%groups))
		data = rowbytes.AppendFloat(data, float64(first+i))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := npyio.NewWriter(f, &npyio.Header{DType: dt, Shape: []int{n}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// runDataset runs a job in process and returns the summary and error.
func runDataset(t *testing.T, dir, jb string, so *ShardOptions, set ...string) (*Summary, error) {
	t.Helper()
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb), &job.LoadOptions{Set: set, LookupEnv: env(nil)})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		return nil, err
	}
	return p.Run(context.Background(), &RunOptions{Workers: 2, Shard: so})
}

// visibleFiles lists the files readers see under root, relative.
func visibleFiles(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != root && shardrun.HiddenName(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

const modeJob = `version: 1
sources:
  in: {type: npy, paths: "in/*.npy"}
sinks:
  ds:
    type: parquet
    input: in
    path: ds
    partition_by: [g]
`

func TestDatasetModes(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	writeRecords(t, filepath.Join(dir, "in", "a.npy"), 30, 3, 0)
	ds := filepath.Join(dir, "ds")
	first := []string{"g=0/part-00000-00000.parquet", "g=1/part-00000-00001.parquet", "g=2/part-00000-00002.parquet"}

	sum, err := runDataset(t, dir, modeJob, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := visibleFiles(t, ds); fmt.Sprint(got) != fmt.Sprint(first) {
		t.Errorf("files %v, want %v", got, first)
	}
	if sum.Shard == nil || sum.Shard.Committed == nil || sum.Shard.Committed.Rows["ds"] != 30 {
		t.Errorf("summary %+v", sum.Shard)
	}

	// error_if_exists refuses at plan time.
	if _, err := runDataset(t, dir, modeJob, nil, "sinks.ds.mode=error_if_exists"); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("error_if_exists on an existing dataset: %v", err)
	}
	// skip_existing leaves a committed dataset alone.
	writeRecords(t, filepath.Join(dir, "in", "b.npy"), 10, 5, 100)
	if _, err := runDataset(t, dir, modeJob, nil, "sinks.ds.mode=skip_existing"); err != nil {
		t.Fatal(err)
	}
	if got := visibleFiles(t, ds); fmt.Sprint(got) != fmt.Sprint(first) {
		t.Errorf("skip_existing changed the dataset: %v", got)
	}
	// append adds files named after the run next to the old ones.
	if _, err := runDataset(t, dir, modeJob, nil, "sinks.ds.mode=append"); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(visibleFiles(t, ds), " ")
	if n := strings.Count(got, ".parquet"); n != 3+5 || !strings.Contains(got, first[0]) || !strings.Contains(got, "g=4/part-00000-") {
		t.Errorf("after append: %v", got)
	}
	// overwrite replaces everything with this run's files, removing
	// partitions that no longer exist.
	os.Remove(filepath.Join(dir, "in", "b.npy"))
	if _, err := runDataset(t, dir, modeJob, nil); err != nil {
		t.Fatal(err)
	}
	if got := visibleFiles(t, ds); fmt.Sprint(got) != fmt.Sprint(first) {
		t.Errorf("after overwrite: %v, want %v", got, first)
	}
	if _, err := os.Stat(filepath.Join(ds, "g=4")); err == nil {
		t.Error("overwrite left the empty partition g=4")
	}
	if _, err := os.Stat(filepath.Join(ds, shardrun.SuccessFile)); err != nil {
		t.Error(err)
	}
}

func TestDatasetFileTargets(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	writeRecords(t, filepath.Join(dir, "in", "a.npy"), 5000, 1, 0)
	jb := strings.Replace(modeJob, "partition_by: [g]", "dataset: true\n    compression: none", 1)
	for _, tc := range []struct {
		set   string
		files int
	}{
		{"sinks.ds.max_rows_per_file=1000", 5},
		{"sinks.ds.max_rows_per_file=1001", 5},
		{"sinks.ds.max_bytes_per_file=20000", 3}, // 12 bytes a row uncompressed
	} {
		sum, err := runDataset(t, dir, jb, nil, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		st := sum.Sinks[0]
		if len(st.Files) != tc.files || st.Rows != 5000 {
			t.Errorf("%s: %d files, %d rows; want %d files", tc.set, len(st.Files), st.Rows, tc.files)
		}
	}
}

func TestShardRefusals(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	writeRecords(t, filepath.Join(dir, "in", "a.npy"), 10, 2, 0)
	writeRecords(t, filepath.Join(dir, "in", "b.npy"), 10, 2, 10)
	cases := []struct{ name, jb, err string }{
		{"one file", `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
sinks: {o: {type: npy, input: in, path: out/all.npy}}
`, "writes one file for all inputs"},
		{"limit", `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
transforms: {l: {type: limit, input: in, rows: 3}}
sinks: {o: {type: parquet, input: l, path: out/ds, dataset: true}}
`, "transforms.l is a limit transform"},
		{"append file", `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
sinks: {o: {type: parquet, input: in, path: out/x.parquet, mode: append}}
`, "append needs a dataset"},
		{"partition float", `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
sinks: {o: {type: parquet, input: in, path: out/ds, partition_by: v}}
`, "cannot partition by \"v\""},
		{"partition missing", `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
sinks: {o: {type: parquet, input: in, path: out/ds, partition_by: [gg]}}
`, "did you mean \"g\""},
		{"partition all", `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
transforms: {s: {type: select, input: in, fields: [g]}}
sinks: {o: {type: parquet, input: s, path: out/ds, partition_by: [g]}}
`, "no column would be left"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runDataset(t, dir, tc.jb, &ShardOptions{Shard: shardrun.Shard{Index: 1, Count: 2}})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want an error with %q", err, tc.err)
			}
		})
	}
}

// TestPerFileSinkShards runs a per-input npy sink as two shards with
// skip_existing: each shard writes only its inputs' files, nothing shows
// before the commit, and a second run skips every existing file.
func TestPerFileSinkShards(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	for i := 0; i < 5; i++ {
		writeRecords(t, filepath.Join(dir, "in", fmt.Sprintf("f%d.npy", i)), 10+i*20, 2, i*100)
	}
	jb := `version: 1
sources: {in: {type: npy, paths: "in/*.npy"}}
sinks: {o: {type: npy, input: in, path: "out/{stem}.npy", mode: skip_existing}}
`
	s0, err := runDataset(t, dir, jb, &ShardOptions{Shard: shardrun.Shard{Index: 0, Count: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := visibleFiles(t, filepath.Join(dir, "out")); len(got) != 0 {
		t.Errorf("visible before commit: %v", got)
	}
	s1, err := runDataset(t, dir, jb, &ShardOptions{Shard: shardrun.Shard{Index: 1, Count: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if s0.Shard.Assigned+s1.Shard.Assigned != 5 || s1.Shard.Committed == nil {
		t.Fatalf("shards %+v %+v", s0.Shard, s1.Shard)
	}
	got := visibleFiles(t, filepath.Join(dir, "out"))
	if fmt.Sprint(got) != "[f0.npy f1.npy f2.npy f3.npy f4.npy]" {
		t.Errorf("outputs %v", got)
	}
	for i := 0; i < 5; i++ {
		a, err := npyio.ReadFile(filepath.Join(dir, "out", fmt.Sprintf("f%d.npy", i)), nil)
		if err != nil || a.Header.Shape[0] != 10+i*20 {
			t.Errorf("f%d.npy: %v", i, err)
		}
	}
	// The same job again: a new run (the outputs exist), every file skipped.
	os.Remove(filepath.Join(dir, "out", "_SUCCESS"))
	sum, err := runDataset(t, dir, jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Sinks[0].Files) != 0 {
		t.Errorf("skip_existing rewrote %v", sum.Sinks[0].Files)
	}
}

// TestFrozenPlanIgnoresNewFiles: a shard running a frozen plan reads the
// planned inputs even after more files arrive, and refuses an input that
// changed.
func TestFrozenPlanIgnoresNewFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	writeRecords(t, filepath.Join(dir, "in", "a.npy"), 10, 2, 0)
	writeRecords(t, filepath.Join(dir, "in", "b.npy"), 20, 2, 10)
	text := []byte(modeJob)
	j, err := job.Load(filepath.Join(dir, "job.yaml"), text, &job.LoadOptions{LookupEnv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := p.Freeze(context.Background(), 2, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan.json")
	if err := fp.WriteFile(context.Background(), planFile); err != nil {
		t.Fatal(err)
	}
	writeRecords(t, filepath.Join(dir, "in", "0late.npy"), 7, 2, 50) // sorts first
	fp, err = LoadFrozenPlan(context.Background(), planFile)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for i := 0; i < 2; i++ {
		jb, err := fp.LoadJob(&job.LoadOptions{LookupEnv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(context.Background(), jb, &PlanOptions{Frozen: fp})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := p.Run(context.Background(), &RunOptions{Shard: &ShardOptions{Shard: shardrun.Shard{Index: i}}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Shard.Run != fp.ID {
			t.Errorf("shard %d ran run %s, the plan is %s", i, sum.Shard.Run, fp.ID)
		}
		rows += sum.Rows
	}
	if rows != 30 {
		t.Errorf("shards read %d rows, the plan has 30", rows)
	}
	// A planned input that changed is refused.
	os.RemoveAll(filepath.Join(dir, "ds"))
	writeRecords(t, filepath.Join(dir, "in", "b.npy"), 20, 2, 99)
	jb, _ := fp.LoadJob(&job.LoadOptions{LookupEnv: env(nil)})
	p, err = NewPlan(context.Background(), jb, &PlanOptions{Frozen: fp})
	if err != nil {
		t.Fatal(err)
	}
	shard := fp.Inputs[1].Shard
	_, err = p.Run(context.Background(), &RunOptions{Shard: &ShardOptions{Shard: shardrun.Shard{Index: shard}}})
	if err == nil || !strings.Contains(err.Error(), "changed since planning") {
		t.Errorf("changed input: %v", err)
	}
}

// BenchmarkPartitionedDataset writes 1Mi records (g int32 in 16 groups,
// v float64) from 4 files as a dataset partitioned by g, as shard 0 of 1
// with a checkpoint at the end.
func BenchmarkPartitionedDataset(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	t := &testing.T{}
	const files, rows = 4, 1 << 18
	for i := 0; i < files; i++ {
		writeRecords(t, filepath.Join(dir, "in", fmt.Sprintf("f%d.npy", i)), rows, 16, i*rows)
	}
	jb := strings.Replace(modeJob, "partition_by: [g]", "partition_by: [g]\n    compression: snappy", 1)
	b.SetBytes(files * rows * 12)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb), &job.LoadOptions{LookupEnv: env(nil)})
		if err != nil {
			b.Fatal(err)
		}
		p, err := NewPlan(context.Background(), j, nil)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := p.Run(context.Background(), &RunOptions{Shard: &ShardOptions{CheckpointBytes: -1}})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Rows != files*rows || len(sum.Sinks[0].Files) != 16 {
			b.Fatalf("%d rows, %d files", sum.Rows, len(sum.Sinks[0].Files))
		}
	}
}

// hiveUnescape reverses hiveEscape (any %XX is decoded, like Hive).
func hiveUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
