package expr_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/expr"
)

// TestDatetimeStrings compares datetime64 fields of seven units (s, D,
// 10ms, M, W, big-endian ns, Y; NaT included) with ISO 8601 strings at
// every precision, in both orders, chained and in lists: the rows kept are
// the rows numpy keeps (testdata/datelit, written by gen.py with numpy).
func TestDatetimeStrings(t *testing.T) {
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
	for _, tc := range fx.Cases {
		got, err := keep(t, tc.Where, a.DType, a.Data)
		if err != nil {
			t.Errorf("%s: %v", tc.Where, err)
			continue
		}
		if !slices.Equal(got, tc.Rows) {
			t.Errorf("%s: kept rows %v, numpy keeps %v", tc.Where, got, tc.Rows)
		}
	}
}

// TestDatetimeStringErrors: strings that are not datetimes, time zones,
// and strings compared with other kinds of fields are refused at the
// literal.
func TestDatetimeStringErrors(t *testing.T) {
	sec, _ := npyio.NewDatetime("s", 1, false)
	td, _ := npyio.NewDatetime("s", 1, true)
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "t", Type: sec}, {Name: "d", Type: td}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ where, want string }{
		{"t < '2024-13-01'", "the month must be 01 to 12"},
		{"t < '2023-02-29'", "2023-02 has no day 29"},
		{"t < '2024-01-01T12:00Z'", "time zones are not supported"},
		{"t < '2024-01-01T25:00'", "below 24, 60 and 60"},
		{"t < 'yesterday'", "is not a datetime"},
		{"t < '2024-01T10:00'", "a time needs a full date"},
		{"d < '2024-01-01'", "compare it with a number"},
	} {
		_, err := keep(t, tc.where, dt, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.where, err, tc.want)
		}
		// The offset is the literal's, where the string starts.
		var pe *expr.Error
		if want := strings.IndexByte(tc.where, '\''); !errors.As(err, &pe) || pe.Offset != want {
			t.Errorf("%s: %#v, want an *expr.Error at the literal's offset %d", tc.where, err, want)
		}
	}
}
