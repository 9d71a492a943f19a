package matfile

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/npyflow/npyflow/npyio"
)

// charUnits decodes the n characters of a char array stored as typ: UTF-16
// code units (miUTF16, miUINT16, miINT16), code points (miUTF32,
// miUINT32, miINT32), UTF-8 (miUTF8: code points, or UTF-16 units when
// the dimensions count those) or Latin-1 bytes (miUINT8, miINT8).
func charUnits(typ DataType, src []byte, bo binary.ByteOrder, n int64) ([]uint32, error) {
	if n > int64(len(src)) {
		return nil, fmt.Errorf("%d characters in %d bytes", n, len(src))
	}
	out := make([]uint32, 0, n)
	switch typ {
	case MiUTF8:
		for len(src) > 0 {
			r, size := utf8.DecodeRune(src)
			if r == utf8.RuneError && size <= 1 {
				return nil, fmt.Errorf("invalid UTF-8 in character data at byte %d", cap(out)-len(src))
			}
			out = append(out, uint32(r))
			src = src[size:]
		}
		if int64(len(out)) != n {
			// The dimensions may count UTF-16 code units.
			u := make([]uint32, 0, n)
			for _, r := range out {
				if r > 0xFFFF {
					a, b := utf16.EncodeRune(rune(r))
					u = append(u, uint32(a), uint32(b))
				} else {
					u = append(u, r)
				}
			}
			out = u
		}
	case MiUTF16, MiUINT16, MiINT16:
		for i := 0; i+1 < len(src); i += 2 {
			out = append(out, uint32(bo.Uint16(src[i:])))
		}
		if len(src)%2 != 0 {
			return nil, fmt.Errorf("%d bytes of %s character data", len(src), typ)
		}
	case MiUTF32, MiUINT32, MiINT32:
		if len(src)%4 != 0 {
			return nil, fmt.Errorf("%d bytes of %s character data", len(src), typ)
		}
		for i := 0; i+3 < len(src); i += 4 {
			c := bo.Uint32(src[i:])
			if c > utf8.MaxRune {
				return nil, fmt.Errorf("character %#x is not Unicode", c)
			}
			out = append(out, c)
		}
	case MiUINT8, MiINT8:
		for _, c := range src {
			out = append(out, uint32(c))
		}
	default:
		return nil, fmt.Errorf("character data of type %s", typ)
	}
	if int64(len(out)) != n {
		return nil, fmt.Errorf("%d characters of %s data for %d elements of the dimensions", len(out), typ, n)
	}
	return out, nil
}

// charStrings turns a column-major char array of dims into numpy U
// strings along the last dimension (one per row of a 2-D array, as
// scipy.io.loadmat(chars_as_strings=True) does): shape dims[:len-1],
// width max(1, dims[last]). UTF-16 surrogate pairs become one character;
// the string is NUL-padded (trailing NULs are not kept, as in numpy).
func charStrings(units []uint32, dims []int) (*npyio.DType, []int, []byte) {
	last := dims[len(dims)-1]
	shape := append([]int(nil), dims[:len(dims)-1]...)
	rows := 1
	for _, d := range shape {
		rows *= d
	}
	width := last
	if width < 1 {
		width = 1
	}
	dt, _ := npyio.NewString(npyio.Unicode, width)
	out := allocFor(int64(rows), dt.Size)
	cells := view[uint32](out)
	for r := 0; r < rows; r++ {
		o := r * width
		for j := 0; j < last; j++ {
			c := units[r+j*rows]
			if c >= 0xD800 && c < 0xDC00 && j+1 < last {
				if d := units[r+(j+1)*rows]; d >= 0xDC00 && d < 0xE000 {
					c = uint32(utf16.DecodeRune(rune(c), rune(d)))
					j++
				}
			}
			cells[o] = c
			o++
		}
	}
	return dt, shape, out
}

func (p *l5parser) char(b []byte, pos int, path string, h *mheader, n int64) error {
	d, _, err := p.next(path, b, pos, "character data")
	if err != nil {
		return err
	}
	units, err := charUnits(d.typ, d.data, p.bo, n)
	if err != nil {
		return p.errf(path, "%v", err)
	}
	if n == 0 {
		// No characters, but maybe many empty strings (a 1e9x0 char).
		rows, _ := numel(h.dims[:len(h.dims)-1])
		if max := p.f.opts.MaxVariableBytes; rows > max/4 {
			return &LimitError{Path: path, What: "size of the empty strings", Size: rows * 4, Limit: max, Hint: "MaxVariableBytes"}
		}
	}
	dt, shape, data := charStrings(units, h.dims)
	return p.emitArray(path, NameChar, dt, shape, data, false)
}
