package arrowconv_test

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/tensor"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestTensor views numeric fixtures of every order and dimension as
// tensors and compares each element, addressed by its numpy index, with
// numpy's value; Fortran files must be column-major views of the file's
// bytes.
func TestTensor(t *testing.T) {
	names := []string{"f8_le_3d_c", "f8_le_3d_f", "f8_be_3d_c", "f8_be_3d_f", "i2_le_3d_f", "i2_be_3d_c",
		"f4_le_2d_f", "u8_be_2d_c", "i1_2d_f", "u1_1d", "i4_le_0d", "f8_le_empty", "u2_le_2d_f"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			fx := fixtures.NPYByName(t, name)
			a, err := npyio.ReadFile(fx.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			tn, err := arrowconv.NewTensor(a)
			if err != nil {
				t.Fatal(err)
			}
			defer tn.Release()
			if fx.FortranOrder && len(fx.Shape) > 1 && !tn.IsColMajor() {
				t.Errorf("Fortran array is not a column-major tensor (strides %v)", tn.Strides())
			}
			if !fx.FortranOrder && !tn.IsRowMajor() {
				t.Errorf("C array is not a row-major tensor (strides %v)", tn.Strides())
			}
			if tn.Len() > 0 && unsafe.SliceData(tn.Data().Buffers()[1].Bytes()) != unsafe.SliceData(a.Data) {
				t.Errorf("tensor does not share the array's bytes")
			}
			idx := make([]int64, len(fx.Shape))
			for i, raw := range fx.Values {
				// C-order index of element i.
				r := i
				for k := len(fx.Shape) - 1; k >= 0; k-- {
					idx[k] = int64(r % fx.Shape[k])
					r /= fx.Shape[k]
				}
				b := tensorBytes(t, tn, idx, a.DType.Size)
				if err := fixtures.CheckElement(a.DType, b, raw); err != nil {
					t.Fatalf("element %v: %v", idx, err)
				}
			}
		})
	}
}

// tensorBytes returns the bytes of one element, by the tensor's own
// Value method.
func tensorBytes(t *testing.T, tn tensor.Interface, idx []int64, size int) []byte {
	var v any
	switch x := tn.(type) {
	case *tensor.Float64:
		v = x.Value(idx)
	case *tensor.Float32:
		v = x.Value(idx)
	case *tensor.Int16:
		v = x.Value(idx)
	case *tensor.Int32:
		v = x.Value(idx)
	case *tensor.Int8:
		v = x.Value(idx)
	case *tensor.Uint8:
		v = x.Value(idx)
	case *tensor.Uint16:
		v = x.Value(idx)
	case *tensor.Uint64:
		v = x.Value(idx)
	default:
		t.Fatalf("unexpected tensor %T", tn)
	}
	switch x := v.(type) {
	case float64:
		return npyio.AsBytes([]float64{x})
	case float32:
		return npyio.AsBytes([]float32{x})
	case int16:
		return npyio.AsBytes([]int16{x})
	case int32:
		return npyio.AsBytes([]int32{x})
	case int8:
		return npyio.AsBytes([]int8{x})
	case uint8:
		return npyio.AsBytes([]uint8{x})
	case uint16:
		return npyio.AsBytes([]uint16{x})
	case uint64:
		return npyio.AsBytes([]uint64{x})
	}
	return nil
}

func TestTensorRefused(t *testing.T) {
	for _, name := range []string{"f2_le_1d", "b1_1d", "c16_le_1d", "M8_s_le_1d", "rec_simple", "U4_le_1d"} {
		t.Run(name, func(t *testing.T) {
			a, err := npyio.ReadFile(fixtures.NPYByName(t, name).Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ue *arrowconv.UnsupportedError
			if _, err := arrowconv.NewTensor(a); !errors.As(err, &ue) {
				t.Fatalf("want an UnsupportedError, got %v", err)
			}
		})
	}
}
