package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestFilterDatetimeStrings compares datetime64 fields of seven units (s,
// D, 10ms, M, W, big-endian ns, Y; NaT included) with ISO 8601 strings at
// every precision, in both orders, chained and in lists: the rows kept are
// the rows numpy keeps (testdata/datelit, written by gen.py with numpy).
func TestFilterDatetimeStrings(t *testing.T) {
	dir := filepath.Join("testdata", "datelit")
	a, err := npyio.ReadFile(filepath.Join(dir, "records.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []struct {
			Where string  `json:"where"`
			Rows  []int32 `json:"rows"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) < 300 {
		t.Fatalf("only %d cases", len(fx.Cases))
	}
	dt := a.DType
	in := &Schema{DType: dt}
	rows := len(a.Data) / dt.Size
	for _, tc := range fx.Cases {
		out, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.Where)+"\n"), in, a.Data)
		if err != nil {
			t.Errorf("%s: %v", tc.Where, err)
			continue
		}
		var got []int32
		for r := 0; r < out.rows; r++ {
			row := out.data[r*dt.Size : (r+1)*dt.Size]
			for k := 0; k < rows; k++ {
				if string(row) == string(a.Data[k*dt.Size:(k+1)*dt.Size]) {
					got = append(got, int32(k))
					break
				}
			}
		}
		if !equalInts(got, tc.Rows) {
			t.Errorf("%s: kept rows %v, numpy keeps %v", tc.Where, got, tc.Rows)
		}
	}
}

// TestFilterDatetimeStringErrors: strings that are not datetimes, time
// zones, and strings compared with other kinds of fields are refused at
// the literal.
func TestFilterDatetimeStringErrors(t *testing.T) {
	sec, _ := npyio.NewDatetime("s", 1, false)
	td, _ := npyio.NewDatetime("s", 1, true)
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "t", Type: sec}, {Name: "d", Type: td}})
	if err != nil {
		t.Fatal(err)
	}
	in := &Schema{DType: dt}
	for _, tc := range []struct{ where, want string }{
		{"t < '2024-13-01'", "the month must be 01 to 12"},
		{"t < '2023-02-29'", "2023-02 has no day 29"},
		{"t < '2024-01-01T12:00Z'", "time zones are not supported"},
		{"t < '2024-01-01T25:00'", "below 24, 60 and 60"},
		{"t < 'yesterday'", "is not a datetime"},
		{"t < '2024-01T10:00'", "a time needs a full date"},
		{"d < '2024-01-01'", "compare it with a number"},
	} {
		_, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.where)+"\n"), in, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.where, err, tc.want)
		}
	}
}
