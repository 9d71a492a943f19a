package pipeline

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The Arrow IPC sink, on arrowconv: each batch becomes record batches of
// at most batch_rows rows, converted without copying where the layout
// allows and written before the batch's memory is reused.

func buildArrowSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	s, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	name := c.String("column")
	h := &npyio.Header{DType: in.DType, Shape: append([]int{0}, in.Shape...)}
	schema, err := arrowconv.Schema(h, name)
	if err != nil {
		return nil, c.Errorf("input", "cannot write %s to Arrow: %v", in, err)
	}
	opts := arrowconv.IPCOptions{}
	if c.String("format") == "stream" || !c.Has("format") && arrowconv.DefaultIPCOptions(c.String("path")).Format == arrowconv.IPCStream {
		opts.Format = arrowconv.IPCStream
	}
	switch c.String("compression") {
	case "zstd":
		opts.Compression = arrowconv.Zstd
	case "lz4":
		opts.Compression = arrowconv.LZ4
	}
	maxRows := int(c.Int("batch_rows"))
	as := &arrowSink{fileSink: s}
	s.open = func(f io.WriteSeeker) (batchWriter, error) {
		schema := schema
		if as.known {
			// The schema's metadata records the array's shape, as
			// Convert writes it: the rows are known from the plan.
			h := &npyio.Header{DType: in.DType, Shape: append([]int{int(as.next)}, in.Shape...)}
			if schema, err = arrowconv.Schema(h, name); err != nil {
				return nil, err
			}
		}
		w, err := arrowconv.NewIPCWriter(f, schema, opts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		return &arrowWriter{w: w, in: in, name: name, maxRows: maxRows}, nil
	}
	return as, nil
}

// arrowSink is the Arrow file sink; it records each output's row count
// in the schema's metadata when the plan knows it exactly.
type arrowSink struct {
	*fileSink
	known bool
	total int64 // rows of every part
	next  int64 // rows of the output being started
}

// knowRows is told the parts when every row reaches the sink unchanged.
func (s *arrowSink) knowRows(parts []*Part) {
	for _, p := range parts {
		if p.zeroD {
			return // a 0-d input's shape is (), not its one row
		}
		s.total += p.Rows
	}
	s.known = true
}

func (s *arrowSink) Begin(p *Part) error {
	s.next = s.total
	if s.path.perPart() {
		s.next = p.Rows
	}
	return s.fileSink.Begin(p)
}

type arrowWriter struct {
	w       arrowconv.IPCWriter
	in      *Schema
	name    string
	maxRows int
}

func (w *arrowWriter) Write(b Batch) error {
	rs := int(w.in.RowSize())
	for start := 0; start < b.Rows; start += w.maxRows {
		n := min(w.maxRows, b.Rows-start)
		a := &npyio.Array{
			Header: &npyio.Header{DType: w.in.DType, Shape: append([]int{n}, w.in.Shape...)},
			DType:  w.in.DType,
			Data:   b.Data[start*rs : (start+n)*rs],
		}
		rec, err := arrowconv.NewRecordBatch(a, w.name, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		err = w.w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *arrowWriter) Close() error { return w.w.Close() }
