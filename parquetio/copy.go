package parquetio

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/npyflow/npyflow/npyio"
)

// Opener opens the source arrays of a table, one npyio.Reader per column
// source, positioned at the first row. It may be called up to three times
// for a table with time columns (see [WriteArray]).
type Opener func() ([]*npyio.Reader, error)

// observeRows is the batch size of the observation pass.
const observeRows = 1 << 16

// Restartable is an output a write can start over on: an *os.File. When a
// table with time columns is written to one, its data is read once (see
// [WriteArray]).
type Restartable interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
}

// WriteArray writes the array read by open to w as a Parquet file (see
// [NewArraySchema]) and returns the number of rows. progress, if not nil,
// is called with the rows committed so far.
//
// Datetime64 and timedelta64 values are laid out from the whole data (see
// [Schema]). When w is [Restartable], the data is read once: the time
// columns are planned from the first row group and every later row group
// is observed before it is encoded; only if one of them needs another
// layout (a first NaT, or a value out of the planned type's range) is w
// truncated back to where the file started and the data read twice, once
// to observe it and once to write, as it always is for other outputs. The
// file is the same either way; progress then pauses until the new write
// passes what was reported.
func WriteArray(w io.Writer, open Opener, name string, opts *Options, progress func(rows int64)) (int64, error) {
	rs, err := open()
	if err != nil {
		return 0, err
	}
	if len(rs) != 1 {
		return 0, errors.New("parquetio: WriteArray needs one reader")
	}
	return writeArray(w, rs[0].Header(), rs, open, name, opts, progress)
}

// WriteArrayAs is [WriteArray] for an array of header h, which the footer
// records (its dtype's byte order, a 0-d shape, fortran_order) in place of
// the reader's: open's reader delivers h's rows in C order, as a copy of
// the array read back from elsewhere (a scratch file) does.
func WriteArrayAs(w io.Writer, h *npyio.Header, open Opener, name string, opts *Options, progress func(rows int64)) (int64, error) {
	rs, err := open()
	if err != nil {
		return 0, err
	}
	if len(rs) != 1 {
		return 0, errors.New("parquetio: WriteArrayAs needs one reader")
	}
	return writeArray(w, h, rs, open, name, opts, progress)
}

func writeArray(w io.Writer, h *npyio.Header, rs []*npyio.Reader, open Opener, name string, opts *Options, progress func(rows int64)) (int64, error) {
	schema := func() (*Schema, error) { return NewArraySchema(h, name) }
	return write(w, schema, rs, open, opts, progress)
}

// WriteTable writes the columns read by open (one reader per column, all
// with the same number of rows) to w as one Parquet table. Time columns
// are handled as by [WriteArray].
func WriteTable(w io.Writer, cols []Column, open Opener, opts *Options, progress func(rows int64)) (int64, error) {
	schema := func() (*Schema, error) { return NewSchema(cols) }
	if _, err := schema(); err != nil {
		return 0, err
	}
	rs, err := open()
	if err != nil {
		return 0, err
	}
	return write(w, schema, rs, open, opts, progress)
}

func write(w io.Writer, schema func() (*Schema, error), rs []*npyio.Reader, open Opener, opts *Options, progress func(rows int64)) (int64, error) {
	s, err := schema()
	if err != nil {
		return 0, err
	}
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
	if !s.HasTime() {
		return writeAll(w, s, rs, opts, progress, false)
	}
	tsUnit := ""
	if opts != nil {
		tsUnit = opts.TimestampUnit
	}
	rw, start, ok, err := restartable(w)
	if err != nil {
		return 0, err
	}
	if ok && rs[0].Rows() > 0 {
		if progress != nil {
			// Monotone: after a restart, it waits for the new write
			// to pass what the first one reported.
			done, next := int64(0), progress
			progress = func(rows int64) {
				if rows > done {
					done = rows
					next(rows)
				}
			}
		}
		s.observeFor(tsUnit)
		n, err := writeAll(w, s, rs, opts, progress, true)
		if !errors.Is(err, errReplan) {
			return n, err
		}
		// Start over: observe everything, then write. The first
		// writer's buffers (row groups, pages) are garbage now: collect
		// them, so that peak memory stays that of one writer.
		runtime.GC()
		if err := rw.Truncate(start); err != nil {
			return 0, err
		}
		if _, err := rw.Seek(start, io.SeekStart); err != nil {
			return 0, err
		}
		if s, err = schema(); err != nil {
			return 0, err
		}
		if rs, err = open(); err != nil {
			return 0, err
		}
	}
	s.observeFor(tsUnit)
	if err := observe(s, rs); err != nil {
		return 0, err
	}
	if rs, err = open(); err != nil {
		return 0, err
	}
	return writeAll(w, s, rs, opts, progress, false)
}

// restartable returns w as a Restartable and where the file starts, if
// w can be truncated there: nothing follows the current position, and a
// truncation to it succeeds (not on a pipe or a device). It fails only
// if it cannot put the position back.
func restartable(w io.Writer) (rw Restartable, start int64, ok bool, err error) {
	rw, ok = w.(Restartable)
	if !ok {
		return nil, 0, false, nil
	}
	start, err = rw.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, false, nil // a pipe: written in two passes
	}
	end, err := rw.Seek(0, io.SeekEnd)
	if err != nil || end != start {
		if _, err := rw.Seek(start, io.SeekStart); err != nil {
			return nil, 0, false, err
		}
		return nil, 0, false, nil
	}
	if rw.Truncate(start) != nil {
		return nil, 0, false, nil
	}
	return rw, start, true, nil
}

// writeAll writes the rows of rs with a new Writer (speculative with
// spec, see newWriter).
func writeAll(w io.Writer, s *Schema, rs []*npyio.Reader, opts *Options, progress func(rows int64), spec bool) (int64, error) {
	pw, err := newWriter(w, s, opts, spec)
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
		pw.Abort() // encoders of earlier row groups may still run
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
