package arrowconv_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// TestZeroElementAxes: arrow-go panics on a FixedSizeList of length 0;
// such arrays are refused with an error instead.
func TestZeroElementAxes(t *testing.T) {
	dt, err := npyio.ParseDescr("[('a', '<f8', (0,)), ('b', '<i4')]")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*npyio.Header{
		{DType: dt, Shape: []int{3}},
		{DType: npyio.Float64Type, Shape: []int{3, 0, 2}},
		{DType: npyio.Float64Type, Shape: []int{3, 2, 0}},
	} {
		_, err := arrowconv.Schema(h, "x")
		var ue *arrowconv.UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no elements") {
			t.Errorf("%s %v: %v, want an UnsupportedError", h.DType, h.Shape, err)
		}
	}
	if _, err := arrowconv.NewFixedShapeTensorType(arrow.PrimitiveTypes.Int8, []int{2, 0}, nil, nil); err == nil {
		t.Error("zero-element tensor type accepted")
	}
}
