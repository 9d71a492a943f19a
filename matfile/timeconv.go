package matfile

import (
	"fmt"
	"math"
	"math/big"

	"github.com/npyflow/npyflow/npyio"
)

// MATLAB keeps datetime and duration values as double milliseconds (a
// datetime's as a complex double whose two parts add up, for more
// precision than one double holds). numpy's datetime64 and timedelta64
// are int64 counts of a unit: ticks picks the unit and converts.

// tickUnits are the units tried, finest first: ticks per millisecond as
// a multiplier, or milliseconds per tick as a divisor.
var tickUnits = []struct {
	unit string
	mul  int64 // ticks per ms (0 when div is used)
	div  int64 // ms per tick
}{{"ns", 1e6, 0}, {"us", 1e3, 0}, {"ms", 1, 0}, {"s", 0, 1000}}

// ticks converts millisecond values re[i] + im[i] (im may be nil; NaN is
// NaT) to int64 counts of the finest of ns, us, ms and s whose range
// holds every value: ns whenever they all fit (about the years 1678 to
// 2262). rounded reports a value that was not a whole number of a unit
// coarser than ns (finer differences are below a double's precision).
// An infinite value is an error: numpy has no infinite datetime.
func ticks(re, im []float64) (unit string, out []int64, rounded bool, err error) {
	out = make([]int64, len(re))
	for _, u := range tickUnits {
		ok := true
		rounded = false
		for i, x := range re {
			y := 0.0
			if im != nil {
				y = im[i]
			}
			if math.IsNaN(x) || math.IsNaN(y) {
				out[i] = math.MinInt64
				continue
			}
			if math.IsInf(x, 0) || math.IsInf(y, 0) {
				return "", nil, false, fmt.Errorf("value %d is infinite, which numpy's datetime64 and timedelta64 cannot hold", i+1)
			}
			t, exact, fits := toTick(x, y, u.mul, u.div)
			if !fits {
				ok = false
				break
			}
			out[i] = t
			if !exact && u.unit != "ns" {
				rounded = true
			}
		}
		if ok {
			return u.unit, out, rounded, nil
		}
	}
	return "", nil, false, fmt.Errorf("a value is beyond the range of datetime64[s]")
}

// toTick converts x + y milliseconds to ticks (mul ticks per ms, or div
// ms per tick), rounding half away from zero; fits is false outside
// int64 (or the NaT value).
func toTick(x, y float64, mul, div int64) (t int64, exact, fits bool) {
	if y == 0 && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		n := int64(x)
		if div != 0 {
			q, r := n/div, n%div
			if 2*abs64(r) >= div {
				if n < 0 {
					q--
				} else {
					q++
				}
			}
			return q, r == 0, true
		}
		if abs64(n) > (math.MaxInt64-1)/mul {
			return 0, false, false
		}
		return n * mul, true, true
	}
	v := new(big.Float).SetPrec(256).SetFloat64(x)
	v.Add(v, new(big.Float).SetFloat64(y))
	if div != 0 {
		v.Quo(v, new(big.Float).SetInt64(div))
	} else {
		v.Mul(v, new(big.Float).SetInt64(mul))
	}
	r := roundBig(v)
	d := new(big.Float).SetPrec(256).Sub(v, r)
	f64, _ := d.Float64()
	i, acc := r.Int64()
	if acc != big.Exact || i == math.MinInt64 {
		return 0, false, false
	}
	return i, math.Abs(f64) <= 1e-6, true
}

func roundBig(v *big.Float) *big.Float {
	h := new(big.Float).SetPrec(256).SetFloat64(0.5)
	if v.Sign() < 0 {
		h.Neg(h)
	}
	s := new(big.Float).SetPrec(256).Add(v, h)
	i, _ := s.Int(nil)
	return new(big.Float).SetPrec(256).SetInt(i)
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// timeValue is a datetime64 (or timedelta64, delta) value of the
// millisecond values re + im, dims MATLAB's size.
func timeValue(re, im []float64, dims []int, delta bool) (*value, bool, error) {
	unit, t, rounded, err := ticks(re, im)
	if err != nil {
		return nil, false, err
	}
	dt, err := npyio.NewDatetime(unit, 1, delta)
	if err != nil {
		return nil, false, err
	}
	data := allocFor(int64(len(t)), 8)
	copy(view[int64](data), t)
	return &value{dims: dims, dt: dt, data: data}, rounded, nil
}

// civil calendar arithmetic (proleptic Gregorian, as MATLAB's datetime
// uses), for row times stepped by calendar durations.

// daysFromCivil is the day number (days since 1970-01-01) of y-m-d.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the y-m-d of day number z.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func daysInMonth(y, m int64) int64 {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// addCalendar adds months, days and ms milliseconds to the wall-clock
// time t (milliseconds since 1970), as MATLAB adds a calendarDuration:
// months first (a day past the month's end becomes its last day), then
// days, then the time.
func addCalendar(t float64, months, days int64, ms float64) float64 {
	day := math.Floor(t / 86400000)
	rest := t - day*86400000
	y, m, d := civilFromDays(int64(day))
	mm := m - 1 + months
	y += floorDiv(mm, 12)
	m = mm - floorDiv(mm, 12)*12 + 1
	if dim := daysInMonth(y, m); d > dim {
		d = dim
	}
	nd := daysFromCivil(y, m, d) + days
	return float64(nd)*86400000 + rest + ms
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
