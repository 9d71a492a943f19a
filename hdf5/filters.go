package hdf5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/klauspost/compress/zlib"
	"github.com/npyflow/npyflow/internal/codec"
)

// filterParams is what a registered filter's decoder knows of its dataset:
// the shared codec layer's parameters (client data and element size).
type filterParams = codec.Params

// A filterCodec undoes one registered HDF5 filter on one chunk.
//
// decode gets the encoded bytes src and want, the size of the chunk once
// every filter is undone: its output must not exceed want plus the few
// bytes a later filter (fletcher32) strips, so a decoder is bounded by the
// chunk's declared size and never allocates what the data claims beyond
// it. dst, when non-nil, has len want and the result may be written there
// (the last filter undone); otherwise the decoder allocates. An error
// describes what is wrong with the data; the caller names the dataset and
// the chunk's address.
type filterCodec struct {
	name   string
	decode func(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error)
}

// filterCodecs are the filters undone besides deflate, shuffle and
// fletcher32, by HDF5 filter id. Each decoder lives in its own file.
var filterCodecs = map[int]filterCodec{
	FilterSZIP:        {name: "szip", decode: decodeSZIP},
	FilterNBit:        {name: "nbit", decode: decodeNBit},
	FilterScaleOffset: {name: "scaleoffset", decode: decodeScaleOffset},
	305:               {name: "lzo", decode: decodeLZO},
	307:               {name: "bzip2", decode: decodeBZip2},
	32000:             {name: "lzf", decode: decodeLZF},
	32001:             {name: "blosc", decode: decodeBlosc},
	32004:             {name: "lz4", decode: decodeLZ4},
	32008:             {name: "bitshuffle", decode: decodeBitshuffle},
	32013:             {name: "zfp", decode: decodeZFP},
	32015:             {name: "zstd", decode: decodeZstd},
	32026:             {name: "blosc2", decode: decodeBlosc2},
}

// codecSlack is how far a decoder's output may exceed the chunk size when
// a filter undone after it strips bytes (fletcher32 strips 4).
const codecSlack = 64

// codecLimit is the most a decoder may produce: want when it is the last
// filter undone (dst non-nil), want plus codecSlack otherwise.
func codecLimit(want uint64, dst []byte) uint64 {
	if dst != nil {
		return want
	}
	return want + codecSlack
}

// codecOut is the buffer a decoder of unknown output size appends to:
// dst[:0] when it is the last filter undone, else a new buffer of
// capacity codecLimit. A decoder never grows it past its capacity, so
// its output stays bounded by the chunk's declared size.
func codecOut(want uint64, dst []byte) []byte {
	if dst != nil {
		return dst[:0:want]
	}
	return make([]byte, 0, want+codecSlack)
}

// codecBuf is a buffer of exactly n bytes (n <= codecLimit) for a decoder
// that knows its output size: dst when n is the chunk's size.
func codecBuf(n, want uint64, dst []byte) []byte {
	if dst != nil && n == want {
		return dst[:n]
	}
	return make([]byte, n)
}

// unfilter undoes a dataset's filter pipeline on one stored chunk. want is
// the size of the decoded chunk. mask has bit i set when filter i was
// skipped for this chunk. With out non-nil (want bytes), the result is
// written there, the last filter decoding straight into it; otherwise the
// returned slice may alias raw.
func (r *chunkReader) unfilter(raw []byte, mask uint32, want uint64, addr uint64, st *decodeState, out []byte) ([]byte, error) {
	f := r.f
	fl := r.filters
	data := raw
	last := -1 // the filter undone last
	for i := range fl {
		if i >= 32 || mask&(1<<uint(i)) == 0 {
			last = i
			break
		}
	}
	for i := len(fl) - 1; i >= 0; i-- {
		if i < 32 && mask&(1<<uint(i)) != 0 {
			continue
		}
		final := i == last && out != nil
		switch fl[i].ID {
		case FilterDeflate:
			var dec []byte
			var err error
			if final {
				dec, err = r.inflateInto(data, out, addr, &st.zr)
			} else {
				dec, err = r.inflate(data, want+64, addr, st)
			}
			if err != nil {
				return nil, err
			}
			data = dec
		case FilterShuffle:
			es := r.elemSize
			if len(fl[i].Params) > 0 {
				es = int(fl[i].Params[0])
			}
			target := out
			if !final || len(out) != len(data) {
				target = make([]byte, len(data))
			}
			data = unshuffle(data, es, target)
		case FilterFletcher32:
			if len(data) < 4 {
				return nil, f.corrupt(int64(addr), "%s: chunk too short for its Fletcher-32 checksum", r.path)
			}
			n := len(data) - 4
			stored := binary.LittleEndian.Uint32(data[n:])
			sum := fletcher32(data[:n])
			// Old library versions stored the checksum byte-swapped.
			swapped := (sum&0xff)<<24 | (sum&0xff00)<<8 | (sum>>8)&0xff00 | sum>>24
			if stored != sum && stored != swapped {
				return nil, f.corrupt(int64(addr), "%s: chunk Fletcher-32 checksum mismatch (stored %#08x, computed %#08x)", r.path, stored, sum)
			}
			data = data[:n]
		default:
			c, ok := filterCodecs[fl[i].ID]
			if !ok {
				name := fl[i].Name
				if name == "" {
					name = "unnamed"
				}
				return nil, f.unsupported(r.path, "filter %d (%s) is not available; only deflate, shuffle and fletcher32 are", fl[i].ID, name)
			}
			var dst []byte
			if final {
				dst = out
			}
			dec, err := c.decode(filterParams{CD: fl[i].Params, ElemSize: r.elemSize}, data, want, dst)
			if err != nil {
				var ue *codecUnsupportedError
				if errors.As(err, &ue) {
					return nil, f.unsupported(r.path, "%s chunk at %#x: %v", c.name, addr, err)
				}
				return nil, f.corrupt(int64(addr), "%s: %s chunk: %v", r.path, c.name, err)
			}
			data = dec
		}
	}
	if uint64(len(data)) != want {
		return nil, f.corrupt(int64(addr), "%s: chunk decodes to %d bytes, want %d", r.path, len(data), want)
	}
	if out != nil && (len(data) == 0 || &data[0] != &out[0]) {
		copy(out, data)
		return out, nil
	}
	return data, nil
}

// inflateInto inflates src into out, which must be filled exactly.
func (r *chunkReader) inflateInto(src, out []byte, addr uint64, zrp *io.ReadCloser) ([]byte, error) {
	br := bytes.NewReader(src)
	var err error
	if *zrp == nil {
		*zrp, err = zlib.NewReader(br)
	} else {
		err = (*zrp).(zlib.Resetter).Reset(br, nil)
	}
	if err != nil {
		return nil, r.f.corrupt(int64(addr), "%s: deflate chunk: %v", r.path, err)
	}
	n := 0
	for n < len(out) {
		k, err := (*zrp).Read(out[n:])
		n += k
		if err == io.EOF {
			if n < len(out) {
				return nil, r.f.corrupt(int64(addr), "%s: chunk decodes to %d bytes, want %d", r.path, n, len(out))
			}
			return out, nil
		}
		if err != nil {
			return nil, r.f.corrupt(int64(addr), "%s: deflate chunk: %v", r.path, err)
		}
	}
	var one [1]byte
	for {
		k, err := (*zrp).Read(one[:])
		if k > 0 {
			return nil, r.f.corrupt(int64(addr), "%s: deflate chunk inflates to over %d bytes", r.path, len(out))
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, r.f.corrupt(int64(addr), "%s: deflate chunk: %v", r.path, err)
		}
	}
}

func (r *chunkReader) inflate(src []byte, limit uint64, addr uint64, st *decodeState) ([]byte, error) {
	zrp := &st.zr
	br := bytes.NewReader(src)
	var err error
	if *zrp == nil {
		*zrp, err = zlib.NewReader(br)
	} else {
		err = (*zrp).(zlib.Resetter).Reset(br, nil)
	}
	if err != nil {
		return nil, r.f.corrupt(int64(addr), "%s: deflate chunk: %v", r.path, err)
	}
	// Start small and grow with the output actually produced, so that a
	// tiny stream claiming a huge chunk costs no memory up front; the
	// buffer is kept for the next chunk (the result aliases it).
	out := st.tmp[:cap(st.tmp)]
	if uint64(len(out)) > limit {
		out = out[:limit]
	}
	if len(out) == 0 {
		out = make([]byte, min(limit, uint64(len(src))*16+4096))
		st.tmp = out
	}
	n := 0
	for {
		if n == len(out) {
			if uint64(n) >= limit {
				return nil, r.f.corrupt(int64(addr), "%s: deflate chunk inflates to over %d bytes", r.path, limit)
			}
			grown := make([]byte, min(limit, uint64(n)*2))
			copy(grown, out)
			out = grown
			st.tmp = grown
		}
		k, err := (*zrp).Read(out[n:])
		n += k
		if err == io.EOF {
			return out[:n], nil
		}
		if err != nil {
			return nil, r.f.corrupt(int64(addr), "%s: deflate chunk: %v", r.path, err)
		}
	}
}
