package matfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"time"
	"unicode/utf16"

	"github.com/npyflow/npyflow/npyio"
)

// The column-major scatter shared by both encoders. A leaf's data is the
// C-order array of shape [R]+inner (R rows along numpy's axis 0). MATLAB
// wants it column-major, which is also the C order of the reversed shape
// HDF5 stores. Element (r, j1..jk) goes to r + R*f(j) where f is the
// column-major index of j within inner. Rows arrive in batches, so each
// batch fills a contiguous run of every column.

var wNE = binary.NativeEndian

// wScatter converts n rows of batch (C order, rowSize bytes each, the
// first being row g of a destination of R rows) into dst, which holds
// R*prod(inner) destination units of l.usize bytes in column-major order.
// It returns the largest unit written for char leaves (a code point
// beyond 0xFFFF only where the plan gave the strings no room for pairs).
func (l *wLeaf) scatter(dst []byte, R, g int64, batch []byte, n int, p *wPlan) (uint32, error) {
	inner := l.inner
	fs := make([]int64, len(inner))
	idx := make([]int, len(inner))
	stride := int64(1)
	for k := range inner {
		fs[k] = stride
		stride *= int64(inner[k])
	}
	if stride == 0 || n == 0 {
		return 0, nil
	}
	if l.conv == wCopy && l.cnt == 1 && l.units == 1 && len(inner) == 1 && p.recSize == l.srcSize && (l.usize == 8 || l.usize == 4) {
		l.tiled(dst, R, g, batch, n, p)
		return 0, nil
	}
	if l.conv == wUnicode && l.pairs {
		return l.scatterUTF16(dst, R, g, batch, n, p, fs[len(fs)-1])
	}
	var f int64
	var maxCP uint32
	rowSize := int(p.rowSize)
	var ends []int // char leaves: each string's length without its trailing NULs
	if l.conv == wUnicode || l.conv == wBytesStr {
		ends = make([]int, n)
	}
	for e := 0; e < p.recs; e++ {
		for s := 0; s < l.cnt; s++ {
			srcPos := e*p.recSize + l.off + s*l.srcSize
			if ends != nil {
				l.stringEnds(ends, batch, srcPos, rowSize)
			}
			for u := 0; u < l.units; u++ {
				base := (f*R + g) * int64(l.usize)
				m, err := l.column(dst[base:base+int64(n)*int64(l.usize)], batch, srcPos, u, rowSize, n, ends)
				if err != nil {
					return 0, err
				}
				maxCP = max(maxCP, m)
				for k := len(inner) - 1; k >= 0; k-- {
					idx[k]++
					f += fs[k]
					if idx[k] < inner[k] {
						break
					}
					f -= fs[k] * int64(inner[k])
					idx[k] = 0
				}
			}
		}
	}
	return maxCP, nil
}

// scatterUTF16 is scatter for a leaf of U strings some of which have
// characters outside the BMP: each string becomes its UTF-16 code units
// (surrogate pairs; NULs kept but the trailing ones, numpy's padding), padded with spaces
// to l.units (which astral made room enough), unit u of the string
// of record e, element s going to column f(e, s) + P*u (P the column
// stride of the units dimension, the last of inner). It returns the
// largest unit written.
func (l *wLeaf) scatterUTF16(dst []byte, R, g int64, batch []byte, n int, p *wPlan, P int64) (uint32, error) {
	inner := l.inner[:len(l.inner)-1]
	fs := make([]int64, len(inner))
	idx := make([]int, len(inner))
	stride := int64(1)
	for k := range inner {
		fs[k] = stride
		stride *= int64(inner[k])
	}
	units := make([]uint32, l.units)
	var f int64 // column of the string's first unit
	var maxU uint32
	for e := 0; e < p.recs; e++ {
		for s := 0; s < l.cnt; s++ {
			srcPos := e*p.recSize + l.off + s*l.srcSize
			for r := 0; r < n; r++ {
				end := l.cps
				for end > 0 && wNE.Uint32(batch[r*int(p.rowSize)+srcPos+4*(end-1):]) == 0 {
					end--
				}
				k := 0
				for u := 0; u < end; u++ {
					c := wNE.Uint32(batch[r*int(p.rowSize)+srcPos+4*u:])
					switch {
					case c > 0x10FFFF:
						return 0, fmt.Errorf("matfile: variable %q: %#x is not a Unicode code point", l.path, c)
					}
					need := 1
					if c > 0xFFFF {
						need = 2
					}
					if k+need > len(units) {
						return 0, fmt.Errorf("matfile: variable %q: a string wider than the %d UTF-16 units planned", l.path, len(units))
					}
					if c > 0xFFFF {
						hi, lo := utf16.EncodeRune(rune(c))
						units[k], units[k+1] = uint32(hi), uint32(lo)
						k += 2
						continue
					}
					units[k] = c
					k++
				}
				for ; k < len(units); k++ {
					units[k] = ' '
				}
				for u, c := range units {
					maxU = max(maxU, c)
					wNE.PutUint32(dst[((f+P*int64(u))*R+g+int64(r))*4:], c)
				}
			}
			// next element of inner (C order)
			for k := len(inner) - 1; k >= 0; k-- {
				idx[k]++
				f += fs[k]
				if idx[k] < inner[k] {
					break
				}
				f -= fs[k] * int64(inner[k])
				idx[k] = 0
			}
		}
	}
	return maxU, nil
}

// stringEnds sets ends[r] to the length of the string at srcPos of row r
// (rows rs bytes apart) less its trailing NULs, which are numpy's padding:
// a NUL before it is a character, kept as MATLAB keeps char(0).
func (l *wLeaf) stringEnds(ends []int, src []byte, srcPos, rs int) {
	for r := range ends {
		p := srcPos + r*rs
		end := l.units
		if l.conv == wUnicode {
			end = l.cps
			for end > 0 && wNE.Uint32(src[p+4*(end-1):]) == 0 {
				end--
			}
		} else {
			for end > 0 && src[p+end-1] == 0 {
				end--
			}
		}
		ends[r] = end
	}
}

// column converts one column run: n source values at srcPos, srcPos+rs,
// ... (unit u of each for strings) into consecutive units of dst. For
// strings, ends has each one's length less its trailing NULs: those are
// padding and become spaces (as MATLAB's char() pads), other NULs stay.
func (l *wLeaf) column(dst, src []byte, srcPos, u, rs, n int, ends []int) (uint32, error) {
	sp := srcPos
	switch l.conv {
	case wCopy:
		switch l.usize {
		case 1:
			for r := 0; r < n; r++ {
				dst[r] = src[sp]
				sp += rs
			}
		case 2:
			for r := 0; r < n; r++ {
				wNE.PutUint16(dst[2*r:], wNE.Uint16(src[sp:]))
				sp += rs
			}
		case 4:
			for r := 0; r < n; r++ {
				wNE.PutUint32(dst[4*r:], wNE.Uint32(src[sp:]))
				sp += rs
			}
		case 8:
			for r := 0; r < n; r++ {
				wNE.PutUint64(dst[8*r:], wNE.Uint64(src[sp:]))
				sp += rs
			}
		default:
			us := l.usize
			if rs == us {
				copy(dst[:n*us], src[sp:sp+n*us])
				return 0, nil
			}
			for r := 0; r < n; r++ {
				copy(dst[us*r:us*r+us], src[sp:sp+us])
				sp += rs
			}
		}
	case wBool:
		for r := 0; r < n; r++ {
			if src[sp] != 0 {
				dst[r] = 1
			} else {
				dst[r] = 0
			}
			sp += rs
		}
	case wHalf:
		for r := 0; r < n; r++ {
			wNE.PutUint32(dst[4*r:], math.Float32bits(npyio.HalfToFloat32(wNE.Uint16(src[sp:]))))
			sp += rs
		}
	case wTime:
		for r := 0; r < n; r++ {
			wNE.PutUint64(dst[8*r:], math.Float64bits(l.seconds(int64(wNE.Uint64(src[sp:])))))
			sp += rs
		}
	case wUnicode:
		sp += 4 * u
		var m uint32
		for r := 0; r < n; r++ {
			c := wNE.Uint32(src[sp:])
			if c == 0 && u >= ends[r] {
				c = ' '
			}
			if c > 0x10FFFF {
				// (a lone surrogate is written as the code unit it is, as
				// the reader gives MATLAB's pairs split by the shape)
				return 0, fmt.Errorf("matfile: variable %q: %#x is not a Unicode code point", l.path, c)
			}
			m = max(m, c)
			wNE.PutUint32(dst[4*r:], c)
			sp += rs
		}
		return m, nil
	case wBytesStr:
		sp += u
		for r := 0; r < n; r++ {
			c := uint32(src[sp])
			if c == 0 && u >= ends[r] {
				c = ' '
			}
			if c >= 0x80 {
				return 0, fmt.Errorf("matfile: variable %q: byte string with a non-ASCII byte 0x%02X; MATLAB char needs text (decode it to a unicode string first)", l.path, c)
			}
			wNE.PutUint32(dst[4*r:], c)
			sp += rs
		}
	}
	return 0, nil
}

// seconds converts a datetime64/timedelta64 count to float64 seconds
// (NaT to NaN), as numpy's t / np.timedelta64(1, 's') does: the count in
// the unit of the fraction tnum/tden (an exact integer product), then one
// division by tden, an exact double (a power of ten, or its divisor), so
// that the result is the double nearest the exact value whenever the
// product is below 2^53 in magnitude (microseconds: the years 1685 to
// 2255), and otherwise at most one ulp from it (the product rounded to a
// double first). Month and year datetimes are converted by the calendar.
func (l *wLeaf) seconds(v int64) float64 {
	if v == math.MinInt64 {
		return math.NaN()
	}
	if l.tden != 0 {
		hi, lo := bits.Mul64(uint64(abs64(v)), uint64(l.tnum))
		if hi != 0 || lo > math.MaxInt64 {
			return float64(v) * float64(l.tnum) / float64(l.tden) // beyond int64: never exact
		}
		p := float64(v * l.tnum)
		if l.tden == 1 {
			return p
		}
		return p / float64(l.tden)
	}
	months := v * l.src.UnitMult
	if l.src.Unit == "Y" {
		months *= 12
	}
	y := months / 12
	mo := months % 12
	if mo < 0 {
		mo += 12
		y--
	}
	if y > 1<<40 || y < -(1<<40) {
		return float64(y) * 365.2425 * 86400
	}
	return float64(time.Date(int(1970+y), time.Month(1+mo), 1, 0, 0, 0, 0, time.UTC).Unix())
}

// tiled is scatter for a plain 2-D array of 4- or 8-byte values: a
// blocked transpose, so that both the rows read and the columns written
// stay in cache.
func (l *wLeaf) tiled(dst []byte, R, g int64, src []byte, n int, p *wPlan) {
	cols := p.recs
	es := l.usize
	rs := cols * es
	for r0 := 0; r0 < n; r0 += wTileSize {
		r1 := min(n, r0+wTileSize)
		for c0 := 0; c0 < cols; c0 += wTileSize {
			c1 := min(cols, c0+wTileSize)
			for c := c0; c < c1; c++ {
				d := dst[(int64(c)*R+g+int64(r0))*int64(es) : (int64(c)*R+g+int64(r1))*int64(es)]
				sp := r0*rs + c*es
				if es == 8 {
					for r := 0; r+8 <= len(d); r += 8 {
						wNE.PutUint64(d[r:], wNE.Uint64(src[sp:]))
						sp += rs
					}
				} else {
					for r := 0; r+4 <= len(d); r += 4 {
						wNE.PutUint32(d[r:], wNE.Uint32(src[sp:]))
						sp += rs
					}
				}
			}
		}
	}
}

const wTileSize = 32
