package zarr

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"unicode/utf8"

	"github.com/npyflow/npyflow/internal/codec"
)

// Codec is one step of an array's codec pipeline as its metadata names it
// (v3 "name"/"configuration"; v2 filters and compressor by "id").
type Codec struct {
	Name   string
	Config map[string]any
}

// maxChunkBytes bounds one decoded chunk: a chunk grid declaring more is
// refused before anything is read.
const maxChunkBytes = 1 << 31

// bytesCodec is a bytes-to-bytes codec (a compressor or a checksum).
type bytesCodec interface {
	// decode undoes the codec; want is the decoded size when known
	// (else -1), and no more than limit bytes are produced.
	decode(src []byte, want, limit int64) ([]byte, error)
	encode(e *codec.Encoder, dst, src []byte) ([]byte, error)
}

// intoDecoder is a bytesCodec that decodes straight into a buffer of
// the decoded size (no allocation, no copy).
type intoDecoder interface {
	decodeInto(src, dst []byte) error
}

// decodeInto decodes src into dst, which it must fill exactly: in place
// when c can, else through a buffer of its own.
func decodeInto(c bytesCodec, src, dst []byte) error {
	if d, ok := c.(intoDecoder); ok {
		return d.decodeInto(src, dst)
	}
	out, err := c.decode(src, int64(len(dst)), int64(len(dst)))
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return fmt.Errorf("decodes to %d bytes, want %d", len(out), len(dst))
	}
	copy(dst, out)
	return nil
}

type zstdCodec struct{ level int }

func (c zstdCodec) decode(src []byte, want, limit int64) ([]byte, error) {
	if want < 0 {
		want = limit
	}
	return codec.DecodeZstd(codec.Params{}, src, uint64(want), nil)
}

func (zstdCodec) decodeInto(src, dst []byte) error {
	return codec.ZstdDecodeInto(src, dst)
}

func (c zstdCodec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	lvl := c.level
	if lvl <= 0 {
		lvl = 3
	}
	return e.Zstd(dst, src, lvl)
}

type bloscCodec struct {
	cname           string
	clevel, shuffle int
	typesize        int
}

func (c bloscCodec) decode(src []byte, want, limit int64) ([]byte, error) {
	if want < 0 {
		want = limit
	}
	out, err := codec.DecodeBlosc(codec.Params{}, src, uint64(want), nil)
	return out, err
}

func (bloscCodec) decodeInto(src, dst []byte) error {
	_, err := codec.DecodeBlosc(codec.Params{}, src, uint64(len(dst)), dst)
	return err
}

func (c bloscCodec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	return e.Blosc(dst, src, c.cname, c.clevel, c.shuffle, c.typesize)
}

type lz4Codec struct{}

func (lz4Codec) decode(src []byte, want, limit int64) ([]byte, error) {
	return codec.DecodeLZ4Numcodecs(src, want, limit)
}

func (lz4Codec) decodeInto(src, dst []byte) error {
	return codec.DecodeLZ4NumcodecsInto(src, dst)
}

func (lz4Codec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	return e.LZ4(dst, src)
}

type zlibCodec struct{ level int }

func (zlibCodec) decode(src []byte, want, limit int64) ([]byte, error) {
	return codec.DecodeZlib(src, want, limit)
}

func (c zlibCodec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	return e.Zlib(dst, src, c.level)
}

type gzipCodec struct{ level int }

func (gzipCodec) decode(src []byte, want, limit int64) ([]byte, error) {
	return codec.DecodeGzip(src, want, limit)
}

func (c gzipCodec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	return e.Gzip(dst, src, c.level)
}

type bz2Codec struct{}

func (bz2Codec) decode(src []byte, want, limit int64) ([]byte, error) {
	if want < 0 {
		want = limit
	}
	return codec.DecodeBZip2(codec.Params{}, src, uint64(want), nil)
}

func (bz2Codec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	return nil, fmt.Errorf("writing bz2 is not supported")
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type crc32cCodec struct{}

func (crc32cCodec) decode(src []byte, want, limit int64) ([]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("crc32c: %d bytes, shorter than the checksum", len(src))
	}
	n := len(src) - 4
	if got, stored := crc32.Checksum(src[:n], castagnoli), binary.LittleEndian.Uint32(src[n:]); got != stored {
		return nil, fmt.Errorf("crc32c checksum mismatch (stored %#08x, computed %#08x)", stored, got)
	}
	return src[:n], nil
}

func (crc32cCodec) encode(e *codec.Encoder, dst, src []byte) ([]byte, error) {
	dst = append(dst, src...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(src, castagnoli)), nil
}

// arrayCodec is an array-to-array codec working on a chunk's elements.
type arrayCodec interface {
	// decode turns the encoded elements src of the encoded shape back
	// into the decoded shape's elements (both C order).
	decode(src []byte, shape []int64, es int) ([]byte, error)
	encode(src []byte, shape []int64, es int) ([]byte, error)
}

// transposeCodec is v3's transpose (and v2's F order: the reversed axes):
// the encoded array's axis i is the decoded array's axis order[i].
type transposeCodec struct{ order []int }

func (t transposeCodec) decode(src []byte, shape []int64, es int) ([]byte, error) {
	enc := make([]int64, len(shape))
	for i, o := range t.order {
		enc[i] = shape[o]
	}
	return permute(src, enc, t.order, es, false), nil
}

func (t transposeCodec) encode(src []byte, shape []int64, es int) ([]byte, error) {
	return permute(src, shape, t.order, es, true), nil
}

// permute copies a C-order array of shape between layouts. forward: out
// has shape shape[order[i]] and out[j] = in[j mapped back]; otherwise in
// has shape (the encoded shape, axis i being decoded axis order[i]) and
// out is the decoded array.
func permute(in []byte, shape []int64, order []int, es int, forward bool) []byte {
	nd := len(shape)
	out := make([]byte, len(in))
	if nd == 0 || len(in) == 0 {
		copy(out, in)
		return out
	}
	// Strides of the decoded array (C order).
	var dec []int64
	if forward {
		dec = shape
	} else {
		dec = make([]int64, nd)
		for i, o := range order {
			dec[o] = shape[i]
		}
	}
	decStride := make([]int64, nd)
	s := int64(es)
	for i := nd - 1; i >= 0; i-- {
		decStride[i] = s
		s *= dec[i]
	}
	encShape := make([]int64, nd)
	encStride := make([]int64, nd) // stride in the decoded buffer of encoded axis i
	for i, o := range order {
		encShape[i] = dec[o]
		encStride[i] = decStride[o]
	}
	idx := make([]int64, nd)
	var off int64
	for p := 0; p < len(in); p += es {
		if forward {
			copy(out[p:p+es], in[off:off+int64(es)])
		} else {
			copy(out[off:off+int64(es)], in[p:p+es])
		}
		for k := nd - 1; k >= 0; k-- {
			idx[k]++
			off += encStride[k]
			if idx[k] < encShape[k] {
				break
			}
			off -= encStride[k] * idx[k]
			idx[k] = 0
		}
	}
	return out
}

// deltaCodec is numcodecs' Delta with dtype == astype: the first element,
// then the differences of neighbours (in memory order, wrapping).
type deltaCodec struct{ d DType }

func (c deltaCodec) decode(src []byte, shape []int64, es int) ([]byte, error) {
	out := append([]byte(nil), src...)
	be := c.d.ByteOrder() == '>'
	switch c.d.Kind() {
	case 'i', 'u':
		var acc uint64
		for p := 0; p+es <= len(out); p += es {
			acc += getUint(out[p:p+es], be)
			putUint(out[p:], acc, es, be)
		}
	case 'f':
		var acc float64
		for p := 0; p+es <= len(out); p += es {
			v := getUint(out[p:p+es], be)
			if es == 8 {
				acc += math.Float64frombits(v)
				putUint(out[p:], math.Float64bits(acc), 8, be)
			} else {
				acc = float64(float32(acc) + math.Float32frombits(uint32(v)))
				putUint(out[p:], uint64(math.Float32bits(float32(acc))), 4, be)
			}
		}
	}
	return out, nil
}

func (c deltaCodec) encode(src []byte, shape []int64, es int) ([]byte, error) {
	out := append([]byte(nil), src...)
	be := c.d.ByteOrder() == '>'
	var prev uint64
	for p := 0; p+es <= len(out); p += es {
		v := getUint(src[p:p+es], be)
		switch c.d.Kind() {
		case 'f':
			if es == 8 {
				putUint(out[p:], math.Float64bits(math.Float64frombits(v)-math.Float64frombits(prev)), 8, be)
			} else {
				putUint(out[p:], uint64(math.Float32bits(math.Float32frombits(uint32(v))-math.Float32frombits(uint32(prev)))), 4, be)
			}
		default:
			putUint(out[p:], v-prev, es, be)
		}
		prev = v
	}
	return out, nil
}

func getUint(b []byte, be bool) uint64 {
	var v uint64
	for i := range b {
		if be {
			v = v<<8 | uint64(b[i])
		} else {
			v |= uint64(b[i]) << (8 * i)
		}
	}
	return v
}

// swapBytes reverses the byte order of every es-byte unit of b in place.
func swapBytes(b []byte, es int) {
	if es <= 1 {
		return
	}
	for p := 0; p+es <= len(b); p += es {
		for i, j := p, p+es-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
	}
}

// swapUnit is the unit whose byte order the bytes codec swaps for d:
// the element size, half of it for complex numbers, 0 for byte types.
func swapUnit(d DType) int {
	switch d.Kind() {
	case 'i', 'u', 'f', 'M', 'm':
		return d.ItemSize()
	case 'c':
		return d.ItemSize() / 2
	case 'U':
		return 4
	}
	return 0
}

// decodeVlen reads numcodecs' vlen encoding of n items: a little-endian
// uint32 item count, then each item as its uint32 length and bytes.
func decodeVlen(src []byte, n int64, utf bool) ([][]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("vlen: %d bytes, shorter than its item count", len(src))
	}
	k := int64(binary.LittleEndian.Uint32(src))
	if k != n {
		return nil, fmt.Errorf("vlen: %d items, want %d", k, n)
	}
	if n > int64(len(src)-4)/4 {
		return nil, fmt.Errorf("vlen: %d items do not fit in %d bytes", n, len(src))
	}
	items := make([][]byte, n)
	p := 4
	for i := range items {
		if len(src)-p < 4 {
			return nil, fmt.Errorf("vlen: item %d runs past the end", i)
		}
		l := int(binary.LittleEndian.Uint32(src[p:]))
		p += 4
		if l > len(src)-p {
			return nil, fmt.Errorf("vlen: item %d of %d bytes runs past the end", i, l)
		}
		items[i] = src[p : p+l : p+l]
		if utf && !utf8.Valid(items[i]) {
			return nil, fmt.Errorf("vlen-utf8: item %d is not UTF-8", i)
		}
		p += l
	}
	return items, nil
}

func encodeVlen(items [][]byte) []byte {
	n := 4
	for _, it := range items {
		n += 4 + len(it)
	}
	out := make([]byte, 0, n)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(items)))
	for _, it := range items {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(it)))
		out = append(out, it...)
	}
	return out
}

// intConf reads an integer setting of a codec configuration.
func intConf(c map[string]any, key string, def int) (int, error) {
	v, ok := c[key]
	if !ok || v == nil {
		return def, nil
	}
	f, ok := v.(float64)
	if !ok {
		if n, ok := v.(json.Number); ok {
			i, err := n.Int64()
			return int(i), err
		}
		return 0, fmt.Errorf("%s is %v, not a number", key, v)
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("%s is %v, not an integer", key, f)
	}
	return int(f), nil
}

func strConf(c map[string]any, key, def string) (string, error) {
	v, ok := c[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is %v, not a string", key, v)
	}
	return s, nil
}

// compressor builds the bytes codec a v2 compressor or a v3 bytes-to-bytes
// codec names. v3 blosc names its shuffle by word.
func compressor(c Codec, es int) (bytesCodec, error) {
	cf := c.Config
	switch c.Name {
	case "zstd":
		l, err := intConf(cf, "level", 0)
		return zstdCodec{l}, err
	case "lz4":
		return lz4Codec{}, nil
	case "zlib":
		l, err := intConf(cf, "level", 1)
		return zlibCodec{l}, err
	case "gzip":
		l, err := intConf(cf, "level", 1)
		return gzipCodec{l}, err
	case "bz2":
		return bz2Codec{}, nil
	case "crc32c":
		return crc32cCodec{}, nil
	case "blosc":
		cname, err := strConf(cf, "cname", "lz4")
		if err != nil {
			return nil, err
		}
		clevel, err := intConf(cf, "clevel", 5)
		if err != nil {
			return nil, err
		}
		shuffle := codec.BloscShuffle
		switch v := cf["shuffle"].(type) {
		case string:
			switch v {
			case "noshuffle":
				shuffle = codec.BloscNoShuffle
			case "shuffle":
				shuffle = codec.BloscShuffle
			case "bitshuffle":
				shuffle = codec.BloscBitShuffle
			default:
				return nil, fmt.Errorf("blosc shuffle %q", v)
			}
		case float64:
			shuffle = int(v)
			if shuffle == -1 { // numcodecs AUTOSHUFFLE
				shuffle = codec.BloscShuffle
				if es == 1 {
					shuffle = codec.BloscBitShuffle
				}
			}
		}
		ts, err := intConf(cf, "typesize", es)
		if err != nil {
			return nil, err
		}
		return bloscCodec{cname: cname, clevel: clevel, shuffle: shuffle, typesize: ts}, nil
	}
	return nil, fmt.Errorf("codec %q is not supported", c.Name)
}
