package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Variable-length strings and numpy's fixed-width ones. numpy pads U
// (UCS-4) and S items with NULs and strips trailing NULs when it reads
// them, so an item is written without its padding, and an item that ends
// in NUL cannot come back as a fixed-width string unchanged: reading one
// so is an error, as is a U code point with no UTF-8 form (a surrogate,
// or past U+10FFFF).

// stringItem is one fixed-width U or S element of type d as a
// variable-length item: UTF-8 text, or bytes, without trailing NULs.
func stringItem(d DType, e []byte) ([]byte, error) {
	if d.Kind() == 'S' {
		return bytes.TrimRight(e, "\x00"), nil
	}
	be := d.ByteOrder() == '>'
	n := len(e) / 4
	for n > 0 && binary.LittleEndian.Uint32(e[4*n-4:]) == 0 {
		n--
	}
	out := make([]byte, 0, n)
	for i := 0; i < n; i++ {
		var r uint32
		if be {
			r = binary.BigEndian.Uint32(e[4*i:])
		} else {
			r = binary.LittleEndian.Uint32(e[4*i:])
		}
		if r > utf8.MaxRune || r >= 0xd800 && r <= 0xdfff {
			return nil, fmt.Errorf("character %d is %#x, not a Unicode scalar value (it has no UTF-8 form)", i, r)
		}
		out = utf8.AppendRune(out, rune(r))
	}
	return out, nil
}

// stringItems is stringItem of each element of buf.
func stringItems(d DType, buf []byte) ([][]byte, error) {
	es := d.ItemSize()
	items := make([][]byte, len(buf)/es)
	for i := range items {
		it, err := stringItem(d, buf[i*es:(i+1)*es])
		if err != nil {
			return nil, fmt.Errorf("element %d of the chunk: %v", i, err)
		}
		items[i] = it
	}
	return items, nil
}

// StringWidth scans a variable-length string array for its longest
// item: characters for text, bytes for bytes; [Array.FixedType] of it is
// the numpy type that holds every item (as h5py and numpy read them).
// An item that ends in NUL is an error: a fixed-width numpy string would
// lose it.
func (a *Array) StringWidth(ctx context.Context) (int, error) {
	if !a.DType.VarString {
		return 0, a.errf("", "StringWidth on a %s array", a.DType.name())
	}
	text := a.DType.Kind() == 'U'
	width := 0
	if a.Fill != nil {
		if err := fixedOK(a.Fill, -1); err != nil {
			return 0, a.errf("", "fill value: %v", err)
		}
		width = itemWidth(a.Fill, text)
	}
	nd := len(a.Shape)
	start := make([]int64, nd)
	count := append([]int64(nil), a.Shape...)
	units := a.units(start, count)
	var mu sync.Mutex
	err := parallel(ctx, threads(a.Threads), len(units), func(i int) error {
		raw, name, err := a.fetchUnit(ctx, units[i], nil)
		if err != nil || raw == nil {
			return err
		}
		items, err := a.decodeStrings(raw, name)
		if err != nil {
			return err
		}
		w := 0
		for k, it := range items {
			if err := fixedOK(it, k); err != nil {
				return a.errf(name, "%v", err)
			}
			w = max(w, itemWidth(it, text))
		}
		mu.Lock()
		width = max(width, w)
		mu.Unlock()
		return nil
	})
	return width, err
}

func itemWidth(it []byte, text bool) int {
	if text {
		return utf8.RuneCount(it)
	}
	return len(it)
}

// fixedOK says whether item k survives a fixed-width numpy string.
func fixedOK(it []byte, k int) error {
	if len(it) > 0 && it[len(it)-1] == 0 {
		what := "the fill value"
		if k >= 0 {
			what = "item " + strconv.Itoa(k)
		}
		return fmt.Errorf("%s ends in NUL, which a fixed-width numpy string cannot hold (numpy strips trailing NULs)", what)
	}
	return nil
}

// FixedType is the numpy type of width characters (bytes) that a
// variable-length string array is read as with [Array.ReadFixed]: "<U"
// for text, "|S" for bytes; a width of 0 is 1, as numpy makes it.
func (a *Array) FixedType(width int) DType {
	width = max(width, 1)
	if a.DType.Kind() == 'S' {
		return DType{Descr: "|S" + strconv.Itoa(width)}
	}
	return DType{Descr: "<U" + strconv.Itoa(width)}
}

// ReadFixed reads the region start+count of a variable-length string
// array as fixed-width items of a.FixedType(width) into dst (C order,
// NUL-padded): an item longer than width, one that ends in NUL or, for
// text, one that is not UTF-8 is an error naming its chunk.
func (a *Array) ReadFixed(ctx context.Context, start, count []int64, width int, dst []byte) error {
	d := a.FixedType(width)
	es := d.ItemSize()
	n, err := a.checkRegion(start, count)
	if err != nil {
		return err
	}
	if int64(len(dst)) != n*int64(es) {
		return a.errf("", "destination of %d bytes for %d elements of %d", len(dst), n, es)
	}
	items, err := a.ReadStrings(ctx, start, count)
	if err != nil {
		return err
	}
	text := d.Kind() == 'U'
	clear(dst)
	for j, it := range items {
		if err := fixedOK(it, j); err != nil {
			return a.errf("", "region %v+%v: %v", start, count, err)
		}
		e := dst[j*es : (j+1)*es]
		if !text {
			if len(it) > es {
				return a.errf("", "region %v+%v: item %d of %d bytes is longer than %s", start, count, j, len(it), d.Descr)
			}
			copy(e, it)
			continue
		}
		p := 0
		for len(it) > 0 {
			r, size := utf8.DecodeRune(it)
			if r == utf8.RuneError && size <= 1 {
				return a.errf("", "region %v+%v: item %d is not UTF-8", start, count, j)
			}
			if p+4 > es {
				return a.errf("", "region %v+%v: item %d is longer than %s", start, count, j, d.Descr)
			}
			binary.LittleEndian.PutUint32(e[p:], uint32(r))
			p += 4
			it = it[size:]
		}
	}
	return nil
}
