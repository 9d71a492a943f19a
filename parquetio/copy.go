package parquetio

import (
	"errors"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
)

// Opener opens the source arrays of a table, one npyio.Reader per column
// source, positioned at the first row. It may be called twice: once to
// observe the time columns, once to write.
type Opener func() ([]*npyio.Reader, error)

// observeRows is the batch size of the observation pass.
const observeRows = 1 << 16

// WriteArray writes the array read by open to w as a Parquet file (see
// [NewArraySchema]) and returns the number of rows. When the dtype has
// datetime64 or timedelta64 values, open is called twice so the data can
// be observed first (see [Schema]). progress, if not nil, is called with
// the rows committed so far.
func WriteArray(w io.Writer, open Opener, name string, opts *Options, progress func(rows int64)) (int64, error) {
	rs, err := open()
	if err != nil {
		return 0, err
	}
	if len(rs) != 1 {
		return 0, errors.New("parquetio: WriteArray needs one reader")
	}
	s, err := NewArraySchema(rs[0].Header(), name)
	if err != nil {
		return 0, err
	}
	return write(w, s, rs, open, opts, progress)
}

// WriteTable writes the columns read by open (one reader per column, all
// with the same number of rows) to w as one Parquet table.
func WriteTable(w io.Writer, cols []Column, open Opener, opts *Options, progress func(rows int64)) (int64, error) {
	s, err := NewSchema(cols)
	if err != nil {
		return 0, err
	}
	rs, err := open()
	if err != nil {
		return 0, err
	}
	return write(w, s, rs, open, opts, progress)
}

func write(w io.Writer, s *Schema, rs []*npyio.Reader, open Opener, opts *Options, progress func(rows int64)) (int64, error) {
	if len(rs) != len(s.srcs) {
		return 0, fmt.Errorf("parquetio: %d readers for %d column sources", len(rs), len(s.srcs))
	}
	for i, r := range rs {
		if r.RowSize() != int64(s.srcs[i]) {
			return 0, fmt.Errorf("parquetio: reader %d has %d-byte rows, column %q needs %d", i, r.RowSize(), s.cols[i].Name, s.srcs[i])
		}
		if r.Rows() != rs[0].Rows() {
			return 0, fmt.Errorf("parquetio: column %q has %d rows, column %q has %d", s.cols[0].Name, rs[0].Rows(), s.cols[i].Name, r.Rows())
		}
	}
	if s.HasTime() {
		tsUnit := ""
		if opts != nil {
			tsUnit = opts.TimestampUnit
		}
		s.observeFor(tsUnit)
		if err := observe(s, rs); err != nil {
			return 0, err
		}
		var err error
		if rs, err = open(); err != nil {
			return 0, err
		}
	}
	pw, err := NewWriter(w, s, opts)
	if err != nil {
		return 0, err
	}
	if progress != nil {
		pw.OnRowGroup(progress)
	}
	if len(rs) == 1 {
		if _, err := pw.ReadFrom(rs[0]); err != nil {
			pw.Abort()
			return 0, err
		}
	} else if err := copyColumns(pw, rs); err != nil {
		pw.Abort()
		return 0, err
	}
	if err := pw.Close(); err != nil {
		return 0, err
	}
	return pw.Rows(), nil
}

func copyColumns(pw *Writer, rs []*npyio.Reader) error {
	cols := make([][]byte, len(rs))
	batch := max(1, min(pw.RowGroupRows(), observeRows))
	for rs[0].Remaining() > 0 {
		n := 0
		for i, r := range rs {
			b, err := r.Next(batch)
			if err != nil {
				return err
			}
			if i > 0 && b.Rows != n {
				return fmt.Errorf("parquetio: column sources out of step (%d vs %d rows)", b.Rows, n)
			}
			cols[i], n = b.Data, b.Rows
		}
		if err := pw.WriteColumns(cols, n); err != nil {
			return err
		}
	}
	return nil
}

// observe reads the sources holding time columns (the others are not
// read) and observes them, stopping early once more data could not
// change the layout.
func observe(s *Schema, rs []*npyio.Reader) error {
	need := make([]bool, len(rs))
	for _, l := range s.leaves {
		if l.isTime {
			need[l.src] = true
		}
	}
	cols := make([][]byte, len(rs))
	for {
		n := -1
		for i, r := range rs {
			if !need[i] {
				continue
			}
			if r.Remaining() == 0 {
				return nil
			}
			b, err := r.Next(observeRows)
			if err != nil {
				return err
			}
			if n >= 0 && b.Rows != n {
				return fmt.Errorf("parquetio: column sources out of step (%d vs %d rows)", b.Rows, n)
			}
			cols[i], n = b.Data, b.Rows
		}
		if n < 0 {
			return nil
		}
		s.Observe(cols, n)
		if s.observeDone() {
			return nil
		}
	}
}
