package expr

import "testing"

// FuzzDatetimeCount: any string either fails to parse or converts
// consistently: its count in seconds is its count in milliseconds
// rounded down, exact only if the milliseconds are exact and divisible.
func FuzzDatetimeCount(f *testing.F) {
	for _, s := range []string{"2024-02-29", "2024-02-29T12:30:00.25", "1969-12-31T23:59:59.999999999999999999", "2024", "2024-03", "1900-06-15T06", "9999-12-31T23:59:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sec, secExact, err := datetimeCount(s, "s", 1)
		if err != nil {
			return
		}
		ms, msExact, err := datetimeCount(s, "ms", 1)
		if err != nil {
			t.Fatalf("%q parses for s but not ms: %v", s, err)
		}
		q, r := floorDiv(ms, 1000)
		if q != sec || secExact != (msExact && r == 0) {
			t.Fatalf("%q: %d s (exact %v) but %d ms (exact %v)", s, sec, secExact, ms, msExact)
		}
		for _, u := range []string{"Y", "M", "W", "D", "h", "m", "us", "ns", "as"} {
			datetimeCount(s, u, 7) // must not panic
		}
	})
}
