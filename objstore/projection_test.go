package objstore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/objstore"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Ranged reads fetch only what a job needs: the bytes read from GET
// bodies (objstore.CountFetched) are counted while a job reads one column
// of an 8-column Parquet file in the bucket, against all columns, and one
// member of a 4-member .npz, against all members.

const projCols, projRows = 8, 1 << 17 // 1 MiB a column

// projData returns the rows of the 8 float64 columns c0..c7 (random, so
// Parquet does not shrink them) as record bytes.
func projData() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, projRows*projCols*8)
	for i := 0; i < projRows*projCols; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(rng.NormFloat64()))
	}
	return b
}

// runCounted runs job text and returns the bytes fetched meanwhile.
func runCounted(t *testing.T, dir, text string) int64 {
	t.Helper()
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatalf("%s\n%v", text, err)
	}
	plan, err := pipeline.NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := objstore.CountFetched()
	before := c.Load()
	if _, err := plan.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return c.Load() - before
}

func testProjection(t *testing.T, root string) {
	ctx := context.Background()
	dir := t.TempDir()
	var fields []string
	for k := 0; k < projCols; k++ {
		fields = append(fields, fmt.Sprintf("('c%d', '<f8')", k))
	}
	dt, err := npyio.ParseDescr("[" + strings.Join(fields, ", ") + "]")
	if err != nil {
		t.Fatal(err)
	}
	data := projData()
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: dt, Shape: []int{projRows}})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "t.npy")
	os.WriteFile(src, buf.Bytes(), 0o644)
	pq := join(root, "proj/t.parquet")
	if _, err := pipeline.Convert(ctx, src, pq, &pipeline.ConvertOptions{Flags: map[string]string{"compression": "none"}}); err != nil {
		t.Fatal(err)
	}
	size := int64(len(get(t, pq)))

	jobText := func(sel, out string) string {
		s := "version: 1\nsources:\n  t: {type: parquet, paths: '" + pq + "'}\n"
		in := "t"
		if sel != "" {
			s += "transforms:\n  s: {type: select, input: t, fields: [" + sel + "]}\n"
			in = "s"
		}
		return s + "sinks:\n  o: {type: npy, input: " + in + ", path: " + filepath.Join(dir, out) + "}\n"
	}
	one := runCounted(t, dir, jobText("c5", "one.npy"))
	all := runCounted(t, dir, jobText("", "all.npy"))
	t.Logf("Parquet file of %d bytes: select of 1 of %d columns fetched %d bytes, all columns %d", size, projCols, one, all)
	if all < size*9/10 || one < projRows*8 || one > all/4 {
		t.Errorf("fetched %d bytes for one column (a column holds %d), %d for all (file %d)", one, projRows*8, all, size)
	}
	// The selected column is the right one.
	got, err := os.ReadFile(filepath.Join(dir, "one.npy"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := npyio.ReadHeader(bytes.NewReader(got), nil)
	if err != nil {
		t.Fatal(err)
	}
	body := got[len(got)-projRows*8:]
	for i := 0; i < projRows; i += 4099 {
		if !bytes.Equal(body[8*i:8*i+8], data[(i*projCols+5)*8:(i*projCols+5)*8+8]) {
			t.Fatalf("row %d of the selected column differs (header %v)", i, h.Shape)
		}
	}

	// An .npz of 4 members of 1 MiB each, stored (not compressed).
	var zb bytes.Buffer
	zw := npyio.NewNPZWriter(&zb, false)
	f8, _ := npyio.ParseTypeStr("<f8")
	for m := 0; m < 4; m++ {
		mw, err := zw.Create(fmt.Sprintf("m%d", m), &npyio.Header{DType: f8, Shape: []int{projRows}})
		if err != nil {
			t.Fatal(err)
		}
		mw.Write(data[m*projRows*8 : (m+1)*projRows*8])
		if err := mw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	npz := join(root, "proj/z.npz")
	put(t, npz, zb.Bytes())
	zjob := func(members, out string) string {
		s := "version: 1\nsources:\n  z: {type: npz, paths: '" + npz + "'"
		if members != "" {
			s += ", members: [" + members + "]"
		}
		return s + "}\nsinks:\n  o: {type: npy, input: z, path: " + filepath.Join(dir, out) + "}\n"
	}
	oneM := runCounted(t, dir, zjob("m2", "m2.npy"))
	allM := runCounted(t, dir, zjob("", "mall.npy"))
	t.Logf(".npz of %d bytes: one member of 4 fetched %d bytes, all members %d", zb.Len(), oneM, allM)
	if allM < int64(zb.Len())*9/10 || oneM < projRows*8 || oneM > allM/3 {
		t.Errorf("fetched %d bytes for one member (a member holds %d), %d for all (archive %d)", oneM, projRows*8, allM, zb.Len())
	}
}

func TestBucketProjection(t *testing.T) { testProjection(t, "mem://t") }
func TestS3Projection(t *testing.T)     { testProjection(t, s3Root(t, "projection")) }
