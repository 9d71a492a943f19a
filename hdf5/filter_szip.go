package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// SZIP option mask bits (cd_values[0]), as in szlib.h.
const (
	szipOptK13  = 1   // allow k=13 (original SZIP only; no effect on decoding)
	szipOptChip = 2   // chip compatibility (no effect on decoding)
	szipOptEC   = 4   // entropy coding only: no preprocessing
	szipOptLSB  = 8   // samples stored least significant byte first
	szipOptMSB  = 16  // samples stored most significant byte first
	szipOptNN   = 32  // nearest-neighbour preprocessing
	szipOptRaw  = 128 // no SZIP header (always set by the HDF5 library)
)

// decodeSZIP undoes the szip filter (4): Rice coding as the CCSDS 121.0-B
// lossless standard defines it, written through libaec's (or the original
// SZIP library's) szlib interface. Its cd_values, completed by the HDF5
// library when the dataset was created, are the option mask, pixels per
// block (an even number up to 32, 64 in libaec), bits per pixel (the
// datatype's precision: 1-24, or 32 or 64) and pixels per scanline (the
// chunk's fastest dimension, capped at 128 blocks).
//
// A chunk holds the decoded size (4 bytes, little-endian), then the coded
// stream. The stream is cut into reference sample intervals (RSIs) of
// ceil(pixels per scanline / pixels per block) blocks: one scanline each,
// padded up to whole blocks. Samples of 32 and 64 bits are coded as their
// bytes, 8 bits at a time, each byte plane of the chunk after the other
// (libaec's interleaving). Each block starts with an option ID, of 3 bits
// for samples up to 8 bits, 4 up to 16 bits, 5 above:
//
//	0        low entropy; the next bit selects a run of zero blocks
//	         (then a fundamental sequence: count-1 blocks, 4 meaning to
//	         the end of the RSI or of its 64-block segment) or the second
//	         extension (pairs of samples coded together)
//	1..max-1 split: k = ID-1 low bits of each sample sent apart after the
//	         fundamental sequences of the high bits
//	max      uncompressed samples
//
// With nearest-neighbour preprocessing (the NN option) the first block of
// each RSI starts with a reference sample and the other samples are
// mapped differences from the previous one, undone here.
func decodeSZIP(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	if len(p.CD) != 4 {
		return nil, fmt.Errorf("%d parameters, want 4", len(p.CD))
	}
	mask, ppb, bpp, pps := p.CD[0], p.CD[1], p.CD[2], p.CD[3]
	if bpp == 0 || (bpp > 32 && bpp != 64) {
		return nil, fmt.Errorf("%d bits per pixel", bpp)
	}
	if ppb < 2 || ppb > 64 || ppb%2 != 0 {
		return nil, fmt.Errorf("%d pixels per block (want an even number up to 64)", ppb)
	}
	if pps == 0 || pps > 128*ppb {
		// The library caps a scanline at 128 blocks.
		return nil, fmt.Errorf("%d pixels per scanline for %d per block", pps, ppb)
	}
	if len(src) < 4 {
		return nil, fmt.Errorf("chunk of %d bytes, shorter than its size header", len(src))
	}
	n := uint64(binary.LittleEndian.Uint32(src))
	if limit := codecLimit(want, dst); n > limit {
		return nil, fmt.Errorf("decoded size %d over the chunk's %d bytes", n, limit)
	}
	d := aecDecoder{
		bps:       int(bpp),
		blockSize: int(ppb),
		rsi:       int((pps + ppb - 1) / ppb),
		keep:      int(pps),
		pp:        mask&szipOptNN != 0,
		msb:       mask&szipOptMSB != 0,
		br:        msbReader{src: src[4:]},
	}
	interleave := bpp == 32 || bpp == 64
	if interleave {
		d.bps = 8
	}
	d.sampleBytes = 1
	switch {
	case d.bps > 16:
		d.sampleBytes = 4
	case d.bps > 8:
		d.sampleBytes = 2
	}
	if n%uint64(d.sampleBytes) != 0 {
		return nil, fmt.Errorf("decoded size %d is not a whole number of %d-byte samples", n, d.sampleBytes)
	}
	ws := uint64(bpp / 8)
	if interleave && n%ws != 0 {
		return nil, fmt.Errorf("decoded size %d is not a whole number of %d-byte pixels", n, ws)
	}
	out := codecBuf(n, want, dst)
	target := out
	if interleave {
		target = make([]byte, n)
	}
	if err := d.decode(target); err != nil {
		return nil, err
	}
	if interleave {
		// Byte plane j holds byte j of every pixel.
		np := int(n / ws)
		for j := 0; j < int(ws); j++ {
			plane := target[j*np : (j+1)*np]
			for i, b := range plane {
				out[i*int(ws)+j] = b
			}
		}
	}
	return out, nil
}

// aecDecoder decodes a CCSDS 121.0 adaptive entropy coded stream of
// unsigned samples, as libaec does for the szlib interface.
type aecDecoder struct {
	br          msbReader
	bps         int  // bits per sample, 1-32
	blockSize   int  // samples per block
	rsi         int  // blocks per reference sample interval
	keep        int  // samples of each RSI that are data (the rest pad the scanline)
	pp          bool // nearest-neighbour preprocessing
	msb         bool // samples written most significant byte first
	sampleBytes int
}

// seTable maps a second-extension code m to beta, the sum of the pair,
// and ms, the first code with that sum: the pair is (beta-(m-ms), m-ms).
var seTable = func() (t [91][2]uint32) {
	k := 0
	for beta := 0; beta < 13; beta++ {
		ms := k
		for j := 0; j <= beta; j++ {
			t[k] = [2]uint32{uint32(beta), uint32(ms)}
			k++
		}
	}
	return t
}()

var errAECShort = errors.New("coded stream ends early")

// decode fills out with samples, RSI after RSI.
func (d *aecDecoder) decode(out []byte) error {
	idLen := uint(3)
	switch {
	case d.bps > 16:
		idLen = 5
	case d.bps > 8:
		idLen = 4
	}
	maxID := uint64(1)<<idLen - 1
	rsiSize := d.rsi * d.blockSize
	buf := make([]uint32, rsiSize)
	w := 0 // bytes of out written
	for w < len(out) {
		// One RSI: blocks until it is full.
		used := 0
		for used < rsiSize {
			ref := 0
			if d.pp && used == 0 {
				ref = 1
			}
			id, ok := d.br.bits(idLen)
			if !ok {
				return errAECShort
			}
			switch {
			case id == 0:
				se, ok := d.br.bits(1)
				if !ok {
					return errAECShort
				}
				if ref == 1 {
					v, ok := d.br.bits(uint(d.bps))
					if !ok {
						return errAECShort
					}
					buf[used] = uint32(v)
					used++
				}
				if se == 1 {
					for i := ref; i < d.blockSize; {
						m, ok := d.br.fs()
						if !ok {
							return errAECShort
						}
						if m >= uint64(len(seTable)) {
							return fmt.Errorf("second extension code %d out of range", m)
						}
						beta, d1 := seTable[m][0], uint32(m)-seTable[m][1]
						if i&1 == 0 {
							buf[used] = beta - d1
							used++
							i++
						}
						buf[used] = d1
						used++
						i++
					}
					continue
				}
				fs, ok := d.br.fs()
				if !ok {
					return errAECShort
				}
				if fs > uint64(d.rsi) {
					return fmt.Errorf("run of %d zero blocks", fs+1)
				}
				blocks := int(fs) + 1
				if blocks == 5 { // ROS: to the end of the RSI or its 64-block segment
					b := used / d.blockSize
					blocks = min(d.rsi-b, 64-b%64)
				} else if blocks > 5 {
					blocks--
				}
				zeros := blocks*d.blockSize - ref
				if zeros > rsiSize-used {
					return fmt.Errorf("run of %d zero blocks past the end of the RSI", blocks)
				}
				clear(buf[used : used+zeros])
				used += zeros
			case id == maxID:
				for i := 0; i < d.blockSize; i++ {
					v, ok := d.br.bits(uint(d.bps))
					if !ok {
						return errAECShort
					}
					buf[used] = uint32(v)
					used++
				}
			default:
				k := uint(id - 1)
				if ref == 1 {
					v, ok := d.br.bits(uint(d.bps))
					if !ok {
						return errAECShort
					}
					buf[used] = uint32(v)
					used++
				}
				blk := buf[used : used+d.blockSize-ref]
				for i := range blk {
					fs, ok := d.br.fs()
					if !ok {
						return errAECShort
					}
					blk[i] = uint32(fs) << k
				}
				if k > 0 {
					for i := range blk {
						v, ok := d.br.bits(k)
						if !ok {
							return errAECShort
						}
						blk[i] += uint32(v)
					}
				}
				used += len(blk)
			}
			if d.samplesCover(w, used, len(out)) {
				break
			}
		}
		w = d.emit(buf[:used], out, w)
	}
	return nil
}

// samplesCover reports whether used samples of the RSI starting at byte
// w of out complete out.
func (d *aecDecoder) samplesCover(w, used, total int) bool {
	return w+min(used, d.keep)*d.sampleBytes >= total
}

// emit undoes the preprocessing of one RSI's samples and writes the data
// ones (not those padding the scanline) at byte w of out; it returns the
// new w.
func (d *aecDecoder) emit(s []uint32, out []byte, w int) int {
	if d.pp && len(s) > 0 {
		xmax := uint32(1<<d.bps - 1)
		med := xmax/2 + 1
		data := s[0]
		for i := 1; i < len(s); i++ {
			v := s[i]
			half := v>>1 + v&1
			var mask uint32
			if data&med != 0 {
				mask = xmax
			}
			if half <= mask^data {
				// Even: +v/2; odd: -(v+1)/2.
				data += (v >> 1) ^ -(v & 1)
			} else {
				data = mask ^ v
			}
			s[i] = data
		}
	}
	s = s[:min(len(s), d.keep)]
	for _, v := range s {
		if w+d.sampleBytes > len(out) {
			break
		}
		switch d.sampleBytes {
		case 1:
			out[w] = byte(v)
		case 2:
			if d.msb {
				binary.BigEndian.PutUint16(out[w:], uint16(v))
			} else {
				binary.LittleEndian.PutUint16(out[w:], uint16(v))
			}
		default:
			if d.msb {
				binary.BigEndian.PutUint32(out[w:], v)
			} else {
				binary.LittleEndian.PutUint32(out[w:], v)
			}
		}
		w += d.sampleBytes
	}
	return w
}

// fs reads a fundamental sequence: the number of 0 bits before the next
// 1 bit.
func (r *msbReader) fs() (uint64, bool) {
	var z uint64
	for {
		if r.n == 0 {
			r.fill()
			if r.n == 0 {
				return 0, false
			}
		}
		v := r.acc & (1<<r.n - 1)
		if v == 0 {
			z += uint64(r.n)
			r.n = 0
			continue
		}
		top := uint(bits.Len64(v)) // the 1 bit is bit top-1
		z += uint64(r.n - top)
		r.n = top - 1
		return z, true
	}
}
