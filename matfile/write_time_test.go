package matfile

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// nearestSeconds is the double nearest v*num/den, computed exactly.
func nearestSeconds(v, num, den int64) float64 {
	r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(v), big.NewInt(num)), big.NewInt(den))
	f, _ := r.Float64() // rounds to nearest, ties to even
	return f
}

// TestWriteTimeNearest: datetime64 and timedelta64 of every unit of 1 us
// or coarser (multipliers included) become the double nearest the exact
// number of seconds, numpy's t / np.timedelta64(1, 's'); finer units are
// at most one ulp from it; and the count comes back from the double by
// rounding seconds * 10^k for every count below 2^51 (and so wherever
// the double holds the value exactly).
func TestWriteTimeNearest(t *testing.T) {
	// The values: numpy gives these exact doubles.
	for _, c := range []struct {
		unit string
		mult int64
		v    int64
		want float64
	}{
		{"ms", 1, 1709213821123, 1709213821.123},
		{"ms", 1, 1577836800100, 1577836800.1},
		{"us", 1, -5, -5e-06},
		{"ms", 10, 12, 0.12},
		{"ms", 25, 3, 0.075},
		{"s", 25, -4, -100},
		{"D", 1, 19782, 1709164800},
		{"ns", 1, 1, 1e-9},
	} {
		dt, err := npyio.NewDatetime(c.unit, c.mult, false)
		if err != nil {
			t.Fatal(err)
		}
		l := &wLeaf{src: dt}
		l.tnum, l.tden, _ = wTimeRatio(dt)
		if got := l.seconds(c.v); got != c.want {
			t.Errorf("%d [%d%s]: %.17g seconds, want %.17g", c.v, c.mult, c.unit, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 33))
	for _, u := range []struct {
		unit string
		mult int64
		k    int // 10^k counts a second, for the round trip (0: none)
	}{{"us", 1, 6}, {"ms", 1, 3}, {"s", 1, 0}, {"ms", 10, 2}, {"us", 250, 0}, {"m", 1, 0}, {"W", 1, 0}, {"ns", 1, 9}, {"ps", 1, 12}, {"as", 1, 18}} {
		dt, _ := npyio.NewDatetime(u.unit, u.mult, true)
		l := &wLeaf{src: dt}
		var ok bool
		if l.tnum, l.tden, ok = wTimeRatio(dt); !ok {
			t.Fatalf("[%d%s]: no ratio", u.mult, u.unit)
		}
		fine := u.unit == "ns" || u.unit == "ps" || u.unit == "as"
		for i := range 20000 {
			// counts of every magnitude up to 2^53 (and beyond for the
			// fine units, which are then allowed one ulp)
			bitsN := 1 + i%53
			if fine {
				bitsN = 1 + i%62
			}
			v := rng.Int64N(int64(1) << bitsN)
			if i%2 == 1 {
				v = -v
			}
			got, want := l.seconds(v), nearestSeconds(v, l.tnum, l.tden)
			if !fine || math.Abs(float64(v*l.tnum)) < 1<<53 {
				if got != want {
					t.Fatalf("%d [%d%s]: %.17g seconds, the nearest double is %.17g", v, u.mult, u.unit, got, want)
				}
			} else if d := math.Abs(got - want); d > math.Abs(math.Nextafter(want, math.Inf(1))-want) && d > math.Abs(math.Nextafter(want, math.Inf(-1))-want) {
				t.Fatalf("%d [%d%s]: %.17g seconds, more than one ulp from the nearest %.17g", v, u.mult, u.unit, got, want)
			}
			// Round trip: the count from the double, round(x * 10^k),
			// where the double holds seconds to well within the unit
			// (|count| < 2^51: its error and the product's add up to
			// less than half a unit).
			if u.k > 0 && math.Abs(float64(v)) < 1<<51 {
				if back := int64(math.Round(got * math.Pow10(u.k))); back != v {
					t.Fatalf("%d [%s]: %.17g seconds reads back as %d", v, u.unit, got, back)
				}
			}
		}
	}
	if l := (&wLeaf{tnum: 1, tden: 1000}); !math.IsNaN(l.seconds(math.MinInt64)) {
		t.Error("NaT is not NaN")
	}
}

// BenchmarkWriteTimeSeconds: datetime64[ms] counts to double seconds, the
// conversion of a column run (a division per value).
func BenchmarkWriteTimeSeconds(b *testing.B) {
	dt, _ := npyio.NewDatetime("ms", 1, false)
	l := &wLeaf{src: dt, conv: wTime, usize: 8}
	l.tnum, l.tden, _ = wTimeRatio(dt)
	const n = 1 << 16
	src := make([]byte, 8*n)
	for i := range n {
		wNE.PutUint64(src[8*i:], uint64(1709213821123+int64(i)*997))
	}
	dst := make([]byte, 8*n)
	b.SetBytes(8 * n)
	for b.Loop() {
		if _, err := l.column(dst, src, 0, 0, 8, n, nil); err != nil {
			b.Fatal(err)
		}
	}
}
