package parquetio

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
)

// countingOpener opens the .npy files (one reader each) and counts the
// calls.
func countingOpener(files [][]byte, calls *int) Opener {
	return func() ([]*npyio.Reader, error) {
		*calls++
		rs := make([]*npyio.Reader, len(files))
		for i, b := range files {
			r, err := npyio.NewReaderAt(bytes.NewReader(b), int64(len(b)), nil)
			if err != nil {
				return nil, err
			}
			rs[i] = r
		}
		return rs, nil
	}
}

// TestSinglePassSameFile checks the time-column plan made while writing
// to a file (data read once, the file started over when a later row
// group needs another layout) against the old observation pass (an
// output that cannot be truncated): the files must be identical, and
// the data read once unless a later row group changes the plan.
func TestSinglePassSameFile(t *testing.T) {
	const n = 1000
	nat := int64(math.MinInt64)
	at := func(descr string, set map[int]int64) (string, []int64) {
		v := make([]int64, n)
		for i := range v {
			v[i] = 1700000000 + int64(i)
		}
		for i, x := range set {
			v[i] = x
		}
		return descr, v
	}
	cases := []struct {
		name     string
		descr    string
		vals     []int64
		opts     Options
		restart  bool   // a later row group changes the plan
		optional bool   // the time column is OPTIONAL
		wantType string // parquet-go's String of the leaf type
	}{
		{name: "no NaT", restart: false, wantType: "TIMESTAMP(isAdjustedToUTC=false,unit=MILLIS)"},
		{name: "NaT in the first row group", restart: false, optional: true, wantType: "TIMESTAMP(isAdjustedToUTC=false,unit=MILLIS)"},
		{name: "NaT in the last row", restart: true, optional: true, wantType: "TIMESTAMP(isAdjustedToUTC=false,unit=MILLIS)"},
		{name: "NaT in the second row group", restart: true, optional: true, wantType: "TIMESTAMP(isAdjustedToUTC=false,unit=MILLIS)"},
		{name: "out of range later", restart: true, wantType: "INT(64,true)"},
		{name: "out of range first", restart: false, wantType: "INT(64,true)"},
		{name: "NaT first, out of range later", restart: true, optional: true, wantType: "INT(64,true)"},
		{name: "to ns, out of range later", restart: true, opts: Options{TimestampUnit: "ns"}, wantType: "INT(64,true)"},
		{name: "days", restart: false, wantType: "DATE"},
	}
	for i := range cases {
		c := &cases[i]
		switch c.name {
		case "no NaT":
			c.descr, c.vals = at("<M8[ms]", nil)
		case "NaT in the first row group":
			c.descr, c.vals = at("<M8[ms]", map[int]int64{3: nat, 700: nat})
		case "NaT in the last row":
			c.descr, c.vals = at("<M8[ms]", map[int]int64{n - 1: nat})
		case "NaT in the second row group":
			c.descr, c.vals = at("<M8[ms]", map[int]int64{150: nat})
		case "out of range later":
			c.descr, c.vals = at("<M8[s]", map[int]int64{555: math.MaxInt64 / 10})
		case "out of range first":
			c.descr, c.vals = at("<M8[s]", map[int]int64{5: math.MaxInt64 / 10})
		case "NaT first, out of range later":
			c.descr, c.vals = at("<M8[s]", map[int]int64{5: nat, 905: math.MinInt64 / 10})
		case "to ns, out of range later":
			c.descr, c.vals = at("<M8[ms]", map[int]int64{999: 1 << 60})
		case "days":
			c.descr, c.vals = at("<M8[D]", map[int]int64{0: -5})
		}
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dt, err := npyio.ParseTypeStr(c.descr)
			if err != nil {
				t.Fatal(err)
			}
			opts := c.opts
			opts.RowGroupRows = 128 // 8 row groups
			opts.Concurrency = 2
			// A structured array (one source) and a two-column table
			// (two sources, the time column second).
			st, err := npyio.ParseDescr(`[('id', '<i4'), ('t', '` + c.descr + `')]`)
			if err != nil {
				t.Fatal(err)
			}
			rows := make([]byte, 0, n*st.Size)
			ids := make([]int32, n)
			for i, v := range c.vals {
				ids[i] = int32(i)
				rows = append(rows, npyio.AsBytes([]int32{int32(i)})...)
				rows = append(rows, npyio.AsBytes([]int64{v})...)
			}
			arr := [][]byte{npyBytes(t, &npyio.Header{DType: st, Shape: []int{n}}, rows)}
			idDT, _ := npyio.ParseTypeStr("<i4")
			tab := [][]byte{
				npyBytes(t, &npyio.Header{DType: idDT, Shape: []int{n}}, npyio.AsBytes(ids)),
				npyBytes(t, &npyio.Header{DType: dt, Shape: []int{n}}, npyio.AsBytes(c.vals)),
			}
			cols := []Column{{Name: "id", DType: idDT}, {Name: "t", DType: dt}}
			for _, kind := range []string{"array", "table"} {
				write := func(w io.Writer, calls *int, progress func(int64)) error {
					var err error
					if kind == "array" {
						_, err = WriteArray(w, countingOpener(arr, calls), "s", &opts, progress)
					} else {
						_, err = WriteTable(w, cols, countingOpener(tab, calls), &opts, progress)
					}
					return err
				}
				var old bytes.Buffer // not Restartable: observation pass first
				oldCalls := 0
				if err := write(&old, &oldCalls, nil); err != nil {
					t.Fatal(err)
				}
				if oldCalls != 2 {
					t.Errorf("%s: two-pass write opened the data %d times, want 2", kind, oldCalls)
				}
				// A file with a prefix: the write starts at its end.
				f, err := os.Create(filepath.Join(dir, kind+".parquet"))
				if err != nil {
					t.Fatal(err)
				}
				prefix := []byte("prefix")
				if _, err := f.Write(prefix); err != nil {
					t.Fatal(err)
				}
				calls := 0
				var reported []int64
				if err := write(f, &calls, func(rows int64) { reported = append(reported, rows) }); err != nil {
					t.Fatal(err)
				}
				// Progress never goes back, even over a restart, and ends
				// at every row.
				for i, r := range reported {
					if i > 0 && r <= reported[i-1] {
						t.Fatalf("%s: progress %v goes back", kind, reported)
					}
				}
				if len(reported) == 0 || reported[len(reported)-1] != n {
					t.Errorf("%s: progress %v does not end at %d", kind, reported, n)
				}
				f.Close()
				got, err := os.ReadFile(f.Name())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], old.Bytes()) {
					t.Fatalf("%s: the single-pass file (%d bytes after the prefix) differs from the two-pass one (%d bytes)", kind, len(got)-len(prefix), old.Len())
				}
				want := 1
				if c.restart {
					want = 3 // the speculative write, the observation, the write
				}
				if calls != want {
					t.Errorf("%s: single-pass write opened the data %d times, want %d", kind, calls, want)
				}
				pf, err := parquet.OpenFile(bytes.NewReader(old.Bytes()), int64(old.Len()))
				if err != nil {
					t.Fatal(err)
				}
				leaf := pf.Root().Columns()[1]
				if leaf.Name() != "t" {
					t.Fatalf("%s: second column %q, want t", kind, leaf.Name())
				}
				if leaf.Optional() != c.optional {
					t.Errorf("%s: optional %v, want %v", kind, leaf.Optional(), c.optional)
				}
				if got := leaf.Type().String(); got != c.wantType {
					t.Errorf("%s: type %s, want %s", kind, got, c.wantType)
				}
			}
		})
	}
}

// TestSinglePassNotAfterData checks that a file with bytes after the
// write position is not truncated: the data is observed first instead.
func TestSinglePassNotAfterData(t *testing.T) {
	dt, _ := npyio.ParseTypeStr("<M8[ms]")
	vals := []int64{1, 2, math.MinInt64}
	npy := [][]byte{npyBytes(t, &npyio.Header{DType: dt, Shape: []int{3}}, npyio.AsBytes(vals))}
	f, err := os.Create(filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	calls := 0
	if _, err := WriteArray(f, countingOpener(npy, &calls), "t", &Options{RowGroupRows: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("opened %d times, want 2 (observation pass)", calls)
	}
	if st, _ := f.Stat(); st.Size() != 1<<20 {
		t.Errorf("file is %d bytes, want %d (not truncated)", st.Size(), 1<<20)
	}
}
