package hdf5

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression names the filter that compresses a chunked dataset's chunks
// (DatasetOptions.Compression).
type Compression string

const (
	// CompressionNone stores chunks as they are.
	CompressionNone Compression = "none"
	// CompressionDeflate is HDF5's built-in deflate (zlib) filter, id 1,
	// which every HDF5 reader has. Levels 1-9; 0 means 4 (h5py's default).
	CompressionDeflate Compression = "deflate"
	// CompressionLZ4 is the LZ4 filter, id 32004, in the framing of HDF5's
	// LZ4 plugin (H5Zlz4.c, hdf5plugin.LZ4): much faster than deflate,
	// larger files. It has no level. Readers need the plugin (h5py:
	// import hdf5plugin; the HDF5 tools: HDF5_PLUGIN_PATH).
	CompressionLZ4 Compression = "lz4"
	// CompressionZstd is the Zstandard filter, id 32015
	// (HDF5Plugin-Zstandard, hdf5plugin.Zstd): one Zstandard frame per
	// chunk. Levels 1-22; 0 means 3 (zstd's default). Readers need the
	// plugin.
	CompressionZstd Compression = "zstd"
)

// Compressions are the valid Compression values, in the order help texts
// list them.
var Compressions = []Compression{CompressionDeflate, CompressionLZ4, CompressionZstd, CompressionNone}

// ParseCompression returns the Compression named s ("deflate", "lz4",
// "zstd" or "none"), or an error naming s and the choices.
func ParseCompression(s string) (Compression, error) {
	c := Compression(s)
	if _, _, _, ok := c.levels(); !ok {
		return "", c.errUnknown()
	}
	return c, nil
}

func (c Compression) errUnknown() error {
	names := make([]string, len(Compressions))
	for i, v := range Compressions {
		names[i] = string(v)
	}
	return fmt.Errorf("compression %q is not one of %s", string(c), strings.Join(names, ", "))
}

// levels are the valid levels and the one 0 stands for (lo > hi: no level).
func (c Compression) levels() (lo, hi, def int, ok bool) {
	switch c {
	case CompressionNone, CompressionLZ4:
		return 1, 0, 0, true
	case CompressionDeflate:
		return 1, 9, 4, true
	case CompressionZstd:
		return 1, 22, 3, true
	}
	return 0, 0, 0, false
}

// compression resolves the options' compression and level (Deflate alone
// is deflate at that level).
func (o *DatasetOptions) compression() (Compression, int, error) {
	c, level := o.Compression, o.Level
	if o.Deflate != 0 {
		if o.Deflate < 0 || o.Deflate > 9 {
			return "", 0, fmt.Errorf("deflate level %d is not 0-9", o.Deflate)
		}
		if c != "" || level != 0 {
			return "", 0, fmt.Errorf("option Deflate %d with Compression %q and Level %d: set Compression and Level, or Deflate alone", o.Deflate, string(c), level)
		}
		return CompressionDeflate, o.Deflate, nil
	}
	if c == "" {
		if level != 0 {
			return "", 0, fmt.Errorf("compression level %d without a Compression", level)
		}
		return CompressionNone, 0, nil
	}
	lo, hi, def, ok := c.levels()
	switch {
	case !ok:
		return "", 0, c.errUnknown()
	case level == 0:
		return c, def, nil
	case lo > hi:
		return "", 0, fmt.Errorf("compression %s has no level (got %d)", c, level)
	case level < lo || level > hi:
		return "", 0, fmt.Errorf("%s level %d is not %d-%d", c, level, lo, hi)
	}
	return c, level, nil
}

// The filters' ids and the names their plugins register (the HDF5 library
// stores the name in the filter pipeline message; h5dump shows it).
const (
	wFilterLZ4      = 32004
	wFilterZstd     = 32015
	wFilterLZ4Name  = "HDF5 lz4 filter; see http://www.hdfgroup.org/services/contributions.html"
	wFilterZstdName = "Zstandard compression: http://www.zstd.net"
	// wLZ4Block is the plugin's default block size (cd_values[0] = 0):
	// 1 GiB, or the whole chunk when smaller.
	wLZ4Block = 1 << 30
	// wZstdSmall: below this many bytes klauspost's EncodeAll leaves the
	// content size out of the frame header unless the frame is a single
	// segment; the plugin needs it to size its output.
	wZstdSmall = 256
)

// wEncoders are one worker's compressors, reused from chunk to chunk.
type wEncoders struct {
	zw   *zlib.Writer
	zl   int
	lz   lz4.Compressor
	zstd map[int]*zstd.Encoder // by wZstdKey
}

// wZstdPools keeps Zstandard encoders (megabytes of tables each) from one
// Writer to the next: a *sync.Pool by wZstdKey.
var wZstdPools sync.Map

// wZstdKey is level*2, plus 1 for an encoder of single-segment frames.
func wZstdKey(level int, single bool) int {
	if single {
		return 2*level + 1
	}
	return 2 * level
}

// close gives the worker's Zstandard encoders back to wZstdPools.
func (e *wEncoders) close() {
	for key, z := range e.zstd {
		p, _ := wZstdPools.LoadOrStore(key, new(sync.Pool))
		p.(*sync.Pool).Put(z)
	}
	e.zstd = nil
}

// zstdEncoder returns the worker's encoder for level and frame kind.
func (e *wEncoders) zstdEncoder(level int, single bool) (*zstd.Encoder, error) {
	key := wZstdKey(level, single)
	if z := e.zstd[key]; z != nil {
		return z, nil
	}
	if e.zstd == nil {
		e.zstd = map[int]*zstd.Encoder{}
	}
	if p, ok := wZstdPools.Load(key); ok {
		if z, ok := p.(*sync.Pool).Get().(*zstd.Encoder); ok {
			e.zstd[key] = z
			return z, nil
		}
	}
	z, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), // as libzstd's ZSTD_compress
		zstd.WithSingleSegment(single))
	if err != nil {
		return nil, err
	}
	e.zstd[key] = z
	return z, nil
}

// compress filters src (the shuffled or raw chunk) with c at level into a
// buffer of wOutPool.
func (e *wEncoders) compress(c Compression, level int, src []byte) ([]byte, error) {
	switch c {
	case CompressionDeflate:
		out := bytes.NewBuffer(wOutPool.get(len(src)/2 + 64)[:0])
		var err error
		if e.zw == nil || e.zl != level {
			e.zw, err = zlib.NewWriterLevel(out, level)
			e.zl = level
		} else {
			e.zw.Reset(out)
		}
		if err == nil {
			if _, err = e.zw.Write(src); err == nil {
				err = e.zw.Close()
			}
		}
		return out.Bytes(), err
	case CompressionLZ4:
		return e.lz4(src, wLZ4Block), nil
	case CompressionZstd:
		z, err := e.zstdEncoder(level, len(src) < wZstdSmall)
		if err != nil {
			return nil, err
		}
		return z.EncodeAll(src, wOutPool.get(len(src)/2 + 64)[:0]), nil
	}
	return nil, fmt.Errorf("compression %q", string(c))
}

// lz4 frames src as HDF5's LZ4 plugin does, in blocks of maxBlock bytes:
// the decoded size (8 bytes, big endian), the block size (4 bytes), then
// each block's stored size (4 bytes) and its LZ4 block, or the block itself
// when LZ4 does not make it smaller (stored size = block size).
func (e *wEncoders) lz4(src []byte, maxBlock int) []byte {
	block := min(len(src), maxBlock)
	nblocks := (len(src) + block - 1) / block
	out := wOutPool.get(12 + 4*nblocks + len(src))[:0]
	out = binary.BigEndian.AppendUint64(out, uint64(len(src)))
	out = binary.BigEndian.AppendUint32(out, uint32(block))
	for len(src) > 0 {
		b := src[:min(block, len(src))]
		src = src[len(b):]
		at := len(out)
		out = append(out, 0, 0, 0, 0)
		// Room for one byte less than the block: a block that does not
		// fit is stored raw (the compressor then gives 0 or an error).
		n, err := e.lz.CompressBlock(b, out[len(out):len(out)+len(b)-1])
		if err != nil || n <= 0 {
			out = append(out, b...)
			n = len(b)
		} else {
			out = out[:len(out)+n]
		}
		binary.BigEndian.PutUint32(out[at:], uint32(n))
	}
	return out
}

// wFilterDesc is one filter of the pipeline message.
type wFilterDesc struct {
	id     uint16
	name   string
	values []uint32
}

// filters are the dataset's filters, in pipeline order.
func (d *DatasetWriter) filters() []wFilterDesc {
	var fs []wFilterDesc
	if d.shuffle {
		fs = append(fs, wFilterDesc{2, "shuffle", []uint32{uint32(d.esz)}})
	}
	switch d.comp {
	case CompressionDeflate:
		fs = append(fs, wFilterDesc{1, "deflate", []uint32{uint32(d.level)}})
	case CompressionLZ4:
		// cd_values[0] is the block size; 0 means the plugin's default,
		// as hdf5plugin.LZ4() writes.
		fs = append(fs, wFilterDesc{wFilterLZ4, wFilterLZ4Name, []uint32{0}})
	case CompressionZstd:
		fs = append(fs, wFilterDesc{wFilterZstd, wFilterZstdName, []uint32{uint32(d.level)}})
	}
	return fs
}

// filterMessage is the filter pipeline message (version 1) of the
// dataset's filters, each optional as h5py sets them.
func (d *DatasetWriter) filterMessage() []byte {
	fs := d.filters()
	b := []byte{1, byte(len(fs)), 0, 0, 0, 0, 0, 0}
	for _, f := range fs {
		nm := make([]byte, wPad8(len(f.name)+1))
		copy(nm, f.name)
		b = binary.LittleEndian.AppendUint16(b, f.id)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(nm)))
		b = binary.LittleEndian.AppendUint16(b, 1) // optional
		b = binary.LittleEndian.AppendUint16(b, uint16(len(f.values)))
		b = append(b, nm...)
		for _, v := range f.values {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		if len(f.values)%2 == 1 {
			b = append(b, 0, 0, 0, 0) // pad an odd count of values
		}
	}
	return b
}
