package codec

import (
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"
)

// DecodeBZip2 undoes the bzip2 filter (307) of PyTables, pandas
// (complib='bzip2') and the HDF5 filter plugins: a chunk is one bzip2
// stream. cd_values[0], the block size the stream was written with, is
// not needed to decode it (the stream names its own).
func DecodeBZip2(p Params, src []byte, want uint64, dst []byte) ([]byte, error) {
	out := Out(want, dst)
	out = out[:cap(out)]
	zr := bzip2.NewReader(bytes.NewReader(src))
	n, idle := 0, 0
	for {
		if idle > 100 {
			return nil, fmt.Errorf("bzip2 reader makes no progress")
		}
		if n == len(out) {
			// Full: the stream must end here.
			var one [1]byte
			k, err := zr.Read(one[:])
			if k > 0 {
				return nil, fmt.Errorf("decodes to over %d bytes", len(out))
			}
			if err == io.EOF {
				return out[:n], nil
			}
			if err != nil {
				return nil, err
			}
			idle++
			continue
		}
		k, err := zr.Read(out[n:])
		n += k
		if k == 0 {
			idle++
		} else {
			idle = 0
		}
		if err == io.EOF {
			return out[:n], nil
		}
		if err != nil {
			return nil, err
		}
	}
}
