package matfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// renderValues turns n elements of dt in data into JSON-comparable
// values: numbers (NaN and infinities as strings), strings, bools,
// datetime64 as ISO 8601 text (UTC, fractional seconds only when
// nonzero; "NaT"), timedelta64 as seconds with a decimal point ("30s",
// "0.0001s"; "NaT"), structs as maps of their fields (subarrays as
// lists).
func renderValues(dt *npyio.DType, data []byte, n int) []any {
	out := make([]any, n)
	for i := 0; i < n; i++ {
		out[i] = renderOne(dt, data[i*dt.Size:(i+1)*dt.Size])
	}
	return out
}

func renderOne(dt *npyio.DType, b []byte) any {
	switch dt.Kind {
	case npyio.Bool:
		return b[0] != 0
	case npyio.Int:
		switch dt.Size {
		case 1:
			return float64(int8(b[0]))
		case 2:
			return float64(view[int16](b)[0])
		case 4:
			return float64(view[int32](b)[0])
		}
		return float64(view[int64](b)[0])
	case npyio.Uint:
		switch dt.Size {
		case 1:
			return float64(b[0])
		case 2:
			return float64(view[uint16](b)[0])
		case 4:
			return float64(view[uint32](b)[0])
		}
		return float64(view[uint64](b)[0])
	case npyio.Float:
		var f float64
		if dt.Size == 4 {
			f = float64(view[float32](b)[0])
		} else {
			f = view[float64](b)[0]
		}
		return jsonFloat(f)
	case npyio.Complex:
		if dt.Size == 8 {
			c := view[float32](b)
			return []any{jsonFloat(float64(c[0])), jsonFloat(float64(c[1]))}
		}
		c := view[float64](b)
		return []any{jsonFloat(c[0]), jsonFloat(c[1])}
	case npyio.Unicode:
		u := view[uint32](b)
		var sb strings.Builder
		for _, c := range u {
			if c == 0 {
				break
			}
			sb.WriteRune(rune(c))
		}
		return sb.String()
	case npyio.Datetime:
		t := view[int64](b)[0]
		if t == math.MinInt64 {
			return "NaT"
		}
		return isoTime(t, dt.Unit)
	case npyio.Timedelta:
		t := view[int64](b)[0]
		if t == math.MinInt64 {
			return "NaT"
		}
		return seconds(t, dt.Unit)
	case npyio.Struct:
		m := map[string]any{}
		for _, f := range dt.Fields {
			fb := b[f.Offset : f.Offset+f.Size()]
			if f.Shape == nil {
				m[f.Name] = renderOne(f.Type, fb)
			} else {
				m[f.Name] = renderValues(f.Type, fb, f.Count())
			}
		}
		return m
	}
	return fmt.Sprintf("<%s>", dt)
}

func jsonFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return f
}

var unitNanos = map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "D": 86400e9}

func isoTime(t int64, unit string) string {
	var tm time.Time
	switch unit {
	case "ns":
		tm = time.Unix(0, t)
	case "us":
		tm = time.UnixMicro(t)
	case "ms":
		tm = time.UnixMilli(t)
	case "s":
		tm = time.Unix(t, 0)
	default:
		return fmt.Sprintf("%d[%s]", t, unit)
	}
	return strings.TrimSuffix(tm.UTC().Format("2006-01-02T15:04:05.999999999"), ".")
}

// seconds renders t ticks of unit as exact decimal seconds.
func seconds(t int64, unit string) string {
	ns, ok := unitNanos[unit]
	if !ok {
		return fmt.Sprintf("%d[%s]", t, unit)
	}
	neg := t < 0
	if neg {
		t = -t
	}
	whole := t * ns / 1e9
	frac := t * ns % 1e9
	s := strconv.FormatInt(whole, 10)
	if frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	if neg {
		s = "-" + s
	}
	return s + "s"
}
