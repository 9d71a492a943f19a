package codec

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdDecoder is shared by every goroutine: DecodeAll may run
// concurrently. With the cap limit, a frame never decodes beyond the
// capacity of the buffer it is given, whatever its header claims.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderLowmem(false))
})

// ZstdDecodeInto decodes the Zstandard frames in src into out, which they
// must fill exactly.
func ZstdDecodeInto(src, out []byte) error {
	d, err := zstdDecoder()
	if err != nil {
		return err
	}
	got, err := d.DecodeAll(src, out[:0:len(out)])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return fmt.Errorf("zstd data decode to over %d bytes", len(out))
		}
		return fmt.Errorf("zstd: %v", err)
	}
	if len(got) != len(out) {
		return fmt.Errorf("zstd data decode to %d bytes, want %d", len(got), len(out))
	}
	if len(got) > 0 && &got[0] != &out[0] {
		// Not expected with the cap limit; never hand back a foreign buffer.
		copy(out, got)
	}
	return nil
}

// DecodeZstd undoes the Zstandard filter (id 32015, HDF5Plugin-Zstandard
// as in hdf5plugin): the chunk is one Zstandard frame (cd_values[0], the
// compression level, is not needed to read). The frame's declared content
// size gives the decoded size; a frame without one may decode to the
// chunk's size.
func DecodeZstd(p Params, src []byte, want uint64, dst []byte) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return nil, fmt.Errorf("zstd frame header: %v", err)
	}
	n := want
	if h.HasFCS {
		n = h.FrameContentSize
	} else if dst == nil {
		n = want + Slack
	}
	out, err := DecodeTarget(dst, n, want)
	if err != nil {
		return nil, err
	}
	if h.HasFCS || dst != nil {
		if err := ZstdDecodeInto(src, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	// Unknown size and not the last filter: decode up to the bound.
	d, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	got, err := d.DecodeAll(src, out[:0:len(out)])
	if err != nil {
		return nil, fmt.Errorf("zstd: %v", err)
	}
	return got, nil
}
