package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// datetimeCount converts an ISO 8601 date or date-time string (numpy's
// datetime64 string forms: YYYY, YYYY-MM, YYYY-MM-DD, then optionally a
// T or a space and hh, hh:mm, hh:mm:ss or hh:mm:ss.fff with up to 18
// fraction digits; no time zone) to a count of mult units since the epoch,
// rounded down, and reports whether it is exact. unit is a datetime64 unit
// (Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as).
//
// numpy compares datetimes of different units as instants (it casts to
// the finer unit), so a literal that falls between two counts of the
// field's unit equals none of them, is greater than the one below and
// less than the one above: the caller gets the count below and exact =
// false.
func datetimeCount(s, unit string, mult int64) (count int64, exact bool, err error) {
	if mult < 1 {
		mult = 1
	}
	year, month, day, as, hasDay, err := parseISODatetime(s)
	if err != nil {
		return 0, false, err
	}
	if unit == "W" && !hasDay {
		// Weeks and calendar months or years have no common unit: numpy
		// then casts the literal to the field's unit (rounding down) and
		// compares that, so do the same.
		days := time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
		q, _ := floorDiv(days, 7*mult)
		return q, true, nil
	}
	switch unit {
	case "Y", "M":
		// Calendar units: months since 1970-01.
		months := (int64(year)-1970)*12 + int64(month-1)
		inexact := day != 1 || as.Sign() != 0
		per := mult
		if unit == "Y" {
			inexact = inexact || month != 1
			per *= 12
		}
		q, r := floorDiv(months, per)
		return q, !inexact && r == 0, nil
	}
	den, ok := unitLength(unit)
	if !ok {
		return 0, false, fmt.Errorf("datetime64 unit %q has no time scale", unit)
	}
	den.Mul(den, big.NewInt(mult))
	days := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Unix() / 86400
	total := new(big.Int).Mul(big.NewInt(days*86400), big.NewInt(1e18))
	total.Add(total, as)
	q, r := new(big.Int).DivMod(total, den, new(big.Int)) // Euclidean: r >= 0, q rounded down
	if !q.IsInt64() || q.Int64() == math.MinInt64 {
		return 0, false, fmt.Errorf("%q is out of the range of datetime64[%s]", s, unitString(unit, mult))
	}
	return q.Int64(), r.Sign() == 0, nil
}

// unitLength returns the length of a datetime64 time unit in attoseconds.
func unitLength(unit string) (*big.Int, bool) {
	secs := map[string]int64{"W": 7 * 86400, "D": 86400, "h": 3600, "m": 60, "s": 1}
	if n, ok := secs[unit]; ok {
		return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)), true
	}
	sub := map[string]int64{"ms": 1e15, "us": 1e12, "ns": 1e9, "ps": 1e6, "fs": 1e3, "as": 1}
	if n, ok := sub[unit]; ok {
		return big.NewInt(n), true
	}
	return nil, false
}

func unitString(unit string, mult int64) string {
	if mult > 1 {
		return strconv.FormatInt(mult, 10) + unit
	}
	return unit
}

func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// parseISODatetime parses numpy's datetime64 string forms. as is the time
// of day in attoseconds.
func parseISODatetime(s string) (year, month, day int, as *big.Int, hasDay bool, err error) {
	bad := func(why string) (int, int, int, *big.Int, bool, error) {
		return 0, 0, 0, nil, false, fmt.Errorf("%q is not a datetime: %s (write 'YYYY-MM-DD' or 'YYYY-MM-DDThh:mm:ss[.fff]', no time zone)", s, why)
	}
	num := func(p string, n int) (int, bool) {
		if len(p) != n {
			return 0, false
		}
		v := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	date, clock, hasClock := strings.Cut(s, "T")
	if !hasClock {
		date, clock, hasClock = strings.Cut(s, " ")
	}
	parts := strings.Split(date, "-")
	if len(parts) > 3 {
		return bad("too many date parts")
	}
	var ok bool
	if year, ok = num(parts[0], 4); !ok {
		return bad("the year must have 4 digits")
	}
	month, day = 1, 1
	if len(parts) > 1 {
		if month, ok = num(parts[1], 2); !ok || month < 1 || month > 12 {
			return bad("the month must be 01 to 12")
		}
	}
	if len(parts) > 2 {
		if day, ok = num(parts[2], 2); !ok || day < 1 {
			return bad("the day must be 01 to 31")
		}
		if t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC); t.Day() != day {
			return bad(fmt.Sprintf("%04d-%02d has no day %d", year, month, day))
		}
		hasDay = true
	}
	as = new(big.Int)
	if !hasClock {
		return year, month, day, as, hasDay, nil
	}
	if !hasDay {
		return bad("a time needs a full date")
	}
	if strings.ContainsAny(clock, "Zz+") || strings.Count(clock, "-") > 0 {
		return bad("time zones are not supported (numpy's datetime64 has none)")
	}
	hms, frac, hasFrac := strings.Cut(clock, ".")
	f := strings.Split(hms, ":")
	limits := []int{24, 60, 60}
	units := []int64{3600, 60, 1}
	if len(f) > 3 {
		return bad("too many time parts")
	}
	secs := int64(0)
	for i, p := range f {
		v, ok := num(p, 2)
		if !ok || v >= limits[i] {
			return bad("hours, minutes and seconds have two digits, below 24, 60 and 60")
		}
		secs += int64(v) * units[i]
	}
	as.Mul(big.NewInt(secs), big.NewInt(1e18))
	if hasFrac {
		if len(f) != 3 || len(frac) == 0 || len(frac) > 18 {
			return bad("a fraction of a second goes after the seconds, with 1 to 18 digits")
		}
		v, ok := num(frac, len(frac))
		if !ok {
			return bad("the fraction of a second must be digits")
		}
		scale := int64(1)
		for range 18 - len(frac) {
			scale *= 10
		}
		as.Add(as, new(big.Int).Mul(big.NewInt(int64(v)), big.NewInt(scale)))
	}
	return year, month, day, as, hasDay, nil
}
