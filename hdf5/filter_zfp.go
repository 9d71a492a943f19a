package hdf5

import (
	"errors"
	"fmt"

	"github.com/npyflow/npyflow/internal/zfp"
)

// decodeZFP undoes the H5Z-ZFP filter (32013) with the pure-Go decoder of
// internal/zfp. The zfp header (scalar type, the chunk's dimensions, the
// mode) is in the filter's cd_values; the chunk holds the blocks. The
// header must describe exactly the chunk's size and element size, so the
// output is the chunk's buffer and nothing the data claim is allocated.
func decodeZFP(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	h, err := zfp.ParseH5Z(p.CD)
	if err != nil {
		var ue *zfp.UnsupportedError
		if errors.As(err, &ue) {
			return nil, &codecUnsupportedError{Msg: ue.Error()}
		}
		return nil, err
	}
	if p.ElemSize != h.Type.Size() {
		return nil, fmt.Errorf("zfp header says %s values, the dataset's elements are %d bytes", h.Type, p.ElemSize)
	}
	if n := uint64(h.Len()) * uint64(h.Type.Size()); n != want {
		return nil, fmt.Errorf("zfp header describes %d %s values (dimensions %v, fastest first), the chunk holds %d bytes", h.Len(), h.Type, h.Dims, want)
	}
	out := codecBuf(want, want, dst)
	if err := h.Decode(src, out); err != nil {
		return nil, err
	}
	return out, nil
}
