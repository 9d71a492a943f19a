package arrowconv

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// FixedShapeTensorName is the registered name of [FixedShapeTensorType],
// the canonical Arrow extension for a column of equally shaped tensors.
const FixedShapeTensorName = "arrow.fixed_shape_tensor"

// FixedShapeTensorType is Arrow's canonical fixed_shape_tensor extension
// type (https://arrow.apache.org/docs/format/CanonicalExtensions.html): each
// value is a tensor of one shape, stored as a FixedSizeList of its
// prod(shape) elements in row-major order. Its metadata is the JSON object
// {"shape": [...], "dim_names": [...], "permutation": [...]}, the last two
// optional. arrow-go has no implementation; this one is registered when the
// package is loaded, so IPC readers rebuild it.
type FixedShapeTensorType struct {
	arrow.ExtensionBase
	shape       []int
	permutation []int
	dimNames    []string
}

// NewFixedShapeTensorType returns a fixed_shape_tensor type of the given
// element type and shape. permutation (the physical-to-logical axis order)
// and dimNames are optional; when given they must have one entry per
// axis, and permutation must be a permutation of 0..len(shape)-1.
func NewFixedShapeTensorType(value arrow.DataType, shape, permutation []int, dimNames []string) (*FixedShapeTensorType, error) {
	if value == nil {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor needs a value type")
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("arrowconv: fixed_shape_tensor shape %v has a negative dimension", shape)
		}
		n *= int64(d)
		if n > 1<<31-1 {
			return nil, fmt.Errorf("arrowconv: fixed_shape_tensor shape %v has more than 2^31-1 elements", shape)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor shape %v has no elements (arrow-go has no fixed-size list of length 0)", shape)
	}
	if permutation != nil {
		if len(permutation) != len(shape) {
			return nil, fmt.Errorf("arrowconv: fixed_shape_tensor permutation %v does not match shape %v", permutation, shape)
		}
		seen := make([]bool, len(shape))
		for _, p := range permutation {
			if p < 0 || p >= len(shape) || seen[p] {
				return nil, fmt.Errorf("arrowconv: fixed_shape_tensor permutation %v is not a permutation of 0..%d", permutation, len(shape)-1)
			}
			seen[p] = true
		}
	}
	if dimNames != nil && len(dimNames) != len(shape) {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor dim_names %q does not match shape %v", dimNames, shape)
	}
	return &FixedShapeTensorType{
		ExtensionBase: arrow.ExtensionBase{Storage: arrow.FixedSizeListOf(int32(n), value)},
		shape:         slices.Clone(shape),
		permutation:   slices.Clone(permutation),
		dimNames:      slices.Clone(dimNames),
	}, nil
}

// Shape returns the shape of each tensor. The caller must not modify it.
func (t *FixedShapeTensorType) Shape() []int { return t.shape }

// Permutation returns the optional axis permutation (nil if none).
func (t *FixedShapeTensorType) Permutation() []int { return t.permutation }

// permuted reports whether the axes are stored in another order than the
// logical one.
func (t *FixedShapeTensorType) permuted() bool {
	for i, p := range t.permutation {
		if p != i {
			return true
		}
	}
	return false
}

// DimNames returns the optional axis names (nil if none).
func (t *FixedShapeTensorType) DimNames() []string { return t.dimNames }

// ValueType returns the element type.
func (t *FixedShapeTensorType) ValueType() arrow.DataType {
	return t.Storage.(*arrow.FixedSizeListType).Elem()
}

// ExtensionName returns "arrow.fixed_shape_tensor".
func (*FixedShapeTensorType) ExtensionName() string { return FixedShapeTensorName }

// String returns a readable description such as
// "extension<arrow.fixed_shape_tensor[value_type=float64, shape=[2 3]]>".
func (t *FixedShapeTensorType) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "extension<%s[value_type=%s, shape=%v", FixedShapeTensorName, t.ValueType(), t.shape)
	if t.permutation != nil {
		fmt.Fprintf(&sb, ", permutation=%v", t.permutation)
	}
	if t.dimNames != nil {
		fmt.Fprintf(&sb, ", dim_names=%q", t.dimNames)
	}
	sb.WriteString("]>")
	return sb.String()
}

type tensorMeta struct {
	Shape       []int    `json:"shape"`
	DimNames    []string `json:"dim_names,omitempty"`
	Permutation []int    `json:"permutation,omitempty"`
}

// Serialize returns the JSON metadata, e.g. {"shape":[2,3]}.
func (t *FixedShapeTensorType) Serialize() string {
	shape := t.shape
	if shape == nil {
		shape = []int{}
	}
	b, _ := json.Marshal(tensorMeta{Shape: shape, DimNames: t.dimNames, Permutation: t.permutation})
	return string(b)
}

// Deserialize rebuilds the type from its storage type and JSON metadata,
// checking that the storage is a FixedSizeList of prod(shape) elements.
func (*FixedShapeTensorType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	fsl, ok := storage.(*arrow.FixedSizeListType)
	if !ok {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor storage must be a fixed_size_list, not %s", storage)
	}
	var m tensorMeta
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor metadata %q: %w", data, err)
	}
	if m.Shape == nil {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor metadata %q has no shape", data)
	}
	t, err := NewFixedShapeTensorType(fsl.Elem(), m.Shape, m.Permutation, m.DimNames)
	if err != nil {
		return nil, err
	}
	if want := t.Storage.(*arrow.FixedSizeListType).Len(); want != fsl.Len() {
		return nil, fmt.Errorf("arrowconv: fixed_shape_tensor shape %v needs lists of %d values, storage has %d", m.Shape, want, fsl.Len())
	}
	t.Storage = storage // keep the exact storage (element name and nullability)
	return t, nil
}

// ExtensionEquals reports whether other is a fixed_shape_tensor with the
// same storage, shape, permutation and dimension names.
func (t *FixedShapeTensorType) ExtensionEquals(other arrow.ExtensionType) bool {
	o, ok := other.(*FixedShapeTensorType)
	if !ok {
		return false
	}
	return arrow.TypeEqual(t.Storage, o.Storage) && slices.Equal(t.shape, o.shape) &&
		slices.Equal(t.permutation, o.permutation) && slices.Equal(t.dimNames, o.dimNames)
}

// ArrayType returns the type of [FixedShapeTensorArray].
func (*FixedShapeTensorType) ArrayType() reflect.Type {
	return reflect.TypeOf(FixedShapeTensorArray{})
}

// FixedShapeTensorArray is an array of [FixedShapeTensorType] values. Its
// Storage is an *array.FixedSizeList.
type FixedShapeTensorArray struct {
	array.ExtensionArrayBase
}

// Values returns the flat element array of all tensors (row-major within
// each tensor), from the storage list.
func (a *FixedShapeTensorArray) Values() arrow.Array {
	return a.Storage().(*array.FixedSizeList).ListValues()
}

func init() {
	if err := arrow.RegisterExtensionType(&FixedShapeTensorType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.FixedSizeListOf(1, arrow.PrimitiveTypes.Int8)}, shape: []int{1}}); err != nil {
		// Another package registered the same name first; its type
		// then decodes IPC data, and ours still builds arrays.
		_ = err
	}
}

var (
	_ arrow.ExtensionType  = (*FixedShapeTensorType)(nil)
	_ array.ExtensionArray = (*FixedShapeTensorArray)(nil)
)
