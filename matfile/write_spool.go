package matfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
)

// wSpoolVar is a variable of unknown row count, or one holding U strings
// (whose char arrays' width in UTF-16 units depends on all of them): rows
// go to a temporary file, and the variable is written from it on Close.
type wSpoolVar struct {
	wr      *Writer
	name    string
	h       npyio.Header
	want    int64 // the declared row count, -1 when unknown
	rowSize int64
	f       *tempFile
	bw      *bufio.Writer
	rows    int64
	done    bool

	prov  *wPlan // the provisional plan (for the string layout)
	extra []int  // per leaf: units the strings need beyond their width, -1 for no pairs (see astral)
}

func (wr *Writer) createSpooled(name string, h *npyio.Header) (VarWriter, error) {
	if err := wr.usable(); err != nil {
		return nil, err
	}
	if h.DType == nil {
		return nil, fmt.Errorf("matfile: variable %q: no header", name)
	}
	// Check types and field names now, on a provisional shape (renames
	// are reported by the real plan at Close).
	hh := *h
	hh.DType = h.DType.Native()
	hh.Shape = append([]int(nil), h.Shape...)
	want := int64(-1)
	if len(hh.Shape) == 0 {
		want = 1 // a 0-d array: one row of one element
	} else if hh.Shape[0] >= 0 {
		want = int64(hh.Shape[0])
	} else {
		hh.Shape[0] = 0
	}
	quiet := *wr
	quiet.opts.OnRename = nil
	quiet.renames = nil
	p, err := quiet.plan(name, &hh, nil)
	if err != nil {
		return nil, err
	}
	if p.rowSize == 0 || want == 0 {
		if want >= 0 {
			// nothing to spool: no strings to look at
			return wr.createVariable(name, h, nil)
		}
		return nil, fmt.Errorf("matfile: variable %q: rows of zero bytes need a known row count (shape %v)", name, h.Shape)
	}
	n, err := wr.varName(name)
	if err != nil {
		return nil, err
	}
	f, err := newTempFile(wr.opts.TempDir, ".npyflow-mat-spool-*")
	if err != nil {
		return nil, fmt.Errorf("matfile: variable %q: spooling rows: %w", n, err)
	}
	v := &wSpoolVar{wr: wr, name: n, h: hh, want: want, rowSize: p.rowSize, f: f, bw: bufio.NewWriterSize(f, 1<<20),
		prov: p, extra: make([]int, len(p.leaves))}
	for i := range v.extra {
		v.extra[i] = -1
	}
	wr.names[n] = true
	wr.cur = v
	return v, nil
}

func (v *wSpoolVar) fail(err error) error {
	if v.wr.err == nil {
		v.wr.err = err
	}
	v.cleanup()
	return err
}

func (v *wSpoolVar) cleanup() {
	v.f.Close()
}

func (v *wSpoolVar) Write(rows []byte) error {
	if v.done {
		return errors.New("matfile: write to a closed variable")
	}
	if v.wr.err != nil {
		return v.wr.err
	}
	if int64(len(rows))%v.rowSize != 0 {
		return v.fail(fmt.Errorf("matfile: variable %q: %d bytes is not a whole number of %d-byte rows", v.name, len(rows), v.rowSize))
	}
	n := int64(len(rows)) / v.rowSize
	if v.want >= 0 && v.rows+n > v.want {
		return v.fail(fmt.Errorf("matfile: variable %q: more than its %d rows written", v.name, v.want))
	}
	v.rows += n
	for i, l := range v.prov.leaves {
		v.extra[i] = max(v.extra[i], l.astral(rows, n, v.prov))
	}
	if v.wr.l5 != nil && v.rows*v.rowSize > wLevel5MaxVar {
		return v.fail(fmt.Errorf("matfile: variable %q is over 2 GiB, the limit of a v%s MAT-file; write it as v7.3", v.name, v.wr.version))
	}
	if _, err := v.bw.Write(rows); err != nil {
		return v.fail(fmt.Errorf("matfile: variable %q: spooling rows: %w", v.name, err))
	}
	return nil
}

// Close writes the variable from the spooled rows.
func (v *wSpoolVar) Close() error {
	if v.done {
		return nil
	}
	v.done = true
	wr := v.wr
	wr.cur = nil
	if wr.err != nil {
		v.cleanup()
		return wr.err
	}
	defer v.cleanup()
	if err := v.bw.Flush(); err != nil {
		return v.fail(fmt.Errorf("matfile: variable %q: spooling rows: %w", v.name, err))
	}
	if _, err := v.f.Seek(0, io.SeekStart); err != nil {
		return v.fail(err)
	}
	if v.rows > int64(^uint(0)>>1) {
		return v.fail(fmt.Errorf("matfile: variable %q: too many rows", v.name))
	}
	if v.want >= 0 && v.rows != v.want {
		return v.fail(fmt.Errorf("matfile: variable %q: %d of %d rows written", v.name, v.rows, v.want))
	}
	if len(v.h.Shape) > 0 {
		v.h.Shape[0] = int(v.rows)
	}
	p, err := wr.plan(v.name, &v.h, nil)
	if err != nil {
		return v.fail(err)
	}
	for i, l := range p.leaves {
		l.widen(v.extra[i])
	}
	var vw VarWriter
	if wr.l5 != nil {
		vw, err = wr.l5.create(p)
	} else {
		vw, err = wr.v73.create(p)
	}
	if err != nil {
		return v.fail(err)
	}
	batch := max(1, (4<<20)/v.rowSize) * v.rowSize
	buf := make([]byte, min(batch, v.rows*v.rowSize))
	for left := v.rows * v.rowSize; left > 0; {
		b := buf[:min(int64(len(buf)), left)]
		if _, err := io.ReadFull(v.f, b); err != nil {
			return v.fail(fmt.Errorf("matfile: variable %q: reading spooled rows: %w", v.name, err))
		}
		if err := vw.Write(b); err != nil {
			return v.fail(err)
		}
		left -= int64(len(b))
	}
	if err := vw.Close(); err != nil {
		return v.fail(err)
	}
	return nil
}
