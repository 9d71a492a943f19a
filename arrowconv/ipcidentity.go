package arrowconv

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
)

// A one-column IPC file whose values are stored as the .npy data (a
// fixed-width number, timestamp or duration column without nulls, whose
// numpy dtype has the same bytes) converts without reading its values into
// the process: the .npy header is written, then each record batch's value
// bytes are copied from the file to the output by the kernel
// (copy_file_range, as cp does) or, where that is not available, written
// from the mapping.

// identityDType returns the dtype (little-endian) whose elements are the
// bytes of an Arrow array of type t, or "" if there is none here.
func identityDType(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.Int8Type:
		return "|i1"
	case *arrow.Uint8Type:
		return "|u1"
	case *arrow.Int16Type:
		return "<i2"
	case *arrow.Uint16Type:
		return "<u2"
	case *arrow.Int32Type:
		return "<i4"
	case *arrow.Uint32Type:
		return "<u4"
	case *arrow.Int64Type:
		return "<i8"
	case *arrow.Uint64Type:
		return "<u8"
	case *arrow.Float16Type:
		return "<f2"
	case *arrow.Float32Type:
		return "<f4"
	case *arrow.Float64Type:
		return "<f8"
	case *arrow.TimestampType:
		return "<M8[" + t.Unit.String() + "]"
	case *arrow.DurationType:
		return "<m8[" + t.Unit.String() + "]"
	}
	return ""
}

// oneColumnFile reports whether an IPC file's metadata allows a copy as
// stored: one column of a type identityDType knows (and, mapIPC checks,
// in this machine's byte order). Other files are not mapped at all.
func oneColumnFile(info *IPCInfo) bool {
	return info.Schema != nil && info.Schema.NumFields() == 1 && identityDType(info.Schema.Field(0).Type) != ""
}

// fileRange is a part of the mapped file.
type fileRange struct{ off, n int64 }

// identityRanges returns where in the mapped file the values of every
// record batch of m's one column are, if the .npy data of m is exactly
// those bytes in order; ok false otherwise (more columns, another type, a
// null, compressed or byte-swapped buffers, which are not in the mapping).
// It reads only the metadata of the records (inside mi.Guard).
func identityRanges(mi *MappedIPC, m *Mapping, mem memory.Allocator) (ranges []fileRange, rows int64, ok bool, err error) {
	sch := m.Schema()
	if sch == nil || sch.NumFields() != 1 || len(m.RowShape()) != 0 {
		return nil, 0, false, nil
	}
	want := identityDType(sch.Field(0).Type)
	dt, err := m.DType()
	if want == "" || err != nil || dt.Kind == npyio.Struct || dt.TypeStr() != want {
		return nil, 0, false, nil
	}
	rr, err := mi.NewReader(mem)
	if err != nil {
		return nil, 0, false, err
	}
	defer rr.Release()
	if !rr.Schema().Equal(sch) {
		return nil, 0, false, nil
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mi.data)))
	size := uintptr(len(mi.data))
	width := int64(dt.Size)
	err = mi.Guard(func() error {
		for rr.Next() {
			col := rr.RecordBatch().Column(0)
			n := int64(col.Len())
			if n == 0 {
				continue
			}
			data := col.Data()
			bufs := data.Buffers()
			if col.NullN() != 0 || len(bufs) < 2 || bufs[1] == nil {
				return errNotIdentity
			}
			b := bufs[1].Bytes()
			start, end := int64(data.Offset())*width, int64(data.Offset())*width+n*width
			if end > int64(len(b)) {
				return errNotIdentity
			}
			p := uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(start)
			if p < base || p-base > size || uintptr(end-start) > size-(p-base) {
				return errNotIdentity // not a view of the file
			}
			off := int64(p - base)
			if k := len(ranges) - 1; k >= 0 && ranges[k].off+ranges[k].n == off {
				ranges[k].n += end - start
			} else {
				ranges = append(ranges, fileRange{off, end - start})
			}
			rows += n
		}
		return rr.Err()
	})
	if err == errNotIdentity {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, mappedErr(mi, err)
	}
	return ranges, rows, true, nil
}

type notIdentity struct{}

func (notIdentity) Error() string { return "not an identity column" }

var errNotIdentity error = notIdentity{}

// convertIdentity writes the .npy of a mapped file whose one column is its
// .npy data (see identityRanges); ok false (nothing written) if it is not
// such a file.
func convertIdentity(w io.Writer, mi *MappedIPC, opts *MapOptions, mem memory.Allocator) (rows int64, m *Mapping, ok bool, err error) {
	if mi.info.Schema == nil || mi.info.Schema.NumFields() != 1 {
		return 0, nil, false, nil
	}
	m, err = MapSchema(mi.info.Schema, opts)
	if err != nil || m.NeedsScan() {
		return 0, nil, false, nil // the general path gives the error
	}
	ranges, rows, ok, err := identityRanges(mi, m, mem)
	if !ok || err != nil {
		return 0, m, false, err
	}
	h, err := m.Header(rows)
	if err != nil {
		return 0, m, true, err
	}
	hb, err := npyio.EncodeHeader(h)
	if err != nil {
		return 0, m, true, err
	}
	if _, err := w.Write(hb); err != nil {
		return 0, m, true, fmt.Errorf("arrowconv: writing .npy: %w", err)
	}
	for _, r := range ranges {
		if err := copyRange(w, mi, r); err != nil {
			return 0, m, true, err
		}
	}
	return rows, m, true, nil
}

// copyRange copies the bytes r of the mapped file to w: by copy_file_range
// when w is a file (Linux), else by writing them from the mapping.
func copyRange(w io.Writer, mi *MappedIPC, r fileRange) error {
	if out, ok := w.(*os.File); ok {
		done, err := copyFileRange(out, mi.f, r.off, r.n)
		if err != nil {
			return fmt.Errorf("arrowconv: copying %s to %s: %w", mi.name, out.Name(), err)
		}
		if done == r.n {
			return nil
		}
		if done < r.n && mi.Changed() != nil {
			return mi.Changed()
		}
		r.off += done
		r.n -= done
	}
	return mi.Guard(func() error {
		if _, err := w.Write(mi.data[r.off : r.off+r.n]); err != nil {
			return fmt.Errorf("arrowconv: writing .npy: %w", err)
		}
		return nil
	})
}
