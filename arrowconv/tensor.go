package arrowconv

import (
	"github.com/apache/arrow-go/v18/arrow/tensor"
	"github.com/npyflow/npyflow/npyio"
)

// NewTensor returns a whole numeric array (ints, uints, f4, f8) as an
// arrow tensor of the same shape and numpy's byte strides, without
// copying: a Fortran-order array is a column-major tensor. a.Data must stay
// valid while the tensor is used. The caller must Release it.
func NewTensor(a *npyio.Array) (tensor.Interface, error) {
	return nil, errNotYet
}
