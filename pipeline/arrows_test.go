package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/npyflow/npyflow/npyio"
)

// arrowsRows is the table of the .arrows tests: row r holds
// i = r*r - 50, f = r/4, s = arrowsStrings[r%4], b = r%3 == 0.
const arrowsRows = 1000

var arrowsStrings = []string{"", "a", "bé", "ccc"}

// writeArrowsInput writes the table as a structured .npy.
func writeArrowsInput(t *testing.T, path string) []byte {
	t.Helper()
	dt, err := npyio.ParseDescr("[('i', '<i8'), ('f', '<f4'), ('s', '<U3'), ('b', '|b1')]")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, arrowsRows*dt.Size)
	for r := 0; r < arrowsRows; r++ {
		row := data[r*dt.Size:]
		binary.LittleEndian.PutUint64(row, uint64(int64(r*r-50)))
		binary.LittleEndian.PutUint32(row[8:], math.Float32bits(float32(r)/4))
		for k, c := range []rune(arrowsStrings[r%4]) {
			binary.LittleEndian.PutUint32(row[12+4*k:], uint32(c))
		}
		if r%3 == 0 {
			row[24] = 1
		}
	}
	var buf bytes.Buffer
	if err := npyio.WriteArray(&buf, &npyio.Array{Header: &npyio.Header{DType: dt, Shape: []int{arrowsRows}}, DType: dt, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkArrowsStream reads path with arrow-go's stream reader (ipc.NewReader,
// not arrowconv) and checks every value of the table.
func checkArrowsStream(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("%s starts % x, not a stream's continuation marker", path, b[:8])
	}
	rd, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rd.Release()
	var names []string
	for _, f := range rd.Schema().Fields() {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "i,f,s,b" {
		t.Fatalf("%s: columns %v", path, names)
	}
	r := 0
	for rd.Next() {
		rec := rd.RecordBatch()
		i, ok1 := rec.Column(0).(*array.Int64)
		f, ok2 := rec.Column(1).(*array.Float32)
		s, ok3 := rec.Column(2).(*array.String)
		bo, ok4 := rec.Column(3).(*array.Boolean)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			t.Fatalf("%s: column types %s", path, rec.Schema())
		}
		for k := 0; k < int(rec.NumRows()); k, r = k+1, r+1 {
			if i.Value(k) != int64(r*r-50) || f.Value(k) != float32(r)/4 || s.Value(k) != arrowsStrings[r%4] || bo.Value(k) != (r%3 == 0) {
				t.Fatalf("%s row %d: %d %v %q %v", path, r, i.Value(k), f.Value(k), s.Value(k), bo.Value(k))
			}
		}
	}
	if err := rd.Err(); err != nil || r != arrowsRows {
		t.Fatalf("%s: %d rows, %v", path, r, err)
	}
}

// TestConvertArrows: .arrows is an Arrow IPC stream out (uncompressed by
// default, zstd and lz4 on request) and in: arrow-go's stream reader reads
// every value, and it converts back to the same .npy bytes, from the file
// or from standard input ("-", its format known by its first bytes), and
// to an IPC file; convert and inspect of "-" that is no format say so.
func TestConvertArrows(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.npy")
	orig := writeArrowsInput(t, in)
	for _, comp := range []string{"", "zstd", "lz4"} {
		out := filepath.Join(dir, "t"+comp+".arrows")
		if _, err := Convert(context.Background(), in, out, &ConvertOptions{Compression: comp}); err != nil {
			t.Fatal(err)
		}
		checkArrowsStream(t, out)
		back := filepath.Join(dir, "back"+comp+".npy")
		if _, err := Convert(context.Background(), out, back, nil); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(back); !bytes.Equal(b, orig) {
			t.Errorf("%s -> .npy: not the input's bytes", out)
		}
	}
	stream, err := os.ReadFile(filepath.Join(dir, "t.arrows"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "tzstd.arrows")); st == nil || st.Size() >= int64(len(stream)) {
		t.Errorf("zstd stream not smaller than %d bytes", len(stream))
	}
	// Standard input, to .npy and to an IPC file.
	back := filepath.Join(dir, "stdin.npy")
	if _, err := Convert(context.Background(), StdinName, back, &ConvertOptions{Stdin: bytes.NewReader(stream)}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(back); !bytes.Equal(b, orig) {
		t.Error("- (an .arrows stream) -> .npy: not the input's bytes")
	}
	file := filepath.Join(dir, "f.arrow")
	if _, err := Convert(context.Background(), filepath.Join(dir, "t.arrows"), file, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); !bytes.HasPrefix(b, []byte("ARROW1")) {
		t.Errorf(".arrows -> .arrow: no IPC file magic")
	}
	ins, err := InspectOptions(context.Background(), StdinName, &ConvertOptions{Stdin: bytes.NewReader(stream)})
	if err != nil {
		t.Fatal(err)
	}
	if ins.Table == nil || ins.Table.File != "-" || ins.Table.IPC != "stream" || ins.Table.Rows != arrowsRows || len(ins.Table.Columns) != 4 {
		t.Errorf("inspect -: %+v", ins.Table)
	}
	for _, bad := range []string{"", "hello, world"} {
		_, err := Convert(context.Background(), StdinName, filepath.Join(dir, "x.npy"), &ConvertOptions{Stdin: strings.NewReader(bad)})
		if err == nil || !strings.Contains(err.Error(), "standard input") {
			t.Errorf("stdin %q: %v", bad, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.npy")); err == nil {
			t.Errorf("stdin %q: output left", bad)
		}
	}
}

// TestJobArrows: a job's arrow sink writes a stream to a path ending in
// .arrows (format: file still writes a file there), and its arrow source
// reads .arrows files, with every value.
func TestJobArrows(t *testing.T) {
	dir := t.TempDir()
	orig := writeArrowsInput(t, filepath.Join(dir, "t.npy"))
	runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  t: {type: npy, paths: '%s/t.npy'}\nsinks:\n  o: {type: arrow, input: t, path: '%s/j.arrows'}\n  f: {type: arrow, input: t, format: file, path: '%s/jf.arrows'}\n", dir, dir, dir))
	checkArrowsStream(t, filepath.Join(dir, "j.arrows"))
	if b, _ := os.ReadFile(filepath.Join(dir, "jf.arrows")); !bytes.HasPrefix(b, []byte("ARROW1")) {
		t.Errorf("format: file wrote no IPC file")
	}
	runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  t: {type: arrow, paths: '%s/j.arrows'}\nsinks:\n  o: {type: npy, input: t, path: '%s/back.npy'}\n", dir, dir))
	if b, _ := os.ReadFile(filepath.Join(dir, "back.npy")); !bytes.Equal(b, orig) {
		t.Error("job .arrows -> .npy: not the input's bytes")
	}
}

// TestArrowsArrowJS: Apache Arrow JS reads convert's .arrows output with
// every value. Optional: skipped unless node and apache-arrow are
// installed in $ARROWJS_DIR (default /tmp/pqval-arrowjs).
func TestArrowsArrowJS(t *testing.T) {
	jsdir := os.Getenv("ARROWJS_DIR")
	if jsdir == "" {
		jsdir = "/tmp/pqval-arrowjs"
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	if _, err := os.Stat(filepath.Join(jsdir, "node_modules", "apache-arrow")); err != nil {
		t.Skipf("apache-arrow not installed in %s", jsdir)
	}
	dir := t.TempDir()
	writeArrowsInput(t, filepath.Join(dir, "t.npy"))
	out := filepath.Join(dir, "t.arrows")
	if _, err := Convert(context.Background(), filepath.Join(dir, "t.npy"), out, nil); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../arrowconv/testdata/read_arrow.mjs")
	cmd := exec.Command(node, script, out)
	cmd.Env = append(os.Environ(), "ARROWJS_DIR="+jsdir)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("arrow js: %v\n%s", err, b)
	}
	var got struct {
		NumRows int
		Columns []struct {
			Name   string
			Values []any
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.NumRows != arrowsRows || len(got.Columns) != 4 {
		t.Fatalf("arrow js: %d rows, %d columns", got.NumRows, len(got.Columns))
	}
	for r := 0; r < arrowsRows; r++ {
		want := []any{fmt.Sprint(r*r - 50), fmt.Sprint(float64(float32(r) / 4)), arrowsStrings[r%4], r%3 == 0}
		for k, c := range got.Columns {
			if c.Values[r] != want[k] {
				t.Fatalf("arrow js row %d %s: %v, want %v", r, c.Name, c.Values[r], want[k])
			}
		}
	}
}

// TestJobStdin: a source whose paths are "-" reads standard input (an
// .arrows stream here) with every value, and its temporary copy is gone
// after the run; a second source of "-" and freezing such a plan are
// refused.
func TestJobStdin(t *testing.T) {
	dir := t.TempDir()
	orig := writeArrowsInput(t, filepath.Join(dir, "t.npy"))
	if _, err := Convert(context.Background(), filepath.Join(dir, "t.npy"), filepath.Join(dir, "t.arrows"), nil); err != nil {
		t.Fatal(err)
	}
	stream, err := os.ReadFile(filepath.Join(dir, "t.arrows"))
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("version: 1\nsources:\n  t: {type: arrow, paths: '-'}\nsinks:\n  o: {type: npy, input: t, path: '%s/back.npy'}\n", dir)
	j, err := Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlanWith(j, &PlanOptions{Stdin: bytes.NewReader(stream)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Freeze(context.Background(), 1, []byte(text), nil); err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("freezing a plan of stdin: %v", err)
	}
	copied := plan.Sources[0].Parts[0].Path
	if _, err := os.Stat(copied); err != nil {
		t.Fatalf("the copy of stdin: %v", err)
	}
	if _, err := plan.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "back.npy")); !bytes.Equal(b, orig) {
		t.Error("job - (an .arrows stream) -> .npy: not the input's bytes")
	}
	if _, err := os.Stat(copied); err == nil {
		t.Errorf("%s left after the run", copied)
	}

	two := fmt.Sprintf("version: 1\nsources:\n  t: {type: arrow, paths: '-'}\n  u: {type: arrow, paths: '-'}\nsinks:\n  o: {type: npy, input: t, path: '%s/a.npy'}\n  p: {type: npy, input: u, path: '%s/b.npy'}\n", dir, dir)
	j, err = Load(filepath.Join(dir, "job.yaml"), []byte(two), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPlanWith(j, &PlanOptions{Stdin: bytes.NewReader(stream)}); err == nil || !strings.Contains(err.Error(), "standard input (-) is read by source") {
		t.Errorf("two sources of stdin: %v", err)
	}
}
