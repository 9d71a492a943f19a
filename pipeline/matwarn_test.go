package pipeline

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMATZoneLostWarned: a datetime with a time zone (MATLAB-written
// dt_tz, America/New_York) written to .npz or .npy is warned of, naming
// the variable and the zone, once; a datetime without one is not, and
// Parquet, which keeps the zone, gives no such warning.
func TestMATZoneLostWarned(t *testing.T) {
	dir := t.TempDir()
	zoned := func(warns []string) []string {
		var out []string
		for _, w := range warns {
			if strings.Contains(w, "time zone") {
				out = append(out, w)
			}
		}
		return out
	}
	for _, c := range []struct{ variable, out string }{{"", "all.npz"}, {"dt_tz", "tz.npy"}, {"dt_tz", "tz.npz"}} {
		warns := zoned(matConvert(t, "test_time_v73.mat", c.variable, filepath.Join(dir, c.out), nil))
		if len(warns) != 1 || !strings.Contains(warns[0], "test_time_v73.mat: dt_tz: datetime in time zone America/New_York") ||
			!strings.Contains(warns[0], "America/New_York is lost") || !strings.Contains(warns[0], filepath.Ext(c.out)) {
			t.Errorf("%s: warnings %q, want one naming dt_tz and America/New_York", c.out, warns)
		}
	}
	for _, c := range []struct{ variable, out string }{{"dt_basic", "basic.npz"}, {"dt_tz", "tz.parquet"}, {"dt_tz", "tz.arrow"}} {
		if warns := zoned(matConvert(t, "test_time_v73.mat", c.variable, filepath.Join(dir, c.out), nil)); len(warns) != 0 {
			t.Errorf("%s %s: warnings %q", c.variable, c.out, warns)
		}
	}
}
