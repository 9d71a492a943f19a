package matfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
)

// wBatchBytes is the size of the row batches WriteReader reads.
const wBatchBytes = 4 << 20

// wWholeUnicode is the largest v7.3 string variable WriteReader reads
// whole, so that characters outside the BMP can be stored (see
// write_v73.go); larger ones stream and refuse such characters.
const wWholeUnicode = 256 << 20

// WriteReader streams every remaining row of rd into the new variable
// name, in batches of about 4 MiB. (A v7.3 variable holding unicode
// strings, up to 256 MiB, is read whole first: see write_v73.go on
// characters outside the BMP.)
func (wr *Writer) WriteReader(name string, rd *npyio.Reader) error {
	h := rd.Header()
	if wr.v73 != nil && wHasUnicode(h.DType) && h.DataSize() <= wWholeUnicode && rd.Remaining() == rd.Rows() {
		data := make([]byte, 0, h.DataSize())
		for {
			b, err := rd.Next(int(max(1, rd.Rows())))
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			data = append(data, b.Data...)
		}
		hh := *h
		hh.DType = rd.DType()
		hh.FortranOrder = false
		vw, err := wr.createVariable(name, &hh, data)
		if err != nil {
			return err
		}
		if err := vw.Write(data); err != nil {
			vw.Close()
			return err
		}
		return vw.Close()
	}
	vw, err := wr.CreateVariable(name, h)
	if err != nil {
		return err
	}
	rows := 1
	if rs := rd.RowSize(); rs > 0 {
		rows = int(max(1, wBatchBytes/rs))
	}
	for {
		b, err := rd.Next(rows)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			vw.Close()
			if wr.err == nil {
				wr.err = err
			}
			return err
		}
		if err := vw.Write(b.Data); err != nil {
			vw.Close()
			return err
		}
	}
	return vw.Close()
}

// WriteNPZ writes every member of an npz archive as a variable, streaming
// each. Member names are checked together first (CheckNames): invalid
// ones are all listed in one error, or renamed with RenameInvalid (each
// rename passed to OnRename and listed by Renames).
func (wr *Writer) WriteNPZ(z *npyio.NPZReader) error {
	keys := z.Keys()
	names, renames, err := CheckNames(keys, wr.opts.RenameInvalid)
	if err != nil {
		return err
	}
	for _, r := range renames {
		wr.rename(r)
	}
	for i, m := range z.Members {
		rd, err := m.Open()
		if err != nil {
			return fmt.Errorf("matfile: npz member %q: %w", m.Key, err)
		}
		if err := wr.WriteReader(names[i], rd); err != nil {
			return err
		}
	}
	return nil
}

// wHasUnicode reports whether dt is or contains a U<n> string.
func wHasUnicode(dt *npyio.DType) bool {
	if dt.Kind == npyio.Unicode {
		return true
	}
	for i := range dt.Fields {
		if wHasUnicode(dt.Fields[i].Type) {
			return true
		}
	}
	return false
}
