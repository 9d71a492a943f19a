package pipeline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/internal/suggest"
	"github.com/npyflow/npyflow/pipeline/job"
)

// dtypeNames are the type names cast accepts besides numpy typestrs.
var dtypeNames = map[string]*npyio.DType{
	"bool": npyio.BoolType, "int8": npyio.Int8Type, "int16": npyio.Int16Type, "int32": npyio.Int32Type, "int64": npyio.Int64Type,
	"uint8": npyio.Uint8Type, "uint16": npyio.Uint16Type, "uint32": npyio.Uint32Type, "uint64": npyio.Uint64Type,
	"float32": npyio.Float32Type, "float64": npyio.Float64Type,
}

// castable reports the numeric dtypes cast converts (and describe and
// pca read): bool, integers, float32 and float64.
func castable(d *npyio.DType) bool {
	switch d.Kind {
	case npyio.Bool, npyio.Int, npyio.Uint:
		return true
	case npyio.Float:
		return d.Size == 4 || d.Size == 8
	}
	return false
}

// parseDType reads a cast target: a name like "int32" or a numpy typestr
// like "<i4" (any byte order: rows are always native).
func parseDType(s string) (*npyio.DType, error) {
	if d, ok := dtypeNames[s]; ok {
		return d, nil
	}
	d, err := npyio.ParseTypeStr(s)
	if err != nil || !castable(d) {
		names := slices.Sorted(maps.Keys(dtypeNames))
		return nil, fmt.Errorf("unknown or unsupported type %q%s; one of %s (or a numpy typestr such as <i4)", s, suggest.DidYouMean(s, names), strings.Join(names, ", "))
	}
	return d.Native(), nil
}

func checkDTypeName(v string) (string, int) {
	if _, err := parseDType(v); err != nil {
		return err.Error(), 0
	}
	return "", 0
}

// conv converts one field of every row.
type conv struct {
	name           string
	from, to       *npyio.DType
	srcOff, dstOff int
	count          int // elements (subarray fields)
}

type caster struct {
	convs    []conv
	inRow    int
	outRow   int
	saturate bool
	buf      []byte
	lane     rowbytes.Lane
	row      int64 // rows seen, for messages
}

func buildCast(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	o := job.Options[castTransformOpts](c)
	if (len(o.Fields) > 0) == (o.To != nil) {
		return nil, c.Errorf("", "give either fields (field: type) or to (one type for every numeric field)")
	}
	ca := &caster{saturate: o.OnOverflow == "saturate", inRow: int(in.RowSize())}
	targets := map[string]*npyio.DType{}
	var plain bool
	if o.To != nil {
		to, _ := parseDType(*o.To)
		if in.DType.Kind == npyio.Struct {
			for _, f := range in.DType.Fields {
				if castable(f.Type) {
					targets[f.Name] = to
				}
			}
			if len(targets) == 0 {
				return nil, c.Errorf("to", "the input has no numeric fields")
			}
		} else {
			if !castable(in.DType) {
				return nil, c.Errorf("to", "cannot cast %s: cast converts bool, integer and float32/64 values", in.DType)
			}
			plain = true
			targets[""] = to
		}
	} else {
		if err := needRecords(c, in); err != nil {
			return nil, err
		}
		for _, kv := range o.Fields {
			k := rowbytes.FieldIndex(in.DType, kv.Key)
			path := c.Path() + ".fields." + kv.Key
			if k < 0 {
				return nil, &job.Error{Pos: kv.Pos, Path: path, Msg: rowbytes.NoField(in.DType, kv.Key)}
			}
			if t := in.DType.Fields[k].Type; !castable(t) {
				return nil, &job.Error{Pos: kv.Pos, Path: path, Msg: fmt.Sprintf("cannot cast field %q of type %s: cast converts bool, integer and float32/64 values", kv.Key, t)}
			}
			targets[kv.Key], _ = parseDType(kv.Value)
		}
	}
	var out *Schema
	if plain {
		to := targets[""]
		n := int(max(1, prod(in.Shape)))
		ca.convs = []conv{{from: in.DType, to: to, count: n}}
		out = &Schema{DType: to, Shape: in.Shape}
		ca.outRow = to.Size * n
	} else {
		var fields []npyio.Field
		for _, f := range in.DType.Fields {
			if t := targets[f.Name]; t != nil {
				f.Type = t
			}
			fields = append(fields, f)
		}
		dt, err := npyio.NewStruct(fields)
		if err != nil {
			return nil, c.Errorf("", "%v", err)
		}
		for i, f := range in.DType.Fields {
			cv := conv{name: f.Name, from: f.Type, to: dt.Fields[i].Type, srcOff: f.Offset, dstOff: dt.Fields[i].Offset, count: f.Count()}
			ca.convs = append(ca.convs, cv)
		}
		out = &Schema{DType: dt}
		ca.outRow = dt.Size
	}
	return &mapper{base{schema: out}, ca.apply}, nil
}

const castChunk = 1024

func (ca *caster) apply(b Batch) (Batch, error) {
	need := b.Rows * ca.outRow
	if cap(ca.buf) < need {
		ca.buf = make([]byte, need)
	}
	out := ca.buf[:need]
	for _, cv := range ca.convs {
		size := cv.from.Size * cv.count
		if cv.from.Equal(cv.to) {
			for r := 0; r < b.Rows; r++ {
				copy(out[r*ca.outRow+cv.dstOff:r*ca.outRow+cv.dstOff+size], b.Data[r*ca.inRow+cv.srcOff:])
			}
			continue
		}
		for e := 0; e < cv.count; e++ {
			for r0 := 0; r0 < b.Rows; r0 += castChunk {
				n := min(castChunk, b.Rows-r0)
				so := r0*ca.inRow + cv.srcOff + e*cv.from.Size
				do := r0*ca.outRow + cv.dstOff + e*cv.to.Size
				if err := ca.convert(&cv, b.Data, so, out, do, n); err != nil {
					return Batch{}, err
				}
			}
		}
	}
	ca.row += int64(b.Rows)
	return Batch{Rows: b.Rows, Data: out}, nil
}

// convert converts n values from src (stride inRow from so) into dst.
func (ca *caster) convert(cv *conv, src []byte, so int, dst []byte, do, n int) error {
	l := &ca.lane
	is, os := ca.inRow, ca.outRow
	kind := l.Load(cv.from, src, so, is, n)
	var bad int
	t := cv.to
	switch {
	case t.Kind == npyio.Bool:
		bad = storeBool(l, kind, dst, do, os, n)
	case t.Kind == npyio.Int && t.Size == 1:
		bad = storeInt[int8](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Int && t.Size == 2:
		bad = storeInt[int16](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Int && t.Size == 4:
		bad = storeInt[int32](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Int:
		bad = storeInt[int64](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Uint && t.Size == 1:
		bad = storeUint[uint8](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Uint && t.Size == 2:
		bad = storeUint[uint16](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Uint && t.Size == 4:
		bad = storeUint[uint32](l, kind, dst, do, os, n, ca.saturate)
	case t.Kind == npyio.Uint:
		bad = storeUint[uint64](l, kind, dst, do, os, n, ca.saturate)
	case t.Size == 4:
		bad = storeF32(l, kind, dst, do, os, n, ca.saturate)
	default:
		bad = storeF64(l, kind, dst, do, os, n)
	}
	if bad >= 0 {
		var v string
		switch kind {
		case 'i':
			v = fmt.Sprint(l.I[bad])
		case 'u':
			v = fmt.Sprint(l.U[bad])
		default:
			v = fmt.Sprint(l.F[bad])
		}
		row := ca.row + int64((so-cv.srcOff)/max(is, 1)) + int64(bad)
		what := "value"
		if cv.name != "" {
			what = fmt.Sprintf("field %q", cv.name)
		}
		return fmt.Errorf("cast: row %d: %s %s does not fit %s (set on_overflow: saturate to clamp)", row, what, v, t)
	}
	return nil
}

type signed interface{ int8 | int16 | int32 | int64 }
type unsigned interface {
	uint8 | uint16 | uint32 | uint64
}

func intRange[T signed]() (int64, int64) {
	bits := 8 * sizeOf[T]()
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

func sizeOf[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// storeInt stores the lane into signed T; it returns the index of the first
// value that does not fit (when not saturating), or -1.
func storeInt[T signed](l *rowbytes.Lane, kind byte, dst []byte, off, stride, n int, sat bool) int {
	lo, hi := intRange[T]()
	switch kind {
	case 'i':
		for i, v := range l.I[:n] {
			if v < lo || v > hi {
				if !sat {
					return i
				}
				v = min(max(v, lo), hi)
			}
			rowbytes.Store(dst, off+i*stride, T(v))
		}
	case 'u':
		for i, v := range l.U[:n] {
			if v > uint64(hi) {
				if !sat {
					return i
				}
				v = uint64(hi)
			}
			rowbytes.Store(dst, off+i*stride, T(v))
		}
	default:
		flo, fhi := float64(lo), float64(hi)+1 // hi+1 is exact: a power of two
		for i, v := range l.F[:n] {
			t := math.Trunc(v)
			if !(t >= flo && t < fhi) {
				if !sat {
					return i
				}
				switch {
				case math.IsNaN(t):
					t = 0
				case t < flo:
					t = flo
				default:
					rowbytes.Store(dst, off+i*stride, T(hi))
					continue
				}
			}
			rowbytes.Store(dst, off+i*stride, T(t))
		}
	}
	return -1
}

func storeUint[T unsigned](l *rowbytes.Lane, kind byte, dst []byte, off, stride, n int, sat bool) int {
	bits := 8 * sizeOf[T]()
	hi := uint64(1)<<(bits-1)<<1 - 1 // 2^bits-1 without overflowing for 64
	switch kind {
	case 'i':
		for i, v := range l.I[:n] {
			if v < 0 || uint64(v) > hi {
				if !sat {
					return i
				}
				if v < 0 {
					v = 0
				} else {
					rowbytes.Store(dst, off+i*stride, T(hi))
					continue
				}
			}
			rowbytes.Store(dst, off+i*stride, T(v))
		}
	case 'u':
		for i, v := range l.U[:n] {
			if v > hi {
				if !sat {
					return i
				}
				v = hi
			}
			rowbytes.Store(dst, off+i*stride, T(v))
		}
	default:
		fhi := math.Ldexp(1, bits) // exclusive bound
		for i, v := range l.F[:n] {
			t := math.Trunc(v)
			if !(t >= 0 && t < fhi) {
				if !sat {
					return i
				}
				if t >= fhi {
					rowbytes.Store(dst, off+i*stride, T(hi))
					continue
				}
				t = 0
			}
			rowbytes.Store(dst, off+i*stride, T(t))
		}
	}
	return -1
}

func storeBool(l *rowbytes.Lane, kind byte, dst []byte, off, stride, n int) int {
	for i := 0; i < n; i++ {
		v := byte(0)
		if l.Float(kind, i) != 0 {
			v = 1
		}
		dst[off+i*stride] = v
	}
	return -1
}

func storeF32(l *rowbytes.Lane, kind byte, dst []byte, off, stride, n int, sat bool) int {
	for i := 0; i < n; i++ {
		x := l.Float(kind, i)
		if math.Abs(x) > math.MaxFloat32 && !math.IsInf(x, 0) {
			// Values that round to MaxFloat32 are fine; larger ones overflow.
			if float32(x) > math.MaxFloat32 || float32(x) < -math.MaxFloat32 {
				if !sat {
					return i
				}
				x = math.Copysign(math.MaxFloat32, x)
			}
		}
		rowbytes.Store(dst, off+i*stride, float32(x))
	}
	return -1
}

func storeF64(l *rowbytes.Lane, kind byte, dst []byte, off, stride, n int) int {
	for i := 0; i < n; i++ {
		x := l.Float(kind, i)
		rowbytes.Store(dst, off+i*stride, x)
	}
	return -1
}
