package gonumconv

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/npyflow/npyflow/npyio"
)

// realDecoder converts n native-order elements, the i-th starting at
// src[i*srcStride], to dst[i*dstStride]. The source may be unaligned.
type realDecoder func(dst []float64, dstStride int, src []byte, srcStride, n int)

// complexDecoder is realDecoder for complex elements.
type complexDecoder func(dst []complex128, dstStride int, src []byte, srcStride, n int)

// isReal reports whether dt is a real numeric scalar type this package
// converts to float64.
func isReal(dt *npyio.DType) bool {
	switch dt.Kind {
	case npyio.Bool, npyio.Int, npyio.Uint, npyio.Float:
		return dt.IsSupported()
	}
	return false
}

// isFloat64 reports whether dt is float64 (in any byte order: data handed
// over by npyio is already native).
func isFloat64(dt *npyio.DType) bool { return dt.Kind == npyio.Float && dt.Size == 8 }

func isComplex128(dt *npyio.DType) bool { return dt.Kind == npyio.Complex && dt.Size == 16 }

// checkReal returns nil when elements of dt can become float64 values under
// opts, else an ErrDType error saying why.
func checkReal(dt *npyio.DType, opts *Options) error {
	if isFloat64(dt) {
		return nil
	}
	if !isReal(dt) {
		if dt.Kind == npyio.Complex {
			return fmt.Errorf("%w: %s is complex; read it with CDense or CMatrix", ErrDType, dt.TypeStr())
		}
		return fmt.Errorf("%w: %s (%s) is not a real number type", ErrDType, dt.TypeStr(), dt.Kind)
	}
	if !opts.convert() {
		return fmt.Errorf("%w: %s needs converting to float64; set Options.Convert to allow it", ErrDType, dt.TypeStr())
	}
	return nil
}

func checkComplex(dt *npyio.DType, opts *Options) error {
	switch {
	case isComplex128(dt):
		return nil
	case dt.Kind == npyio.Complex && dt.Size == 8:
		if !opts.convert() {
			return fmt.Errorf("%w: %s needs converting to complex128; set Options.Convert to allow it", ErrDType, dt.TypeStr())
		}
		return nil
	case dt.Kind == npyio.Complex:
		return fmt.Errorf("%w: %s is not supported", ErrDType, dt.TypeStr())
	}
	return fmt.Errorf("%w: %s (%s) is not complex; read it with Dense or Matrix", ErrDType, dt.TypeStr(), dt.Kind)
}

// realDecoderFor returns the decoder for a real numeric scalar type.
func realDecoderFor(dt *npyio.DType) realDecoder {
	ne := binary.NativeEndian
	switch dt.Kind {
	case npyio.Bool:
		return func(dst []float64, ds int, src []byte, ss, n int) {
			for i := 0; i < n; i++ {
				v := 0.0
				if src[i*ss] != 0 {
					v = 1
				}
				dst[i*ds] = v
			}
		}
	case npyio.Int:
		switch dt.Size {
		case 1:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(int8(src[i*ss]))
				}
			}
		case 2:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(int16(ne.Uint16(src[i*ss:])))
				}
			}
		case 4:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(int32(ne.Uint32(src[i*ss:])))
				}
			}
		case 8:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(int64(ne.Uint64(src[i*ss:])))
				}
			}
		}
	case npyio.Uint:
		switch dt.Size {
		case 1:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(src[i*ss])
				}
			}
		case 2:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(ne.Uint16(src[i*ss:]))
				}
			}
		case 4:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(ne.Uint32(src[i*ss:]))
				}
			}
		case 8:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(ne.Uint64(src[i*ss:]))
				}
			}
		}
	case npyio.Float:
		switch dt.Size {
		case 2:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(npyio.HalfToFloat32(ne.Uint16(src[i*ss:])))
				}
			}
		case 4:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = float64(math.Float32frombits(ne.Uint32(src[i*ss:])))
				}
			}
		case 8:
			return func(dst []float64, ds int, src []byte, ss, n int) {
				for i := 0; i < n; i++ {
					dst[i*ds] = math.Float64frombits(ne.Uint64(src[i*ss:]))
				}
			}
		}
	}
	return nil
}

// complexDecoderFor returns the decoder for complex64 or complex128.
func complexDecoderFor(dt *npyio.DType) complexDecoder {
	ne := binary.NativeEndian
	switch dt.Size {
	case 8:
		return func(dst []complex128, ds int, src []byte, ss, n int) {
			for i := 0; i < n; i++ {
				b := src[i*ss:]
				dst[i*ds] = complex(float64(math.Float32frombits(ne.Uint32(b))), float64(math.Float32frombits(ne.Uint32(b[4:]))))
			}
		}
	case 16:
		return func(dst []complex128, ds int, src []byte, ss, n int) {
			for i := 0; i < n; i++ {
				b := src[i*ss:]
				dst[i*ds] = complex(math.Float64frombits(ne.Uint64(b)), math.Float64frombits(ne.Uint64(b[8:])))
			}
		}
	}
	return nil
}
