package matfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
)

// wBatchBytes is the size of the row batches WriteReader reads.
const wBatchBytes = 4 << 20

// WriteReader streams every remaining row of rd into the new variable
// name, in batches of about 4 MiB (through CreateVariable: a variable
// holding strings is spooled to a temporary file first).
func (wr *Writer) WriteReader(name string, rd *npyio.Reader) error {
	h := rd.Header()
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
