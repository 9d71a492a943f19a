package parquetio

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go's value and level decoders size their output by what the
// encoded data says, not by the page's value count: an RLE run of 2**31
// levels or dictionary indexes takes five bytes, a DELTA_BINARY_PACKED
// header declares its value count, and the lengths of DELTA_(LENGTH_)
// BYTE_ARRAY values are summed into a buffer size before they are
// checked. checkPageData walks those streams of an uncompressed page
// first (run headers and delta headers only, the values of delta-encoded
// lengths) and refuses a page whose data declares more values than its
// header or byte array values beyond the page.

// runSlack is how many values an RLE/bit-packed stream may hold beyond
// the page's: its last bit-packed group is padded to 8.
const runSlack = 8

// checkPageData checks the levels and values of the uncompressed data
// page data of header h, for column col.
func checkPageData(col *parquet.Column, h *format.PageHeader, data []byte) error {
	maxRep, maxDef := col.MaxRepetitionLevel(), col.MaxDefinitionLevel()
	var n, nonNull int64
	var enc format.Encoding
	switch h.Type {
	case format.DataPage:
		v := &h.DataPageHeader.V
		n, nonNull, enc = int64(v.NumValues), int64(v.NumValues), v.Encoding
		for _, l := range []struct {
			max  int
			enc  format.Encoding
			what string
		}{{maxRep, v.RepetitionLevelEncoding, "repetition"}, {maxDef, v.DefinitionLevelEncoding, "definition"}} {
			if l.max == 0 {
				continue
			}
			if len(data) < 4 {
				return corrupt("%s levels cut off", l.what)
			}
			k := int64(binary.LittleEndian.Uint32(data))
			if k > int64(len(data)-4) {
				return corrupt("%s levels of %d bytes in %d bytes", l.what, k, len(data)-4)
			}
			if l.enc == format.RLE {
				if err := checkRuns(data[4:4+k], uint(bits.Len(uint(l.max))), n, l.what+" levels"); err != nil {
					return err
				}
			}
			data = data[4+k:]
		}
	case format.DataPageV2:
		v := &h.DataPageHeaderV2.V
		n, nonNull, enc = int64(v.NumValues), int64(v.NumValues-v.NumNulls), v.Encoding
		rep, def := int64(v.RepetitionLevelsByteLength), int64(v.DefinitionLevelsByteLength)
		if rep+def > int64(len(data)) { // checkPage checked them against the page
			return corrupt("levels of %d bytes in %d bytes", rep+def, len(data))
		}
		if maxRep > 0 {
			if err := checkRuns(data[:rep], uint(bits.Len(uint(maxRep))), n, "repetition levels"); err != nil {
				return err
			}
		}
		if maxDef > 0 {
			if err := checkRuns(data[rep:rep+def], uint(bits.Len(uint(maxDef))), n, "definition levels"); err != nil {
				return err
			}
		}
		data = data[rep+def:]
	default:
		return nil
	}
	switch enc {
	case format.PlainDictionary, format.RLEDictionary:
		if len(data) == 0 {
			return nil
		}
		if data[0] > 32 {
			return corrupt("dictionary indexes of %d bits", data[0])
		}
		return checkRuns(data[1:], uint(data[0]), nonNull, "dictionary indexes")
	case format.RLE:
		if col.Type().Kind() != parquet.Boolean || len(data) < 4 {
			return nil // parquet-go refuses it
		}
		k := int64(binary.LittleEndian.Uint32(data))
		if k > int64(len(data)-4) {
			return corrupt("RLE booleans of %d bytes in %d bytes", k, len(data)-4)
		}
		return checkRuns(data[4:4+k], 1, nonNull, "RLE booleans")
	case format.DeltaBinaryPacked:
		_, _, err := deltaValues(data, nonNull, false)
		return err
	case format.DeltaLengthByteArray:
		lengths, rest, err := deltaValues(data, nonNull, true)
		if err != nil {
			return err
		}
		var sum int64
		for _, l := range lengths {
			if l < 0 {
				return corrupt("negative DELTA_LENGTH_BYTE_ARRAY value length %d", l)
			}
			sum += l
		}
		if sum > int64(len(rest)) {
			return corrupt("DELTA_LENGTH_BYTE_ARRAY values of %d bytes in %d bytes", sum, len(rest))
		}
	case format.DeltaByteArray:
		prefix, rest, err := deltaValues(data, nonNull, true)
		if err != nil {
			return err
		}
		suffix, rest, err := deltaValues(rest, nonNull, true)
		if err != nil {
			return err
		}
		if len(prefix) != len(suffix) {
			return corrupt("DELTA_BYTE_ARRAY with %d prefix and %d suffix lengths", len(prefix), len(suffix))
		}
		var total, sufs, last int64
		for i := range prefix {
			p, s := prefix[i], suffix[i]
			if p < 0 || s < 0 || p > last {
				return corrupt("DELTA_BYTE_ARRAY value %d: prefix %d (of a %d-byte value before it), suffix %d", i, p, last, s)
			}
			last = p + s
			sufs += s
			total += last
			if total > pageSizeLimit {
				return corrupt("DELTA_BYTE_ARRAY values decode to more than %d bytes", pageSizeLimit)
			}
		}
		if sufs > int64(len(rest)) {
			return corrupt("DELTA_BYTE_ARRAY suffixes of %d bytes in %d bytes", sufs, len(rest))
		}
	}
	return nil
}

// checkRuns walks the RLE/bit-packed hybrid stream b of bitWidth-bit
// values (run headers only) and refuses it if it holds more than max
// values (plus the padding of a last bit-packed group).
func checkRuns(b []byte, bitWidth uint, max int64, what string) error {
	var count int64
	w := int64(bitWidth+7) / 8
	for len(b) > 0 {
		u, k := binary.Uvarint(b)
		if k <= 0 {
			return nil // parquet-go reports the bad header
		}
		b = b[k:]
		var c, skip int64
		if u&1 != 0 { // bit-packed: groups of 8 values
			g := int64(min(u>>1, math.MaxInt32))
			c, skip = g*8, g*int64(bitWidth)
		} else {
			c, skip = int64(min(u>>1, math.MaxInt32)), w
		}
		count += c
		if count > max+runSlack {
			return corrupt("%s hold more values than the page's %d", what, max)
		}
		if skip >= int64(len(b)) {
			return nil
		}
		b = b[skip:]
	}
	return nil
}

// deltaValues decodes the DELTA_BINARY_PACKED stream at the start of b
// (values as int32 when int32s, as parquet-go decodes byte array
// lengths) and returns its values and the bytes after it; it refuses a
// stream of more than max values. For int32s false it only checks the
// header (the values are not needed).
func deltaValues(b []byte, max int64, int32s bool) ([]int64, []byte, error) {
	var hdr [4]uint64
	for i := range hdr {
		u, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, nil, corrupt("DELTA_BINARY_PACKED header cut off")
		}
		hdr[i], b = u, b[k:]
	}
	blockSize, miniBlocks, total := hdr[0], hdr[1], hdr[2]
	first := int64(hdr[3]>>1) ^ -int64(hdr[3]&1)
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || miniBlocks == 0 || blockSize%miniBlocks != 0 || (blockSize/miniBlocks)%32 != 0 {
		return nil, nil, corrupt("DELTA_BINARY_PACKED blocks of %d values in %d miniblocks", blockSize, miniBlocks)
	}
	if total > uint64(max) {
		return nil, nil, corrupt("DELTA_BINARY_PACKED data holds %d values, more than the page's %d", total, max)
	}
	if !int32s {
		return nil, nil, nil
	}
	per := int(blockSize / miniBlocks)
	out := make([]int64, 0, total)
	if total > 0 {
		out = append(out, int64(int32(first)))
	}
	prev := int32(first)
	for uint64(len(out)) < total {
		u, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, nil, corrupt("DELTA_BINARY_PACKED block cut off")
		}
		minDelta := int32(int64(u>>1) ^ -int64(u&1))
		b = b[k:]
		if uint64(len(b)) < miniBlocks {
			return nil, nil, corrupt("DELTA_BINARY_PACKED block cut off")
		}
		widths := b[:miniBlocks]
		b = b[miniBlocks:]
		for _, bw := range widths {
			if uint64(len(out)) >= total {
				break
			}
			if bw > 32 {
				return nil, nil, corrupt("DELTA_BINARY_PACKED miniblock of %d-bit values", bw)
			}
			size := per * int(bw) / 8
			mb := b[:min(size, len(b))]
			for j := 0; j < per && uint64(len(out)) < total; j++ {
				var v uint64
				for bit := 0; bit < int(bw); bit++ {
					p := j*int(bw) + bit
					if p/8 < len(mb) && mb[p/8]&(1<<(p%8)) != 0 {
						v |= 1 << bit
					}
				}
				prev += minDelta + int32(uint32(v))
				out = append(out, int64(prev))
			}
			b = b[len(mb):]
		}
	}
	return out, b, nil
}
