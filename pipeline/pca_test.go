package pipeline

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

type pcaScoresExpect struct {
	K        int         `json:"k"`
	IDs      []int64     `json:"ids"`
	Labels   []string    `json:"labels"`
	PartRows []int       `json:"part_rows"`
	Scores   [][]float64 `json:"scores"`
}

// scoreRows reads an npy file of pca scores: the kept id and label (if
// present) and pc1..pck.
func scoreRows(t *testing.T, path string, k int) (ids []int64, labels []string, scores [][]float64) {
	t.Helper()
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt := a.DType
	for r := 0; r < a.Header.Shape[0]; r++ {
		row := a.Data[r*dt.Size : (r+1)*dt.Size]
		if i := rowbytes.FieldIndex(dt, "id"); i >= 0 {
			ids = append(ids, rowbytes.Load[int64](row, dt.Fields[i].Offset))
		}
		if i := rowbytes.FieldIndex(dt, "label"); i >= 0 {
			f := dt.Fields[i]
			labels = append(labels, rowbytes.UCS4String(row[f.Offset:f.Offset+f.Type.Size]))
		}
		s := make([]float64, k)
		for j := range s {
			f := dt.Fields[rowbytes.FieldIndex(dt, "pc"+string(rune('1'+j)))]
			s[j] = rowbytes.Load[float64](row, f.Offset)
		}
		scores = append(scores, s)
	}
	return ids, labels, scores
}

// checkScores compares scores with numpy's up to the sign of each
// component, to 1e-9 relative (of the value, or 1 near zero).
func checkScores(t *testing.T, name string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, numpy %d", name, len(got), len(want))
	}
	for j := range want[0] {
		dot := 0.0
		for r := range want {
			dot += got[r][j] * want[r][j]
		}
		sign := math.Copysign(1, dot)
		for r := range want {
			g, w := got[r][j], sign*want[r][j]
			if math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("%s: row %d pc%d = %v, numpy %v", name, r, j+1, g, w)
			}
		}
	}
}

// TestPCAScoresNumpy runs testdata/pca/scores.yaml: scores of a fit on
// every row (in memory, one output per input part) and through the spill
// file must be numpy's (X - mean) @ Vt[:k].T; every output must be the
// same with 1 and 3 workers, and the spill file must be gone.
func TestPCAScoresNumpy(t *testing.T) {
	raw, err := os.ReadFile("testdata/pca/expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var e pcaScoresExpect
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var first map[string][]byte
	for _, workers := range []int{1, 3} {
		out, _, err := runJob(t, "testdata/pca/scores.yaml", &RunOptions{Workers: workers, BatchBytes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		files := listFiles(t, out)
		if strings.Join(files, " ") != "full_part_0.npy full_part_1.npy sampled.npy spilled.npy" {
			t.Fatalf("outputs %v", files)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
		got := map[string][]byte{}
		for _, f := range files {
			got[f], _ = os.ReadFile(filepath.Join(out, f))
		}
		if first == nil {
			first = got
		} else {
			for f, b := range got {
				if !bytes.Equal(b, first[f]) {
					t.Errorf("%s differs with %d workers", f, workers)
				}
			}
		}

		// full: one file per part, with its own rows.
		var ids []int64
		var labels []string
		var scores [][]float64
		for i, n := range e.PartRows {
			a, err := npyio.ReadFile(filepath.Join(out, "full_part_"+string(rune('0'+i))+".npy"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Header.Shape[0] != n || a.DType.String() != "[('id', '<i8'), ('label', '<U4'), ('pc1', '<f8'), ('pc2', '<f8')]" {
				t.Fatalf("part %d: %d rows of %s", i, a.Header.Shape[0], a.DType)
			}
			id, lab, s := scoreRows(t, filepath.Join(out, "full_part_"+string(rune('0'+i))+".npy"), e.K)
			ids, labels, scores = append(ids, id...), append(labels, lab...), append(scores, s...)
		}
		if !equalInt64s(ids, e.IDs) || strings.Join(labels, ",") != strings.Join(e.Labels, ",") {
			t.Errorf("kept columns: ids %v labels %v", ids[:3], labels[:3])
		}
		checkScores(t, "full", scores, e.Scores)

		ids, labels, scores = scoreRows(t, filepath.Join(out, "spilled.npy"), e.K)
		if !equalInt64s(ids, e.IDs) || strings.Join(labels, ",") != strings.Join(e.Labels, ",") {
			t.Errorf("spilled kept columns: ids %v labels %v", ids[:3], labels[:3])
		}
		checkScores(t, "spilled", scores, e.Scores)

		// A 40-row sample: every row is projected; the first component is
		// close to the full fit's (same data, a third of it).
		_, _, sampled := scoreRows(t, filepath.Join(out, "sampled.npy"), 3)
		if len(sampled) != len(e.Scores) {
			t.Fatalf("sampled: %d rows, want %d", len(sampled), len(e.Scores))
		}
		var num, den float64
		for r := range sampled {
			num += sampled[r][0] * e.Scores[r][0]
			den += e.Scores[r][0] * e.Scores[r][0]
		}
		if c := math.Abs(num / den); c < 0.9 || c > 1.1 {
			t.Errorf("sampled pc1 agrees with the full fit's by %.3f, want about 1", c)
		}
	}
}

func equalInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPCAScoresErrors: the build errors of pca's scores options, at the
// option's line and column, and the in-memory limit.
func TestPCAScoresErrors(t *testing.T) {
	in, data := records(t) // a int32, b float64, s U3
	bad := []struct{ opts, msg string }{
		{"    keep: [a]\n", `job.yaml:8:11: transforms.t.keep: keep applies to output: scores (the components output has one row per component)`},
		{"    output: scores\n    keep: [s, x]\n", `job.yaml:9:15: transforms.t.keep[1]: no field "x" in the input (did you mean "a"?); fields: a, b, s`},
		{"    output: scores\n    keep: [s, s]\n", `job.yaml:9:15: transforms.t.keep[1]: column "s" listed twice`},
		{"    output: scores\n    keep: [a, b]\n", `job.yaml:7:12: transforms.t.input: the input has no numeric scalar fields to pca`},
		{"    output: scores\n    components: 3\n", `job.yaml:9:17: transforms.t.components: 3 components of 2 columns: at most 2`},
	}
	for _, tc := range bad {
		_, err := apply(t, component(t, "pca", tc.opts), in, data)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%q: err = %v\nwant %s", tc.opts, err, tc.msg)
		}
	}
	// keep of a plain array, and a kept column named like a score.
	_, err := apply(t, component(t, "pca", "    output: scores\n    keep: [x]\n"), &Schema{DType: npyio.Float64Type, Shape: []int{3}}, make([]byte, 48))
	if want := `job.yaml:9:11: transforms.t.keep: the input is '<f8', row shape (3,), not records: it has no named columns to keep`; err == nil || err.Error() != want {
		t.Errorf("plain keep: err = %v\nwant %s", err, want)
	}
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "pc1", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float64Type}, {Name: "y", Type: npyio.Float64Type}})
	_, err = apply(t, component(t, "pca", "    output: scores\n    keep: [pc1]\n"), &Schema{DType: dt}, make([]byte, 48))
	if want := `job.yaml:9:12: transforms.t.keep[0]: column "pc1" clashes with a score column; rename it first`; err == nil || err.Error() != want {
		t.Errorf("clash: err = %v\nwant %s", err, want)
	}

	// Scores of a fit on every row refuse to hold more than pcaHoldBytes.
	defer func(v int64) { pcaHoldBytes = v }(pcaHoldBytes)
	pcaHoldBytes = 3 * 16 // three rows of a and b
	_, err = apply(t, component(t, "pca", "    output: scores\n"), in, data)
	if want := "transforms.t: scores of a fit on every row hold each row's values and kept columns in memory: over 2 rows that exceeds 0 MiB; set sample_rows"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("limit: err = %v\nwant %s", err, want)
	}
	// The sampled fit spills instead, so the limit does not apply.
	out, err := apply(t, component(t, "pca", "    output: scores\n    sample_rows: 4\n    keep: [s]\n"), in, data)
	if err != nil {
		t.Fatal(err)
	}
	if out.rows != 5 || out.schema.DType.String() != "[('s', '<U3'), ('pc1', '<f8'), ('pc2', '<f8')]" {
		t.Errorf("sampled: %d rows of %s", out.rows, out.schema.DType)
	}
}
