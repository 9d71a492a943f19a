package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/shardrun"
	"github.com/npyflow/npyflow/zarr"
)

// TestZarrReadsZarrPython converts an array zarr-python 2 wrote (delta
// filter, zstd) to .npy and checks its values.
func TestZarrReadsZarrPython(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.npy")
	if _, err := Convert(context.Background(), "../zarr/testdata/v2.zarr", out, &ConvertOptions{Flags: map[string]string{"array": "i4_delta"}}); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Header.Shape; len(got) != 2 || got[0] != 8 || got[1] != 5 {
		t.Fatalf("shape %v", got)
	}
	for i := 0; i < 40; i++ {
		if v := int32(binary.LittleEndian.Uint32(a.Data[4*i:])); v != int32(i*37-500) {
			t.Fatalf("element %d = %d", i, v)
		}
	}
}

func TestZarrInspect(t *testing.T) {
	info, err := Inspect(context.Background(), "../zarr/testdata/v3.zarr", nil)
	if err != nil {
		t.Fatal(err)
	}
	z := info.(*inspect.ZarrInfo)
	var sb strings.Builder
	z.WriteText(&sb)
	for _, want := range []string{"Zarr v3 store", "sharded_start_gzip: <i4 [10 9], chunks [3 3] in shards [6 6], codecs bytes, gzip, fill -1", "float64_be_t: <f8 [6 5], chunks [4 2], codecs transpose, bytes, blosc, fill \"NaN\", dims (y, x)", "@units = \"m\""} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("inspect lacks %q:\n%s", want, sb.String())
		}
	}
}

// TestZarrOutputAllOrNothing: a conversion that fails part-way leaves no
// output and no staging directory; one that succeeds replaces the old
// store whole.
func TestZarrOutputAllOrNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.zarr")
	s := zarr.NewFSStore(bad)
	g := zarr.CreateGroup(s, "", 3, true, nil)
	w, err := g.CreateArray(ctx, "x", zarr.CreateOptions{Shape: []int64{100, 3}, Chunks: []int64{10, 3}, DType: zarr.DType{Descr: "<f8"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, make([]byte, 100*3*8)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "x", "c", "7", "0"), []byte("not zstd"), 0o666); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.zarr")
	_, err = Convert(ctx, bad, out, nil)
	if err == nil || !strings.Contains(err.Error(), "chunk x/c/7/0") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v", err)
	}
	// Nor into a .zip store.
	if _, err := Convert(ctx, bad, filepath.Join(dir, "out.zarr.zip"), nil); err == nil || !strings.Contains(err.Error(), "chunk x/c/7/0") {
		t.Fatalf("error %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	// A good conversion over an existing store replaces it.
	if err := os.WriteFile(filepath.Join(bad, "x", "c", "7", "0"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(bad, "x", "c", "7", "0")) // missing: the fill value
	for range 2 {
		if _, err := Convert(ctx, bad, out, &ConvertOptions{Flags: map[string]string{"zarr-format": "2", "compression": "blosc"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "x", ".zarray")); err != nil {
		t.Fatal(err)
	}
	// The store's root has the mode of its other directories (0777 less
	// the umask), not the staging directory's 0700.
	root, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := os.Stat(filepath.Join(out, "x"))
	if err != nil {
		t.Fatal(err)
	}
	if root.Mode().Perm() != sub.Mode().Perm() {
		t.Fatalf("store root mode %v, its array's directory %v", root.Mode(), sub.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("entries %v", ents)
	}
}

// TestZarrZipStore: a .zip that zarr-python's ZipStore wrote converts to
// the values zarr-python read (v2_expect.json); npyflow's own .zip
// output (v2, v3 sharded) reads back the same, inspects as a Zarr store,
// and a zip that is not a Zarr store (an .npz renamed) is refused.
func TestZarrZipStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var exp map[string]struct {
		Shape  []int `json:"shape"`
		Values []any `json:"values"`
	}
	b, err := os.ReadFile("../zarr/testdata/v2_expect.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	npz := filepath.Join(dir, "v2.npz")
	if _, err := Convert(ctx, "../zarr/testdata/v2.zip", npz, nil); err != nil {
		t.Fatal(err)
	}
	z, err := npyio.OpenNPZ(npz, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if got := strings.Join(z.Keys(), ","); got != "g/x,image" {
		t.Fatalf("members %s", got)
	}
	for _, k := range z.Keys() {
		a, err := z.Member(k).ReadArray()
		if err != nil {
			t.Fatal(err)
		}
		e := exp["zip:"+k]
		if fmt.Sprint(a.Header.Shape) != fmt.Sprint(e.Shape) || len(e.Values) == 0 {
			t.Fatalf("%s: shape %v, zarr-python %v", k, a.Header.Shape, e.Shape)
		}
		for i, v := range e.Values {
			var got int64
			if a.DType.Size == 1 {
				got = int64(a.Data[i])
			} else {
				got = int64(int16(binary.LittleEndian.Uint16(a.Data[2*i:])))
			}
			if strconv.FormatInt(got, 10) != fmt.Sprint(v) {
				t.Fatalf("%s[%d] = %d, zarr-python read %s", k, i, got, v)
			}
		}
	}

	src := filepath.Join(dir, "x.npy")
	data := make([]byte, 50*3*8)
	for i := range 150 {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(float64(i)*1.5-7))
	}
	var nb bytes.Buffer
	if err := npyio.WriteArray(&nb, &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{50, 3}}, DType: npyio.Float64Type, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, nb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range []map[string]string{
		{"zarr-format": "2", "chunks": "7", "compression": "blosc"},
		{"chunks": "5", "shards": "20"},
	} {
		out := filepath.Join(dir, "x.zarr.zip")
		if _, err := Convert(ctx, src, out, &ConvertOptions{Flags: flags}); err != nil {
			t.Fatal(err)
		}
		back := filepath.Join(dir, "back.npy")
		if _, err := Convert(ctx, out, back, nil); err != nil {
			t.Fatal(err)
		}
		a, err := npyio.ReadFile(back, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Data, data) || fmt.Sprint(a.Header.Shape) != "[50 3]" {
			t.Fatalf("%v: read back %v, differs", flags, a.Header.Shape)
		}
		info, err := Inspect(ctx, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		info.(*inspect.ZarrInfo).WriteText(&sb)
		want := "x: <f8 [50 3], chunks [7 3], codecs blosc"
		if flags["shards"] != "" {
			want = "x: <f8 [50 3], chunks [5 3] in shards [20 3]"
		}
		if !strings.Contains(sb.String(), want) {
			t.Fatalf("%v: inspect lacks %q:\n%s", flags, want, sb.String())
		}
		os.Remove(out)
	}

	renamed := filepath.Join(dir, "table.zip")
	b, err = os.ReadFile("../testdata/npz/table.npz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(renamed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Convert(ctx, renamed, filepath.Join(dir, "t.npy"), nil)
	if err == nil || !strings.Contains(err.Error(), "table.zip: not a Zarr store: a zip archive without zarr.json") {
		t.Fatalf("error %v", err)
	}
	if _, err := Inspect(ctx, renamed, nil); err == nil || !strings.Contains(err.Error(), "not a Zarr store") {
		t.Fatalf("inspect error %v", err)
	}
}

// TestZarrZipBucket writes a .zip store to a bucket (the storage layer's
// in-memory backend, as objstore's are) and reads it back by ranges.
func TestZarrZipBucket(t *testing.T) {
	ctx := context.Background()
	mem := storagetest.NewMem("zipbucket")
	defer mem.Reset()
	out := "zipbucket://b/data/x.zarr.zip"
	if _, err := Convert(ctx, "../zarr/testdata/v2.zip", out, &ConvertOptions{Flags: map[string]string{"shards": "8", "chunks": "4"}}); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(t.TempDir(), "back.npz")
	if _, err := Convert(ctx, out, back, nil); err != nil {
		t.Fatal(err)
	}
	z, err := npyio.OpenNPZ(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	a, err := z.Member("image").ReadArray()
	if err != nil {
		t.Fatal(err)
	}
	// image[y, x, k] = (x*7 + y*13 + k*101) & 255, as the generator wrote it
	for i, v := range a.Data {
		y, x, k := i/24, i/3%8, i%3
		if int(v) != (x*7+y*13+k*101)&255 {
			t.Fatalf("image element %d = %d", i, v)
		}
	}
	if len(a.Data) != 9*8*3 {
		t.Fatalf("%d elements", len(a.Data))
	}
}

// writeZarrRows writes a group with one float64 array x of rows x 3
// (element i = i/4), v3 in shards of shardRows rows of chunkRows-row
// chunks, or v2 (shardRows 0) in chunks of chunkRows rows.
func writeZarrRows(t *testing.T, path string, rows, chunkRows, shardRows int64) []byte {
	t.Helper()
	ctx := context.Background()
	data := make([]byte, rows*3*8)
	for i := range rows * 3 {
		binary.NativeEndian.PutUint64(data[8*i:], math.Float64bits(float64(i)/4))
	}
	o := zarr.CreateOptions{Format: 2, Shape: []int64{rows, 3}, Chunks: []int64{chunkRows, 3}, DType: zarr.DType{Descr: "<f8"}}
	if shardRows > 0 {
		o.Format, o.Shards = 3, []int64{shardRows, 3}
	}
	s := zarr.NewFSStore(path)
	g := zarr.CreateGroup(s, "", o.Format, true, nil)
	w, err := g.CreateArray(ctx, "x", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestZarrShardedBands: with band_rows, a Zarr source's parts are bands
// of whole chunks (v2) or shards (v3) along the first axis, rounded up
// to them; 1, 2 and 3 shards (run at once) write the same rows as one
// run, and a shard reads only its own bands' chunks: a damaged chunk
// fails the one shard that reads it.
func TestZarrShardedBands(t *testing.T) {
	dir := t.TempDir()
	want := map[string][]byte{
		"v2": writeZarrRows(t, filepath.Join(dir, "v2.zarr"), 1000, 50, 0),
		"v3": writeZarrRows(t, filepath.Join(dir, "v3.zarr"), 700, 32, 128),
	}
	jobText := func(out string) string {
		return `version: 1
sources:
  z:
    type: zarr
    paths: [v2.zarr, v3.zarr]
    band_rows: 200
sinks:
  out:
    type: npy
    input: z
    path: ` + out + `/{stem}-{index}.npy
`
	}
	// v2: bands of 200 rows (4 chunks); v3: of 256 (2 shards), the last
	// 188.
	bands := map[string][]int{"v2": {0, 1, 2, 3, 4}, "v3": {5, 6, 7}}
	rowsOf := []int{200, 200, 200, 200, 200, 256, 256, 188}
	check := func(out string) {
		t.Helper()
		for stem, idx := range bands {
			var got []byte
			for _, i := range idx {
				a, err := npyio.ReadFile(filepath.Join(dir, out, fmt.Sprintf("%s-%d.npy", stem, i)), nil)
				if err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				if a.Header.Shape[0] != rowsOf[i] {
					t.Fatalf("%s: band %d has %d rows, want %d", out, i, a.Header.Shape[0], rowsOf[i])
				}
				got = append(got, a.Data...)
			}
			if !bytes.Equal(got, want[stem]) {
				t.Fatalf("%s: the bands of %s differ from the array", out, stem)
			}
		}
	}
	if _, err := runDataset(t, dir, jobText("one"), nil); err != nil {
		t.Fatal(err)
	}
	check("one")
	runAll := func(out string, n int) []error {
		errs := make([]error, n)
		done := make(chan int)
		for i := range n {
			go func() {
				_, errs[i] = runDataset(t, dir, jobText(out), &ShardOptions{Shard: shardrun.Shard{Index: i, Count: n}})
				done <- i
			}()
		}
		for range n {
			<-done
		}
		return errs
	}
	for n := 1; n <= 3; n++ {
		out := fmt.Sprintf("n%d", n)
		for i, err := range runAll(out, n) {
			if err != nil {
				t.Fatalf("shard %d/%d: %v", i, n, err)
			}
		}
		check(out)
	}
	// Rows 600-649 of v2 (band 3): only the shard reading band 3 fails.
	if err := os.WriteFile(filepath.Join(dir, "v2.zarr", "x", "12.0"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, err := range runAll("bad", 3) {
		if err != nil {
			failed++
			if !strings.Contains(err.Error(), "12.0") || !strings.Contains(err.Error(), "x[600:800]") {
				t.Errorf("error %v", err)
			}
		}
	}
	if failed != 1 {
		t.Fatalf("%d of 3 shards failed on one damaged chunk, want 1", failed)
	}
}

// TestZarrBandsSmall: band_rows on zarr-python's arrays: a 0-d array is
// one part, an 8-row array in 3-row chunks bands [0:3], [3:6], [6:8].
func TestZarrBandsSmall(t *testing.T) {
	dir := t.TempDir()
	src, err := filepath.Abs("../zarr/testdata/v2.zarr")
	if err != nil {
		t.Fatal(err)
	}
	jb := `version: 1
sources:
  z:
    type: zarr
    paths: [` + src + `]
    arrays: [scalar, i4_delta]
    band_rows: 2
sinks:
  out:
    type: npy
    input: z
    path: out/{index}.npy
`
	if _, err := runDataset(t, dir, jb, nil); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(filepath.Join(dir, "out", "0.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Header.Shape) != 0 || int32(binary.LittleEndian.Uint32(a.Data)) != -123456 {
		t.Fatalf("scalar: shape %v, data %v", a.Header.Shape, a.Data)
	}
	var all []int32
	for i, rows := range []int{3, 3, 2} {
		b, err := npyio.ReadFile(filepath.Join(dir, "out", fmt.Sprintf("%d.npy", i+1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.Header.Shape[0] != rows || b.Header.Shape[1] != 5 {
			t.Fatalf("band %d: shape %v", i, b.Header.Shape)
		}
		for k := 0; k < len(b.Data); k += 4 {
			all = append(all, int32(binary.LittleEndian.Uint32(b.Data[k:])))
		}
	}
	for i, v := range all {
		if v != int32(i*37-500) {
			t.Fatalf("element %d = %d", i, v)
		}
	}
	if len(all) != 40 {
		t.Fatalf("%d elements", len(all))
	}
}

// TestZarrShardedBandsBucket: the bands of a store in a bucket (the
// storage layer's in-memory backend) over 2 shards; the store is
// fingerprinted by its objects.
func TestZarrShardedBandsBucket(t *testing.T) {
	mem := storagetest.NewMem("zbands")
	defer mem.Reset()
	dir := t.TempDir()
	want := writeZarrRows(t, "zbands://b/s.zarr", 300, 40, 0)
	jb := `version: 1
sources:
  z:
    type: zarr
    paths: ["zbands://b/s.zarr"]
    band_rows: 100
sinks:
  out:
    type: npy
    input: z
    path: out/{index}.npy
`
	for i := range 2 {
		if _, err := runDataset(t, dir, jb, &ShardOptions{Shard: shardrun.Shard{Index: i, Count: 2}}); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	var got []byte
	for i := range 3 { // bands of 120 rows: [0:120], [120:240], [240:300]
		a, err := npyio.ReadFile(filepath.Join(dir, "out", fmt.Sprintf("%d.npy", i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.Data...)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the bands differ from the array")
	}
}

// TestZarrVarStringsRead: variable-length string arrays zarr-python 2
// wrote (vlen-utf8, vlen-bytes; blosc and uncompressed) convert to .npy
// as U (S) of their longest item with the values zarr-python read
// (v2_expect.json); a U array written as v3 strings (--strings vlen)
// reads back as U of its longest item.
func TestZarrVarStringsRead(t *testing.T) {
	b, err := os.ReadFile("../zarr/testdata/v2_expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var expect map[string]struct {
		Values json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(b, &expect); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		array, descr string
		text         bool
	}{
		{"vlen_utf8", "<U7", true},
		{"vlen_utf8_raw", "<U5", true},
		{"vlen_bytes", "|S15", false},
		{"vlen_bytes_raw", "|S3", false},
	} {
		out := filepath.Join(dir, c.array+".npy")
		if _, err := Convert(ctx, "../zarr/testdata/v2.zarr", out, &ConvertOptions{Flags: map[string]string{"array": c.array}}); err != nil {
			t.Fatalf("%s: %v", c.array, err)
		}
		got := npyStrings(t, out, c.descr)
		var want []string
		if err := json.Unmarshal(expect[c.array].Values, &want); err != nil {
			t.Fatalf("%s: %v", c.array, err)
		}
		if !c.text {
			for i, h := range want {
				raw, _ := hex.DecodeString(h)
				want[i] = string(raw)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != len(want) {
			t.Errorf("%s: %q, want %q", c.array, got, want)
		}
	}

	// Written by npyflow as v3 strings, read back whole and in bands.
	in := filepath.Join(dir, "u.npy")
	words := []string{"α", "", "three", "ünïcödé wörds", "x", "日本"}
	var buf bytes.Buffer
	if err := npyio.WriteArray(&buf, npyUStrings(words, 13)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "u.zarr")
	if _, err := Convert(ctx, in, store, &ConvertOptions{Flags: map[string]string{"strings": "vlen", "chunks": "4"}}); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "back.npy")
	if _, err := Convert(ctx, store, back, nil); err != nil {
		t.Fatal(err)
	}
	if got := npyStrings(t, back, "<U13"); fmt.Sprint(got) != fmt.Sprint(words) {
		t.Errorf("v3 strings read back as %q, want %q", got, words)
	}
}

// npyStrings reads a 1-d U or S .npy file of dtype descr as strings.
func npyStrings(t *testing.T, path, descr string) []string {
	t.Helper()
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Header.DType.TypeStr(); got != descr {
		t.Fatalf("%s: dtype %s, want %s", path, got, descr)
	}
	size := a.Header.DType.Size
	var out []string
	for off := 0; off+size <= len(a.Data); off += size {
		item := a.Data[off : off+size]
		if descr[1] == 'U' {
			var rs []rune
			for k := 0; k < size; k += 4 {
				rs = append(rs, rune(binary.LittleEndian.Uint32(item[k:])))
			}
			out = append(out, strings.TrimRight(string(rs), "\x00"))
		} else {
			out = append(out, strings.TrimRight(string(item), "\x00"))
		}
	}
	return out
}

// npyUStrings is a 1-d <U(width) array of words.
func npyUStrings(words []string, width int) *npyio.Array {
	dt, _ := npyio.ParseDescr("'<U" + strconv.Itoa(width) + "'")
	data := make([]byte, len(words)*width*4)
	for i, w := range words {
		for k, r := range []rune(w) {
			binary.LittleEndian.PutUint32(data[(i*width+k)*4:], uint32(r))
		}
	}
	return &npyio.Array{Header: &npyio.Header{Major: 1, DType: dt, Shape: []int{len(words)}}, Data: data}
}
