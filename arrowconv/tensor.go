package arrowconv

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/tensor"
	"github.com/npyflow/npyflow/npyio"
)

// NewTensor returns a whole numeric array (ints, uints, f4, f8 of any
// dimension) as an arrow tensor of the same shape with numpy's byte
// strides, without copying: a Fortran-order array is a column-major tensor
// over the file's own bytes. a.Data (native order, as npyio delivers it)
// must stay valid while the tensor is used; the caller must Release the
// tensor. arrow-go has no float16, bool, complex or datetime tensors; those
// are refused with an [UnsupportedError].
func NewTensor(a *npyio.Array) (tensor.Interface, error) {
	if a == nil || a.Header == nil || a.DType == nil {
		return nil, fmt.Errorf("arrowconv: nil npyio.Array")
	}
	dt := a.DType
	var typ arrow.DataType
	switch dt.Kind {
	case npyio.Int, npyio.Uint:
		typ = intTypes[intKey{dt.Kind == npyio.Int, dt.Size}]
	case npyio.Float:
		switch dt.Size {
		case 4:
			typ = arrow.PrimitiveTypes.Float32
		case 8:
			typ = arrow.PrimitiveTypes.Float64
		}
	}
	if typ == nil {
		return nil, &UnsupportedError{DType: dt.TypeStr(), Msg: "arrow tensors hold only integers, float32 and float64"}
	}
	h := a.Header
	count := h.Count()
	if int64(len(a.Data)) < count*int64(dt.Size) {
		return nil, fmt.Errorf("arrowconv: array data has %d bytes, its header needs %d", len(a.Data), count*int64(dt.Size))
	}
	shape := make([]int64, len(h.Shape))
	strides := make([]int64, len(h.Shape))
	step := int64(dt.Size)
	for k := range h.Shape {
		i := len(h.Shape) - 1 - k // C order: last axis fastest
		if h.FortranOrder {
			i = k
		}
		shape[i] = int64(h.Shape[i])
		strides[i] = step
		step *= max(int64(h.Shape[i]), 1)
	}
	data := a.Data[:count*int64(dt.Size)]
	if !aligned(data, dt.Size) {
		data = append(alignedBuf(len(data))[:0], data...)
	}
	ad := array.NewData(typ, int(count), []*memory.Buffer{nil, memory.NewBufferBytes(data)}, nil, 0, 0)
	defer ad.Release()
	return tensor.New(ad, shape, strides, nil), nil
}
